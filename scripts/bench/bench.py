#!/usr/bin/env python3
"""`make bench`: chirper-play against mpg123, side by side, in one run (issue 5).

Starts a loopback HTTP server (scripts/bench/server.py: generated MP3s and a fake xeno-canto v3 API) and a
private PulseAudio server with a null sink, runs both players on the same inputs, prints a table, and
writes the same figures into BENCH.md (between the `bench:begin` / `bench:end` markers; the text around
them is kept). Stdlib only. No figure here goes into a test.

    python3 scripts/bench/bench.py --binary .build-bench/release/chirper-play [--write BENCH.md]
"""

import argparse
import array
import datetime
import json
import math
import os
import platform
import re
import shutil
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import server as loopback  # noqa: E402  (beside this script: the audio URLs' ids)
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
# The seek file (figure 8): silence to 29.9 s, then a 1 kHz tone to 30.5 s, a 1.5 kHz tone to 31.5 s, then
# silence to 65 s. The first sound after a seek to 0:30 can only come from the new position, and which tone
# it is, and when it changes, tell where the seek landed.
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


# MARK: - Inputs


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
        synth = ["synth", str(SEEK_TONES[0][0]), "sine", "1000", "vol", "0"]
        for (start, hz), (end, _) in zip(SEEK_TONES, SEEK_TONES[1:]):
            synth += [":", "synth", f"{end - start:.3f}", "sine", str(hz), "vol", "0.5"]
        synth += [":", "synth", f"{SEEK_SECONDS - SEEK_TONES[-1][0]:.3f}", "sine", "1000", "vol", "0"]
        sox = subprocess.Popen(["sox", "-V1", "-n", "-r", str(RATE), "-c", "2", "-b", "16", "-t", "wav", "-"]
                               + synth, stdout=subprocess.PIPE)
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
    record = {"id": "BENCH-30", "en": "Bench long tone", "gen": "Synthetica", "sp": "benchmarkii", "grp": "birds",
              "rec": "bench", "cnt": "Loopback", "type": "song", "q": "A", "length": "30:00",
              "lic": "https://creativecommons.org/publicdomain/zero/1.0/", "file": "audio/min30.mp3",
              "file-name": "min30.mp3", "also": []}
    (catalog / "catalog.json").write_text(json.dumps(
        {"numRecordings": "1", "numSpecies": "1", "page": 1, "numPages": 1, "recordings": [record]}))
    return catalog


# MARK: - Children


