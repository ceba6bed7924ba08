"""The inputs of figures 14 (one's own recordings): a folder of 1,000 short WAV files as field recorders name
them (mixed rates and channels, some with GUANO or INFO metadata), a 1-hour mono WAV, 1-minute and 2-hour WAVs
made sparsely, and a 2-hour FLAC with the seek file's tones at 1:30:00 beside the same as an MP3. Made once
into the input cache; a file is written under another name and renamed when complete."""

import struct
import subprocess

from .common import RATE, SEEK_TARGET, SEEK_TONES, log, run

FOLDER = "own-folder"  # the 1,000 files, in ten sub-folders of 100 (`open` walks folders recursively)
FOLDER_FILES = 1000
RATES = (8000, 16000, 22050, 44100, 48000, 96000, 192000, 256000, 384000)
CHANNELS = (1, 2, 1, 4)
SONO_NAME, SONO_SECONDS = "own-1h.wav", 3600
LONG_NAME, LONG_SECONDS = "own-2h.wav", 7200
SHORT_NAME, SHORT_SECONDS = "own-1min.wav", 60
SEEK_LONG_SECONDS = 7200
SEEK_LONG_TARGET = 5400.0  # 1:30:00
SEEK_LONG_FLAC, SEEK_LONG_MP3 = "own-seek-2h.flac", "own-seek-2h.mp3"


def wav_header(rate, channels, bits, frames, extra=b""):
    """A canonical PCM WAV header (RIFF, `fmt `, then `extra` chunks, then the `data` chunk's header) for
    `frames` frames; the data chunk itself follows it."""
    block = channels * bits // 8
    data = frames * block
    fmt = struct.pack("<HHIIHH", 1, channels, rate, rate * block, block, bits)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + extra + b"data" + struct.pack("<I", data)
    return b"RIFF" + struct.pack("<I", len(body) - 4 + 4 + data + (data & 1)) + body


def chunk(tag, payload):
    """One RIFF chunk, padded to an even length."""
    return tag + struct.pack("<I", len(payload)) + payload + (b"\0" if len(payload) & 1 else b"")


def guano(n):
    """A GUANO `guan` chunk as bat detectors write it."""
    text = (f"GUANO|Version: 1.0\nTimestamp: 2025-06-{1 + n % 28:02d}T05:30:00+02:00\nLoc Position: 52.{n % 97:02d} "
            f"5.{n % 89:02d}\nMake: Wildlife Acoustics\nModel: Song Meter Mini Bat\nSpecies Manual ID: Pipistrellus "
            "pipistrellus\n")
    return chunk(b"guan", text.encode())


def info_list(n):
    """A RIFF `LIST`/`INFO` chunk with a comment and an artist."""
    return chunk(b"LIST", b"INFO" + chunk(b"ICMT", f"bench file {n}\0".encode()) + chunk(b"IART", b"bench\0"))


def folder_file(n):
    """File `n` of the folder: (relative path, rate, channels, bits, extra chunks). Names as field recorders
    write them; one file in four carries GUANO, one in five an INFO list; bits 16, every third 24."""
    rate, channels = RATES[n % len(RATES)], CHANNELS[n % len(CHANNELS)]
    bits = 24 if n % 3 == 2 else 16
    extra = (guano(n) if n % 4 == 0 else b"") + (info_list(n) if n % 5 == 0 else b"")
    day, minute = 1 + n // 100, n % 100
    name = f"night{1 + n // 100:02d}/BENCH_202506{day:02d}_{21 + minute // 60:02d}{minute % 60:02d}00.WAV"
    return name, rate, channels, bits, extra


