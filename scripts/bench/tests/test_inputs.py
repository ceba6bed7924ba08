"""The generated inputs' shape (the seek file's tones, the catalogue, the lengths the API shows), and the numpy
peer of figures 12 and 13 on a synthetic tone."""

import array
import math
import subprocess
import sys
import unittest

from chirperbench.analysis import MEASURE_PEER
from chirperbench.common import INPUTS, RATE, SEEK_NAME, SEEK_SECONDS, SEEK_TONES
from chirperbench.inputs import catalog_page, seek_synth
from chirperbench.loopback import lengths

try:
    import numpy  # noqa: F401  (only the peer needs it; make bench installs it)
    HAVE_NUMPY = True
except ImportError:
    HAVE_NUMPY = False


class SeekFileTests(unittest.TestCase):
    def segments(self):
        words, segments = seek_synth(), []
        while words:
            segment, words = words[:6], words[7:]  # synth SECONDS sine HZ vol LEVEL [:]
            self.assertEqual((segment[0], segment[2], segment[4]), ("synth", "sine", "vol"))
            segments.append((float(segment[1]), int(segment[3]), float(segment[5])))
        return segments

    def test_silence_then_each_tone_for_its_span_then_silence_to_the_end(self):
        segments = self.segments()
        self.assertAlmostEqual(sum(seconds for seconds, _, _ in segments), SEEK_SECONDS)
        heard = [(round(seconds, 3), hz) for seconds, hz, level in segments if level > 0]
        spans = [(round(end - start, 3), hz) for (start, hz), (end, _) in zip(SEEK_TONES, SEEK_TONES[1:])]
        self.assertEqual(heard, spans)
        self.assertEqual((segments[0][0], segments[0][2]), (SEEK_TONES[0][0], 0))
        self.assertEqual(segments[-1][2], 0)


class CatalogTests(unittest.TestCase):
    def test_one_recording_the_long_file_beside_the_catalogue(self):
        page = catalog_page()
        self.assertEqual(len(page["recordings"]), 1)
        self.assertEqual(page["recordings"][0]["file"], "audio/min30.mp3")
        self.assertEqual(page["recordings"][0]["length"], f"{INPUTS['min30'] // 60}:00")

    def test_every_served_file_has_its_length_as_the_api_writes_it(self):
        shown = lengths()
        self.assertEqual(set(shown), {f"{name}.mp3" for name in list(INPUTS) + [SEEK_NAME]})
        self.assertEqual(shown["ttfs.mp3"], "0:10")
        self.assertEqual(shown[f"{SEEK_NAME}.mp3"], "1:05")
        self.assertEqual(shown["min30.mp3"], "30:00")


@unittest.skipUnless(HAVE_NUMPY, "numpy is not installed (make deps-bench installs python3-numpy): the measure "
                                 "peer is not checked")
class MeasurePeerTests(unittest.TestCase):
    def test_the_peer_finds_a_steady_tones_frequency_and_no_slope(self):
        hz = 1500  # a whole bin of its 512-point DFT at 48 kHz
        samples = array.array("h", (int(8000 * math.sin(2 * math.pi * hz * n / RATE)) for n in range(RATE)))
        done = subprocess.run([sys.executable, "-c", MEASURE_PEER, str(RATE), "0", "1"], input=samples.tobytes(),
                              capture_output=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr.decode(errors="replace"))
        words = done.stdout.decode().split()
        self.assertEqual(words[0], "peak")
        self.assertAlmostEqual(float(words[1]), hz)
        self.assertAlmostEqual(float(words[-1]), 0.0)


if __name__ == "__main__":
    unittest.main()
