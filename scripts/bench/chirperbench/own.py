"""Figures 14: one's own recordings from disk. Opening a folder of 1,000 WAV files against `soxi -D`, `sono` of
a 1-hour WAV against `sox … spectrogram` with the same analysis, peak RSS playing a 2-hour WAV beside a 1-minute
one, and a seek to 1:30:00 in a 2-hour FLAC against mpg123's in the same sound as an MP3."""

import re
import statistics
import time

from . import owninputs as inputs
from .children import Session, timed
from .common import RATE, SEEK_TARGET, log, turns
from .figures import Figure
from .seek import seek_onset

ROW = re.compile(r"^row: ")
PER_PAGE = 500  # `--per-page` at most: 14a's folder lists as two pages, the second asked for with `next-page`
SONO_HEADER = re.compile(r"^sono: .+? (?P<low>[\d.]+)-(?P<high>[\d.]+)kHz (?P<start>[\d.]+)-(?P<end>[\d.]+)s "
                         r"cols=(?P<cols>\d+) rows=(?P<rows>\d+)$")


def sono_header(line):
    """The shape a `sono:` header line states: {low, high (Hz), start, end (s), cols, rows}, or None."""
    match = SONO_HEADER.match(line)
    if not match:
        return None
    return {"low": float(match["low"]) * 1000, "high": float(match["high"]) * 1000, "start": float(match["start"]),
            "end": float(match["end"]), "cols": int(match["cols"]), "rows": int(match["rows"])}


