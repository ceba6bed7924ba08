"""Figure 10: the sonogram of a 5-minute recording, as text lines and as a PNG, and of a 30-minute local file on
every core, each against mpg123 feeding sox the same analysis."""

import os
import re
import statistics
import subprocess

from .children import Session, cpu_seconds, timed
from .common import INPUTS, RATE, log, turns
from .figures import Figure, fmt, median


def sonogram(bench):
    runs = bench.args.sono_runs
    seconds = INPUTS["min5"]
    log(f"10. sonogram of a 5 min MP3: {runs} alternating runs each")
    url = bench.url("min5")
    local = bench.cache / "min5.mp3"
    peer = (f"mpg123 -q -m -s {url} | sox -V1 -t raw -r {RATE} -e signed -b 16 -c 1 - -n "
            f"spectrogram -d {seconds} -o /dev/null")
    wall = {"chirper": [], "mpg123": []}
    cpu = {"chirper": [], "mpg123": []}
    shape = None
    session = Session(bench.chirper_cmd(output="null"), bench.chirper_env(), bench.stderr)
    try:
        session.send("search en:min5")
        session.out.wait(r"^list: (paging|populated) rows=")
        for n in range(runs + 1):
            for name in turns(n):
                if name == "chirper":
                    mark = session.out.mark()
                    before = cpu_seconds(session.proc.pid)
                    began = session.send(f"sono {n + 1}")  # a row not drawn before: not in the cache
                    head, _ = session.out.wait(r"^(sono: \S+ .* rows=\d+$|error:|sono: .*(cannot draw|failed))",
                                               mark, timeout=120)
                    header = session.out.text(head)[0]
                    if not re.search(r" rows=\d+$", header):
                        raise RuntimeError(f"chirper-play did not draw `sono 1`: {header}")
                    rows = int(re.search(r"rows=(\d+)$", header).group(1))
                    shape = header.split(" ", 2)[2]
                    _, done = session.out.wait(r"^sono:", head + 1, count=rows)
                    used = cpu_seconds(session.proc.pid) - before
                    took = done - began
                else:
                    took, user, system, _, status, err = timed(["bash", "-c", "set -o pipefail; " + peer],
                                                               bench.pulse.client_env)
                    if status != 0:
                        bench.problems.append(f"sonogram: the mpg123 | sox pipeline exited with {status}: "
                                              f"{err[-300:]}")
                        continue
                    used = user + system
                if n > 0:
                    wall[name].append(took * 1000)
                    cpu[name].append(used)
        # 10b: at pixel resolution, written as a PNG (the peer writes a PNG too).
        png = bench.cache / "sono-bench.png"
        # Rows not drawn before (the runs above drew rows 1 to runs + 1): not in the play cache.
        wall_png = bench.alternate(runs, session, lambda n: f"sono {runs + 2 + n} --png {png}", "sono: png=", peer,
                                   "sono --png")
    finally:
        session.close("quit")
    bench.figures.append(Figure("10b", "`sono 1 --png F` (1000 × 300 px PNG) / mpg123 -s | sox spectrogram (PNG)",
                                "ms", wall_png["chirper"], wall_png["mpg123"], "≤ 1.5"))
    literal = []
    if "mp3" in subprocess.run(["sox", "-h"], capture_output=True, text=True).stdout:
        for _ in range(max(1, runs // 2)):
            took, user, system, _, status, _ = timed(["sox", "-V1", str(local), "-n", "spectrogram", "-o",
                                                      "/dev/null"], bench.pulse.client_env)
            if status == 0:
                literal.append((took, user + system))
    bench.figures.append(Figure("10", "`sono 1` of a 5 min MP3 → last `sono:` line / mpg123 -s | sox spectrogram",
                                "ms", wall["chirper"], wall["mpg123"], "≤ 1.0"))

    bench.notes.append(
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


def long_sonogram(bench):
    """`sono 1` of the 30 min file from the offline catalog (a whole local file: decoded in parallel pieces,
    one per core), launch to exit, against `mpg123 -q -m -s FILE | sox … spectrogram` of the same file (two
    processes, so two cores), the same analysis as figure 10."""
    catalog = bench.catalog
    runs = bench.args.mem_runs
    log(f"10c. sonogram of the 30 min MP3 from a local file: {runs} alternating runs each")
    wall = {"chirper": [], "mpg123": []}
    cpu = {"chirper": [], "mpg123": []}
    local = catalog / "audio" / "min30.mp3"
    pipeline = (f"mpg123 -q -m -s {local} | sox -V1 -t raw -r 48000 -e signed -b 16 -c 1 - -n spectrogram "
                f"-d {INPUTS['min30']} -o /dev/null")
    for n in range(runs):
        for name in turns(n):
            if name == "chirper":
                script = "search en:bench\nsono 1\nquit\n"
                command = (f"printf '{script}' | {bench.binary} --catalog {catalog} --output null "
                           "| grep -c '^sono:' > /dev/null")
            else:
                command = pipeline
            elapsed, user, system, _, status, _ = timed(["bash", "-c", command], bench.chirper_env())
            if status != 0:
                bench.problems.append(f"10c: {name} exited with {status}")
                continue
            wall[name].append(elapsed * 1000)
            cpu[name].append(user + system)
    bench.figures.append(Figure("10c", "`sono 1` of a 30 min local MP3, launch to exit / mpg123 -s | sox spectrogram",
                                "ms", wall["chirper"], wall["mpg123"], "≤ 0.5"))
    if cpu["chirper"] and cpu["mpg123"]:
        bench.notes.append(
            f"10c: CPU (user+sys, median): chirper-play {statistics.median(cpu['chirper']):.2f} s, the pipeline "
            f"{statistics.median(cpu['mpg123']):.2f} s; chirper-play decodes the file in {os.cpu_count()} pieces "
            "at once (one per core) and analyses each as it decodes; the pipeline is two processes.")
