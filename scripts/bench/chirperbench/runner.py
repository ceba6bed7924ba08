"""One run of the bench: the figures `--only` asks for, in an order that keeps each monitor's latency for the
figures that need it, then the report."""

import os
import shutil
import time
from pathlib import Path

from . import analysis, cpu, delivery, identify, lists, memory, own, seek, sonogram, startup, strip
from .common import log
from .figures import figure_order, judge
from .inputs import generate_inputs
from .report import machine, markdown_block, missed, text_report, write_block
from .table import table

# Each phase's key (as problems name it) and what measures it, `body(bench)`.
PHASES = {
    "1": startup.time_to_first_sound,
    "2": startup.cold_start,
    "3": cpu.cpu_while_playing,
    "4": memory.memory,
    "5": memory.throughput,
    "6": lists.lists,
    "7": delivery.delivery_at_default_latency,
    "8": seek.seek_latency,
    "9": cpu.cpu_speed_keep,
    "10": sonogram.sonogram,
    "10c": sonogram.long_sonogram,
    "11": strip.strip_cpu,
    "12": analysis.measure,
    "13": analysis.compare,
    "14": own.own_files,
    "14d": own.flac_seek,
    "15": identify.identify,
}


def plan(only):
    """The phases for the figure numbers `only`, in the order they run: [(monitor latency in ms, or None for no
    monitor, [(phase key, key of a phase run while it runs, or None)])].

    The first sounds and the seeks are timed from a monitor at 2 ms. For the CPU rounds a monitor at 20 ms
    holds the sink at a sound card's usual period (PipeWire's default quantum is 1024/48000 s): figure 7 shows
    why some low-latency client is needed at all. The lists' filler pages, paced and cheap, overlap the CPU
    rounds, which cost little more; the measured list samples and every other figure run alone."""
    steps = []
    first = [(key, None) for key in ("1", "2") if int(key) in only]
    if first:
        steps.append((2, first))
    if 6 in only:
        steps.append((20, [("6", "3" if 3 in only else None)]))
    elif 3 in only:
        steps.append((20, [("3", None)]))
    for number, key, latency in ((8, "8", 2), (9, "9", 20), (10, "10", None), (12, "12", None),
                                 (13, "13", None), (11, "11", 20), (7, "7", None), (4, "4", None),
                                 (5, "5", None), (10, "10c", None), (14, "14d", 2), (14, "14", None),
                                 (15, "15", None)):
        if number in only:
            steps.append((latency, [(key, None)]))
    return steps


def run_phases(bench, phases):
    for key, overlap in phases:
        if overlap is None:
            bench.phase(key, PHASES[key])
        else:
            bench.phase(key, PHASES[key], lambda overlap=overlap: bench.phase(overlap, PHASES[overlap]))


def run(bench):
    began = time.monotonic()
    bench.load_at_start = os.getloadavg()
    if bench.load_at_start[0] > 0.5:
        log(f"the machine is busy (load average {bench.load_at_start[0]:.2f}): figures may be disturbed")
    bench.catalog = generate_inputs(bench.cache)
    bench.start_server()
    bench.pulse.start()
    try:
        for latency, phases in plan(bench.args.only):
            if latency is None:
                run_phases(bench, phases)
            else:
                with bench.monitoring(latency):
                    run_phases(bench, phases)
    finally:
        bench.close()
    report(bench, time.monotonic() - began)
    if not bench.args.keep:
        shutil.rmtree(bench.work, ignore_errors=True)
    else:
        log(f"kept {bench.work}")


def report(bench, elapsed):
    """Prints the machine, the table, the notes, the misses and the problems; writes them into --write's file."""
    bench.figures.sort(key=lambda f: figure_order(f.key))
    bench.notes.sort(key=lambda note: figure_order(note.split(":", 1)[0]))
    judge(bench.figures)
    rows = table(bench.figures)
    machine_rows = machine(bench.binary, bench.load_at_start)
    misses = missed(bench.figures)
    print(text_report(machine_rows, rows, bench.notes, misses, bench.problems, elapsed))
    if bench.args.write:
        write_block(Path(bench.args.write), markdown_block(machine_rows, rows, bench.notes, misses, bench.problems,
                                                           elapsed))
