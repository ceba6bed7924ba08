"""The link order file's staleness: only the program's own functions count, and past a tenth gone it fails."""

import unittest

from chirperbench.linkorder import staleness, verdict


class LinkOrderTests(unittest.TestCase):
    def test_shared_library_functions_the_file_names_do_not_count(self):
        order = ["$s4main3runyyF", "$s4main4playyyF", "pa_mainloop_new", "fftwf_codelet_n1_2", "_IO_file_read"]
        self.assertEqual(staleness(order, ["$s4main3runyyF", "$s4main4playyyF", "main"]), (0, 2))

    def test_a_file_with_a_tenth_of_its_functions_gone_is_still_fresh(self):
        order = [f"$s4main1f{i}yyF" for i in range(20)]
        gone, named = staleness(order, order[2:])
        self.assertEqual((gone, named), (2, 20))
        self.assertIsNone(verdict(gone, named))

    def test_a_file_with_more_than_a_tenth_gone_is_stale_and_says_what_to_do(self):
        order = [f"$s4main1f{i}yyF" for i in range(20)]
        line = verdict(*staleness(order, order[3:]))
        self.assertIn("3 of the 20 functions", line)
        self.assertIn("make link-order", line)

    def test_a_file_naming_none_of_the_programs_functions_is_stale(self):
        self.assertIn("make link-order", verdict(*staleness(["pa_mainloop_new"], ["$s4main3runyyF"])))


if __name__ == "__main__":
    unittest.main()
