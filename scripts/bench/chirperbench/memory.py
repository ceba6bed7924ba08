"""Figures 4 and 5: peak resident memory streaming short and long files, and how fast a local file decodes."""

import statistics
import subprocess
import threading
import time

from .children import Session, timed
from .common import INPUTS, log, turns
from .figures import Figure, fmt


def memory(bench):
    runs = bench.args.mem_runs
    log(f"4. peak RSS streaming 1 min and 30 min MP3s, --output null / mpg123 -t: {runs} alternating runs each")
    rss = {(p, f): [] for p in ("chirper", "mpg123") for f in ("min1", "min30")}
    for n in range(runs):
        for name in turns(n):
            for file in ("min1", "min30"):
                if name == "chirper":
                    script = bench.work / f"null-{file}.txt"
                    script.write_text(f"search en:{file}\nplay 1\nwait\nquit\n")
                    out = bench.work / "mem.out"
                    with open(script) as stdin, open(out, "w") as stdout:
                        w, user, system, peak, status, err = timed(
                            bench.chirper_cmd(output="null"), bench.chirper_env(), stdin=stdin, stdout=stdout)
                    text = out.read_text()
                    if "playback: playing" not in text or "failed" in text:
                        bench.problems.append(f"memory: chirper-play did not decode {file} cleanly: {text[-300:]!r}")
                else:
                    w, user, system, peak, status, err = timed(["mpg123", "-q", "-t", bench.url(file)],
                                                               bench.pulse.client_env)
                if status != 0:
                    bench.problems.append(f"memory: {name} {file} exited with {status}: {err[-300:]}")
                rss[(name, file)].append(peak / 1024)
    bench.figures.append(Figure("4a", "peak RSS streaming 1 min, null / -t", "MiB",
                                rss[("chirper", "min1")], rss[("mpg123", "min1")]))
    bench.figures.append(Figure("4b", "peak RSS streaming 30 min, null / -t", "MiB",
                                rss[("chirper", "min30")], rss[("mpg123", "min30")]))
    if bench.floor:
        # The floor: the HTTP client alone reading the same 30 min file, keeping none of it.
        floor = []
        for n in range(runs):
            w, user, system, peak, status, err = timed(
                [bench.floor, bench.page_url("min30"), bench.url("min30")], bench.chirper_env())
            if status != 0:
                bench.problems.append(f"memory: chirper-floor exited with {status}: {err[-300:]}")
                continue
            floor.append(peak / 1024)
        bench.figures.append(Figure("4e", "floor: peak RSS of the HTTP client alone reading 30 min / mpg123 -t",
                                    "MiB", floor, rss[("mpg123", "min30")], program="chirper-floor"))
    growth_c = statistics.median(rss[("chirper", "min30")]) - statistics.median(rss[("chirper", "min1")])
    growth_m = statistics.median(rss[("mpg123", "min30")]) - statistics.median(rss[("mpg123", "min1")])
    bench.figures.append(Figure(
        "4c", "peak RSS growth, 30 min − 1 min (medians)", "MiB", [growth_c], [growth_m], "≤ 2 MiB",
        decide=lambda f: (None, "met" if f.chirper[0] <= 2.0 else f"MISSED (+{f.chirper[0] - 2.0:.1f} MiB)")))
    if bench.cpu_rss:
        bench.figures.append(Figure("4d", "peak RSS playing 1 min to its end, pulse", "MiB",
                                    bench.cpu_rss["chirper"], bench.cpu_rss["mpg123"]))


def throughput(bench):
    catalog = bench.catalog
    runs = bench.args.mem_runs
    seconds = INPUTS["min30"]
    log(f"5. decode throughput, 30 min MP3 from a local file: {runs} alternating runs each")
    speed = {"chirper": [], "mpg123": []}
    inner = []
    script = bench.work / "local-min30.txt"
    script.write_text("search en:bench\nplay 1\nwait\nquit\n")
    for n in range(runs):
        for name in turns(n):
            if name == "chirper":
                began = time.monotonic()
                session = Session([bench.binary, "--catalog", str(catalog), "--output", "null"],
                                  bench.chirper_env(), bench.stderr)
                session.proc.stdin.write(script.read_bytes())
                session.proc.stdin.close()
                # A blocking wait, as for mpg123 below: `wait(timeout)` polls, in growing steps, which would
                # add up to a step's length to a figure not much longer than a second.
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
                    bench.problems.append(f"throughput: chirper-play output unexpected: {error}")
            else:
                began = time.monotonic()
                status = subprocess.run(["mpg123", "-q", "-t", str(catalog / "audio" / "min30.mp3")],
                                        stderr=bench.stderr).returncode
                wall = time.monotonic() - began
            if status != 0:
                bench.problems.append(f"throughput: {name} exited with {status}")
            speed[name].append(seconds / wall)
    bench.figures.append(Figure("5", "decode throughput, 30 min local MP3 (launch to exit)", "× realtime",
                                speed["chirper"], speed["mpg123"], "≥ 1.0"))
    if inner:
        bench.notes.append(
            "5: chirper-play from `playback: buffering` to the end line alone: "
            f"{fmt(statistics.median(inner), '× realtime')} × realtime (median; excludes start-up and search).")
