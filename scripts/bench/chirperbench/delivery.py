"""Figure 7: how much of a clip is heard when the sink renders far ahead (no low-latency client)."""

import statistics
import subprocess
import time

from .common import RATE, SINK, log, turns
from .figures import Figure, fmt
from .sound import audible_seconds


def delivery_at_default_latency(bench):
    """With no low-latency client, the null sink runs at its default 2 s latency and renders up to 2 s
    ahead (as a timer-scheduled sound card may). Records with parec at its default (large) fragment size,
    which leaves the sink's latency alone, and counts the audible seconds of the 10 s clip."""
    runs = bench.args.check_runs
    log(f"7. audible seconds of the 10 s clip, sink at its default latency: {runs} alternating runs each")
    audible = {"chirper": [], "mpg123": []}
    wall = {"chirper": [], "mpg123": []}
    script = bench.work / "play-ttfs.txt"
    script.write_text("search en:ttfs\nplay 1\nwait\nquit\n")
    raw = bench.work / "check.raw"
    for n in range(runs):
        for name in turns(n):
            with open(raw, "wb") as sink:
                recorder = subprocess.Popen(
                    ["parec", "-d", f"{SINK}.monitor", "--raw", "--format=s16le", f"--rate={RATE}",
                     "--channels=1"], stdout=sink, env=bench.pulse.client_env)
            time.sleep(1.0)
            began = time.monotonic()
            if name == "chirper":
                with open(script) as stdin:
                    subprocess.run(bench.chirper_cmd(), stdin=stdin, stdout=subprocess.DEVNULL, stderr=bench.stderr,
                                   env=bench.chirper_env(), timeout=120)
            else:
                subprocess.run(["mpg123", "-q", "-o", "pulse", bench.url("ttfs")], stdout=subprocess.DEVNULL,
                               stderr=bench.stderr, env=bench.pulse.client_env, timeout=120)
            wall[name].append(time.monotonic() - began)
            time.sleep(2.5)  # what the sink rendered ahead reaches the monitor
            recorder.terminate()
            recorder.wait()
            audible[name].append(audible_seconds(raw.read_bytes()))
    bench.figures.append(Figure(
        "7", "audible s of a 10 s clip, sink at default 2 s latency (extra)", "s", audible["chirper"],
        audible["mpg123"], "≥ 9.5 s",
        decide=lambda f: (f.ratio, "met" if statistics.median(f.chirper) >= 9.5 else
                          f"MISSED ({10 - statistics.median(f.chirper):.1f} s of 10 s lost)")))
    bench.notes.append(
        "7: wall time to play the 10 s clip to its end with the sink at its default latency (median): "
        f"chirper-play {fmt(statistics.median(wall['chirper']), 's')} s, "
        f"mpg123 {fmt(statistics.median(wall['mpg123']), 's')} s.")
