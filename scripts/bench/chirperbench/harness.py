"""What every figure shares: the arguments, a work folder, the loopback server, the private sound server and,
while one records, its monitor; the figures, notes and problems gathered so far."""

import contextlib
import re
import tempfile
from pathlib import Path

from . import loopback
from .children import timed
from .common import API_KEY, log, turns
from .pulse import Monitor, Pulse


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
        self.catalog = None  # the offline catalogue of the generated inputs
        self.load_at_start = None
        self.cpu_rss = None  # peak RSS while playing to pulse (figure 3), shown beside the memory figures
        self.figures = []
        self.notes = []
        self.problems = []
        self.stderr = open(self.work / "children.stderr", "wb")

    def start_server(self):
        self.server, self.base = loopback.serve(self.cache, open(self.work / "server.log", "wb"))
        self.api = f"{self.base}/api/3/recordings"
        log(f"loopback server at {self.base}")

    @contextlib.contextmanager
    def monitoring(self, latency_msec):
        """The monitor recording for the figures run inside, at `latency_msec` (the sink's latency with it)."""
        self.monitor = Monitor(self.pulse.client_env, latency_msec=latency_msec)
        log(f"monitor recording; the sink's latency is {self.monitor.latency * 1000:.1f} ms")
        try:
            yield self.monitor
        finally:
            self.monitor.stop()
            self.monitor = None

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

    def phase(self, key, body, *args):
        """Runs one figure's measurements, `body(self, *args)`; a failure is reported with the figures, and the
        bench goes on."""
        try:
            body(self, *args)
        except Exception as error:  # noqa: BLE001 - whatever went wrong belongs in the report
            self.problems.append(f"figure {key} could not be measured: {type(error).__name__}: {error}")
            log(f"figure {key} failed: {error}")

    def alternate(self, runs, session, command, answer, peer, what):
        """Times `command` in a running chirper-play `session` (until its line starting with `answer`) and the
        `peer` shell pipeline, alternating which goes first, `runs` times each after one warm-up; returns the
        wall times in ms by name. `command` may be a function of the run's number (0 the warm-up)."""
        wall = {"chirper": [], "mpg123": []}
        for n in range(runs + 1):
            for name in turns(n):
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

    def close(self):
        """Stops the sound server and the loopback server."""
        self.pulse.stop()
        if self.server:
            self.server.terminate()
            self.server.wait()
        self.stderr.close()
