"""The generated inputs: MP3s that are sound from their first sample, the seek file's tones, and an offline
catalogue of the longest file, made once and kept in the cache folder between runs."""

import json
import os
import subprocess

from .common import INPUTS, RATE, SEEK_NAME, SEEK_SECONDS, SEEK_TONES, log, run


def generate_inputs(cache):
    """Pink noise plus a 3 kHz tone at half scale, 48 kHz stereo, CBR 128 kbps (lame); audible from sample 1."""
    cache.mkdir(parents=True, exist_ok=True)
    for name, seconds in INPUTS.items():
        path = cache / f"{name}.mp3"
        if path.exists() and path.stat().st_size > seconds * 15000:
            continue
        log(f"generating {path} ({seconds} s)")
        partial = path.with_suffix(".part")
        sox = subprocess.Popen(
            ["sox", "-V1", "-n", "-r", str(RATE), "-c", "2", "-b", "16", "-t", "wav", "-",
             "synth", str(seconds), "pinknoise", "mix", "sine", "3000", "vol", "0.5"],
            stdout=subprocess.PIPE,
        )
        run(["lame", "--quiet", "-b", "128", "-", str(partial)], stdin=sox.stdout)
        sox.stdout.close()
        if sox.wait() != 0:
            raise SystemExit("sox failed")
        partial.rename(path)
    seek = cache / f"{SEEK_NAME}.mp3"
    if not (seek.exists() and seek.stat().st_size > SEEK_SECONDS * 15000):
        log(f"generating {seek} ({SEEK_SECONDS} s: silence, two tones from {SEEK_TONES[0][0]} s, silence)")
        partial = seek.with_suffix(".part")
        sox = subprocess.Popen(["sox", "-V1", "-n", "-r", str(RATE), "-c", "2", "-b", "16", "-t", "wav", "-"]
                               + seek_synth(), stdout=subprocess.PIPE)
        run(["lame", "--quiet", "-b", "128", "-", str(partial)], stdin=sox.stdout)
        sox.stdout.close()
        if sox.wait() != 0:
            raise SystemExit("sox failed")
        partial.rename(seek)
    catalog = cache / "catalog"
    (catalog / "audio").mkdir(parents=True, exist_ok=True)
    target = catalog / "audio" / "min30.mp3"
    if not target.exists():
        os.link(cache / "min30.mp3", target)  # same folder tree: a hard link, no second copy
    (catalog / "catalog.json").write_text(json.dumps(catalog_page()))
    return catalog


def seek_synth():
    """sox's `synth` effects for the seek file: silence up to the first tone, the tones, silence to its end."""
    synth = ["synth", str(SEEK_TONES[0][0]), "sine", "1000", "vol", "0"]
    for (start, hz), (end, _) in zip(SEEK_TONES, SEEK_TONES[1:]):
        synth += [":", "synth", f"{end - start:.3f}", "sine", str(hz), "vol", "0.5"]
    synth += [":", "synth", f"{SEEK_SECONDS - SEEK_TONES[-1][0]:.3f}", "sine", "1000", "vol", "0"]
    return synth


def catalog_page():
    """The offline catalogue: one recording, the 30-minute file, as `--catalog` reads it."""
    record = {"id": "BENCH-30", "en": "Bench long tone", "gen": "Synthetica", "sp": "benchmarkii", "grp": "birds",
              "rec": "bench", "cnt": "Loopback", "type": "song", "q": "A", "length": "30:00",
              "lic": "https://creativecommons.org/publicdomain/zero/1.0/", "file": "audio/min30.mp3",
              "file-name": "min30.mp3", "also": []}
    return {"numRecordings": "1", "numSpecies": "1", "page": 1, "numPages": 1, "recordings": [record]}
