"""Figure 8: seek latency, beyond what has arrived and back inside it, each checked by where it landed."""

import statistics
import time

from .children import Session
from .common import RATE, SEEK_NAME, SEEK_TARGET, log, turns
from .figures import Figure, median
from .sound import landing


def audio_requests(bench):
    """Audio requests the loopback server has answered so far (its `audio …` log lines)."""
    try:
        return sum(1 for line in (bench.work / "server.log").read_text().splitlines() if line.startswith("audio "))
    except OSError:
        return 0


def seek_onset(bench, began, label, landings, problems):
    """The first sound after a seek written at `began`, checked from the audio: ms, or None. Appends the
    landing (recording seconds, read from the tones) to `landings`."""
    found = bench.monitor.onset_at(began, timeout=10)
    if found is None:
        problems.append(f"{label}: no sound within 10 s of the seek")
        return None
    delay, index = found
    view = bench.monitor.samples(index, int(0.9 * RATE))
    where, why = landing(view) if view is not None else (None, "the monitor's samples were not there")
    if where is None:
        problems.append(f"{label}: {why} (not counted)")
        return None
    landings.append(where)
    return delay * 1000


def seek_latency(bench):
    runs = bench.args.seek_runs
    log(f"8. seek latency: 1 warm-up + {runs} alternating runs each (~{(runs + 1) * 10} s)")
    url = bench.url(SEEK_NAME)
    local = str(bench.cache / f"{SEEK_NAME}.mp3")
    chirper = Session(bench.chirper_cmd(), bench.chirper_env(), bench.stderr)
    mpg = Session(["mpg123", "-R", "-o", "pulse"], bench.pulse.client_env, bench.stderr)
    beyond = {"chirper": [], "mpg123": []}
    inside = {"chirper": [], "mpg123": []}
    landed = {(name, kind): [] for name in ("chirper", "mpg123") for kind in ("beyond", "inside")}
    requests = {"beyond": [], "inside": []}
    line_ms = {"beyond": [], "inside": []}
    problems = []
    lead = 1.0  # seconds of playback (silence) before the first seek: the file has not arrived that far

    def chirper_seek(kind, n):
        mark = chirper.out.mark()
        before = audio_requests(bench)
        began = chirper.send(f"seek {int(SEEK_TARGET) // 60}:{int(SEEK_TARGET) % 60:02d}")
        ms = seek_onset(bench, began, f"chirper-play seek {kind} (run {n})", landed[("chirper", kind)], problems)
        try:
            _, t_line = chirper.out.wait(r"^playback: playing ", mark, timeout=10)
        except TimeoutError:
            heard = "no sound" if ms is None else f"its first sound came after {ms:.1f} ms"
            problems.append(f"chirper-play seek {kind} (run {n}): no `playback: playing` line within 10 s "
                            f"({heard}); its lines: {' | '.join(chirper.out.text(mark))}")
            t_line = None
        if n > 0:
            requests[kind].append(audio_requests(bench) - before)
            if t_line is not None:
                line_ms[kind].append((t_line - began) * 1000)
        return ms

    try:
        chirper.send(f"search en:{SEEK_NAME}")
        chirper.out.wait(r"^list: (paging|populated) rows=")
        mpg.out.wait(r"^@R MPG123")
        mpg.send("SILENCE")
        for n in range(runs + 1):
            for name in turns(n):
                bench.monitor.wait_silence()
                if name == "chirper":
                    mark = chirper.out.mark()
                    chirper.send(f"play {n + 1}")  # a row not played before: not in the cache
                    chirper.out.wait(r"^playback: playing ", mark)
                    time.sleep(lead)
                    ms_beyond = chirper_seek("beyond", n)
                    bench.monitor.wait_silence()  # the tones are over
                    ms_inside = chirper_seek("inside", n)
                    mark = chirper.out.mark()
                    chirper.send("stop")
                    chirper.out.wait(r"^playback: idle", mark)
                else:
                    # Over HTTP mpg123 can only seek forward (it reads on); back it answers
                    # `@E Error while seeking`. Its seek back is therefore measured on the local file.
                    mark = mpg.out.mark()
                    mpg.send(f"LOAD {url}")
                    mpg.out.wait(r"^@S ", mark)
                    time.sleep(lead)
                    began = mpg.send(f"JUMP {SEEK_TARGET:g}s")
                    ms_beyond = seek_onset(bench, began, f"mpg123 JUMP over HTTP (run {n})",
                                           landed[("mpg123", "beyond")], problems)
                    mark = mpg.out.mark()
                    mpg.send(f"LOAD {local}")
                    mpg.out.wait(r"^@S ", mark)
                    mpg.send(f"JUMP {SEEK_TARGET + 1.6:g}s")  # into the silence after the tones
                    time.sleep(0.3)
                    bench.monitor.wait_silence()
                    began = mpg.send(f"JUMP {SEEK_TARGET:g}s")
                    ms_inside = seek_onset(bench, began, f"mpg123 JUMP back in the local file (run {n})",
                                           landed[("mpg123", "inside")], problems)
                    mark = mpg.out.mark()
                    mpg.send("STOP")
                    mpg.out.wait(r"^@P 0", mark)
                if n > 0:
                    if ms_beyond is not None:
                        beyond[name].append(ms_beyond)
                    if ms_inside is not None:
                        inside[name].append(ms_inside)
    finally:
        chirper.close("quit")
        mpg.close("QUIT")
    bench.problems += problems
    bench.figures.append(Figure("8a", "seek beyond what arrived: `seek 0:30` / `JUMP 30s` at 0:01 → first "
                                "sound from 0:30", "ms", beyond["chirper"], beyond["mpg123"], "≤ 1.0"))
    bench.figures.append(Figure("8b", "seek back inside what arrived: `seek 0:30` at ~0:32 → first sound "
                                "(mpg123: local file)", "ms", inside["chirper"], inside["mpg123"], "≤ 1.0"))

    def where(name, kind):
        values = landed[(name, kind)]
        return f"{statistics.median(values):.3f} s" if values else "–"

    bench.notes.append(
        f"8: where the seeks landed, read from the monitor (target {SEEK_TARGET:g} s; medians): chirper-play "
        f"{where('chirper', 'beyond')} beyond, {where('chirper', 'inside')} inside; mpg123 "
        f"{where('mpg123', 'beyond')} over HTTP, {where('mpg123', 'inside')} local. chirper-play's audio "
        f"requests per seek (server log): beyond {sorted(set(requests['beyond']))}, inside "
        f"{sorted(set(requests['inside']))}; it printed the new `playback: playing` line "
        f"{median(line_ms['beyond'], 'ms')} ms (beyond) and {median(line_ms['inside'], 'ms')} ms (inside) after "
        "the write. "
        "mpg123 cannot seek back over HTTP (`@E Error while seeking`), so 8b's peer seeks in the local file.")
