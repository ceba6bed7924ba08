"""What every part of the bench agrees on: the inputs, the sample rate, the loudness that counts as sound."""

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent  # scripts/bench: server.py and the entry points
RATE = 48000  # the null sink, the generated MP3s and the monitor recording all run at 48 kHz
THRESHOLD = 300  # |sample| above this (about -41 dBFS) is sound; the test signal starts at full level
SINK = "bench"
API_KEY = "bench-key"  # the loopback API accepts anything
INPUTS = {  # name -> seconds; generated once and cached (see --cache)
    "ttfs": 10,  # time to first sound, cold start, lists
    "min1": 60,  # CPU while playing, memory (1 minute)
    "min30": 1800,  # memory (30 minutes), decode throughput
    "min5": 300,  # sonogram (5 minutes)
}
# The seek file: silence, then a 1 kHz tone, then a 1.5 kHz tone, then silence. The first sound after a seek
# to SEEK_TARGET can only come from the new position, and which tone it is, and when it changes, tell where the
# seek landed.
SEEK_NAME = "seek65"
SEEK_SECONDS = 65
SEEK_TARGET = 30.0
SEEK_TONES = ((29.9, 1000), (30.5, 1500), (31.5, None))  # (start s, Hz); None: silence from there on
GATE = 1.15  # chirper-play's xeno-canto client starts at most one request a second: pace past it


def log(text):
    print(f"[bench {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def run(cmd, **kwargs):
    return subprocess.run(cmd, check=True, **kwargs)


def first_line(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        text = (out.stdout or out.stderr).strip().splitlines()
        return " ".join(text[0].split()) if text else "?"
    except (OSError, subprocess.TimeoutExpired):
        return "?"


def turns(n):
    """Who goes first in run `n`: the two programs take turns, so that neither always runs after the other."""
    return ("chirper", "mpg123") if n % 2 == 0 else ("mpg123", "chirper")
