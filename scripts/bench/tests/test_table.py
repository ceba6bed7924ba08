"""The table: one row per program, the figure's cells on its first row only, drawn as text and as Markdown."""

import unittest

from chirperbench.figures import Figure
from chirperbench.table import HEADER, render_markdown, render_text, table

from .fixtures import MARKDOWN_TABLE, TEXT_TABLE, judged_figures


class TableTests(unittest.TestCase):
    def test_a_figure_with_a_peer_has_a_second_row_naming_only_the_peer_and_its_values(self):
        rows = table(judged_figures())
        self.assertEqual(rows[0], HEADER)
        self.assertEqual(rows[1], ["1", "first sound (`play`|`LOAD`)", "ms", "chirper-play", "3", "5.2", "6.0", "7.5",
                                   "1.333", "≤ 0.9", "MISSED (48% over)"])
        self.assertEqual(rows[2], ["", "", "", "mpg123", "2", "4.0", "4.5", "5.0", "", "", ""])

    def test_a_figure_without_a_peer_has_one_row(self):
        rows = table([Figure("6a", "search", "ms", [1.0])])
        self.assertEqual(len(rows), 2)

    def test_the_program_names_the_row(self):
        rows = table([Figure("2f", "floor", "ms", [3.0], [90.0], program="chirper-floor")])
        self.assertEqual([row[3] for row in rows[1:]], ["chirper-floor", "mpg123"])

    def test_text_aligns_names_left_and_numbers_right_under_a_rule(self):
        self.assertEqual(render_text(table(judged_figures())).split("\n"), TEXT_TABLE)

    def test_markdown_right_aligns_numbers_and_escapes_pipes(self):
        self.assertEqual(render_markdown(table(judged_figures())).split("\n"), MARKDOWN_TABLE)


if __name__ == "__main__":
    unittest.main()
