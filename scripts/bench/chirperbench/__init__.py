"""`make bench`'s parts: a small harness (children, timing, the private sound server and its monitor, the loopback
server, figures and their rendering) and one module per group of figures. `bench.py` is the entry point."""