def fft_plan(rate, duration, columns, rows, top, bottom=0.0):
    """(window, hop, DFT points) chirper-play's `sono` uses for a picture of `columns` × `rows` over `duration`
    seconds at `rate` up to `top` Hz: Sonogram.fftPlan, restated so that the peer can be given the same."""
    largest = 1
    while largest < int(2048 * max(1.0, rate / 48000)):
        largest *= 2
    column_samples = max(0.0, duration) / columns * rate
    wanted = max(column_samples, 0.0116 * rate)
    size = 64
    while size < largest and size * 1.414 < wanted:
        size *= 2
    row_hz = max(1.0, (min(top, rate / 2) - bottom) / rows)
    dft = size
    while dft < size * 8 and rate / dft > row_hz:
        dft *= 2
    return size, (size // 2 if column_samples >= size else size // 4), dft


def sox_step(seconds, rate, columns, dft):
    """The samples between sox's spectrogram DFTs for a picture `columns` wide over `seconds` (sox -V4 says it as
    `step_size`): a column's samples in the fewest equal steps of at most half the DFT."""
    column = seconds * rate / columns
    steps = -(-column // (dft / 2))
    return column / steps


def sox_columns(seconds, rate, hop, dft, near=800):
    """The picture width nearest `near` at which sox steps by exactly `hop` with a `dft`-point DFT, or None."""
    for distance in range(near):
        for columns in (near - distance, near + distance):
            if columns > 0 and sox_step(seconds, rate, columns, dft) == hop:
                return columns
    return None


def pages(count, per_page=None):
    """How many pages of `per_page` rows (the most xeno-canto serves, PER_PAGE) list `count` files."""
    per_page = per_page or PER_PAGE
    return max(1, -(-count // per_page))


def own_files(bench):
    """14a, 14b, 14c: the folder, the sonogram and the memory figures, each with interleaved runs."""
    bench.phase("14a", open_folder)
    bench.phase("14b", long_sono)
    bench.phase("14c", long_memory)


def open_folder(bench):
    runs = bench.args.sono_runs
    folder = inputs.make_folder(bench.cache)
    files = inputs.folder_files(folder)
    log(f"14a. open a folder of {len(files)} WAV files → the last `row:` line / soxi -D: {runs} alternating runs")
    wall = {"chirper": [], "mpg123": []}
    for n in range(runs + 1):
        for name in turns(n):
            if name == "chirper":
                began = time.monotonic()
                session = Session(bench.chirper_cmd("--per-page", str(PER_PAGE), str(folder), output="null"),
                                  bench.chirper_env(), bench.stderr)
                try:
                    # The pages after the first are asked for at once: in a pipe each command waits for the
                    # one before it, so they are read as the first page's rows are printed.
                    for _ in range(pages(len(files)) - 1):
                        session.send("next-page")
                    index, done = session.out.wait(ROW.pattern, 0, timeout=60, count=len(files))
                    line = session.out.text(index)[0]
                    if 'file="' not in line:
                        raise RuntimeError(f"a local row without its file=: {line}")
                    skipped = [text for text in session.out.text() if text.startswith("skipped:")]
                    if skipped:
                        bench.problems.append(f"14a: chirper-play passed over {len(skipped)}: {skipped[0]}")
                finally:
                    session.close("quit")
                took = done - began
            else:
                took, _, _, _, status, err = timed(["soxi", "-D", *files], bench.pulse.client_env)
                if status != 0:
                    bench.problems.append(f"14a: soxi exited with {status}: {err[-300:]}")
                    continue
            if n > 0:
                wall[name].append(took * 1000)
    bench.figures.append(Figure(
        "14a", f"open a folder of {len(files)} WAV files, launch → last `row:` line / soxi -D over them", "ms",
        wall["chirper"], wall["mpg123"], "≤ 0.5", peer="soxi"))
    bench.notes.append(
        f"14a: `chirper-play --per-page {PER_PAGE} --output null FOLDER` (ten sub-folders of 100, walked "
        f"recursively) with `next-page` written at launch, launch → its {len(files)}th `row:` line, against `soxi -D FILE…` (all {len(files)} paths "
        "in one process), launch → exit. The files are 0.2 s long, 8 to 384 kHz, 1, 2 or 4 channels, 16 or "
        "24 bits, named as field recorders name them; one in four has a GUANO chunk, one in five an INFO list.")


def long_sono(bench):
    runs = bench.args.mem_runs
    path = bench.cache / inputs.SONO_NAME
    inputs.make_sono_wav(path, inputs.SONO_SECONDS)
    log(f"14b. sono of a {inputs.SONO_SECONDS // 3600} h WAV, launch to exit / sox spectrogram: {runs} runs each")
    wall = {"chirper": [], "mpg123": []}
    out = bench.work / "own-sono.out"
    peer, shape = None, None
    for n in range(runs + 1):
        for name in turns(n):
            if name == "chirper":
                command = (f"printf 'sono 1\\nquit\\n' | {bench.binary} --output null {path} > {out}")
                took, _, _, _, status, err = timed(["bash", "-c", "set -o pipefail; " + command],
                                                   bench.chirper_env())
                lines = [line for line in out.read_text().splitlines() if line.startswith("sono:")]
                header = next((sono_header(line) for line in lines if sono_header(line)), None)
                if status != 0 or header is None or len(lines) < header["rows"] + 1:
                    raise RuntimeError(f"chirper-play did not draw `sono 1` ({status}): {out.read_text()[-300:]!r}")
                if peer is None:
                    shape = header
                    size, hop, dft = fft_plan(RATE, header["end"] - header["start"], header["cols"],
                                              header["rows"], header["high"], header["low"])
                    if size != dft or hop * 2 != size:
                        raise RuntimeError(f"no sox analysis matches a {size}-point window every {hop} ({dft} DFT)")
                    columns = sox_columns(inputs.SONO_SECONDS, RATE, hop, dft)
                    peer = ["sox", "-V1", str(path), "-n", "spectrogram", "-x", str(columns), "-y",
                            str(dft // 2 + 1), "-w", "Hann", "-o", "/dev/null"]
                    shape.update(size=size, hop=hop, columns=columns)
            else:
                if peer is None:
                    continue  # the first chirper-play run sets the peer's analysis (run 0 is a warm-up)
                took, _, _, _, status, err = timed(peer, bench.pulse.client_env)
                if status != 0:
                    bench.problems.append(f"14b: sox exited with {status}: {err[-300:]}")
                    continue
            if n > 0:
                wall[name].append(took * 1000)
    bench.figures.append(Figure(
        "14b", f"`sono 1` of a {inputs.SONO_SECONDS // 3600} h 48 kHz mono WAV, launch to exit / sox spectrogram",
        "ms", wall["chirper"], wall["mpg123"], "≤ 0.5", peer="sox"))
    if shape:
        bench.notes.append(
            f"14b: `printf 'sono 1\\nquit\\n' | chirper-play --output null FILE` draws {shape['cols']} × "
            f"{shape['rows']} over {shape['low'] / 1000:g}-{shape['high'] / 1000:g} kHz: a {shape['size']}-point "
            f"Hann window every {shape['hop']} samples over every sample of the hour. The peer is given the same "
            f"analysis: `{' '.join(peer).replace(str(path), 'FILE')}` (`-y {shape['size'] // 2 + 1}`: a "
            f"{shape['size']}-point DFT; `-x {shape['columns']}`: sox steps by exactly {shape['hop']} samples, "
            "as `sox -V4` says); it also draws a PNG.")


def long_memory(bench):
    runs = bench.args.mem_runs
    files = {"short": bench.cache / inputs.SHORT_NAME, "long": bench.cache / inputs.LONG_NAME}
    inputs.make_sparse_wav(files["short"], inputs.SHORT_SECONDS)
    inputs.make_sparse_wav(files["long"], inputs.LONG_SECONDS)
    log(f"14c. peak RSS playing 1 min and 2 h WAVs to their end at --output null: {runs} alternating runs each")
    rss = {"short": [], "long": []}
    out = bench.work / "own-memory.out"
    for n in range(runs):
        for which in (("short", "long") if n % 2 == 0 else ("long", "short")):
            script = bench.work / "own-memory.txt"
            script.write_text("play 1\nwait\nquit\n")
            with open(script) as stdin, open(out, "w") as stdout:
                _, _, _, peak, status, err = timed(bench.chirper_cmd(str(files[which]), output="null"),
                                                   bench.chirper_env(), stdin=stdin, stdout=stdout)
            text = out.read_text()
            if status != 0 or "playback: playing" not in text or "failed" in text:
                bench.problems.append(f"14c: chirper-play did not play {files[which].name} cleanly ({status}): "
                                      f"{text[-300:]!r} {err[-200:]}")
                continue
            rss[which].append(peak / 1024)
    bench.figures.append(Figure(
        "14c", "peak RSS playing a WAV to its end, null: 2 h / 1 min (growth: the medians' difference)", "MiB",
        rss["long"], rss["short"], "± 2 MiB", program="chirper-play 2 h", peer="chirper-play 1 min",
        decide=growth_verdict))


def growth_verdict(figure):
    """14c's verdict: the 2 h file's median peak RSS within ± 2 MiB of the 1 min file's."""
    if not figure.mpg123:
        return None, "no data"
    growth = statistics.median(figure.chirper) - statistics.median(figure.mpg123)
    return None, f"met ({growth:+.1f} MiB)" if abs(growth) <= 2.0 else f"MISSED ({growth:+.1f} MiB)"


def flac_seek(bench):
    """14d: figure 8a's method on a 2-hour file: playing from the start, 1 s in, `seek 1:30:00` / `JUMP 5400s`
    is written; the figure is the write → the first sound, checked by where it landed (the tones)."""
    runs = bench.args.seek_runs
    flac, mp3 = inputs.make_seek_pair(bench.cache)
    target = inputs.SEEK_LONG_TARGET
    log(f"14d. seek to 1:30:00 in a 2 h FLAC / mpg123 JUMP in its MP3: 1 warm-up + {runs} alternating runs each")
    chirper = Session(bench.chirper_cmd(str(flac)), bench.chirper_env(), bench.stderr)
    mpg = Session(["mpg123", "-R", "-o", "pulse"], bench.pulse.client_env, bench.stderr)
    wall = {"chirper": [], "mpg123": []}
    landed = {"chirper": [], "mpg123": []}
    problems = []
    shift = target - SEEK_TARGET  # the tones sit around `target` as the seek file's sit around SEEK_TARGET
    clock = f"{int(target) // 3600}:{int(target) % 3600 // 60:02d}:{int(target) % 60:02d}"
    try:
        chirper.out.wait(r"^list: (paging|populated) rows=", 0, timeout=30)
        mpg.out.wait(r"^@R MPG123")
        mpg.send("SILENCE")
        for n in range(runs + 1):
            for name in turns(n):
                bench.monitor.wait_silence()
                seen = []
                if name == "chirper":
                    mark = chirper.out.mark()
                    chirper.send("play 1")
                    line, _ = chirper.out.wait(r"^playback: (playing|failed) ", mark)
                    if chirper.out.text(line)[0].startswith("playback: failed"):
                        raise RuntimeError(f"chirper-play could not play the FLAC: {chirper.out.text(line)[0]}")
                    time.sleep(1.0)
                    began = chirper.send(f"seek {clock}")
                    ms = seek_onset(bench, began, f"chirper-play seek {clock} (run {n})", seen, problems)
                    mark = chirper.out.mark()
                    chirper.send("stop")
                    chirper.out.wait(r"^playback: idle", mark)
                else:
                    mark = mpg.out.mark()
                    mpg.send(f"LOAD {mp3}")
                    mpg.out.wait(r"^@S ", mark)
                    time.sleep(1.0)
                    began = mpg.send(f"JUMP {target:g}s")
                    ms = seek_onset(bench, began, f"mpg123 JUMP {target:g}s (run {n})", seen, problems)
                    mark = mpg.out.mark()
                    mpg.send("STOP")
                    mpg.out.wait(r"^@P 0", mark)
                if n > 0 and ms is not None:
                    wall[name].append(ms)
                    landed[name] += [where + shift for where in seen]
    finally:
        chirper.close("quit")
        mpg.close("QUIT")
    bench.problems += problems
    bench.figures.append(Figure("14d", f"seek in a 2 h FLAC: `seek {clock}` / `JUMP {target:g}s` in its MP3 at "
                                "0:01 → first sound", "ms", wall["chirper"], wall["mpg123"], "≤ 1.0"))

    def where(name):
        return f"{statistics.median(landed[name]):.3f} s" if landed[name] else "–"

    bench.notes.append(
        f"14d: figure 8a's method on local files: a 2 h mono 48 kHz FLAC (flac's seek table, a point every 10 s) "
        f"and the same sound as a CBR 128 kbps MP3 for `mpg123 -R` (`LOAD FILE`, `JUMP {target:g}s`); the "
        f"seek file's tones sit around {clock}. Where the seeks landed (target {target:g} s; medians): "
        f"chirper-play {where('chirper')}, mpg123 {where('mpg123')}.")

