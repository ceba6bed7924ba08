"""`bench.py`'s arguments, and the checks that the programs it runs are there before it starts."""

import argparse
import os
import shutil
import tempfile

from .harness import Bench
from .runner import run

ALL = "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"
TOOLS = ("mpg123", "pulseaudio", "parec", "pactl", "sox", "soxi", "lame", "flac", "/usr/bin/time")


def figure_numbers(text):
    """`--only`'s value: figure numbers separated by commas."""
    return {int(x) for x in text.split(",")}


def parser(description):
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the chirper-play to measure (a release build)")
    parser.add_argument("--floor", help="chirper-floor (a release build): the HTTP client alone, for figures 2f "
                        "and 4e, the floor under chirper-play's cold start and memory")
    parser.add_argument("--write", help="update this Markdown file (BENCH.md) with the figures")
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "chirper-bench-inputs"),
                        help="where the generated inputs are kept between runs (default: %(default)s)")
    parser.add_argument("--runs", type=int, default=15, help="runs per program for figures 1 and 2 (~1 s each)")
    parser.add_argument("--list-runs", type=int, default=9, help="samples of each list figure (6)")
    parser.add_argument("--cpu-runs", type=int, default=3,
                        help="rounds of figure 3 (each ~62 s) and of figure 9 (each ~122 s)")
    parser.add_argument("--mem-runs", type=int, default=5,
                        help="runs per program and file for figures 4, 5, 14b, 14c, 15")
    parser.add_argument("--seek-runs", type=int, default=9, help="runs per program for figures 8 (~5 s each) and 14d")
    parser.add_argument("--sono-runs", type=int, default=5,
                        help="runs per program for figures 10, 12, 13 (~1-3 s each) and 14a")
    parser.add_argument("--check-runs", type=int, default=2, help="runs per program for figure 7 (~15 s each)")
    parser.add_argument("--only", default=ALL, type=figure_numbers, help="figures to measure (default: all)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs, outputs)")
    return parser


def main(description):
    args = parser(description).parse_args()
    for tool in TOOLS:
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is missing: make deps-bench installs it")
    if not os.access(args.binary, os.X_OK):
        raise SystemExit(f"{args.binary} is not an executable: build it first (make bench does)")
    if args.floor and not os.access(args.floor, os.X_OK):
        raise SystemExit(f"{args.floor} is not an executable: build it first (make bench does)")
    run(Bench(args))