class Lines:
    """A child's stdout, line by line, each stamped with time.monotonic() as it arrives."""

    def __init__(self, stream):
        self.items = []  # (time, text)
        self.cond = threading.Condition()
        self.ended = False
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream):
        for raw in iter(stream.readline, b""):
            stamp = time.monotonic()
            with self.cond:
                self.items.append((stamp, raw.decode(errors="replace").rstrip("\n")))
                self.cond.notify_all()
        with self.cond:
            self.ended = True
            self.cond.notify_all()

    def mark(self):
        with self.cond:
            return len(self.items)

    def wait(self, pattern, start=0, timeout=30.0, count=1):
        """Index and time of the `count`th line matching `pattern` at or after index `start`."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        seen = 0
        index = start
        with self.cond:
            while True:
                while index < len(self.items):
                    if regex.search(self.items[index][1]):
                        seen += 1
                        if seen == count:
                            return index, self.items[index][0]
                    index += 1
                left = deadline - time.monotonic()
                if left <= 0 or self.ended:
                    tail = "\n  ".join(text for _, text in self.items[-8:])
                    raise TimeoutError(f"no line /{pattern}/ (#{count}) within {timeout} s; last lines:\n  {tail}")
                self.cond.wait(left)

    def text(self, start=0):
        with self.cond:
            return [text for _, text in self.items[start:]]


class Session:
    """A long-running program driven through its stdin (chirper-play in a pipe, or `mpg123 -R`)."""

    def __init__(self, cmd, env, stderr):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=env)
        self.out = Lines(self.proc.stdout)

    def send(self, line):
        """Writes one command line; returns the time just before the write."""
        stamp = time.monotonic()
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()
        return stamp

    def close(self, quit_line=None, timeout=10):
        try:
            if quit_line:
                self.send(quit_line)
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def rss_kib(pid):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def timed(cmd, env, stdin=None, stdout=None, timeout=600):
    """Runs `cmd` under GNU time; returns (wall from launch to exit, user s, system s, peak RSS KiB, status)."""
    fd, path = tempfile.mkstemp(prefix="chirper-bench-time.")
    os.close(fd)
    try:
        began = time.monotonic()
        done = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", path] + cmd, env=env, stdin=stdin,
                              stdout=stdout if stdout is not None else subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=timeout)
        wall = time.monotonic() - began
        fields = Path(path).read_text().strip().splitlines()[-1].split()
        user, system, peak = float(fields[0]), float(fields[1]), int(fields[2])
        return wall, user, system, peak, done.returncode, done.stderr.decode(errors="replace")
    finally:
        os.unlink(path)


def timed_direct(cmd, env, stdin, stdout, stderr, timeout):
    """Runs `cmd` and reads its rusage with wait4 (no /usr/bin/time in between, so a program that hangs is
    the one killed at `timeout`); returns (wall, user s, system s, peak RSS KiB, status), status None if killed."""
    began = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdin=stdin, stdout=stdout, stderr=stderr)
    killed = False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            break
        if time.monotonic() - began > timeout and not killed:
            proc.kill()
            killed = True
        time.sleep(0.05)
    wall = time.monotonic() - began
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: keep Popen from waiting again
    return wall, usage.ru_utime, usage.ru_stime, usage.ru_maxrss, None if killed else proc.returncode


# MARK: - PulseAudio and the monitor


class Pulse:
    """A private PulseAudio server with one null sink, in its own runtime directory and socket."""

    def __init__(self, directory):
        self.dir = directory
        for sub in ("runtime", "state", "config"):
            (directory / sub).mkdir(parents=True, exist_ok=True)
        self.socket = directory / "native"
        self.server_env = dict(os.environ, PULSE_RUNTIME_PATH=str(directory / "runtime"),
                               PULSE_STATE_PATH=str(directory / "state"),
                               XDG_CONFIG_HOME=str(directory / "config"), HOME=str(directory))
        self.server_env.pop("PULSE_SERVER", None)
        self.client_env = dict(self.server_env, PULSE_SERVER=f"unix:{self.socket}")
        self.pid = None

    def start(self):
        log("starting a private PulseAudio server")
        with open(self.dir / "pulseaudio.log", "w") as logfile:
            run(["pulseaudio", "-D", "-n", "--exit-idle-time=-1", "--system=false", "--disallow-exit",
                 "--log-target=stderr",
                 f"--load=module-native-protocol-unix socket={self.socket} auth-anonymous=1",
                 f"--load=module-null-sink sink_name={SINK} rate={RATE} channels=2"],
                env=self.server_env, stderr=logfile)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if subprocess.run(["pactl", "info"], env=self.client_env, capture_output=True).returncode == 0:
                pidfile = self.dir / "runtime" / "pid"
                self.pid = int(pidfile.read_text().split()[0]) if pidfile.exists() else None
                return
            time.sleep(0.1)
        raise SystemExit(f"pulseaudio did not start; see {self.dir / 'pulseaudio.log'}")

    def stop(self):
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            for _ in range(50):
                try:
                    os.kill(self.pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
            self.pid = None


class Monitor:
    """`parec` on the null sink's monitor, read in small pieces, timestamped on arrival.

    How a monitor sample is turned into the wall time at which it played:
    the null sink plays on its own clock: it wakes every L seconds (L = its latency, which parec's
    --latency-msec sets, being the smallest any client asks for) and renders the next L seconds at once,
    which reach the monitor (and us) at once. The recording is continuous, so sample k plays at T0 + k/RATE.
    For every piece read, `arrival - samples_so_far / RATE` >= T0 - L (the piece's last sample plays up to
    L after it was rendered, and delivery only adds delay); the minimum over all pieces so far, plus L, is the
    estimate of T0, good to the smallest delivery delay (well under a millisecond on loopback). The first
    sample louder than THRESHOLD after a command plays at T0 + k/RATE. What stays uncertain is the sink's
    own cadence: a player's first sample waits for the sink's next wake-up (0..L); with L = 2 ms that
    jitter is small against the figures, and it is the same for both players. L is read back from
    `pactl list sinks` (the sink's configured latency), not assumed.

    Only the last KEEP seconds are kept in memory.
    """

    KEEP = 30 * RATE  # samples

    def __init__(self, env, latency_msec=2):
        self.env = env
        self.proc = subprocess.Popen(
            ["parec", "-d", f"{SINK}.monitor", "--raw", "--format=s16le", f"--rate={RATE}", "--channels=1",
             f"--latency-msec={latency_msec}"], stdout=subprocess.PIPE, env=env)
        self.data = bytearray()
        self.base = 0  # samples dropped from the front of `data`
        self.offset = float("inf")
        self.cond = threading.Condition()
        self.ended = False
        threading.Thread(target=self._read, daemon=True).start()
        with self.cond:
            if not self.cond.wait_for(lambda: len(self.data) >= RATE * 2 or self.ended, 10):
                raise SystemExit("parec delivers nothing")
        if self.ended:
            raise SystemExit("parec ended at start")
        self.latency = self.sink_latency()

    def sink_latency(self):
        """The null sink's configured latency in seconds (pactl: `Latency: N usec, configured M usec`)."""
        text = subprocess.run(["pactl", "list", "sinks"], env=self.env, capture_output=True, text=True).stdout
        match = re.search(r"configured (\d+) usec", text)
        if not match:
            raise SystemExit(f"cannot read the sink's latency from pactl:\n{text}")
        return int(match.group(1)) / 1e6

    def _read(self):
        fd = self.proc.stdout.fileno()
        while True:
            piece = os.read(fd, 960)
            if not piece:
                break
            stamp = time.monotonic()
            with self.cond:
                self.data += piece
                total = self.base + len(self.data) // 2
                self.offset = min(self.offset, stamp - total / RATE)
                if len(self.data) > 4 * self.KEEP:
                    drop = len(self.data) // 2 - self.KEEP
                    del self.data[:drop * 2]
                    self.base += drop
                self.cond.notify_all()
        with self.cond:
            self.ended = True
            self.cond.notify_all()

    def _samples(self, start):
        """(global index of the end, samples from global index `start` to the end); call with the lock held."""
        end = self.base + len(self.data) // 2
        start = max(start, self.base)
        return start, end, array.array("h", bytes(self.data[(start - self.base) * 2:(end - self.base) * 2]))

    def onset(self, after, timeout=15.0):
        """Seconds from `after` (a monotonic time) to the first sound, or None."""
        found = self.onset_at(after, timeout)
        return found[0] if found else None

    def onset_at(self, after, timeout=15.0):
        """(seconds from `after` to the first sound, its sample's global index), or None."""
        deadline = time.monotonic() + timeout
        with self.cond:
            # Start a little before `after`: the caller made sure that the sink was silent then.
            index = max(0, int((after - self.offset) * RATE) - RATE // 20)
        while True:
            with self.cond:
                index, end, view = self._samples(index)
                offset = self.offset
            for start in range(0, len(view), 480):
                piece = view[start:start + 480]
                if max(piece) > THRESHOLD or min(piece) < -THRESHOLD:
                    for k, value in enumerate(piece):
                        if abs(value) > THRESHOLD:
                            at = index + start + k
                            return offset + self.latency + at / RATE - after, at
            index = end
            if time.monotonic() > deadline:
                return None
            with self.cond:
                self.cond.wait(0.02)

    def samples(self, start, count, timeout=10.0):
        """`count` samples from global index `start` (waits for them to be recorded), or None."""
        with self.cond:
            if not self.cond.wait_for(lambda: self.base + len(self.data) // 2 >= start + count or self.ended,
                                      timeout):
                return None
            first, end, view = self._samples(start)
            if first != start or end < start + count:
                return None
            return view[:count]

    def wait_silence(self, seconds=0.3, timeout=15.0):
        """Returns once the last `seconds` recorded were silent."""
        deadline = time.monotonic() + timeout
        need = int(seconds * RATE)
        while time.monotonic() < deadline:
            with self.cond:
                end = self.base + len(self.data) // 2
                _, _, view = self._samples(end - need)
            if len(view) >= need and max(view) <= THRESHOLD and min(view) >= -THRESHOLD:
                return
            time.sleep(0.05)
        raise TimeoutError("the sink did not fall silent")

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def tone_power(view, hz):
    """Power of `hz` in `view` (a DFT bin at that frequency; exact when the block holds whole cycles)."""
    step = 2 * math.pi * hz / RATE
    re_sum = sum(v * math.cos(step * n) for n, v in enumerate(view))
    im_sum = sum(v * math.sin(step * n) for n, v in enumerate(view))
    return re_sum * re_sum + im_sum * im_sum


def landing(view):
    """Where a seek to SEEK_TARGET landed, in recording seconds, read from the monitor's samples `view` that
    start at the seek's first sound: the tone heard first says which part of the file it is, the step
    from the first tone to the second (at SEEK_TONES[1][0]) says how far before the step it started.
    Returns (seconds, None) or (None, why)."""
    (start, first_hz), (step_at, second_hz) = SEEK_TONES[0], SEEK_TONES[1]
    block, hop = RATE // 100, RATE // 200  # 10 ms blocks (whole cycles of both tones), every 5 ms
    if len(view) < block:
        return None, "too little audio after the first sound"
    head = view[:block]
    if tone_power(head, second_hz) > tone_power(head, first_hz):
        return None, f"the first sound was the {second_hz} Hz tone: it landed at or after {step_at} s"
    for offset in range(hop, len(view) - block + 1, hop):
        piece = view[offset:offset + block]
        if tone_power(piece, second_hz) > tone_power(piece, first_hz):
            # The first block that is mostly the second tone: the step lies within a hop before its middle.
            return step_at - (offset + block / 2 - hop / 2) / RATE, None
    return None, f"no step to {second_hz} Hz within {len(view) / RATE:.1f} s of the first sound"


def audible_seconds(raw):
    """Seconds of 10 ms blocks with a sample louder than THRESHOLD in s16le mono `raw`."""
    view = array.array("h", raw[:len(raw) // 2 * 2])
    block = RATE // 100
    loud = 0
    for start in range(0, len(view), block):
        piece = view[start:start + block]
        if max(piece) > THRESHOLD or min(piece) < -THRESHOLD:
            loud += 1
    return loud / 100


# MARK: - Statistics and output


class Figure:
    """One row pair of the table: chirper-play's values and mpg123's (None where there is no peer)."""

    def __init__(self, key, label, unit, chirper, mpg123=None, target=None, program="chirper-play"):
        self.key, self.label, self.unit, self.program = key, label, unit, program
        self.chirper, self.mpg123 = list(chirper), list(mpg123) if mpg123 is not None else None
        self.target = target
        self.verdict_value, self.verdict = None, None

    @staticmethod
    def spread(values):
        return (min(values), statistics.median(values), max(values)) if values else None

    @property
    def ratio(self):
        if not self.mpg123 or not self.chirper:
            return None
        peer = statistics.median(self.mpg123)
        return statistics.median(self.chirper) / peer if peer else None


def figure_order(key):
    """Figure keys in numeric order: 1, 2, …, 8a, 8b, 9, 10."""
    match = re.match(r"(\d+)(.*)", key)
    return (int(match.group(1)), match.group(2)) if match else (10 ** 6, key)


def fmt(value, unit):
    if value is None:
        return "–"
    if unit == "MiB":
        return f"{value:.1f}"
    if unit == "ms":
        return f"{value:.1f}" if value < 100 else f"{value:.0f}"
    if unit in ("s", "CPU s"):
        return f"{value:.3f}" if value < 10 else f"{value:.1f}"
    if unit == "× realtime":
        return f"{value:.0f}"
    return f"{value:.3g}"


def percent(fraction):
    value = fraction * 100
    return f"{value:.1f}%" if value < 10 else f"{value:.0f}%"


def table(figures):
    header = ["#", "figure", "unit", "program", "n", "min", "median", "max", "ratio", "target", "verdict"]
    return [header] + list(figure_rows(figures))


def figure_rows(figures):
    for fig in figures:
        programs = [(fig.program, fig.chirper)] + ([("mpg123", fig.mpg123)] if fig.mpg123 is not None else [])
        for position, (name, values) in enumerate(programs):
            spread = Figure.spread(values)
            first = position == 0
            yield [
                fig.key if first else "",
                fig.label if first else "",
                fig.unit if first else "",
                name,
                str(len(values)),
                *(fmt(v, fig.unit) for v in (spread or (None, None, None))),
                (f"{fig.verdict_value:.3f}" if fig.verdict_value is not None else "–") if first else "",
                (fig.target or "") if first else "",
                (fig.verdict or "") if first else "",
            ]


def render_text(rows):
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, r in enumerate(rows):
        lines.append("  ".join(cell.ljust(widths[i]) if i < 4 else cell.rjust(widths[i]) for i, cell in enumerate(r)))
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def render_markdown(rows):
    out = ["| " + " | ".join(rows[0]) + " |", "|" + "|".join(" --- " if i < 4 else " ---: " for i in range(len(rows[0]))) + "|"]
    for r in rows[1:]:
        out.append("| " + " | ".join(cell.replace("|", "\\|") for cell in r) + " |")
    return "\n".join(out)


# MARK: - The benchmarks


class Bench:
    def __init__(self, args):
        self.args = args
        self.binary = str(Path(args.binary).resolve())
        self.floor = str(Path(args.floor).resolve()) if getattr(args, "floor", None) else None
        self.work = Path(tempfile.mkdtemp(prefix="chirper-bench."))
        self.cache = Path(args.cache)
        self.pulse = Pulse(self.work / "pulse")
        self.caches = self.work / "xdg-cache"
        self.server = None
        self.monitor = None
        self.figures = []
        self.notes = []
        self.problems = []
        self.stderr = open(self.work / "children.stderr", "wb")

    # -- setup

    def start_server(self):
        lengths = {f"{name}.mp3": f"{s // 60}:{s % 60:02d}" for name, s in
                   list(INPUTS.items()) + [(SEEK_NAME, SEEK_SECONDS)]}
        self.server = subprocess.Popen(
            [sys.executable, str(HERE / "server.py"), "--audio-dir", str(self.cache), "--pages", "1000",
             "--lengths", json.dumps(lengths)],
            stdout=subprocess.PIPE, stderr=open(self.work / "server.log", "wb"), text=True)
        line = self.server.stdout.readline()
        match = re.match(r"port=(\d+)", line)
        if not match:
            raise SystemExit(f"the loopback server did not start: {line!r}")
        self.base = f"http://127.0.0.1:{match.group(1)}"
        self.api = f"{self.base}/api/3/recordings"
        log(f"loopback server at {self.base}")

    def chirper_cmd(self, *extra, output="pulse"):
        return [self.binary, "--api-url", self.api, "--output", output, *extra]

    def chirper_env(self):
        """A fresh, empty play cache for each process: chirper-play caches what it plays (as it does for users),
        and no run may play from an earlier run's download."""
        self.caches.mkdir(parents=True, exist_ok=True)
        cache = tempfile.mkdtemp(dir=self.caches)
        return dict(self.pulse.client_env, XENO_CANTO_API_KEY=API_KEY, NO_COLOR="1", XDG_CACHE_HOME=cache)

    def url(self, name, row=1):
        """Row `row`'s audio URL for `en:NAME` (xeno-canto's download shape), which the peers play too."""
        return f"{self.base}/{name}/{loopback.recording_id(name, row)}/download"

    def page_url(self, name):
        """The API page chirper-play asks for on `search en:NAME` (the floor fetches it too)."""
        return f"{self.api}?query=en:{name}&page=1&per_page=50&key={API_KEY}"

    # -- 1. time to first sound in a running program

    def time_to_first_sound(self):
        runs = self.args.runs
        log(f"1. time to first sound: 1 warm-up + {runs} alternating runs each")
        env = self.chirper_env()
        chirper = Session(self.chirper_cmd(), env, self.stderr)
        mpg = Session(["mpg123", "-R", "-o", "pulse"], self.pulse.client_env, self.stderr)
        try:
            chirper.send("search en:ttfs")
            chirper.out.wait(r"^list: (paging|populated) rows=")
            mpg.out.wait(r"^@R MPG123")
            mpg.send("SILENCE")  # no @F frame lines
            results = {"chirper": [], "mpg123": []}
            phases = {"buffering": [], "playing": []}
            first = {}
            for n in range(runs + 1):
                for name in ("chirper", "mpg123") if n % 2 == 0 else ("mpg123", "chirper"):
                    self.monitor.wait_silence()
                    if name == "chirper":
                        mark = chirper.out.mark()
                        # Another row each time: a recording not heard before, so not in the play cache.
                        began = chirper.send(f"play {n + 1}")
                        delay = self.monitor.onset(began)
                        _, t_buf = chirper.out.wait(r"^playback: buffering", mark)
                        _, t_play = chirper.out.wait(r"^playback: playing", mark)
                        stop_mark = chirper.out.mark()
                        chirper.send("stop")
                        chirper.out.wait(r"^playback: idle", stop_mark)
                        if n > 0:
                            phases["buffering"].append((t_buf - began) * 1000)
                            phases["playing"].append((t_play - began) * 1000)
                    else:
                        mark = mpg.out.mark()
                        began = mpg.send(f"LOAD {self.url('ttfs')}")
                        delay = self.monitor.onset(began)
                        mpg.send("STOP")
                        mpg.out.wait(r"^@P 0", mark)
                    if delay is None:
                        self.problems.append(f"time to first sound: {name} made no sound within 15 s (run {n})")
                        continue
                    if n == 0:
                        first[name] = delay * 1000
                    else:
                        results[name].append(delay * 1000)
            self.figures.append(Figure("1", "time to first sound (running, `play`/`LOAD`)", "ms",
                                       results["chirper"], results["mpg123"], "≤ 0.9"))
            self.notes.append(
                "1: first play of the session (warm-up, not counted): chirper-play "
                f"{fmt(first.get('chirper'), 'ms')} ms, mpg123 {fmt(first.get('mpg123'), 'ms')} ms. chirper-play "
                f"printed `playback: buffering` {fmt(statistics.median(phases['buffering']), 'ms')} ms and "
                f"`playback: playing` {fmt(statistics.median(phases['playing']), 'ms')} ms (medians) after "
                "`play` was written.")
        finally:
            chirper.close("quit")
            mpg.close("QUIT")

    # -- 2. cold start

    def cold_start(self):
        runs = self.args.runs
        log(f"2. cold start: 1 warm-up + {runs} alternating runs each")
        results = {"chirper": [], "mpg123": []}
        stages = {}
        for n in range(runs + 1):
            for name in ("chirper", "mpg123") if n % 2 == 0 else ("mpg123", "chirper"):
                self.monitor.wait_silence()
                if name == "chirper":
                    # The commands are in the pipe before the program starts; the pipe stays open so that the
                    # end of input does not quit it.
                    read_end, write_end = os.pipe()
                    os.write(write_end, b"search en:ttfs\nplay 1\n")
                    began = time.monotonic()
                    proc = subprocess.Popen(self.chirper_cmd(), stdin=read_end, stdout=subprocess.PIPE,
                                            stderr=self.stderr, env=self.chirper_env())
                    os.close(read_end)
                    lines = Lines(proc.stdout)
                    delay = self.monitor.onset(began)
                    if n > 0 and delay is not None:
                        try:
                            for key, pattern in (("list: loading", r"^list: loading"),
                                                 ("page 1 in", r"^list: (paging|populated)"),
                                                 ("playback: buffering", r"^playback: buffering"),
                                                 ("playback: playing", r"^playback: playing")):
                                stages.setdefault(key, []).append((lines.wait(pattern, 0, 5)[1] - began) * 1000)
                        except TimeoutError as error:
                            self.problems.append(f"cold start: chirper-play's output: {error}")
                    os.close(write_end)  # end of input: chirper-play stops and quits
                else:
                    began = time.monotonic()
                    proc = subprocess.Popen(["mpg123", "-q", "-o", "pulse", self.url("ttfs")],
                                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=self.stderr, env=self.pulse.client_env)
                    delay = self.monitor.onset(began)
                    proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.problems.append(f"cold start: {name} did not exit within 10 s of being told to (run {n})")
                    proc.kill()
                    proc.wait()
                if delay is None:
                    self.problems.append(f"cold start: {name} made no sound within 15 s (run {n})")
                elif n > 0:
                    results[name].append(delay * 1000)
        self.figures.append(Figure("2", "cold start: launch to first sound", "ms",
                                   results["chirper"], results["mpg123"], "≤ 1.5"))
        if self.floor:
            # The floor (issue 30): the HTTP client alone, launched cold, fetching the same page and then the
            # same recording's first bytes, no list, decoder or sound server. What chirper-play adds is the rest.
            floor = []
            for n in range(runs + 1):  # the first is a warm-up, as in 2
                began = time.monotonic()
                proc = subprocess.Popen([self.floor, self.page_url("ttfs"), self.url("ttfs"), "--first"],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.stderr,
                                        env=self.chirper_env())
                lines = Lines(proc.stdout)
                try:
                    arrived = (lines.wait(r"^audio$", 0, 10)[1] - began) * 1000
                except TimeoutError as error:
                    self.problems.append(f"cold start: chirper-floor: {error}")
                    arrived = None
                try:
                    status = proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.problems.append(f"cold start: chirper-floor did not exit within 10 s (run {n})")
                    proc.kill()
                    status = proc.wait()
                if status != 0:
                    self.problems.append(f"cold start: chirper-floor exited with {status} (run {n})")
                elif n > 0 and arrived is not None:
                    floor.append(arrived)
            self.figures.append(Figure("2f", "floor: launch to the audio's first bytes, HTTP client alone / "
                                       "mpg123's first sound", "ms", floor, results["mpg123"],
                                       program="chirper-floor"))
        if stages:
            self.notes.append("2: where chirper-play's cold start goes (medians, ms after launch): " + ", ".join(
                f"`{key}` {fmt(statistics.median(values), 'ms')}" for key, values in stages.items())
                + f", first sound {fmt(statistics.median(results['chirper']), 'ms')}.")

    # -- 3. CPU while playing (and peak RSS with pulse output)

    def cpu_while_playing(self):
        runs = self.args.cpu_runs
        log(f"3. CPU while playing a 60 s MP3 to its end: {runs} rounds, both players at once (~{runs * 62} s)")
        script = self.work / "play-min1.txt"
        script.write_text("search en:min1\nplay 1\nwait\nquit\n")
        cpu = {"chirper": [], "mpg123": []}
        rss = {"chirper": [], "mpg123": []}
        wall = {"chirper": [], "mpg123": []}

        def one(name, sink):
            if name == "chirper":
                out = self.work / f"cpu-{threading.get_ident()}.out"
                with open(script) as stdin, open(out, "w") as stdout:
                    result = timed(self.chirper_cmd(), self.chirper_env(), stdin=stdin, stdout=stdout)
                text = out.read_text()
                if "playback: playing" not in text or "failed" in text:
                    self.problems.append(f"CPU: chirper-play did not play min1 cleanly: {text[-300:]!r}")
            else:
                result = timed(["mpg123", "-q", "-o", "pulse", self.url("min1")], self.pulse.client_env)
            sink[name] = result

        for n in range(runs):
            sink = {}
            threads = [threading.Thread(target=one, args=(name, sink)) for name in ("chirper", "mpg123")]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            for name, (w, user, system, peak, status, err) in sink.items():
                if status != 0:
                    self.problems.append(f"CPU: {name} exited with {status}: {err[-300:]}")
                cpu[name].append(user + system)
                rss[name].append(peak / 1024)
                wall[name].append(w)
        self.figures.append(Figure("3", "CPU (user+sys) playing 60 s to its end, pulse", "CPU s",
                                   cpu["chirper"], cpu["mpg123"], "≤ 1.0"))
        self.cpu_rss = rss
        self.notes.append(
            f"3: wall time to play the 60 s file to its end (median): chirper-play "
            f"{fmt(statistics.median(wall['chirper']), 's')} s, mpg123 {fmt(statistics.median(wall['mpg123']), 's')} s.")

    # -- 4. memory, streaming, --output null

    def memory(self):
        runs = self.args.mem_runs
        log(f"4. peak RSS streaming 1 min and 30 min MP3s, --output null / mpg123 -t: {runs} alternating runs each")
        rss = {(p, f): [] for p in ("chirper", "mpg123") for f in ("min1", "min30")}
        for n in range(runs):
            for name in ("chirper", "mpg123") if n % 2 == 0 else ("mpg123", "chirper"):
                for file in ("min1", "min30"):
                    if name == "chirper":
                        script = self.work / f"null-{file}.txt"
                        script.write_text(f"search en:{file}\nplay 1\nwait\nquit\n")
                        out = self.work / "mem.out"
                        with open(script) as stdin, open(out, "w") as stdout:
                            w, user, system, peak, status, err = timed(
                                self.chirper_cmd(output="null"), self.chirper_env(), stdin=stdin, stdout=stdout)
                        text = out.read_text()
                        if "playback: playing" not in text or "failed" in text:
                            self.problems.append(f"memory: chirper-play did not decode {file} cleanly: {text[-300:]!r}")
                    else:
                        w, user, system, peak, status, err = timed(["mpg123", "-q", "-t", self.url(file)],
                                                                    self.pulse.client_env)
                    if status != 0:
                        self.problems.append(f"memory: {name} {file} exited with {status}: {err[-300:]}")
                    rss[(name, file)].append(peak / 1024)
        self.figures.append(Figure("4a", "peak RSS streaming 1 min, null / -t", "MiB",
                                   rss[("chirper", "min1")], rss[("mpg123", "min1")]))
        self.figures.append(Figure("4b", "peak RSS streaming 30 min, null / -t", "MiB",
                                   rss[("chirper", "min30")], rss[("mpg123", "min30")]))
        if self.floor:
            # The floor (issue 30): the HTTP client alone reading the same 30 min file, keeping none of it.
            floor = []
            for n in range(runs):
                w, user, system, peak, status, err = timed(
                    [self.floor, self.page_url("min30"), self.url("min30")], self.chirper_env())
                if status != 0:
                    self.problems.append(f"memory: chirper-floor exited with {status}: {err[-300:]}")
                    continue
                floor.append(peak / 1024)
            self.figures.append(Figure("4e", "floor: peak RSS of the HTTP client alone reading 30 min / mpg123 -t",
                                       "MiB", floor, rss[("mpg123", "min30")], program="chirper-floor"))
        growth_c = statistics.median(rss[("chirper", "min30")]) - statistics.median(rss[("chirper", "min1")])
        growth_m = statistics.median(rss[("mpg123", "min30")]) - statistics.median(rss[("mpg123", "min1")])
        growth = Figure("4c", "peak RSS growth, 30 min − 1 min (medians)", "MiB", [growth_c], [growth_m],
                        "≤ 2 MiB")
        growth.judge_fn = lambda f: (None, "met" if f.chirper[0] <= 2.0 else f"MISSED (+{f.chirper[0] - 2.0:.1f} MiB)")
        self.figures.append(growth)
        if getattr(self, "cpu_rss", None):
            self.figures.append(Figure("4d", "peak RSS playing 1 min to its end, pulse", "MiB",
                                       self.cpu_rss["chirper"], self.cpu_rss["mpg123"]))

    # -- 5. decode throughput from a local file

    def throughput(self, catalog):
        runs = self.args.mem_runs
        seconds = INPUTS["min30"]
        log(f"5. decode throughput, 30 min MP3 from a local file: {runs} alternating runs each")
        speed = {"chirper": [], "mpg123": []}
        inner = []
        script = self.work / "local-min30.txt"
        script.write_text("search en:bench\nplay 1\nwait\nquit\n")
        for n in range(runs):
            for name in ("chirper", "mpg123") if n % 2 == 0 else ("mpg123", "chirper"):
                if name == "chirper":
                    began = time.monotonic()
                    session = Session([self.binary, "--catalog", str(catalog), "--output", "null"],
                                      self.chirper_env(), self.stderr)
                    session.proc.stdin.write(script.read_bytes())
                    session.proc.stdin.close()
                    # A blocking wait, as for mpg123 below: `wait(timeout)` polls, in steps of up to 50 ms, which
                    # added 0-50 ms to chirper-play's ~1.3 s alone (up to 4 % of this figure).
                    killer = threading.Timer(600, session.proc.kill)
                    killer.start()
                    status = session.proc.wait()
                    killer.cancel()
                    wall = time.monotonic() - began
                    lines = session.out
                    try:
                        at, t_buf = lines.wait(r"^playback: buffering", 0, 1)
                        _, t_idle = lines.wait(r"^playback: (idle|failed)", at + 1, 1)
                        inner.append(seconds / (t_idle - t_buf))
                    except TimeoutError as error:
                        self.problems.append(f"throughput: chirper-play output unexpected: {error}")
                else:
                    began = time.monotonic()
                    status = subprocess.run(["mpg123", "-q", "-t", str(catalog / "audio" / "min30.mp3")],
                                            stderr=self.stderr).returncode
                    wall = time.monotonic() - began
                if status != 0:
                    self.problems.append(f"throughput: {name} exited with {status}")
                speed[name].append(seconds / wall)
        self.figures.append(Figure("5", "decode throughput, 30 min local MP3 (launch to exit)", "× realtime",
                                   speed["chirper"], speed["mpg123"], "≥ 1.0"))
        if inner:
            self.notes.append(
                "5: chirper-play from `playback: buffering` to the end line alone: "
                f"{fmt(statistics.median(inner), '× realtime')} × realtime (median; excludes start-up and search).")

    # -- 10c. the sonogram of a 30-minute recording, on every core (issue 30)

    def long_sonogram(self, catalog):
        """`sono 1` of the 30 min file from the offline catalog (a whole local file: decoded in parallel pieces,
        one per core), launch to exit, against `mpg123 -q -m -s FILE | sox … spectrogram` of the same file (two
        processes, so two cores), the same analysis as figure 10."""
        runs = self.args.mem_runs
        log(f"10c. sonogram of the 30 min MP3 from a local file: {runs} alternating runs each")
        wall = {"chirper": [], "mpg123": []}
        cpu = {"chirper": [], "mpg123": []}
        local = catalog / "audio" / "min30.mp3"
        pipeline = (f"mpg123 -q -m -s {local} | sox -V1 -t raw -r 48000 -e signed -b 16 -c 1 - -n spectrogram "
                    f"-d {INPUTS['min30']} -o /dev/null")
        for n in range(runs):
            for name in ("chirper", "mpg123") if n % 2 == 0 else ("mpg123", "chirper"):
                if name == "chirper":
                    script = "search en:bench\nsono 1\nquit\n"
                    command = (f"printf '{script}' | {self.binary} --catalog {catalog} --output null "
                               "| grep -c '^sono:' > /dev/null")
                else:
                    command = pipeline
                elapsed, user, system, _, status, _ = timed(["bash", "-c", command], self.chirper_env())
                if status != 0:
                    self.problems.append(f"10c: {name} exited with {status}")
                    continue
                wall[name].append(elapsed * 1000)
                cpu[name].append(user + system)
        self.figures.append(Figure("10c", "`sono 1` of a 30 min local MP3, launch to exit / mpg123 -s | sox spectrogram",
                                   "ms", wall["chirper"], wall["mpg123"], "≤ 0.5"))
        if cpu["chirper"] and cpu["mpg123"]:
            self.notes.append(
                f"10c: CPU (user+sys, median): chirper-play {statistics.median(cpu['chirper']):.2f} s, the pipeline "
                f"{statistics.median(cpu['mpg123']):.2f} s; chirper-play decodes the file in {os.cpu_count()} pieces "
                "at once (one per core) and analyses each as it decodes; the pipeline is two processes.")

    # -- 6. lists

    def lists(self, during_fill=None):
        samples = self.args.list_runs
        log(f"6. lists: {samples} searches of 500 rows, {samples} page-2 loads, fill to 100 pages, "
            f"{samples} more pages (~{int((3 * samples + 100) * GATE)} s)")
        session = Session(self.chirper_cmd("--per-page", "500", output="null"), self.chirper_env(), self.stderr)
        last_request = [0.0]

        def paced(line):
            wait = last_request[0] + GATE - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            mark = session.out.mark()
            began = session.send(line)
            last_request[0] = began
            return mark, began

        def next_page(expected):
            """(write -> loading line, loading -> next/populated line, write -> last new row) in ms."""
            mark, began = paced("next-page")
            _, t_loading = session.out.wait(rf"^list: paging .* loading={expected}\b", mark)
            done, t_done = session.out.wait(rf"^list: (paging rows=\d+ page={expected}/.* next=|populated)", mark)
            _, t_rows = session.out.wait(r"^row: ", done, count=500)
            return (t_loading - began) * 1000, (t_done - t_loading) * 1000, (t_rows - began) * 1000

        search_ms, first_pages, late_pages = [], [], []
        fill = threading.Thread(target=during_fill) if during_fill else None
        try:
            for _ in range(samples):
                mark, began = paced("search en:ttfs")
                done, _ = session.out.wait(r"^list: paging rows=500 page=1/", mark)
                _, t_rows = session.out.wait(r"^row: ", done, count=500)
                search_ms.append((t_rows - began) * 1000)
                first_pages.append(next_page(2))
            rss_early = rss_kib(session.proc.pid)
            if fill:
                fill.start()
            for page in range(3, 101):
                next_page(page)
            if fill:
                fill.join()
            rss_100 = rss_kib(session.proc.pid)
            for page in range(101, 101 + samples):
                late_pages.append(next_page(page))
            rss_late = rss_kib(session.proc.pid)
            session.out.wait(rf"^list: paging rows={(100 + samples) * 500} ", 0)  # every row arrived once
        finally:
            session.close("quit")
            if fill and not fill.is_alive() and fill.ident is None:
                fill.start()  # the lists failed early: still measure what was to overlap them
            if fill and fill.ident is not None:
                fill.join()
        self.figures.append(Figure("6a", "search → 500 rows printed (--per-page 500)", "ms", search_ms))
        f1 = Figure("6b", "next-page after 1 page: `loading=2` → `next=3`", "ms", [p[1] for p in first_pages])
        f100 = Figure("6c", f"next-page after 100–{99 + samples} pages: `loading=N` → `next=N+1`", "ms",
                      [p[1] for p in late_pages], target="≤ 1.5 × 6b")
        f100.base = f1
        r1 = Figure("6d", "next-page after 1 page: write → 500th new row", "ms", [p[2] for p in first_pages])
        r100 = Figure("6e", f"next-page after 100–{99 + samples} pages: write → 500th new row", "ms",
                      [p[2] for p in late_pages], target="≤ 1.5 × 6d")
        r100.base = r1
        self.figures += [f1, f100, r1, r100]
        if rss_early and rss_100:
            # Issue 30: a list of 50,000 rows holds at most 0.5 MiB per 1,000 rows above the one-page list.
            per_thousand = (rss_100 - rss_early) / 1024 / 49.5
            rows_memory = Figure("6f", "resident memory per 1,000 rows, 500 → 50,000 rows", "MiB per 1,000 rows", [per_thousand],
                                 target="≤ 0.5 MiB")
            rows_memory.judge_fn = lambda f: (
                None, "met" if f.chirper[0] <= 0.5 else f"MISSED (+{f.chirper[0] - 0.5:.2f} MiB)")
            self.figures.append(rows_memory)
        self.notes.append(
            "6: write of `next-page` → `loading=N` line (median): after 1 page "
            f"{fmt(statistics.median([p[0] for p in first_pages]), 'ms')} ms, after 100 pages "
            f"{fmt(statistics.median([p[0] for p in late_pages]), 'ms')} ms. chirper-play's resident memory: "
            f"{(rss_early or 0) / 1024:.1f} MiB with 1 page (500 rows), {(rss_100 or 0) / 1024:.1f} MiB with 100 "
            f"pages (50,000 rows), {(rss_late or 0) / 1024:.1f} MiB with {100 + samples}. Requests are paced "
            f"{GATE} s apart so that chirper-play's one-request-a-second gate never adds a wait.")

    # -- 7. (extra) audio delivered when the sink renders ahead

    def delivery_at_default_latency(self):
        """With no low-latency client, the null sink runs at its default 2 s latency and renders up to 2 s
        ahead (as a timer-scheduled sound card may). Records with parec at its default (large) fragment size,
        which leaves the sink's latency alone, and counts the audible seconds of the 10 s clip."""
        runs = self.args.check_runs
        log(f"7. audible seconds of the 10 s clip, sink at its default latency: {runs} alternating runs each")
        audible = {"chirper": [], "mpg123": []}
        wall = {"chirper": [], "mpg123": []}
        script = self.work / "play-ttfs.txt"
        script.write_text("search en:ttfs\nplay 1\nwait\nquit\n")
        raw = self.work / "check.raw"
        for n in range(runs):
            for name in ("chirper", "mpg123") if n % 2 == 0 else ("mpg123", "chirper"):
                with open(raw, "wb") as sink:
                    recorder = subprocess.Popen(
                        ["parec", "-d", f"{SINK}.monitor", "--raw", "--format=s16le", f"--rate={RATE}",
                         "--channels=1"], stdout=sink, env=self.pulse.client_env)
                time.sleep(1.0)
                began = time.monotonic()
                if name == "chirper":
                    with open(script) as stdin:
                        subprocess.run(self.chirper_cmd(), stdin=stdin, stdout=subprocess.DEVNULL, stderr=self.stderr,
                                       env=self.chirper_env(), timeout=120)
                else:
                    subprocess.run(["mpg123", "-q", "-o", "pulse", self.url("ttfs")], stdout=subprocess.DEVNULL,
                                   stderr=self.stderr, env=self.pulse.client_env, timeout=120)
                wall[name].append(time.monotonic() - began)
                time.sleep(2.5)  # what the sink rendered ahead reaches the monitor
                recorder.terminate()
                recorder.wait()
                audible[name].append(audible_seconds(raw.read_bytes()))
        fig = Figure("7", "audible s of a 10 s clip, sink at default 2 s latency (extra)", "s",
                     audible["chirper"], audible["mpg123"], "≥ 9.5 s")
        fig.judge_fn = lambda f: (f.ratio, "met" if statistics.median(f.chirper) >= 9.5 else
                                  f"MISSED ({10 - statistics.median(f.chirper):.1f} s of 10 s lost)")
        self.figures.append(fig)
        self.notes.append(
            "7: wall time to play the 10 s clip to its end with the sink at its default latency (median): "
            f"chirper-play {fmt(statistics.median(wall['chirper']), 's')} s, "
            f"mpg123 {fmt(statistics.median(wall['mpg123']), 's')} s.")

    # -- 8. seek latency

    def audio_requests(self):
        """Audio requests the loopback server has answered so far (its `audio …` log lines)."""
        try:
            return sum(1 for line in (self.work / "server.log").read_text().splitlines() if line.startswith("audio "))
        except OSError:
            return 0

    def seek_onset(self, began, label, landings, problems):
        """The first sound after a seek written at `began`, checked from the audio: ms, or None. Appends the
        landing (recording seconds, read from the tones) to `landings`."""
        found = self.monitor.onset_at(began, timeout=10)
        if found is None:
            problems.append(f"{label}: no sound within 10 s of the seek")
            return None
        delay, index = found
        view = self.monitor.samples(index, int(0.9 * RATE))
        where, why = landing(view) if view is not None else (None, "the monitor's samples were not there")
        if where is None:
            problems.append(f"{label}: {why} (not counted)")
            return None
        landings.append(where)
        return delay * 1000

    def seek_latency(self):
        runs = self.args.seek_runs
        log(f"8. seek latency: 1 warm-up + {runs} alternating runs each (~{(runs + 1) * 10} s)")
        url = self.url(SEEK_NAME)
        local = str(self.cache / f"{SEEK_NAME}.mp3")
        chirper = Session(self.chirper_cmd(), self.chirper_env(), self.stderr)
        mpg = Session(["mpg123", "-R", "-o", "pulse"], self.pulse.client_env, self.stderr)
        beyond = {"chirper": [], "mpg123": []}
        inside = {"chirper": [], "mpg123": []}
        landed = {(name, kind): [] for name in ("chirper", "mpg123") for kind in ("beyond", "inside")}
        requests = {"beyond": [], "inside": []}
        line_ms = {"beyond": [], "inside": []}
        problems = []
        lead = 1.0  # seconds of playback (silence) before the first seek: the file has not arrived that far

        def chirper_seek(kind, n):
            mark = chirper.out.mark()
            before = self.audio_requests()
            began = chirper.send(f"seek {int(SEEK_TARGET) // 60}:{int(SEEK_TARGET) % 60:02d}")
            ms = self.seek_onset(began, f"chirper-play seek {kind} (run {n})", landed[("chirper", kind)], problems)
            try:
                _, t_line = chirper.out.wait(r"^playback: playing ", mark, timeout=10)
            except TimeoutError:
                heard = "no sound" if ms is None else f"its first sound came after {ms:.1f} ms"
                problems.append(f"chirper-play seek {kind} (run {n}): no `playback: playing` line within 10 s "
                                f"({heard}); its lines: {' | '.join(chirper.out.text(mark))}")
                t_line = None
            if n > 0:
                requests[kind].append(self.audio_requests() - before)
                if t_line is not None:
                    line_ms[kind].append((t_line - began) * 1000)
            return ms

        try:
            chirper.send(f"search en:{SEEK_NAME}")
            chirper.out.wait(r"^list: (paging|populated) rows=")
            mpg.out.wait(r"^@R MPG123")
            mpg.send("SILENCE")
            for n in range(runs + 1):
                for name in ("chirper", "mpg123") if n % 2 == 0 else ("mpg123", "chirper"):
                    self.monitor.wait_silence()
                    if name == "chirper":
                        mark = chirper.out.mark()
                        chirper.send(f"play {n + 1}")  # a row not played before: not in the cache
                        chirper.out.wait(r"^playback: playing ", mark)
                        time.sleep(lead)
                        ms_beyond = chirper_seek("beyond", n)
                        self.monitor.wait_silence()  # the tones are over: about 31.8 s
                        ms_inside = chirper_seek("inside", n)
                        mark = chirper.out.mark()
                        chirper.send("stop")
                        chirper.out.wait(r"^playback: idle", mark)
                    else:
                        # Over HTTP mpg123 can only seek forward (it reads on); back it answers
                        # `@E Error while seeking`. Its seek back is therefore measured on the local file.
                        mark = mpg.out.mark()
                        mpg.send(f"LOAD {url}")
                        mpg.out.wait(r"^@S ", mark)
                        time.sleep(lead)
                        began = mpg.send(f"JUMP {SEEK_TARGET:g}s")
                        ms_beyond = self.seek_onset(began, f"mpg123 JUMP over HTTP (run {n})",
                                                    landed[("mpg123", "beyond")], problems)
                        mark = mpg.out.mark()
                        mpg.send(f"LOAD {local}")
                        mpg.out.wait(r"^@S ", mark)
                        mpg.send(f"JUMP {SEEK_TARGET + 1.6:g}s")  # into the silence after the tones
                        time.sleep(0.3)
                        self.monitor.wait_silence()
                        began = mpg.send(f"JUMP {SEEK_TARGET:g}s")
                        ms_inside = self.seek_onset(began, f"mpg123 JUMP back in the local file (run {n})",
                                                    landed[("mpg123", "inside")], problems)
                        mark = mpg.out.mark()
                        mpg.send("STOP")
                        mpg.out.wait(r"^@P 0", mark)
                    if n > 0:
                        if ms_beyond is not None:
                            beyond[name].append(ms_beyond)
                        if ms_inside is not None:
                            inside[name].append(ms_inside)
        finally:
            chirper.close("quit")
            mpg.close("QUIT")
        self.problems += problems
        self.figures.append(Figure("8a", "seek beyond what arrived: `seek 0:30` / `JUMP 30s` at 0:01 → first "
                                   "sound from 0:30", "ms", beyond["chirper"], beyond["mpg123"], "≤ 1.0"))
        self.figures.append(Figure("8b", "seek back inside what arrived: `seek 0:30` at ~0:32 → first sound "
                                   "(mpg123: local file)", "ms", inside["chirper"], inside["mpg123"], "≤ 1.0"))

        def where(name, kind):
            values = landed[(name, kind)]
            return f"{statistics.median(values):.3f} s" if values else "–"

        def median(values, unit="ms"):
            return fmt(statistics.median(values), unit) if values else "–"

        self.notes.append(
            f"8: where the seeks landed, read from the monitor (target {SEEK_TARGET:g} s; medians): chirper-play "
            f"{where('chirper', 'beyond')} beyond, {where('chirper', 'inside')} inside; mpg123 "
            f"{where('mpg123', 'beyond')} over HTTP, {where('mpg123', 'inside')} local. chirper-play's audio "
            f"requests per seek (server log): beyond {sorted(set(requests['beyond']))}, inside "
            f"{sorted(set(requests['inside']))}; it printed the new `playback: playing` line "
            f"{median(line_ms['beyond'])} ms (beyond) and {median(line_ms['inside'])} ms (inside) after the write. "
            "mpg123 cannot seek back over HTTP (`@E Error while seeking`), so 8b's peer seeks in the local file.")

    # -- 9. CPU of speed 0.5 keep

    def cpu_speed_keep(self):
        runs = self.args.cpu_runs
        log(f"9. CPU playing the 60 s MP3 plain, at `speed 0.5 keep` and `speed 0.5 tape`, all three at once: "
            f"{runs} rounds (~{runs * 122} s)")
        modes = {"plain": "", "keep": "speed 0.5 keep\n", "tape": "speed 0.5 tape\n"}
        cpu = {mode: [] for mode in modes}
        wall = {mode: [] for mode in modes}

        def one(mode, sink):
            script = self.work / f"speed-{mode}.txt"
            script.write_text(f"search en:min1\n{modes[mode]}play 1\nwait\nquit\n")
            out = self.work / f"speed-{mode}.out"
            limit = 60 / (1 if mode == "plain" else 0.5) + 30
            with open(script) as stdin, open(out, "w") as stdout:
                result = timed_direct(self.chirper_cmd(), self.chirper_env(), stdin, stdout, self.stderr, limit)
            lines = [line for line in out.read_text().splitlines() if not line.startswith(("row:", "list:"))]
            expected = {"plain": "playback: playing ", "keep": "speed=0.5 mode=keep", "tape": "speed=0.5"}[mode]
            if result[4] is None:
                self.problems.append(f"speed CPU: chirper-play {mode} had not ended after {limit:.0f} s (killed, "
                                     f"not counted); its last lines: {' | '.join(lines[-3:])}")
            elif result[4] != 0 or not any(expected in line for line in lines) or any("failed" in l for l in lines):
                self.problems.append(f"speed CPU: chirper-play {mode} exited with {result[4]} (not counted): "
                                     f"{' | '.join(lines[-3:])}")
            else:
                sink[mode] = result

        for _ in range(runs):
            sink = {}
            threads = [threading.Thread(target=one, args=(mode, sink)) for mode in modes]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            for mode, (w, user, system, peak, status) in sink.items():
                cpu[mode].append(user + system)
                wall[mode].append(w)
        plain = Figure("9a", "CPU (user+sys) playing 60 s to its end, pulse (plain, beside 9b)", "CPU s",
                       cpu["plain"])
        # The issue asks for this beside plain playback, with no target: 9b's ratio is over 9a.
        keep = Figure("9b", "CPU playing the same 60 s at `speed 0.5 keep` (120 s), pulse", "CPU s", cpu["keep"])
        keep.base = plain
        self.figures += [plain, keep]

        def median(values, unit):
            return fmt(statistics.median(values), unit) if values else "–"

        per_second = (statistics.median(cpu["keep"]) / statistics.median(wall["keep"])) / (
            statistics.median(cpu["plain"]) / statistics.median(wall["plain"])) if cpu["plain"] and cpu["keep"] else None
        self.notes.append(
            f"9: chirper-play alone (mpg123 has no pitch-keeping speed): 9b's ratio is its overhead over its own "
            f"plain playback; half speed plays twice as long, so about 2 is the sink's share. Wall time (median): "
            f"plain {median(wall['plain'], 's')} s, keep {median(wall['keep'], 's')} s; per wall second keep costs "
            f"{f'{per_second:.2f}' if per_second else '–'} × plain. `speed 0.5 tape` (libsyn123's resampler) in the same rounds: "
            f"{median(cpu['tape'], 'CPU s')} CPU s in {median(wall['tape'], 's')} s.")

    # -- 12. measure a 10 s selection

    MEASURE_PEER = r"""
import sys, numpy as np
rate, start, end = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
pcm = np.frombuffer(sys.stdin.buffer.read(), dtype="<i2").astype(np.float32) / 32768
x = pcm[int(start * rate):int(end * rate)]
size, hop = 512, 256
frames = np.lib.stride_tricks.sliding_window_view(x, size)[::hop] * np.hanning(size + 1)[:-1]
power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
bins = np.arange(power.shape[1]) * rate / size
per_bin, per_frame = power.sum(axis=0), power.sum(axis=1)
total = per_bin.sum()
cum = np.cumsum(per_bin) / total
freqs = [bins[np.searchsorted(cum, q)] for q in (0.05, 0.25, 0.5, 0.75, 0.95)]
tcum = np.cumsum(per_frame) / total
times = [start + (np.searchsorted(tcum, q) * hop + size / 2) / rate for q in (0.05, 0.95)]
k, b = np.unravel_index(np.argmax(power), power.shape)
p = power / np.maximum(per_frame[:, None], 1e-30)
entropy = float(np.mean(-(p * np.log2(np.where(p > 0, p, 1))).sum(axis=1)))
contour = bins[np.argmax(power, axis=1)]
print("peak", bins[b], "freqs", freqs, "times", times, "entropy", entropy, "slope", float(np.mean(np.diff(contour))))
"""

    def alternate(self, runs, session, command, answer, peer, what):
        """Times `command` in a running chirper-play `session` (until its line starting with `answer`) and the
        `peer` shell pipeline, alternating which goes first, `runs` times each after one warm-up; returns the
        wall times in ms by name. `command` may be a function of the run's number (0 the warm-up)."""
        wall = {"chirper": [], "mpg123": []}
        for n in range(runs + 1):
            for name in ("chirper", "mpg123") if n % 2 == 0 else ("mpg123", "chirper"):
                if name == "chirper":
                    mark = session.out.mark()
                    line_sent = command(n) if callable(command) else command
                    began = session.send(line_sent)
                    line, done = session.out.wait(rf"^({re.escape(answer)}|error:)", mark, timeout=120)
                    if not session.out.text(line)[0].startswith(answer):
                        raise RuntimeError(f"chirper-play did not answer `{line_sent}`: {session.out.text(line)[0]}")
                    took = done - began
                else:
                    took, _, _, _, status, err = timed(["bash", "-c", "set -o pipefail; " + peer],
                                                       self.pulse.client_env)
                    if status != 0:
                        self.problems.append(f"{what}: the peer pipeline exited with {status}: {err[-300:]}")
                        continue
                if n > 0:
                    wall[name].append(took * 1000)
        return wall

    def measure(self):
        runs = self.args.sono_runs
        log(f"12. measure a 10 s selection of a 1 min MP3: {runs} alternating runs each")
        url = self.url("min1")
        start, end = 20.0, 30.0
        peer = (f"mpg123 -q -m -s {url} | python3 -c '{self.MEASURE_PEER}' {RATE} {start} {end}")
        session = Session(self.chirper_cmd(output="null"), self.chirper_env(), self.stderr)
        try:
            session.send("search en:min1")
            session.out.wait(r"^list: (paging|populated) rows=")
            # Another row each run: a recording not measured before, so not in the play cache.
            wall = self.alternate(runs, session, lambda n: f"measure {n + 1} 0:20-0:30", "measure: n=", peer,
                                  "measure")
        finally:
            session.close("quit")
        self.figures.append(Figure("12", "`measure 1 0:20-0:30` (10 s of a 1 min MP3) / mpg123 -s | numpy (same STFT)",
                                   "ms", wall["chirper"], wall["mpg123"], "≤ 1.0"))
        self.notes.append(
            "12: the peer decodes the same loopback URL with mpg123 (mono) and computes in numpy what `measure` "
            "computes: a Hann window of 512 samples every 256 over the 10 s, power, the 5-95 % frequencies and "
            "times, the peak, the entropy and the peak-frequency contour. Both decode from the start to the "
            "selection's end (chirper-play stops there; mpg123 decodes the whole minute).")

    # -- 13. compare two 1-minute recordings

    def compare(self):
        runs = self.args.sono_runs
        log(f"13. compare two 1-minute recordings: {runs} alternating runs each")
        url = self.url("min1")
        peer = " && ".join(
            [f"mpg123 -q -m -s {url} | python3 -c '{self.MEASURE_PEER}' {RATE} 0 60 > /dev/null"] * 2)
        session = Session(self.chirper_cmd(output="null"), self.chirper_env(), self.stderr)
        try:
            session.send("search en:min1")
            session.out.wait(r"^list: (paging|populated) rows=")
            # Two rows (two recordings, downloaded once each), selected whole: s1 and s2.
            for row in (1, 2):
                mark = session.out.mark()
                session.send(f"measure {row} 0:00-1:00")
                line, _ = session.out.wait(r"^(measure: n=|error:)", mark, timeout=120)
                if not session.out.text(line)[0].startswith("measure: n="):
                    raise RuntimeError(f"chirper-play could not select row {row}: {session.out.text(line)[0]}")
            wall = self.alternate(runs, session, "compare s1 s2", "compare: pfc_slope", peer, "compare")
        finally:
            session.close("quit")
        self.figures.append(Figure("13", "`compare s1 s2` (two 1 min MP3s, whole) / 2 × (mpg123 -s | numpy)",
                                   "ms", wall["chirper"], wall["mpg123"], "≤ 1.0"))
        self.notes.append(
            "13: `compare` decodes both recordings, draws both sonograms on one scale and measures both; the peer "
            "decodes each with mpg123 and computes figure 12's analysis over its whole minute in numpy, one after "
            "the other (it draws no sonogram).")

    # -- 11. the live sonogram strip's CPU

    def on_terminal(self, commands, done, timeout, answer=None):
        """Runs chirper-play on a pseudo-terminal (100×30) of its own, typing `commands` one by one (each after
        the prompt is back), until `done` appears in its output; returns (wall, user, system, output). `answer`
        is typed ahead: the terminal's reply to the graphics query at start-up."""
        import pty
        import fcntl
        import struct
        import termios
        env = dict(self.chirper_env(), TERM="xterm-256color", LANG="C.UTF-8", HOME=str(self.work),
                   XDG_STATE_HOME=str(self.work / "state"), XDG_CACHE_HOME=str(self.work / "cache-pty"))
        env.pop("NO_COLOR", None)
        pid, fd = pty.fork()
        if pid == 0:
            os.execve(self.binary, [self.binary, "--api-url", self.api, "--output", "pulse", "--cache-size", "0"],
                      env)
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        if answer:
            os.write(fd, answer)
        began = time.monotonic()
        output = bytearray()

        def read_until(marker, deadline):
            while marker.encode() not in output:
                if time.monotonic() > deadline:
                    return False
                ready, _, _ = select.select([fd], [], [], 0.2)
                if ready:
                    try:
                        output.extend(os.read(fd, 65536))
                    except OSError:
                        return False
            return True

        deadline = began + timeout
        ok = read_until("chirper>", deadline)
        for command, reply in commands:
            os.write(fd, (command + "\r").encode())
            ok = ok and read_until(reply, deadline)
        ok = ok and read_until(done, deadline)
        if not ok:
            (self.work / "pty-last.txt").write_bytes(bytes(output))
        os.write(fd, b"quit\r")
        while True:
            got, status, usage = os.wait4(pid, os.WNOHANG)
            if got == pid:
                break
            if time.monotonic() > deadline + 10:
                os.kill(pid, signal.SIGKILL)
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    output.extend(os.read(fd, 65536))
                except OSError:
                    pass
        os.close(fd)
        wall = time.monotonic() - began
        return wall, usage.ru_utime, usage.ru_stime, output.decode("utf-8", "replace") if ok else None

    def on_pty(self, cmd, env, timeout):
        """Runs `cmd` on a pseudo-terminal (100×30) of its own to its end; returns (user, system) CPU s, or None
        when it did not end in time."""
        import pty
        import fcntl
        import struct
        import termios
        env = dict(env, TERM="xterm-256color", LANG="C.UTF-8")
        pid, fd = pty.fork()
        if pid == 0:
            os.execvpe(cmd[0], cmd, env)
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        deadline = time.monotonic() + timeout
        while True:
            got, status, usage = os.wait4(pid, os.WNOHANG)
            if got == pid:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.wait4(pid, 0)
                os.close(fd)
                return None
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    os.read(fd, 65536)
                except OSError:
                    pass
        os.close(fd)
        return usage.ru_utime, usage.ru_stime

    def strip_cpu(self):
        runs = self.args.cpu_runs
        log(f"11. CPU playing the 60 s MP3 on a terminal without and with the live sonogram strip (half-blocks and "
            f"kitty pixels), and mpg123 -v, all four at once: "
            f"{runs} rounds (~{runs * 62} s)")
        cpu = {"off": [], "on": [], "pixels": [], "mpg123": []}
        # A kitty terminal's answers to the graphics query: kitty graphics, cells of 10 × 20 pixels.
        kitty = b"\x1b_Gi=31;OK\x1b\\\x1b[6;20;10t\x1b[?62;22c"

        def one(mode, sink):
            if mode == "mpg123":
                # mpg123 -v: its own status line (time, buffer, frames) on the same kind of terminal.
                result = self.on_pty(["mpg123", "-v", "-o", "pulse", self.url("min1")], self.pulse.client_env, 100)
                if result is None:
                    self.problems.append("terminal CPU: mpg123 -v did not play to its end (not counted)")
                else:
                    sink[mode] = result[0] + result[1]
                return
            # Each command waits for its answer: the rows (their table header), the strip's top gutter, the status.
            strip = mode in ("on", "pixels")
            commands = [("search en:min1", "Scientific name")] + ([("sono on", "chirper>")] if strip else [])
            commands += [("play 1", "playing")]
            result = self.on_terminal(commands, "finished", 100, answer=kitty if mode == "pixels" else None)
            wall, user, system, output = result
            if output is None:
                self.problems.append(f"live strip CPU: the {mode} run did not play to its end (not counted)")
            elif strip and "k┐" not in output:
                self.problems.append(f"live strip CPU: the {mode} strip was never drawn (not counted)")
            elif mode == "pixels" and "\x1b_Gi=" not in output:
                self.problems.append("live strip CPU: the strip's kitty image was never sent (not counted)")
            else:
                sink[mode] = user + system

        for _ in range(runs):
            sink = {}
            threads = [threading.Thread(target=one, args=(mode, sink)) for mode in cpu]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            for mode, value in sink.items():
                cpu[mode].append(value)
        off = Figure("11a", "CPU playing 60 s on a terminal (status line every 0.1 s), pulse / mpg123 -v on one",
                     "CPU s", cpu["off"], cpu["mpg123"], "≤ 1.0")
        on = Figure("11b", "the same with the live sonogram strip on (`sono on`)", "CPU s", cpu["on"])
        on.base = off
        pixels = Figure("11c", "the same with the strip in real pixels (a kitty terminal)", "CPU s", cpu["pixels"])
        pixels.base = off
        self.figures += [off, on, pixels]
        self.notes.append(
            "11: each on a pseudo-terminal of 100×30 with colour, the three runs at once; 11a against `mpg123 -v` "
            "(its own status line) on the same kind of terminal; 11b's ratio is the strip's overhead over the same "
            "terminal session without it "
            "(the strip's picture is computed once per recording, then redrawn with the status line); 11c the same "
            "with the terminal answering the graphics query as kitty (cells of 10 × 20 pixels): the strip's page is "
            "an image sent once a page, the marker and status lines rewritten between.")

    # -- 10. sonogram of a 5-minute MP3

    def cpu_seconds(self, pid):
        """user+system CPU seconds of a running process so far (/proc/PID/stat)."""
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def sonogram(self):
        runs = self.args.sono_runs
        seconds = INPUTS["min5"]
        log(f"10. sonogram of a 5 min MP3: {runs} alternating runs each")
        url = self.url("min5")
        local = self.cache / "min5.mp3"
        peer = (f"mpg123 -q -m -s {url} | sox -V1 -t raw -r {RATE} -e signed -b 16 -c 1 - -n "
                f"spectrogram -d {seconds} -o /dev/null")
        wall = {"chirper": [], "mpg123": []}
        cpu = {"chirper": [], "mpg123": []}
        shape = None
        session = Session(self.chirper_cmd(output="null"), self.chirper_env(), self.stderr)
        try:
            session.send("search en:min5")
            session.out.wait(r"^list: (paging|populated) rows=")
            for n in range(runs + 1):
                for name in ("chirper", "mpg123") if n % 2 == 0 else ("mpg123", "chirper"):
                    if name == "chirper":
                        mark = session.out.mark()
                        before = self.cpu_seconds(session.proc.pid)
                        began = session.send(f"sono {n + 1}")  # a row not drawn before: not in the cache
                        head, _ = session.out.wait(r"^(sono: \S+ .* rows=\d+$|error:|sono: .*(cannot draw|failed))",
                                                   mark, timeout=120)
                        header = session.out.text(head)[0]
                        if not re.search(r" rows=\d+$", header):
                            raise RuntimeError(f"chirper-play did not draw `sono 1`: {header}")
                        rows = int(re.search(r"rows=(\d+)$", header).group(1))
                        shape = header.split(" ", 2)[2]
                        _, done = session.out.wait(r"^sono:", head + 1, count=rows)
                        used = self.cpu_seconds(session.proc.pid) - before
                        took = done - began
                    else:
                        took, user, system, _, status, err = timed(["bash", "-c", "set -o pipefail; " + peer],
                                                                   self.pulse.client_env)
                        if status != 0:
                            self.problems.append(f"sonogram: the mpg123 | sox pipeline exited with {status}: "
                                                 f"{err[-300:]}")
                            continue
                        used = user + system
                    if n > 0:
                        wall[name].append(took * 1000)
                        cpu[name].append(used)
            # 10b: at pixel resolution, written as a PNG (the peer writes a PNG too).
            png = self.cache / "sono-bench.png"
            # Rows not drawn before (the runs above drew rows 1 to runs + 1): not in the play cache.
            wall_png = self.alternate(runs, session, lambda n: f"sono {runs + 2 + n} --png {png}", "sono: png=", peer,
                                      "sono --png")
        finally:
            session.close("quit")
        self.figures.append(Figure("10b", "`sono 1 --png F` (1000 × 300 px PNG) / mpg123 -s | sox spectrogram (PNG)",
                                   "ms", wall_png["chirper"], wall_png["mpg123"], "≤ 1.5"))
        literal = []
        if "mp3" in subprocess.run(["sox", "-h"], capture_output=True, text=True).stdout:
            for _ in range(max(1, runs // 2)):
                took, user, system, _, status, _ = timed(["sox", "-V1", str(local), "-n", "spectrogram", "-o",
                                                          "/dev/null"], self.pulse.client_env)
                if status == 0:
                    literal.append((took, user + system))
        self.figures.append(Figure("10", "`sono 1` of a 5 min MP3 → last `sono:` line / mpg123 -s | sox spectrogram",
                                   "ms", wall["chirper"], wall["mpg123"], "≤ 1.0"))

        def median(values, unit):
            return fmt(statistics.median(values), unit) if values else "–"

        self.notes.append(
            f"10: the peer decodes with the same libmpg123 from the same loopback URL and feeds sox the same "
            f"analysis chirper-play makes (mono, a 1024-point Hann DFT every 512 samples, sox every 500, over all "
            f"{seconds} s: "
            f"`{peer.replace(url, 'URL')}`); sox also draws an 800-column PNG, chirper-play {shape}. CPU "
            f"(user+sys, median): chirper-play {median(cpu['chirper'], 'CPU s')} s, the pipeline "
            f"{median(cpu['mpg123'], 'CPU s')} s (two processes: it can use both cores). The issue's "
            f"`sox FILE -n spectrogram` (local file, libmad, stereo: two 512-point spectrograms): "
            + (f"{fmt(statistics.median(t for t, _ in literal) * 1000, 'ms')} ms wall, "
               f"{fmt(statistics.median(c for _, c in literal), 'CPU s')} CPU s (median of {len(literal)})."
               if literal else "not measured (sox has no MP3 support: libsox-fmt-mp3)."))

    # -- verdicts

    def judge(self):
        for fig in self.figures:
            fig.verdict_value, fig.verdict = None, None
            base = getattr(fig, "base", None)
            if not fig.chirper or (base is not None and not base.chirper):
                fig.verdict = "no data" if fig.target else None
                continue
            custom = getattr(fig, "judge_fn", None)
            if custom is not None:
                fig.verdict_value, fig.verdict = custom(fig)
                continue
            if base is not None:
                fig.verdict_value = statistics.median(fig.chirper) / statistics.median(base.chirper)
            else:
                fig.verdict_value = fig.ratio
            if fig.target and fig.verdict_value is not None:
                limit = float(re.search(r"[\d.]+", fig.target).group())
                if fig.target.startswith("≥"):
                    ok = fig.verdict_value >= limit
                    miss = f"{percent((limit - fig.verdict_value) / limit)} short"
                else:
                    ok = fig.verdict_value <= limit
                    miss = f"{percent(fig.verdict_value / limit - 1)} over"
                fig.verdict = "met" if ok else f"MISSED ({miss})"

    # -- report

    def machine(self):
        cpu = "?"
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem = "?"
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
        built = datetime.datetime.fromtimestamp(os.path.getmtime(self.binary), datetime.timezone.utc)
        return [
            ("date", datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")),
            ("CPU", f"{cpu}, {os.cpu_count()} cores"),
            ("memory", mem),
            ("load average", f"{self.load_at_start[0]:.2f} at start, {os.getloadavg()[0]:.2f} at end (1 min; "
                             "other work on the machine disturbs the figures)"),
            ("kernel", f"{platform.system()} {platform.release()} {platform.machine()}"),
            ("chirper-play", f"{first_line([self.binary, '--version'])}, release build of "
                             f"{built.strftime('%Y-%m-%d %H:%M UTC')} from {self.tree()}"),
            ("swift", first_line(["swift", "--version"])),
            ("mpg123", first_line(["mpg123", "--version"])),
            ("libmpg123", first_line(["sh", "-c", "dpkg-query -W -f='${Version}' libmpg123-0 2>/dev/null"])),
            ("pulseaudio", first_line(["pulseaudio", "--version"])),
            ("lame / sox", f"{first_line(['lame', '--version'])} / {first_line(['sox', '--version'])}"),
            ("python", platform.python_version()),
        ]

    def tree(self):
        """HEAD and how many files differ from it (read-only git: no index refresh, no locks)."""
        def git(*args):
            done = subprocess.run(["git", "--no-optional-locks", "-C", str(HERE), *args], capture_output=True,
                                  text=True)
            return done.stdout if done.returncode == 0 else None
        head = git("rev-parse", "--short", "HEAD")
        changed = git("status", "--porcelain")
        if head is None:
            return "a tree outside git"
        changes = len(changed.splitlines()) if changed is not None else "?"
        return f"commit {head.strip()} with {changes} changed or new paths"

    def report(self, elapsed):
        self.figures.sort(key=lambda f: figure_order(f.key))
        self.notes.sort(key=lambda note: figure_order(note.split(":", 1)[0]))
        self.judge()
        rows = table(self.figures)
        machine = self.machine()
        print()
        for key, value in machine:
            print(f"{key:>13}: {value}")
        print()
        print(render_text(rows))
        print()
        for note in self.notes:
            print("note " + note)
        missed = [f for f in self.figures if f.verdict and f.verdict.startswith("MISSED")]
        for fig in missed:
            print(f"MISSED {fig.key} ({fig.label}): {fig.verdict[8:-1]}; target {fig.target}")
        for problem in self.problems:
            print("PROBLEM " + problem)
        print(f"\n(make bench took {elapsed:.0f} s)")
        if self.args.write:
            self.write_markdown(Path(self.args.write), machine, rows, missed, elapsed)

    def write_markdown(self, path, machine, rows, missed, elapsed):
        block = ["<!-- bench:begin (written by scripts/bench/bench.py; edit outside the markers) -->", ""]
        block.append("| machine | |")
        block.append("| --- | --- |")
        for key, value in machine:
            block.append(f"| {key} | {value} |")
        block += ["", render_markdown(rows), ""]
        block += [f"- {note}" for note in self.notes]
        if missed:
            block.append("")
            block += [f"- **Missed** {f.key} ({f.label}): {f.verdict[8:-1]} (target {f.target})." for f in missed]
        if self.problems:
            block.append("")
            block += [f"- **Problem**: {p}" for p in self.problems]
        block += ["", f"`make bench` took {elapsed:.0f} s.", "", "<!-- bench:end -->"]
        generated = "\n".join(block)
        text = path.read_text() if path.exists() else "# Benchmarks\n\n<!-- bench:begin -->\n<!-- bench:end -->\n"
        pattern = re.compile(r"<!-- bench:begin.*?<!-- bench:end -->", re.S)
        text = pattern.sub(lambda _: generated, text) if pattern.search(text) else text.rstrip() + "\n\n" + generated + "\n"
        path.write_text(text)
        log(f"wrote {path}")

    # -- all of it

    def phase(self, key, body, *args):
        """Runs one figure's measurements; a failure is reported with the figures, and the bench goes on."""
        try:
            body(*args)
        except Exception as error:  # noqa: BLE001 - whatever went wrong belongs in the report
            self.problems.append(f"figure {key} could not be measured: {type(error).__name__}: {error}")
            log(f"figure {key} failed: {error}")

    def run(self):
        began = time.monotonic()
        self.load_at_start = os.getloadavg()
        if self.load_at_start[0] > 0.5:
            log(f"the machine is busy (load average {self.load_at_start[0]:.2f}): figures may be disturbed")
        catalog = generate_inputs(self.cache)
        self.start_server()
        self.pulse.start()
        try:
            only = self.args.only
            if only & {1, 2}:
                self.monitor = Monitor(self.pulse.client_env, latency_msec=2)
                log(f"monitor recording; the sink's latency is {self.monitor.latency * 1000:.1f} ms")
                try:
                    if 1 in only:
                        self.phase("1", self.time_to_first_sound)
                    if 2 in only:
                        self.phase("2", self.cold_start)
                finally:
                    self.monitor.stop()
                    self.monitor = None
            # For the CPU rounds a recorder at 20 ms holds the sink at 20 ms latency (a sound card's usual
            # period; PipeWire's default quantum is 1024/48000 s = 21 ms): see figure 7 for why some low-latency
            # client is needed at all. The lists' 98 filler pages (paced, a few % of a core) overlap the CPU
            # rounds (about 1 % of a core each); the measured list samples and every other figure run alone.
            if only & {3, 6}:
                self.monitor = Monitor(self.pulse.client_env, latency_msec=20)
                try:
                    if 6 in only:
                        cpu = (lambda: self.phase("3", self.cpu_while_playing)) if 3 in only else None
                        self.phase("6", self.lists, cpu)
                    else:
                        self.phase("3", self.cpu_while_playing)
                finally:
                    self.monitor.stop()
                    self.monitor = None
            if 8 in only:
                self.monitor = Monitor(self.pulse.client_env, latency_msec=2)
                try:
                    self.phase("8", self.seek_latency)
                finally:
                    self.monitor.stop()
                    self.monitor = None
            if 9 in only:
                self.monitor = Monitor(self.pulse.client_env, latency_msec=20)  # as for figure 3
                try:
                    self.phase("9", self.cpu_speed_keep)
                finally:
                    self.monitor.stop()
                    self.monitor = None
            if 10 in only:
                self.phase("10", self.sonogram)
            if 12 in only:
                self.phase("12", self.measure)
            if 13 in only:
                self.phase("13", self.compare)
            if 11 in only:
                self.monitor = Monitor(self.pulse.client_env, latency_msec=20)  # as for figure 3
                try:
                    self.phase("11", self.strip_cpu)
                finally:
                    self.monitor.stop()
                    self.monitor = None
            if 7 in only:
                self.phase("7", self.delivery_at_default_latency)
            if 4 in only:
                self.phase("4", self.memory)
            if 5 in only:
                self.phase("5", self.throughput, catalog)
            if 10 in only:
                self.phase("10c", self.long_sonogram, catalog)
        finally:
            self.pulse.stop()
            if self.server:
                self.server.terminate()
                self.server.wait()
            self.stderr.close()
        self.report(time.monotonic() - began)
        if not self.args.keep:
            shutil.rmtree(self.work, ignore_errors=True)
        else:
            log(f"kept {self.work}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the chirper-play to measure (a release build)")
    parser.add_argument("--floor", help="chirper-floor (a release build): the HTTP client alone, for figures 2f "
                        "and 4e, the floor under chirper-play's cold start and memory")
    parser.add_argument("--write", help="update this Markdown file (BENCH.md) with the figures")
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "chirper-bench-inputs"),
                        help="where the generated MP3s are kept between runs (default: %(default)s)")
    parser.add_argument("--runs", type=int, default=15, help="runs per program for figures 1 and 2 (~1 s each)")
    parser.add_argument("--list-runs", type=int, default=9, help="samples of each list figure (6)")
    parser.add_argument("--cpu-runs", type=int, default=3,
                        help="rounds of figure 3 (each ~62 s) and of figure 9 (each ~122 s)")
    parser.add_argument("--mem-runs", type=int, default=5, help="runs per program and file for figures 4, 5")
    parser.add_argument("--seek-runs", type=int, default=9, help="runs per program for figure 8 (~5 s each)")
    parser.add_argument("--sono-runs", type=int, default=5, help="runs per program for figure 10 (~1-3 s each)")
    parser.add_argument("--check-runs", type=int, default=2, help="runs per program for figure 7 (~15 s each)")
    parser.add_argument("--only", default="1,2,3,4,5,6,7,8,9,10,11,12,13", type=lambda text: {int(x) for x in text.split(",")},
                        help="figures to measure (default: all)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs, outputs)")
    args = parser.parse_args()
    for tool in ("mpg123", "pulseaudio", "parec", "pactl", "sox", "lame", "/usr/bin/time"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is missing: make deps-bench installs it")
    if not os.access(args.binary, os.X_OK):
        raise SystemExit(f"{args.binary} is not an executable: build it first (make bench does)")
    if args.floor and not os.access(args.floor, os.X_OK):
        raise SystemExit(f"{args.floor} is not an executable: build it first (make bench does)")
    Bench(args).run()


if __name__ == "__main__":
    main()
