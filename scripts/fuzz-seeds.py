#!/usr/bin/env python3
"""Writes the seed corpus for `make fuzz`: one folder per fuzz target (see FuzzTarget.all) under the folder
given. Seeds come from the demo catalog, the real replies and recordings in ../shared/xeno-canto (where present:
the first 48 KiB of each recording, ID3 tag and Info header included), WAV and MP3 fixtures made here with
sox and lame when they are installed, and a quiz store made with Python's sqlite3. Audio seeds begin with the
bytes the targets read first (a piece-size seed; for `stream`, where to seek and to which frame)."""
import json
import os
import pathlib
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile

out = pathlib.Path(sys.argv[1])
root = pathlib.Path(__file__).resolve().parent.parent
shared = root.parent / "shared/xeno-canto"
rng = random.Random(7)
seeds: dict[str, dict[str, bytes]] = {}


def add(target: str, name: str, data: bytes) -> None:
    seeds.setdefault(target, {})[name] = data


# Text: pages, commands, queries, terminal text, desktop URIs.
pages = [root / "assets/demo/catalog.json"]
if (shared / "api").is_dir():
    pages += sorted(p for p in (shared / "api").glob("*.json") if p.stat().st_size < 200_000)
for page in pages:
    add("page", page.stem[:40], page.read_bytes())
for i, line in enumerate(["search wren cnt:spain q:A", "play 12", "next-page", "info #3", "help tags", "plya 1",
                          "sono 1 2-9 0:12-0:15 --png a.png", "loop 0:10 0:12", "quiz fam:sylviidae --mode sono"]):
    add("command", f"line-{i}", line.encode())
for i, query in enumerate(['common blackbird cnt:united kingdom', 'sp:"larus fuscus" len:">30"', 'q:<C', 'en:"=wren']):
    add("query", f"query-{i}", query.encode())
add("sanitise", "escapes", b"Wren\x1b]0;title\x07\x1b[31mred\x9b2J\xe2\x80\xae")
for i, uri in enumerate(["https://xeno-canto.org/254462/download", "XC254462", "file:///etc/passwd", "254462"]):
    add("desktop", f"uri-{i}", uri.encode())

# Audio: real recordings, and fixtures of every kind the decoders meet.
audio: dict[str, bytes] = {}
if (shared / "audio").is_dir():
    for path in sorted((shared / "audio").glob("*")):
        audio[path.stem[:24]] = path.read_bytes()[:48 * 1024]
work = pathlib.Path(tempfile.mkdtemp())
try:
    if shutil.which("sox"):
        for name, args in {
            "wav-s16": ["-b", "16", "-e", "signed-integer"], "wav-u8": ["-b", "8", "-e", "unsigned-integer"],
            "wav-s24": ["-b", "24", "-e", "signed-integer"], "wav-s32": ["-b", "32", "-e", "signed-integer"],
            "wav-f32": ["-b", "32", "-e", "floating-point"], "wav-alaw": ["-e", "a-law"],
            "wav-ulaw": ["-e", "u-law"], "wav-stereo": ["-c", "2", "-b", "16"],
        }.items():
            target = work / f"{name}.wav"
            subprocess.run(["sox", "-n", "-r", "8000"] + args + [str(target), "synth", "0.3", "sine", "440"],
                           check=True, capture_output=True)
            audio[name] = target.read_bytes()
        if shutil.which("lame"):
            source = work / "tone.wav"
            subprocess.run(["sox", "-n", "-r", "22050", "-c", "1", "-b", "16", str(source), "synth", "1", "sine",
                            "440"], check=True, capture_output=True)
            for name, options in {"mp3-cbr": ["-b", "64"], "mp3-vbr": ["-V", "5"], "mp3-notag": ["-b", "32", "-t"],
                                  "mp3-8k": ["--resample", "8", "-b", "16"]}.items():
                target = work / f"{name}.mp3"
                subprocess.run(["lame", "--quiet"] + options + [str(source), str(target)], check=True)
                audio[name] = target.read_bytes()
finally:
    shutil.rmtree(work)
for name, data in audio.items():
    add("sniffer", name, bytes([rng.randrange(256)]) + data)
    add("stream", name, bytes([rng.randrange(256)]) + rng.randrange(65536).to_bytes(2, "little")
        + rng.randrange(1 << 24).to_bytes(3, "little") + data)
    if data.startswith(b"RIFF"):
        add("wav", name, bytes([rng.randrange(256)]) + data[4:])
for i in range(8):
    add("wav-fields", f"random-{i}", bytes(rng.randrange(256) for _ in range(200 + 100 * i)))
    add("mp3-frames", f"random-{i}", bytes(rng.randrange(256) for _ in range(2000 + 1000 * i)))
    add("held-bytes", f"random-{i}", bytes(rng.randrange(256) for _ in range(300)))

# Files of one's own: the header readers take structured inputs (any bytes build a file), GUANO text, and the
# names field recorders give their files.
for i in range(8):
    add("wav-header", f"random-{i}", bytes(rng.randrange(256) for _ in range(200 + 100 * i)))
    add("flac-header", f"random-{i}", bytes(rng.randrange(256) for _ in range(100 + 60 * i)))
add("guano", "specification", b"GUANO|Version: 1.0\nTimestamp: 2012-03-29T03:58:01+04:00\nSpecies Manual ID: Myosod\n"
    b"Note: Hand release.\\nReleased.\nTE: 10\nLength: 6.5\nMake: Pettersson\nModel: D1000X\n"
    b"Loc Position: 37.1878016 -86.1057312\nLoc Elevation: 228.6\nPET|D500X|TSens: high\n\0\0")
for i, name in enumerate(["20250612_053000.WAV", "S4A12345_20250612_053000.wav", "SITE-20240229T2359_1.flac"]):
    add("recorder-name", f"name-{i}", name.encode())

# What is read back from disk.
add("cache-index", "index", b"\x00\x00\x10" + json.dumps(
    {"entries": {"254462": {"file": "XC254462.mp3", "size": 123456, "lastUse": 1.7e9},
                 "34430": {"file": "XC34430.mp3", "size": 999, "lastUse": 1.6e9}}}).encode())
demo = json.loads((root / "assets/demo/catalog.json").read_text())
recordings = demo["recordings"] if isinstance(demo, dict) else demo
sidecar = dict(recordings[0], file="XC254462.mp3", fetched="2026-11-26T00:00:00Z")
add("sidecar", "demo", json.dumps(sidecar, sort_keys=True, indent=2).encode())
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "quiz.sqlite")
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE decks(id INTEGER PRIMARY KEY, name TEXT UNIQUE);
        CREATE TABLE cards(id INTEGER PRIMARY KEY, species TEXT, sound TEXT, stability REAL, difficulty REAL,
                           due REAL, reps INTEGER, lapses INTEGER);
        CREATE TABLE answers(id INTEGER PRIMARY KEY, card INTEGER, at REAL, right INTEGER, answered TEXT);
        INSERT INTO decks(name) VALUES ('fam:sylviidae');
        INSERT INTO cards VALUES (1, 'Sylvia atricapilla', 'song', 3.1, 5.0, 1.8e9, 2, 0);
        PRAGMA user_version = 1;""")
    db.commit()
    db.close()
    add("quiz-store", "small", pathlib.Path(path).read_bytes())

for target, files in seeds.items():
    folder = out / target
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
print(" ".join(f"{target}:{len(files)}" for target, files in sorted(seeds.items())) + " seeds in " + str(out))
