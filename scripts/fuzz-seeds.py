#!/usr/bin/env python3
"""Writes seed inputs for `make fuzz` into the folder given: the first byte picks the fuzz target
(0 page decoder, 1 command parser, 2 query parser, 3 sanitiser), the rest is its input. The page seeds
come from the demo catalog and, where present, the real replies in ../shared/xeno-canto/api."""
import pathlib
import sys

out = pathlib.Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
root = pathlib.Path(__file__).resolve().parent.parent
pages = [root / "assets/demo/catalog.json"]
shared = root.parent / "shared/xeno-canto/api"
if shared.is_dir():
    pages += sorted(p for p in shared.glob("*.json") if p.stat().st_size < 200_000)
seeds = {f"page-{p.stem[:40]}": b"\x00" + p.read_bytes() for p in pages}
for i, line in enumerate(["search wren cnt:spain q:A", "play 12", "next-page", "info #3", "help tags", "plya 1"]):
    seeds[f"command-{i}"] = b"\x01" + line.encode()
for i, query in enumerate(['common blackbird cnt:united kingdom', 'sp:"larus fuscus" len:">30"', 'q:<C', 'en:"=wren']):
    seeds[f"query-{i}"] = b"\x02" + query.encode()
seeds["text-0"] = b"\x03Wren\x1b]0;title\x07\x1b[31mred\x9b2J\xe2\x80\xae"
for name, data in seeds.items():
    (out / name).write_bytes(data)
print(f"{len(seeds)} seeds in {out}")
