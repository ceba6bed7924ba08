"""Figure 11: the CPU of a terminal session playing a minute, without and with the live sonogram strip, beside
mpg123 -v on the same kind of terminal."""

import threading

from .common import log
from .figures import Figure
from .terminal import on_pty, on_terminal


def strip_cpu(bench):
    runs = bench.args.cpu_runs
    log(f"11. CPU playing the 60 s MP3 on a terminal without and with the live sonogram strip (half-blocks and "
        f"kitty pixels), and mpg123 -v, all four at once: "
        f"{runs} rounds (~{runs * 62} s)")
    cpu = {"off": [], "on": [], "pixels": [], "mpg123": []}
    # A kitty terminal's answers to the graphics query: kitty graphics, cells of 10 × 20 pixels.
    kitty = b"\x1b_Gi=31;OK\x1b\\\x1b[6;20;10t\x1b[?62;22c"

    def one(mode, sink):
        if mode == "mpg123":
            # mpg123 -v: its own status line (time, buffer, frames) on the same kind of terminal.
            result = on_pty(["mpg123", "-v", "-o", "pulse", bench.url("min1")], bench.pulse.client_env, 100)
            if result is None:
                bench.problems.append("terminal CPU: mpg123 -v did not play to its end (not counted)")
            else:
                sink[mode] = result[0] + result[1]
            return
        # Each command waits for its answer: the rows (their table header), the strip's top gutter, the status.
        strip = mode in ("on", "pixels")
        commands = [("search en:min1", "Scientific name")] + ([("sono on", "chirper>")] if strip else [])
        commands += [("play 1", "playing")]
        result = on_terminal(bench, commands, "finished", 100, answer=kitty if mode == "pixels" else None)
        wall, user, system, output = result
        if output is None:
            bench.problems.append(f"live strip CPU: the {mode} run did not play to its end (not counted)")
        elif strip and "k┐" not in output:
            bench.problems.append(f"live strip CPU: the {mode} strip was never drawn (not counted)")
        elif mode == "pixels" and "\x1b_Gi=" not in output:
            bench.problems.append("live strip CPU: the strip's kitty image was never sent (not counted)")
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
    on = Figure("11b", "the same with the live sonogram strip on (`sono on`)", "CPU s", cpu["on"], base=off)
    pixels = Figure("11c", "the same with the strip in real pixels (a kitty terminal)", "CPU s", cpu["pixels"],
                    base=off)
    bench.figures += [off, on, pixels]
    bench.notes.append(
        "11: each on a pseudo-terminal of 100×30 with colour, the three runs at once; 11a against `mpg123 -v` "
        "(its own status line) on the same kind of terminal; 11b's ratio is the strip's overhead over the same "
        "terminal session without it "
        "(the strip's picture is computed once per recording, then redrawn with the status line); 11c the same "
        "with the terminal answering the graphics query as kitty (cells of 10 × 20 pixels): the strip's page is "
        "an image sent once a page, the marker and status lines rewritten between.")
