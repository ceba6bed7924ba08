"""Figures 14's decisions: the sonogram's analysis read from chirper-play's header and given to sox, the growth
verdict, and the own-recording inputs (the folder's files and the long seek file's tones)."""

import struct
import unittest

from chirperbench.common import SEEK_TARGET, SEEK_TONES
from chirperbench.figures import Figure, judge
from chirperbench.table import figure_rows
from chirperbench.own import fft_plan, pages, sono_header, sox_columns, sox_step
from chirperbench.owninputs import (FOLDER_FILES, SEEK_LONG_SECONDS, SEEK_LONG_TARGET, folder_file,
                                    long_seek_synth, wav_header)


class SonoHeaderTests(unittest.TestCase):
    def test_a_local_files_header_gives_its_band_window_and_shape(self):
        self.assertEqual(sono_header("sono: own-1h.wav 0-12.0kHz 0.0-3600.0s cols=72 rows=16"),
                         {"low": 0.0, "high": 12000.0, "start": 0.0, "end": 3600.0, "cols": 72, "rows": 16})

    def test_a_file_name_with_spaces_is_read_past(self):
        self.assertEqual(sono_header("sono: dawn chorus 2.wav 0-11.0kHz 0.0-31.2s cols=72 rows=16")["high"], 11000.0)

    def test_a_picture_row_or_an_error_is_no_header(self):
        self.assertIsNone(sono_header("sono:    ░░▒▓█▓░"))
        self.assertIsNone(sono_header("error: row 1 cannot draw"))


class AnalysisTests(unittest.TestCase):
    def test_an_hour_in_72_columns_takes_the_largest_window_at_half_overlap(self):
        self.assertEqual(fft_plan(48000, 3600, 72, 16, 12000), (2048, 1024, 2048))

    def test_a_zoomed_window_overlaps_three_quarters(self):
        self.assertEqual(fft_plan(48000, 3, 72, 16, 9000, 2000), (2048, 512, 2048))

    def test_a_short_window_of_a_narrow_band_pads_the_dft_until_a_bin_fits_a_row(self):
        self.assertEqual(fft_plan(48000, 0.5, 72, 16, 3000, 2000), (512, 128, 1024))

    def test_the_window_grows_with_the_sample_rate(self):
        self.assertEqual(fft_plan(384000, 3600, 72, 16, 12000), (16384, 8192, 16384))

    def test_sox_steps_as_its_debug_output_says(self):
        # `sox -V4 60s.wav -n spectrogram -x 750 -y 1025` says step_size=960 block_steps=4.
        self.assertEqual(sox_step(60, 48000, 750, 2048), 960)

    def test_the_width_found_makes_sox_step_by_the_hop(self):
        self.assertEqual(sox_columns(3600, 48000, 1024, 2048), 750)
        self.assertEqual(sox_step(3600, 48000, 750, 2048), 1024)
        columns = sox_columns(300, 48000, 512, 1024)
        self.assertEqual(sox_step(300, 48000, columns, 1024), 512)

    def test_no_width_when_the_hop_cannot_be_reached(self):
        self.assertIsNone(sox_columns(1, 48000, 1000, 1024, near=10))


class GrowthTests(unittest.TestCase):
    def figure(self, long, short):
        from chirperbench.own import growth_verdict
        figure = Figure("14c", "x", "MiB", long, short, "± 2 MiB", decide=growth_verdict)
        judge([figure])
        return figure.verdict

    def test_within_two_mib_either_way_is_met(self):
        self.assertEqual(self.figure([14.0, 15.5, 15.0], [14.0, 13.5, 13.2]), "met (+1.5 MiB)")
        self.assertEqual(self.figure([12.0], [13.9]), "met (-1.9 MiB)")

    def test_more_is_missed_by_its_growth(self):
        self.assertEqual(self.figure([20.0], [13.0]), "MISSED (+7.0 MiB)")

    def test_without_the_short_files_runs_there_is_no_verdict(self):
        self.assertEqual(self.figure([20.0], []), "no data")


class PageTests(unittest.TestCase):
    def test_a_thousand_files_are_two_pages_of_five_hundred(self):
        self.assertEqual(pages(1000), 2)
        self.assertEqual(pages(1001), 3)
        self.assertEqual(pages(0), 1)
        self.assertEqual(pages(120, per_page=50), 3)


class PeerNameTests(unittest.TestCase):
    def test_the_table_names_each_figures_own_peer(self):
        figure = Figure("14a", "open", "ms", [30.0], [80.0], "≤ 0.5", peer="soxi")
        judge([figure])
        self.assertEqual([row[3] for row in figure_rows([figure])], ["chirper-play", "soxi"])
        self.assertEqual(figure_rows([Figure("1", "x", "ms", [1.0], [2.0])]).__next__()[3], "chirper-play")


class OwnInputTests(unittest.TestCase):
    def test_a_wav_header_states_its_data_and_the_riff_size(self):
        header = wav_header(48000, 2, 24, 10, b"")
        self.assertEqual(header[:4] + header[8:16], b"RIFFWAVEfmt ")
        self.assertEqual(struct.unpack("<I", header[-4:])[0], 60)
        self.assertEqual(struct.unpack("<I", header[4:8])[0], len(header) - 8 + 60)
        self.assertEqual(struct.unpack("<HHIIHH", header[20:36]), (1, 2, 48000, 288000, 6, 24))

    def test_the_folder_mixes_rates_channels_and_metadata_under_field_recorder_names(self):
        files = [folder_file(n) for n in range(FOLDER_FILES)]
        self.assertEqual(len({name for name, *_ in files}), FOLDER_FILES)
        self.assertEqual({rate for _, rate, *_ in files} >= {8000, 48000, 384000}, True)
        self.assertEqual({channels for _, _, channels, *_ in files}, {1, 2, 4})
        self.assertEqual(sum(b"guan" in extra for *_, extra in files), FOLDER_FILES // 4)
        self.assertEqual(sum(b"LIST" in extra for *_, extra in files), FOLDER_FILES // 5)
        self.assertRegex(files[123][0], r"^night02/BENCH_20250602_212300\.WAV$")

    def test_the_long_seek_files_tones_sit_around_its_target_as_the_seek_files_do(self):
        words, at, heard = long_seek_synth(), 0.0, []
        while words:
            segment, words = words[:6], words[7:]
            if float(segment[5]) > 0:
                heard.append((round(at - (SEEK_LONG_TARGET - SEEK_TARGET), 3), int(segment[3])))
            at += float(segment[1])
        self.assertAlmostEqual(at, SEEK_LONG_SECONDS)
        self.assertEqual(heard, [(start, hz) for start, hz in SEEK_TONES if hz is not None])


if __name__ == "__main__":
    unittest.main()
