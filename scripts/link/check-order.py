#!/usr/bin/env python3
"""Fails (or warns, with --warn) when the link order file no longer names the release binary's functions.

    python3 scripts/link/check-order.py --binary .build-bench/release/chirper-play \\
        --order scripts/link/chirper-play.order [--warn]

`make bench` fails on a stale file, since its figures would measure a layout nobody chose; `make run` and
`make install` only warn, since the program works the same either way.
"""

import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))

from chirperbench.linkorder import binary_names, read_order, staleness, verdict  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--order", required=True)
    parser.add_argument("--warn", action="store_true", help="print the line, but do not fail")
    args = parser.parse_args()
    try:
        gone, named = staleness(read_order(args.order), binary_names(args.binary))
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"{'warning' if args.warn else 'error'}: cannot check the link order file: {error}", file=sys.stderr)
        return 0 if args.warn else 1
    line = verdict(gone, named)
    if line is None:
        print(f"link order: {named - gone} of the {named} functions it names are in the binary")
        return 0
    print(("warning: " if args.warn else "error: ") + line, file=sys.stderr)
    return 0 if args.warn else 1


if __name__ == "__main__":
    sys.exit(main())
