"""Segmenting as BirdNET's tools do: 3 s steps less the overlap, stop at a chunk under 1.5 s."""

import unittest

from reference import RATE, segment_starts


def seconds(starts):
    return [start / RATE for start in starts]


class SegmentTests(unittest.TestCase):
    def test_a_last_chunk_of_at_least_one_and_a_half_seconds_is_kept(self):
        self.assertEqual(seconds(segment_starts(int(7.6 * RATE), 0.0)), [0.0, 3.0, 6.0])

    def test_a_last_chunk_shorter_than_one_and_a_half_seconds_is_dropped(self):
        self.assertEqual(seconds(segment_starts(int(7.4 * RATE), 0.0)), [0.0, 3.0])

    def test_exactly_one_and_a_half_seconds_is_one_segment(self):
        self.assertEqual(segment_starts(int(1.5 * RATE), 0.0), [0])

    def test_a_recording_shorter_than_one_and_a_half_seconds_has_nothing_to_identify(self):
        self.assertEqual(segment_starts(int(1.5 * RATE) - 1, 0.0), [])

    def test_overlap_shortens_the_step(self):
        self.assertEqual(seconds(segment_starts(9 * RATE, 1.0)), [0.0, 2.0, 4.0, 6.0])

    def test_an_overlap_of_a_whole_segment_is_refused(self):
        with self.assertRaises(SystemExit):
            segment_starts(9 * RATE, 3.0)


if __name__ == "__main__":
    unittest.main()
