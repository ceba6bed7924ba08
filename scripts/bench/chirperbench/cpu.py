"""Figures 3 and 9: the CPU chirper-play uses playing a minute to its end beside mpg123, and at half speed with
the pitch kept."""

import statistics
import threading

from .children import timed, timed_direct
from .common import log
from .figures import Figure, fmt, median


def cpu_while_playing(bench):
    runs = bench.args.cpu_runs
    log(f"3. CPU while playing a 60 s MP3 to its end: {runs} rounds, both players at once (~{runs * 62} s)")
    script = bench.work / "play-min1.txt"
    script.write_text("search en:min1\nplay 1\nwait\nquit\n")
    cpu = {"chirper": [], "mpg123": []}
    rss = {"chirper": [], "mpg123": []}
    wall = {"chirper": [], "mpg123": []}

    def one(name, sink):
        if name == "chirper":
            out = bench.work / f"cpu-{threading.get_ident()}.out"
            with open(script) as stdin, open(out, "w") as stdout:
                result = timed(bench.chirper_cmd(), bench.chirper_env(), stdin=stdin, stdout=stdout)
            text = out.read_text()
            if "playback: playing" not in text or "failed" in text:
                bench.problems.append(f"CPU: chirper-play did not play min1 cleanly: {text[-300:]!r}")
        else:
            result = timed(["mpg123", "-q", "-o", "pulse", bench.url("min1")], bench.pulse.client_env)
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
                bench.problems.append(f"CPU: {name} exited with {status}: {err[-300:]}")
            cpu[name].append(user + system)
            rss[name].append(peak / 1024)
            wall[name].append(w)
    bench.figures.append(Figure("3", "CPU (user+sys) playing 60 s to its end, pulse", "CPU s",
                                cpu["chirper"], cpu["mpg123"], "≤ 1.0"))
    bench.cpu_rss = rss
    bench.notes.append(
        f"3: wall time to play the 60 s file to its end (median): chirper-play "
        f"{fmt(statistics.median(wall['chirper']), 's')} s, mpg123 {fmt(statistics.median(wall['mpg123']), 's')} s.")


def cpu_speed_keep(bench):
    runs = bench.args.cpu_runs
    log(f"9. CPU playing the 60 s MP3 plain, at `speed 0.5 keep` and `speed 0.5 tape`, all three at once: "
        f"{runs} rounds (~{runs * 122} s)")
    modes = {"plain": "", "keep": "speed 0.5 keep\n", "tape": "speed 0.5 tape\n"}
    cpu = {mode: [] for mode in modes}
    wall = {mode: [] for mode in modes}

    def one(mode, sink):
        script = bench.work / f"speed-{mode}.txt"
        script.write_text(f"search en:min1\n{modes[mode]}play 1\nwait\nquit\n")
        out = bench.work / f"speed-{mode}.out"
        limit = 60 / (1 if mode == "plain" else 0.5) + 30
        with open(script) as stdin, open(out, "w") as stdout:
            result = timed_direct(bench.chirper_cmd(), bench.chirper_env(), stdin, stdout, bench.stderr, limit)
        lines = [line for line in out.read_text().splitlines() if not line.startswith(("row:", "list:"))]
        expected = {"plain": "playback: playing ", "keep": "speed=0.5 mode=keep", "tape": "speed=0.5"}[mode]
        if result[4] is None:
            bench.problems.append(f"speed CPU: chirper-play {mode} had not ended after {limit:.0f} s (killed, "
                                  f"not counted); its last lines: {' | '.join(lines[-3:])}")
        elif result[4] != 0 or not any(expected in line for line in lines) or any("failed" in line for line in lines):
            bench.problems.append(f"speed CPU: chirper-play {mode} exited with {result[4]} (not counted): "
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
    # Wanted beside plain playback, with no target: 9b's ratio is over 9a.
    keep = Figure("9b", "CPU playing the same 60 s at `speed 0.5 keep` (120 s), pulse", "CPU s", cpu["keep"],
                  base=plain)
    bench.figures += [plain, keep]
    per_second = (statistics.median(cpu["keep"]) / statistics.median(wall["keep"])) / (
        statistics.median(cpu["plain"]) / statistics.median(wall["plain"])) if cpu["plain"] and cpu["keep"] else None
    bench.notes.append(
        f"9: chirper-play alone (mpg123 has no pitch-keeping speed): 9b's ratio is its overhead over its own "
        f"plain playback; half speed plays twice as long, so about 2 is the sink's share. Wall time (median): "
        f"plain {median(wall['plain'], 's')} s, keep {median(wall['keep'], 's')} s; per wall second keep costs "
        f"{f'{per_second:.2f}' if per_second else '–'} × plain. `speed 0.5 tape` (libsyn123's resampler) in the "
        "same rounds: "
        f"{median(cpu['tape'], 'CPU s')} CPU s in {median(wall['tape'], 's')} s.")
