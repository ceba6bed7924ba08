#!/usr/bin/env python3
"""`make bench`: chirper-play against mpg123, side by side, in one run.

Starts a loopback HTTP server (scripts/bench/server.py: generated MP3s and a fake xeno-canto v3 API) and a
private PulseAudio server with a null sink, runs both players on the same inputs, prints a table, and
writes the same figures into BENCH.md (between the `bench:begin` / `bench:end` markers; the text around
them is kept). Stdlib only. No figure here goes into a test.

    python3 scripts/bench/bench.py --binary .build-bench/release/chirper-play [--write BENCH.md]
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chirperbench.cli import main  # noqa: E402  (the package beside this script)

if __name__ == "__main__":
    main(__doc__)
