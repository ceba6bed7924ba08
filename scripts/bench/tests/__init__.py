"""Unit tests of the bench's pure parts: `python3 -m unittest discover -s scripts/bench/tests -t scripts/bench`."""