def make_folder(cache):
    """The 1,000 files (0.2 s each, a quiet ramp: content does not matter, the headers do)."""
    folder = cache / FOLDER
    done = folder / ".complete"
    if done.exists():
        return folder
    log(f"generating {folder} ({FOLDER_FILES} WAV files)")
    for n in range(FOLDER_FILES):
        name, rate, channels, bits, extra = folder_file(n)
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        frames = rate // 5
        sample = bytes(range(bits // 8)) * channels
        path.write_bytes(wav_header(rate, channels, bits, frames, extra) + sample * frames)
    done.write_text("")
    return folder


def folder_files(folder):
    """The folder's audio files, sorted (the peer gets them all in one argument list)."""
    return sorted(str(p) for p in folder.rglob("*.WAV"))


def make_sparse_wav(path, seconds):
    """A mono 16-bit WAV of `seconds` at RATE, silence, made sparsely (a hole the file system does not
    store): instant, whatever its length."""
    if path.exists():
        return
    log(f"generating {path} ({seconds} s, sparse)")
    frames = seconds * RATE
    partial = path.with_suffix(".part")
    with open(partial, "wb") as out:
        out.write(wav_header(RATE, 1, 16, frames))
        out.truncate(len(wav_header(RATE, 1, 16, frames)) + frames * 2)
    partial.rename(path)


def make_sono_wav(path, seconds):
    """A mono 48 kHz WAV of pink noise and a 3 kHz tone (the MP3 inputs' sound), written by sox."""
    if path.exists():
        return
    log(f"generating {path} ({seconds} s, sox synth)")
    partial = path.with_name(path.name + ".part")
    run(["sox", "-V1", "-n", "-r", str(RATE), "-c", "1", "-b", "16", "-t", "wav", str(partial),
         "synth", str(seconds), "pinknoise", "mix", "sine", "3000", "vol", "0.5"])
    partial.rename(path)


def long_seek_synth(seconds=SEEK_LONG_SECONDS, target=SEEK_LONG_TARGET):
    """sox's `synth` effects for the long seek file: the seek file's tones, at the same places around `target`
    as they are around SEEK_TARGET in the 65 s file, silence before and after."""
    shift = target - SEEK_TARGET
    starts = [(start + shift, hz) for start, hz in SEEK_TONES]
    synth = ["synth", f"{starts[0][0]:.3f}", "sine", "1000", "vol", "0"]
    for (start, hz), (end, _) in zip(starts, starts[1:]):
        synth += [":", "synth", f"{end - start:.3f}", "sine", str(hz), "vol", "0.5"]
    synth += [":", "synth", f"{seconds - starts[-1][0]:.3f}", "sine", "1000", "vol", "0"]
    return synth


def make_seek_pair(cache):
    """The 2-hour FLAC (flac's default seek table: a point every 10 s; raw input of a stated size, so that flac
    knows the length and can place the points) and the same sound as a CBR 128 kbps MP3 (lame), for the peer."""
    flac, mp3 = cache / SEEK_LONG_FLAC, cache / SEEK_LONG_MP3
    size = SEEK_LONG_SECONDS * RATE * 2
    encoders = {
        flac: ["flac", "--silent", "-f", "--force-raw-format", "--endian=little", "--sign=signed", "--channels=1",
               "--bps=16", f"--sample-rate={RATE}", f"--input-size={size}", "-o"],
        mp3: ["lame", "--quiet", "-r", "-s", str(RATE / 1000), "--bitwidth", "16", "-m", "m", "-b", "128", "-"],
    }
    for path, encoder in encoders.items():
        if path.exists():
            continue
        log(f"generating {path} ({SEEK_LONG_SECONDS} s: silence, two tones from "
            f"{SEEK_LONG_TARGET + SEEK_TONES[0][0] - SEEK_TARGET:g} s, silence)")
        partial = path.with_name(path.name + ".part")
        sox = subprocess.Popen(["sox", "-V1", "-n", "-r", str(RATE), "-c", "1", "-b", "16", "-e", "signed",
                                "-t", "raw", "-"] + long_seek_synth(), stdout=subprocess.PIPE)
        tail = [str(partial), "-"] if path == flac else [str(partial)]
        run(encoder + tail, stdin=sox.stdout)
        sox.stdout.close()
        if sox.wait() != 0:
            raise SystemExit("sox failed")
        partial.rename(path)
    return flac, mp3
