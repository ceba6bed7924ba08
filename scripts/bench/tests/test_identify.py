"""Figures 15's decisions: chirper-play's `identify` lines read back, the agreement with BirdNET's own runtime
where it is confident, and what three written decimals of a confidence say of its logit."""

import math
import tempfile
import unittest
from pathlib import Path

from chirperbench.figures import Figure, judge
from chirperbench.identify import (agreement, agreement_verdict, largest_logit_difference, logit_distances,
                                   logit_range, make_inputs, segment_lines, written_as)

LINES = [
    "list: populated rows=1",
    'identify: identify-real-300s.wav start=0.0 end=3.0 sci="Prunella modularis" en="Dunnock" confidence=0.987',
    'identify: identify-real-300s.wav start=0.0 end=3.0 sci="Erithacus rubecula" en="European Robin" '
    "confidence=0.120",
    'identify: identify-real-300s.wav start=3.0 end=6.0 sci="Erithacus rubecula" en="European Robin" '
    "confidence=0.640",
    'identify: species identify-real-300s.wav sci="Prunella modularis" en="Dunnock" best=0.987 segments=1 '
    "first=0.0 last=0.0",
    'identify: done identify-real-300s.wav segments=3 detections=3 model="BirdNET 2.4"',
]


def logit_of(confidence):
    return math.log(confidence / (1 - confidence))


def reference(*segments, runtime="tflite"):
    """A reference report: each segment (start, [(index, sci, logit)] most confident first)."""
    report = {"segments": []}
    for start, classes in segments:
        logits = [-20.0] * 4
        for index, _, value in classes:
            logits[index] = value
        entries = [{"index": index, "sci": sci, "logit": value, "confidence": 1 / (1 + math.exp(-value))}
                   for index, sci, value in classes]
        report["segments"].append({"start": start, runtime: {"top": entries[:1], "detections": entries[1:],
                                                             "logits": logits}})
    return report


class SegmentLineTests(unittest.TestCase):
    def test_each_segment_keeps_its_species_most_confident_first_and_the_summary_is_left_out(self):
        self.assertEqual(segment_lines(LINES), {
            "0.0": [("Prunella modularis", 0.987), ("Erithacus rubecula", 0.12)],
            "3.0": [("Erithacus rubecula", 0.64)],
        })

    def test_a_file_name_with_spaces_is_read_past(self):
        line = 'identify: dawn chorus.wav start=6.0 end=9.0 sci="Turdus merula" en="Eurasian Blackbird" confidence=0.5'
        self.assertEqual(segment_lines([line]), {"6.0": [("Turdus merula", 0.5)]})


class AgreementTests(unittest.TestCase):
    def test_only_the_segments_the_reference_is_confident_of_count(self):
        ours = segment_lines(LINES)
        theirs = reference((0.0, [(0, "Prunella modularis", 4.0)]), (3.0, [(1, "Turdus merula", 1.0)]),
                           (6.0, [(2, "Sylvia atricapilla", -1.0)]))
        # 3.0: the reference hears a blackbird at 0.73, chirper-play a robin; 6.0 is below 0.5 and not counted.
        self.assertEqual(agreement(ours, theirs), (1, 2))

    def test_a_segment_chirper_play_heard_nothing_in_disagrees(self):
        theirs = reference((9.0, [(0, "Prunella modularis", 2.0)]))
        self.assertEqual(agreement(segment_lines(LINES), theirs), (0, 1))

    def test_ninety_five_per_cent_is_met_and_less_is_missed(self):
        met = Figure("15b", "x", "%", [95.0], None, "≥ 95 %", decide=agreement_verdict)
        missed = Figure("15b", "x", "%", [94.9], None, "≥ 95 %", decide=agreement_verdict)
        empty = Figure("15b", "x", "%", [], None, "≥ 95 %", decide=agreement_verdict)
        judge([met, missed, empty])
        self.assertEqual([met.verdict, missed.verdict, empty.verdict], ["met", "MISSED", "no data"])


class LogitTests(unittest.TestCase):
    def test_three_decimals_allow_the_logits_whose_confidence_rounds_to_them(self):
        low, high = logit_range(0.5)
        self.assertAlmostEqual(low, logit_of(0.4995))
        self.assertAlmostEqual(high, logit_of(0.5005))
        self.assertLess(high - low, 0.01)
        self.assertEqual(logit_range(1.0)[1], math.inf)

    def test_a_reference_logit_inside_the_range_is_no_difference_and_one_outside_is_its_distance(self):
        ours = {"0.0": [("Prunella modularis", 0.5), ("Erithacus rubecula", 0.2)]}
        theirs = reference((0.0, [(0, "Prunella modularis", 0.001), (1, "Erithacus rubecula", logit_of(0.21))]))
        (inside, half), (outside, _) = logit_distances(ours, theirs)
        self.assertEqual(inside, 0.0)
        self.assertAlmostEqual(half, (logit_range(0.5)[1] - logit_range(0.5)[0]) / 2)
        self.assertAlmostEqual(outside, logit_of(0.21) - logit_range(0.2)[1])

    def test_a_species_the_reference_did_not_name_is_left_out(self):
        ours = {"0.0": [("Turdus merula", 0.3)]}
        self.assertEqual(logit_distances(ours, reference((0.0, [(0, "Prunella modularis", 3.0)]))), [])

    def test_the_largest_difference_between_two_runtimes_is_over_every_class(self):
        report = {"segments": [{"tflite": {"logits": [1.0, 2.0]}, "onnx": {"logits": [1.004, 1.99]}},
                               {"tflite": {"logits": [0.0, -3.0]}, "onnx": {"logits": [0.0, -3.002]}}]}
        self.assertAlmostEqual(largest_logit_difference(report), 0.01)

    def test_written_confidences_are_compared_as_chirper_play_rounds_them(self):
        ours = {"0.0": [("Prunella modularis", 0.5), ("Erithacus rubecula", 0.2)]}
        theirs = reference((0.0, [(0, "Prunella modularis", 0.0001), (1, "Erithacus rubecula", logit_of(0.21))]),
                           runtime="onnx")
        self.assertEqual(written_as(ours, theirs), (1, 2))


class InputTests(unittest.TestCase):
    def test_without_the_shared_recordings_the_synthetic_sound_is_named_as_such(self):
        # Nothing is generated when both files are already in the cache.
        with tempfile.TemporaryDirectory() as folder:
            cache = Path(folder)
            for name in ("identify-synth-300s.wav", "identify-synth-300s.f32"):
                (cache / name).write_bytes(b"")
            wav, f32, what = make_inputs(cache, recordings=cache / "absent")
            self.assertEqual((wav.name, f32.name), ("identify-synth-300s.wav", "identify-synth-300s.f32"))
            self.assertIn("no bird", what)


if __name__ == "__main__":
    unittest.main()
