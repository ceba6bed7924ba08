"""The report: what is printed at the end, and the block written between BENCH.md's markers."""

import contextlib
import io
import tempfile
import unittest
from pathlib import Path

from chirperbench.report import BEGIN, END, markdown_block, missed, text_report, write_block
from chirperbench.table import table

from .fixtures import MARKDOWN_TABLE, TEXT_TABLE, judged_figures

MACHINE = [("date", "2026-11-27 22:00 UTC"), ("CPU", "Test, 2 cores")]


def parts():
    figures = judged_figures()
    return MACHINE, table(figures), ["1: a note"], missed(figures), ["it broke"], 41.6


class TextReportTests(unittest.TestCase):
    def test_machine_table_notes_misses_problems_and_the_time_taken(self):
        expected = ["", "         date: 2026-11-27 22:00 UTC", "          CPU: Test, 2 cores", ""] + TEXT_TABLE + [
            "",
            "note 1: a note",
            "MISSED 1 (first sound (`play`|`LOAD`)): 48% over; target ≤ 0.9",
            "PROBLEM it broke",
            "",
            "(make bench took 42 s)",
        ]
        self.assertEqual(text_report(*parts()).split("\n"), expected)

    def test_only_missed_verdicts_are_misses(self):
        self.assertEqual([f.key for f in missed(judged_figures())], ["1"])


class MarkdownTests(unittest.TestCase):
    def test_the_block_holds_the_machine_the_table_notes_misses_and_problems_between_the_markers(self):
        expected = [BEGIN, "", "| machine | |", "| --- | --- |", "| date | 2026-11-27 22:00 UTC |",
                    "| CPU | Test, 2 cores |", ""] + MARKDOWN_TABLE + [
            "",
            "- 1: a note",
            "",
            "- **Missed** 1 (first sound (`play`|`LOAD`)): 48% over (target ≤ 0.9).",
            "",
            "- **Problem**: it broke",
            "",
            "`make bench` took 42 s.",
            "",
            END,
        ]
        self.assertEqual(markdown_block(*parts()).split("\n"), expected)

    def test_no_misses_and_no_problems_leave_no_empty_sections(self):
        machine, rows, notes, _, _, elapsed = parts()
        lines = markdown_block(machine, rows, notes, [], [], elapsed).split("\n")
        self.assertEqual(lines[-6:], ["", "- 1: a note", "", "`make bench` took 42 s.", "", END])


class WriteTests(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.path = Path(self.folder.name) / "BENCH.md"
        self.block = f"{BEGIN}\nnew figures\n{END}"

    def tearDown(self):
        self.folder.cleanup()

    def write(self):
        with contextlib.redirect_stderr(io.StringIO()):
            write_block(self.path, self.block)
        return self.path.read_text()

    def test_the_block_replaces_what_lay_between_the_markers_and_the_text_around_is_kept(self):
        self.path.write_text("# Benchmarks\n\nbefore\n\n<!-- bench:begin old -->\nold | figures\n<!-- bench:end -->\n"
                             "\nafter\n")
        self.assertEqual(self.write(), f"# Benchmarks\n\nbefore\n\n{self.block}\n\nafter\n")

    def test_a_file_without_markers_gets_the_block_at_its_end(self):
        self.path.write_text("# Benchmarks\n\nnotes\n\n\n")
        self.assertEqual(self.write(), f"# Benchmarks\n\nnotes\n\n{self.block}\n")

    def test_a_missing_file_is_made_with_a_title(self):
        self.assertEqual(self.write(), f"# Benchmarks\n\n{self.block}\n")

    def test_writing_twice_gives_the_same_file(self):
        self.path.write_text("intro\n\n<!-- bench:begin -->\n<!-- bench:end -->\n\nrest\n")
        once = self.write()
        self.assertEqual(self.write(), once)


if __name__ == "__main__":
    unittest.main()
