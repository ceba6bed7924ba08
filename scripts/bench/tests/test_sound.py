"""What the recorded samples say, on synthetic samples: sound or silence, which tone, where a seek landed."""

import array
import math
import unittest

from chirperbench.common import RATE, SEEK_TONES, THRESHOLD
from chirperbench.sound import audible_seconds, landing, loud, tone_power

AMPLITUDE = 16000


def tone(hz, seconds, amplitude=AMPLITUDE):
    count = int(seconds * RATE)
    return array.array("h", (int(amplitude * math.sin(2 * math.pi * hz * n / RATE)) for n in range(count)))


def silence(seconds):
    return array.array("h", bytes(2 * int(seconds * RATE)))


class LoudTests(unittest.TestCase):
    def test_a_sample_beyond_the_threshold_either_way_is_sound(self):
        self.assertFalse(loud([0, THRESHOLD, -THRESHOLD]))
        self.assertTrue(loud([0, THRESHOLD + 1]))
        self.assertTrue(loud([-THRESHOLD - 1, 0]))


class TonePowerTests(unittest.TestCase):
    def test_a_block_of_whole_cycles_holds_its_tone_and_not_the_other(self):
        block = tone(1000, 0.01)  # ten whole cycles
        expected = (AMPLITUDE * len(block) / 2) ** 2
        self.assertAlmostEqual(tone_power(block, 1000) / expected, 1.0, places=3)
        self.assertLess(tone_power(block, 1500), expected * 1e-6)


class LandingTests(unittest.TestCase):
    first_hz, (step_at, second_hz) = SEEK_TONES[0][1], SEEK_TONES[1]

    def test_the_step_between_the_tones_tells_where_the_seek_landed(self):
        for landed in (self.step_at - 0.05, self.step_at - 0.3):
            with self.subTest(landed=landed):
                view = tone(self.first_hz, self.step_at - landed) + tone(self.second_hz, 0.1)
                where, why = landing(view)
                self.assertIsNone(why)
                self.assertAlmostEqual(where, landed, delta=0.005)  # within one hop

    def test_a_seek_that_lands_on_the_second_tone_is_refused(self):
        self.assertEqual(landing(tone(self.second_hz, 0.1)),
                         (None, f"the first sound was the {self.second_hz} Hz tone: it landed at or after "
                                f"{self.step_at} s"))

    def test_no_step_within_the_samples_is_refused(self):
        self.assertEqual(landing(tone(self.first_hz, 0.1)),
                         (None, f"no step to {self.second_hz} Hz within 0.1 s of the first sound"))

    def test_too_few_samples_are_refused(self):
        self.assertEqual(landing(tone(self.first_hz, 0.005)), (None, "too little audio after the first sound"))


class AudibleSecondsTests(unittest.TestCase):
    def test_counts_the_ten_millisecond_blocks_with_sound(self):
        raw = (silence(0.5) + tone(3000, 0.25) + silence(0.25)).tobytes()
        self.assertAlmostEqual(audible_seconds(raw), 0.25)

    def test_a_trailing_odd_byte_is_ignored(self):
        self.assertAlmostEqual(audible_seconds(tone(3000, 0.1).tobytes() + b"\x01"), 0.1)

    def test_silence_is_not_heard(self):
        self.assertEqual(audible_seconds(silence(1).tobytes()), 0)


if __name__ == "__main__":
    unittest.main()
