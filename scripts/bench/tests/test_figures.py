"""Figures: their order, spread and ratio, how values read, and the verdict against a target."""

import unittest

from chirperbench.figures import Figure, figure_order, fmt, judge, median, percent


class FigureOrderTests(unittest.TestCase):
    def test_keys_sort_by_number_then_letter(self):
        keys = ["10c", "2f", "10", "1", "8b", "11a", "8a", "2", "9"]
        self.assertEqual(sorted(keys, key=figure_order), ["1", "2", "2f", "8a", "8b", "9", "10", "10c", "11a"])

    def test_a_key_without_a_number_goes_last(self):
        self.assertEqual(sorted(["extra", "13", "1"], key=figure_order), ["1", "13", "extra"])


class SpreadAndRatioTests(unittest.TestCase):
    def test_spread_is_min_median_max(self):
        self.assertEqual(Figure.spread([3.0, 1.0, 2.0, 10.0]), (1.0, 2.5, 10.0))

    def test_spread_of_nothing_is_none(self):
        self.assertIsNone(Figure.spread([]))

    def test_ratio_is_median_over_the_peers_median(self):
        self.assertAlmostEqual(Figure("1", "x", "ms", [6.0, 5.0, 7.0], [4.0, 2.0]).ratio, 2.0)

    def test_no_ratio_without_a_peer_or_values_or_when_the_peer_measured_zero(self):
        self.assertIsNone(Figure("6a", "x", "ms", [1.0]).ratio)
        self.assertIsNone(Figure("1", "x", "ms", [], [1.0]).ratio)
        self.assertIsNone(Figure("1", "x", "ms", [1.0], [0.0]).ratio)


class FormatTests(unittest.TestCase):
    def test_each_unit_reads_with_its_precision(self):
        cases = [
            ((None, "ms"), "–"),
            ((12.345, "MiB"), "12.3"),
            ((99.94, "ms"), "99.9"),
            ((123.4, "ms"), "123"),
            ((1.23456, "s"), "1.235"),
            ((12.34, "CPU s"), "12.3"),
            ((95.6, "× realtime"), "96"),
            ((0.123456, "MiB per 1,000 rows"), "0.123"),
        ]
        for (value, unit), expected in cases:
            with self.subTest(value=value, unit=unit):
                self.assertEqual(fmt(value, unit), expected)

    def test_median_reads_as_fmt_or_a_dash(self):
        self.assertEqual(median([1.0, 2.0, 400.0], "ms"), "2.0")
        self.assertEqual(median([], "ms"), "–")

    def test_percent_keeps_a_decimal_below_ten(self):
        self.assertEqual(percent(0.0512), "5.1%")
        self.assertEqual(percent(0.4849), "48%")


class JudgeTests(unittest.TestCase):
    def judged(self, *figures):
        judge(list(figures))
        return [(f.verdict_value, f.verdict) for f in figures]

    def test_at_most_target_met_and_missed(self):
        met = Figure("2", "x", "ms", [120.0], [100.0], "≤ 1.5")
        missed = Figure("1", "x", "ms", [6.0], [4.5], "≤ 0.9")
        (met_value, met_verdict), (missed_value, missed_verdict) = self.judged(met, missed)
        self.assertAlmostEqual(met_value, 1.2)
        self.assertEqual(met_verdict, "met")
        self.assertAlmostEqual(missed_value, 6.0 / 4.5)
        self.assertEqual(missed_verdict, "MISSED (48% over)")

    def test_at_least_target_says_how_far_short(self):
        fig = Figure("5", "x", "× realtime", [0.8], [1.0], "≥ 1.0")
        self.assertEqual(self.judged(fig), [(0.8, "MISSED (20% short)")])

    def test_a_base_figure_makes_the_verdict_an_overhead_over_it(self):
        plain = Figure("9a", "x", "CPU s", [2.0])
        keep = Figure("9b", "x", "CPU s", [5.0], base=plain)
        self.assertEqual(self.judged(plain, keep), [(None, None), (2.5, None)])

    def test_a_base_with_no_values_gives_no_data(self):
        base = Figure("6b", "x", "ms", [])
        over = Figure("6c", "x", "ms", [3.0], target="≤ 1.5 × 6b", base=base)
        self.assertEqual(self.judged(base, over), [(None, None), (None, "no data")])

    def test_no_values_is_no_data_only_where_there_is_a_target(self):
        self.assertEqual(self.judged(Figure("3", "x", "CPU s", [], [1.0], "≤ 1.0"), Figure("6a", "x", "ms", [])),
                         [(None, "no data"), (None, None)])

    def test_decide_replaces_the_ratio(self):
        fig = Figure("4c", "x", "MiB", [2.5], [0.1], "≤ 2 MiB",
                     decide=lambda f: (None, "met" if f.chirper[0] <= 2.0 else "MISSED (+0.5 MiB)"))
        self.assertEqual(self.judged(fig), [(None, "MISSED (+0.5 MiB)")])

    def test_judging_again_starts_afresh(self):
        fig = Figure("1", "x", "ms", [1.0], [1.0], "≤ 0.9")
        fig.verdict_value, fig.verdict = 0.1, "met"
        self.assertEqual(self.judged(fig), [(1.0, "MISSED (11% over)")])


if __name__ == "__main__":
    unittest.main()
