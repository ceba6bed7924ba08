"""`--only`: which figures run, in which order, and under which monitor; and the flags' defaults."""

import contextlib
import io
import unittest

from chirperbench.cli import ALL, figure_numbers, parser
from chirperbench.common import turns
from chirperbench.runner import PHASES, plan

EVERYTHING = [
    (2, [("1", None), ("2", None)]),
    (20, [("6", "3")]),
    (2, [("8", None)]),
    (20, [("9", None)]),
    (None, [("10", None)]),
    (None, [("12", None)]),
    (None, [("13", None)]),
    (20, [("11", None)]),
    (None, [("7", None)]),
    (None, [("4", None)]),
    (None, [("5", None)]),
    (None, [("10c", None)]),
    (2, [("14d", None)]),
    (None, [("14", None)]),
    (None, [("15", None)]),
]


class PlanTests(unittest.TestCase):
    def test_every_figure_in_its_order_under_its_monitor(self):
        self.assertEqual(plan(figure_numbers(ALL)), EVERYTHING)

    def test_every_phase_planned_is_one_the_bench_knows(self):
        keys = {key for _, phases in EVERYTHING for pair in phases for key in pair if key is not None}
        self.assertEqual(keys, set(PHASES))

    def test_the_list_fill_overlaps_the_cpu_rounds_only_when_both_are_asked_for(self):
        self.assertEqual(plan({3, 6}), [(20, [("6", "3")])])
        self.assertEqual(plan({6}), [(20, [("6", None)])])
        self.assertEqual(plan({3}), [(20, [("3", None)])])

    def test_first_sound_and_cold_start_share_one_monitor(self):
        self.assertEqual(plan({2}), [(2, [("2", None)])])
        self.assertEqual(plan({2, 1}), [(2, [("1", None), ("2", None)])])

    def test_figure_10_is_its_sonograms_and_the_long_one_last(self):
        self.assertEqual(plan({10, 4}), [(None, [("10", None)]), (None, [("4", None)]), (None, [("10c", None)])])

    def test_own_files_seek_under_the_seek_monitor_and_the_rest_without_one(self):
        self.assertEqual(plan({14}), [(2, [("14d", None)]), (None, [("14", None)])])

    def test_unknown_numbers_run_nothing(self):
        self.assertEqual(plan({16, 0}), [])


class ArgumentTests(unittest.TestCase):
    def test_only_reads_comma_separated_numbers(self):
        self.assertEqual(parser("d").parse_args(["--binary", "b", "--only", "2,4,10"]).only, {2, 4, 10})

    def test_defaults(self):
        args = parser("d").parse_args(["--binary", "b"])
        self.assertEqual(args.only, set(range(1, 16)))
        self.assertEqual((args.runs, args.list_runs, args.cpu_runs, args.mem_runs, args.seek_runs, args.sono_runs,
                          args.check_runs), (15, 9, 3, 5, 9, 5, 2))
        self.assertIsNone(args.write)
        self.assertIsNone(args.floor)
        self.assertFalse(args.keep)
        self.assertTrue(args.cache.endswith("chirper-bench-inputs"))

    def test_only_refuses_what_is_not_a_number(self):
        with contextlib.redirect_stderr(io.StringIO()) as err, self.assertRaises(SystemExit):
            parser("d").parse_args(["--binary", "b", "--only", "1,x"])
        self.assertIn("--only", err.getvalue())

    def test_binary_is_required(self):
        with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit):
            parser("d").parse_args([])


class TurnsTests(unittest.TestCase):
    def test_the_programs_take_turns_going_first(self):
        self.assertEqual([turns(n) for n in range(3)],
                         [("chirper", "mpg123"), ("mpg123", "chirper"), ("chirper", "mpg123")])


if __name__ == "__main__":
    unittest.main()
