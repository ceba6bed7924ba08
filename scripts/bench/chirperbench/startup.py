"""Figures 1 and 2: how soon the first sound plays after `play` in a running program, and after launching it
cold; and the floor under the cold start, the HTTP client alone."""

import os
import statistics
import subprocess
import time

from .children import Lines, Session
from .common import log, turns
from .figures import Figure, fmt


def time_to_first_sound(bench):
    runs = bench.args.runs
    log(f"1. time to first sound: 1 warm-up + {runs} alternating runs each")
    env = bench.chirper_env()
    chirper = Session(bench.chirper_cmd(), env, bench.stderr)
    mpg = Session(["mpg123", "-R", "-o", "pulse"], bench.pulse.client_env, bench.stderr)
    try:
        chirper.send("search en:ttfs")
        chirper.out.wait(r"^list: (paging|populated) rows=")
        mpg.out.wait(r"^@R MPG123")
        mpg.send("SILENCE")  # no @F frame lines
        results = {"chirper": [], "mpg123": []}
        phases = {"buffering": [], "playing": []}
        first = {}
        for n in range(runs + 1):
            for name in turns(n):
                bench.monitor.wait_silence()
                if name == "chirper":
                    mark = chirper.out.mark()
                    # Another row each time: a recording not heard before, so not in the play cache.
                    began = chirper.send(f"play {n + 1}")
                    delay = bench.monitor.onset(began)
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
                    began = mpg.send(f"LOAD {bench.url('ttfs')}")
                    delay = bench.monitor.onset(began)
                    mpg.send("STOP")
                    mpg.out.wait(r"^@P 0", mark)
                if delay is None:
                    bench.problems.append(f"time to first sound: {name} made no sound within 15 s (run {n})")
                    continue
                if n == 0:
                    first[name] = delay * 1000
                else:
                    results[name].append(delay * 1000)
        bench.figures.append(Figure("1", "time to first sound (running, `play`/`LOAD`)", "ms",
                                    results["chirper"], results["mpg123"], "≤ 0.9"))
        bench.notes.append(
            "1: first play of the session (warm-up, not counted): chirper-play "
            f"{fmt(first.get('chirper'), 'ms')} ms, mpg123 {fmt(first.get('mpg123'), 'ms')} ms. chirper-play "
            f"printed `playback: buffering` {fmt(statistics.median(phases['buffering']), 'ms')} ms and "
            f"`playback: playing` {fmt(statistics.median(phases['playing']), 'ms')} ms (medians) after "
            "`play` was written.")
    finally:
        chirper.close("quit")
        mpg.close("QUIT")


def cold_start(bench):
    runs = bench.args.runs
    log(f"2. cold start: 1 warm-up + {runs} alternating runs each")
    results = {"chirper": [], "mpg123": []}
    stages = {}
    for n in range(runs + 1):
        for name in turns(n):
            bench.monitor.wait_silence()
            if name == "chirper":
                # The commands are in the pipe before the program starts; the pipe stays open so that the
                # end of input does not quit it.
                read_end, write_end = os.pipe()
                os.write(write_end, b"search en:ttfs\nplay 1\n")
                began = time.monotonic()
                proc = subprocess.Popen(bench.chirper_cmd(), stdin=read_end, stdout=subprocess.PIPE,
                                        stderr=bench.stderr, env=bench.chirper_env())
                os.close(read_end)
                lines = Lines(proc.stdout)
                delay = bench.monitor.onset(began)
                if n > 0 and delay is not None:
                    try:
                        for key, pattern in (("list: loading", r"^list: loading"),
                                             ("page 1 in", r"^list: (paging|populated)"),
                                             ("playback: buffering", r"^playback: buffering"),
                                             ("playback: playing", r"^playback: playing")):
                            stages.setdefault(key, []).append((lines.wait(pattern, 0, 5)[1] - began) * 1000)
                    except TimeoutError as error:
                        bench.problems.append(f"cold start: chirper-play's output: {error}")
                os.close(write_end)  # end of input: chirper-play stops and quits
            else:
                began = time.monotonic()
                proc = subprocess.Popen(["mpg123", "-q", "-o", "pulse", bench.url("ttfs")],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=bench.stderr, env=bench.pulse.client_env)
                delay = bench.monitor.onset(began)
                proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                bench.problems.append(f"cold start: {name} did not exit within 10 s of being told to (run {n})")
                proc.kill()
                proc.wait()
            if delay is None:
                bench.problems.append(f"cold start: {name} made no sound within 15 s (run {n})")
            elif n > 0:
                results[name].append(delay * 1000)
    bench.figures.append(Figure("2", "cold start: launch to first sound", "ms",
                                results["chirper"], results["mpg123"], "≤ 1.5"))
    if bench.floor:
        # The floor: the HTTP client alone, launched cold, fetching the same page and then the same
        # recording's first bytes, no list, decoder or sound server. What chirper-play adds is the rest.
        floor = []
        for n in range(runs + 1):  # the first is a warm-up, as in 2
            began = time.monotonic()
            proc = subprocess.Popen([bench.floor, bench.page_url("ttfs"), bench.url("ttfs"), "--first"],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=bench.stderr,
                                    env=bench.chirper_env())
            lines = Lines(proc.stdout)
            try:
                arrived = (lines.wait(r"^audio$", 0, 10)[1] - began) * 1000
            except TimeoutError as error:
                bench.problems.append(f"cold start: chirper-floor: {error}")
                arrived = None
            try:
                status = proc.wait(10)
            except subprocess.TimeoutExpired:
                bench.problems.append(f"cold start: chirper-floor did not exit within 10 s (run {n})")
                proc.kill()
                status = proc.wait()
            if status != 0:
                bench.problems.append(f"cold start: chirper-floor exited with {status} (run {n})")
            elif n > 0 and arrived is not None:
                floor.append(arrived)
        bench.figures.append(Figure("2f", "floor: launch to the audio's first bytes, HTTP client alone / "
                                    "mpg123's first sound", "ms", floor, results["mpg123"],
                                    program="chirper-floor"))
    if stages:
        bench.notes.append("2: where chirper-play's cold start goes (medians, ms after launch): " + ", ".join(
            f"`{key}` {fmt(statistics.median(values), 'ms')}" for key, values in stages.items())
            + f", first sound {fmt(statistics.median(results['chirper']), 'ms')}.")
