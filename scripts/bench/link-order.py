#!/usr/bin/env python3
"""Writes the link order of chirper-play's functions: the ones a session runs, first, together.

    python3 scripts/bench/link-order.py --binary .build-bench/release/chirper-play \\
        --write scripts/link/chirper-play.order

The release binary is about 36 MB of code and read-only data, and a session runs a few MB of it scattered
over all of it. Each first touch of a page faults, and the kernel maps the 16 pages around it (all counted
in the resident size). `make run`, `make install` and `make bench` link with lld and
`--symbol-ordering-file`, which puts the functions named in this file first, in this order, so that what
runs sits in a few MB.

The functions are the ones valgrind's callgrind sees run in these sessions: a search and a play to null
to its end (make bench's figures 4a and 4b), the same to PulseAudio (figures 2, 3 and 4d), a terminal
session with the status line and the live strip (11a), `--version`, a search with next-page, a seek, the
offline catalogue with a sonogram, and `--help`. The kernel maps a file's pages 64 KiB at a time around
each first touch, so what a session has resident is every 64 KiB block holding a function it runs: the
functions are grouped by the sessions that run them, the groups laid out in reflected Gray-code order of
those sessions (most important first), so that each of the first two sessions' functions are one
contiguous run, the third's two runs, and so on; a function run only by later sessions never sits among
the first session's. It uses `make bench`'s inputs, loopback server and private PulseAudio.

A stale file does no harm to the program, but lays out less of what runs: lld skips names that are no longer
there (`--no-warn-symbol-ordering`), and a new function not named here is only laid out with the rest.
`scripts/link/check-order.py` counts what is gone: `make bench` fails past a tenth, `make run` and
`make install` warn. Needs valgrind (`apt-get install valgrind`).
"""

import argparse
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chirperbench.common import API_KEY, log  # noqa: E402
from chirperbench.inputs import generate_inputs  # noqa: E402
from chirperbench.loopback import serve  # noqa: E402
from chirperbench.pulse import Pulse  # noqa: E402


def scenarios(api):
    """(name, arguments, lines written, terminal?), most important first (see gray_order)."""
    return [
        ("stream-null", ["--api-url", api, "--output", "null"],
         ["search en:min1", "play 1", "wait", "quit"], False),
        ("play-pulse", ["--api-url", api, "--output", "pulse"],
         ["search en:ttfs", "play 1", "wait", "quit"], False),
        ("terminal", ["--api-url", api, "--output", "pulse"],
         ["search en:ttfs", "play 1", "sono on", "play 1", "quit"], True),
        ("version", ["--version"], [], False),
        ("pages-decode", ["--api-url", api, "--output", "null", "--cache-size", "0"],
         ["search en:min1", "next-page", "play 1", "wait", "quit"], False),
        ("seek", ["--api-url", api, "--output", "pulse"],
         ["search en:seek65", "play 1", "seek 0:30", "seek 0:02", "stop", "quit"], False),
        ("offline-sono", ["--catalog", "{catalog}", "--output", "null"],
         ["search bench", "sono 1", "cite 1", "play 1", "wait", "quit"], False),
        ("help", ["--help"], [], False),
    ]


def gray_order(sessions):
    """All the functions of `sessions` ([(name, set of functions)], most important first), in the order of
    the reflected Gray code of which sessions run them (those the first session runs first), by name within
    a group. Adjacent groups differ in one session, so session k's functions lie in at most 2^(k-1) runs."""
    everything = set().union(*(functions for _, functions in sessions))

    def rank(name):
        value, bit = 0, 0
        for index, (_, functions) in enumerate(sessions):
            gray = (name not in functions) if index == 0 else (name in functions)
            bit ^= gray
            value = value * 2 + bit
        return value

    return sorted(everything, key=lambda name: (rank(name), name))


def called_functions(profile):
    names = []
    for line in profile.read_text(errors="replace").splitlines():
        if line.startswith(("fn=", "cfn=")):
            name = re.sub(r"'\d+$", "", line.split("=", 1)[1].strip())  # callgrind's recursion marks
            if not name.startswith("0x"):
                names.append(name)
    return names


def run_plain(command, lines, env):
    feed = "".join(f"{line}\n" for line in lines).encode()
    try:
        subprocess.run(command, input=feed, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=600, check=False)
    except subprocess.TimeoutExpired:
        log("a session did not end in 600 s; its profile so far is used")


def run_terminal(command, lines, env):
    """On a pseudo-terminal: each line is typed after the previous one's output has settled."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(command[0], command, env)

    def drain(quiet_seconds, limit):
        end = time.monotonic() + limit
        last = time.monotonic()
        while time.monotonic() < end and time.monotonic() - last < quiet_seconds:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    if os.read(fd, 65536):
                        last = time.monotonic()
                except OSError:
                    return

    try:
        drain(2, 30)
        for line in lines:
            os.write(fd, line.encode() + b"\r")
            drain(3 if line.startswith("play") else 1, 40)  # under valgrind a 10 s clip plays in about 12 s
        drain(5, 30)
    finally:
        os.close(fd)
        # A session that did not quit is ended (its profile is written as it goes).
        for _ in range(100):
            if os.waitpid(pid, os.WNOHANG) != (0, 0):
                return
            time.sleep(0.1)
        os.kill(pid, 15)
        os.waitpid(pid, 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="a release build of chirper-play")
    parser.add_argument("--write", required=True, help="the order file to write")
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "chirper-bench-inputs"),
                        help="where make bench's generated inputs are kept")
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        raise SystemExit("link-order: valgrind is needed (apt-get install valgrind)")
    work = Path(tempfile.mkdtemp(prefix="chirper-order."))
    try:
        order = profile(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    Path(args.write).parent.mkdir(parents=True, exist_ok=True)
    Path(args.write).write_text("".join(f"{name}\n" for name in order))
    log(f"wrote {len(order)} names to {args.write}")


def profile(args, work):
    """The functions run, session by session, under callgrind."""
    catalog = generate_inputs(Path(args.cache))
    # valgrind cannot read the DWARF 5 of a Swift build: profile a copy without it (the symbols stay).
    binary = work / "chirper-play"
    subprocess.run(["strip", "--strip-debug", "-o", str(binary), args.binary], check=True)
    pulse = Pulse(work / "pulse")
    server, base = serve(Path(args.cache), subprocess.DEVNULL)
    try:
        pulse.start()
        api = f"{base}/api/3/recordings"
        env = dict(pulse.client_env, XENO_CANTO_API_KEY=API_KEY, NO_COLOR="1", HOME=str(work / "home"),
                   TERM="xterm-256color")
        sessions = []
        for name, arguments, lines, terminal in scenarios(api):
            output = work / f"{name}.callgrind"
            command = ["valgrind", "--tool=callgrind", "--demangle=no", "--dump-instr=no",
                       "--compress-strings=no", f"--callgrind-out-file={output}", str(binary),
                       *[a.replace("{catalog}", str(catalog)) for a in arguments]]
            started = time.monotonic()
            # Each session with an empty play cache, as each run of `make bench` has: the first play of a
            # recording tees it into the cache (the audio URLs have xeno-canto's download shape).
            cache = work / "xdg-cache" / name
            cache.mkdir(parents=True)
            (run_terminal if terminal else run_plain)(command, lines, dict(env, XDG_CACHE_HOME=str(cache)))
            functions = set(called_functions(output))
            sessions.append((name, functions))
            log(f"{name}: {len(functions)} functions ({time.monotonic() - started:.0f} s)")
    finally:
        server.terminate()
        pulse.stop()
    return gray_order(sessions)


if __name__ == "__main__":
    main()
