"""The report: the machine the figures were taken on, the table, notes, misses and problems, printed and written
between BENCH.md's markers (the text around them is kept)."""

import datetime
import os
import platform
import re
import subprocess
from pathlib import Path

from .common import HERE, first_line, log
from .table import render_markdown, render_text

BEGIN = "<!-- bench:begin (written by scripts/bench/bench.py; edit outside the markers) -->"
END = "<!-- bench:end -->"
EMPTY = "# Benchmarks\n\n<!-- bench:begin -->\n<!-- bench:end -->\n"  # a BENCH.md that is not there yet


def machine(binary, load_at_start):
    """(name, value) of what the figures depend on: the machine, its load, the programs' versions."""
    cpu = "?"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = "?"
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal"):
            mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    built = datetime.datetime.fromtimestamp(os.path.getmtime(binary), datetime.timezone.utc)
    return [
        ("date", datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")),
        ("CPU", f"{cpu}, {os.cpu_count()} cores"),
        ("memory", mem),
        ("load average", f"{load_at_start[0]:.2f} at start, {os.getloadavg()[0]:.2f} at end (1 min; "
                         "other work on the machine disturbs the figures)"),
        ("kernel", f"{platform.system()} {platform.release()} {platform.machine()}"),
        ("chirper-play", f"{first_line([binary, '--version'])}, release build of "
                         f"{built.strftime('%Y-%m-%d %H:%M UTC')} from {tree()}"),
        ("swift", first_line(["swift", "--version"])),
        ("mpg123", first_line(["mpg123", "--version"])),
        ("libmpg123", first_line(["sh", "-c", "dpkg-query -W -f='${Version}' libmpg123-0 2>/dev/null"])),
        ("pulseaudio", first_line(["pulseaudio", "--version"])),
        ("lame / sox", f"{first_line(['lame', '--version'])} / {first_line(['sox', '--version'])}"),
        ("python", platform.python_version()),
    ]


def tree():
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


def missed(figures):
    """The figures whose verdict is a miss."""
    return [f for f in figures if f.verdict and f.verdict.startswith("MISSED")]


def text_report(machine_rows, rows, notes, misses, problems, elapsed):
    """What the bench prints at its end."""
    lines = [""] + [f"{key:>13}: {value}" for key, value in machine_rows] + ["", render_text(rows), ""]
    lines += ["note " + note for note in notes]
    lines += [f"MISSED {fig.key} ({fig.label}): {fig.verdict[8:-1]}; target {fig.target}" for fig in misses]
    lines += ["PROBLEM " + problem for problem in problems]
    lines += ["", f"(make bench took {elapsed:.0f} s)"]
    return "\n".join(lines)


def markdown_block(machine_rows, rows, notes, misses, problems, elapsed):
    """What goes between BENCH.md's markers, the markers included."""
    block = [BEGIN, ""]
    block.append("| machine | |")
    block.append("| --- | --- |")
    for key, value in machine_rows:
        block.append(f"| {key} | {value} |")
    block += ["", render_markdown(rows), ""]
    block += [f"- {note}" for note in notes]
    if misses:
        block.append("")
        block += [f"- **Missed** {f.key} ({f.label}): {f.verdict[8:-1]} (target {f.target})." for f in misses]
    if problems:
        block.append("")
        block += [f"- **Problem**: {p}" for p in problems]
    block += ["", f"`make bench` took {elapsed:.0f} s.", "", END]
    return "\n".join(block)


def write_block(path, generated):
    """Puts `generated` in place of what lies between the markers of `path` (appended when it has none)."""
    text = path.read_text() if path.exists() else EMPTY
    pattern = re.compile(r"<!-- bench:begin.*?<!-- bench:end -->", re.S)
    text = pattern.sub(lambda _: generated, text) if pattern.search(text) else text.rstrip() + "\n\n" + generated + "\n"
    path.write_text(text)
    log(f"wrote {path}")
