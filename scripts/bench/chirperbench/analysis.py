"""Figures 12 and 13: `measure` of a selection and `compare` of two recordings, against mpg123 feeding numpy the
same analysis."""

from .children import Session
from .common import RATE, log
from .figures import Figure

# The peer's analysis: what `measure` computes, in numpy, over the samples mpg123 decodes onto its stdin.
MEASURE_PEER = r"""
import sys, numpy as np
rate, start, end = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
pcm = np.frombuffer(sys.stdin.buffer.read(), dtype="<i2").astype(np.float32) / 32768
x = pcm[int(start * rate):int(end * rate)]
size, hop = 512, 256
frames = np.lib.stride_tricks.sliding_window_view(x, size)[::hop] * np.hanning(size + 1)[:-1]
power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
bins = np.arange(power.shape[1]) * rate / size
per_bin, per_frame = power.sum(axis=0), power.sum(axis=1)
total = per_bin.sum()
cum = np.cumsum(per_bin) / total
freqs = [bins[np.searchsorted(cum, q)] for q in (0.05, 0.25, 0.5, 0.75, 0.95)]
tcum = np.cumsum(per_frame) / total
times = [start + (np.searchsorted(tcum, q) * hop + size / 2) / rate for q in (0.05, 0.95)]
k, b = np.unravel_index(np.argmax(power), power.shape)
p = power / np.maximum(per_frame[:, None], 1e-30)
entropy = float(np.mean(-(p * np.log2(np.where(p > 0, p, 1))).sum(axis=1)))
contour = bins[np.argmax(power, axis=1)]
print("peak", bins[b], "freqs", freqs, "times", times, "entropy", entropy, "slope", float(np.mean(np.diff(contour))))
"""


def measure(bench):
    runs = bench.args.sono_runs
    log(f"12. measure a 10 s selection of a 1 min MP3: {runs} alternating runs each")
    url = bench.url("min1")
    start, end = 20.0, 30.0
    peer = (f"mpg123 -q -m -s {url} | python3 -c '{MEASURE_PEER}' {RATE} {start} {end}")
    session = Session(bench.chirper_cmd(output="null"), bench.chirper_env(), bench.stderr)
    try:
        session.send("search en:min1")
        session.out.wait(r"^list: (paging|populated) rows=")
        # Another row each run: a recording not measured before, so not in the play cache.
        wall = bench.alternate(runs, session, lambda n: f"measure {n + 1} 0:20-0:30", "measure: n=", peer,
                               "measure")
    finally:
        session.close("quit")
    bench.figures.append(Figure("12", "`measure 1 0:20-0:30` (10 s of a 1 min MP3) / mpg123 -s | numpy (same STFT)",
                                "ms", wall["chirper"], wall["mpg123"], "≤ 1.0"))
    bench.notes.append(
        "12: the peer decodes the same loopback URL with mpg123 (mono) and computes in numpy what `measure` "
        "computes: a Hann window of 512 samples every 256 over the 10 s, power, the 5-95 % frequencies and "
        "times, the peak, the entropy and the peak-frequency contour. Both decode from the start to the "
        "selection's end (chirper-play stops there; mpg123 decodes the whole minute).")


def compare(bench):
    runs = bench.args.sono_runs
    log(f"13. compare two 1-minute recordings: {runs} alternating runs each")
    url = bench.url("min1")
    peer = " && ".join(
        [f"mpg123 -q -m -s {url} | python3 -c '{MEASURE_PEER}' {RATE} 0 60 > /dev/null"] * 2)
    session = Session(bench.chirper_cmd(output="null"), bench.chirper_env(), bench.stderr)
    try:
        session.send("search en:min1")
        session.out.wait(r"^list: (paging|populated) rows=")
        # Two rows (two recordings, downloaded once each), selected whole: s1 and s2.
        for row in (1, 2):
            mark = session.out.mark()
            session.send(f"measure {row} 0:00-1:00")
            line, _ = session.out.wait(r"^(measure: n=|error:)", mark, timeout=120)
            if not session.out.text(line)[0].startswith("measure: n="):
                raise RuntimeError(f"chirper-play could not select row {row}: {session.out.text(line)[0]}")
        wall = bench.alternate(runs, session, "compare s1 s2", "compare: pfc_slope", peer, "compare")
    finally:
        session.close("quit")
    bench.figures.append(Figure("13", "`compare s1 s2` (two 1 min MP3s, whole) / 2 × (mpg123 -s | numpy)",
                                "ms", wall["chirper"], wall["mpg123"], "≤ 1.0"))
    bench.notes.append(
        "13: `compare` decodes both recordings, draws both sonograms on one scale and measures both; the peer "
        "decodes each with mpg123 and computes figure 12's analysis over its whole minute in numpy, one after "
        "the other (it draws no sonogram).")
