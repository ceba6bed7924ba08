"""The private PulseAudio server with one null sink, and `Monitor`, which records what the sink plays and tells
when the first sound after a command played."""

import array
import os
import re
import signal
import subprocess
import threading
import time

from .common import RATE, SINK, THRESHOLD, log, run
from .sound import loud


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
    estimate of T0, good to the smallest delivery delay. The first sample louder than THRESHOLD after a
    command plays at T0 + k/RATE. What stays uncertain is the sink's own cadence: a player's first sample
    waits for the sink's next wake-up (0..L); with a small L that jitter is small against the figures, and it
    is the same for both players. L is read back from `pactl list sinks` (the sink's configured latency), not
    assumed.

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
                if loud(piece):
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
            if len(view) >= need and not loud(view):
                return
            time.sleep(0.05)
        raise TimeoutError("the sink did not fall silent")

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
