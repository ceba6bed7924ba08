"""The loopback HTTP server (server.py beside the entry points): the generated MP3s and a fake xeno-canto API."""

import json
import re
import subprocess
import sys

import server  # scripts/bench/server.py: every entry point has its folder on the path

from .common import HERE, INPUTS, SEEK_NAME, SEEK_SECONDS


def lengths():
    """Each served file's length as the API shows it (`m:ss`)."""
    return {f"{name}.mp3": f"{s // 60}:{s % 60:02d}" for name, s in list(INPUTS.items()) + [(SEEK_NAME, SEEK_SECONDS)]}


def serve(cache, stderr):
    """Starts the server on the MP3s in `cache`, its log to `stderr`; returns (process, base URL) once it listens."""
    process = subprocess.Popen(
        [sys.executable, str(HERE / "server.py"), "--audio-dir", str(cache), "--pages", "1000",
         "--lengths", json.dumps(lengths())],
        stdout=subprocess.PIPE, stderr=stderr, text=True)
    line = process.stdout.readline()
    match = re.match(r"port=(\d+)", line)
    if not match:
        raise SystemExit(f"the loopback server did not start: {line!r}")
    return process, f"http://127.0.0.1:{match.group(1)}"


def recording_id(name, row):
    """The id the server gives row `row` of `en:NAME` (its audio URL's, which the play cache keys)."""
    return server.recording_id(name, row)
