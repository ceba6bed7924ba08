"""Figure 6: lists: a search of 500 rows, the next page after one page and after a hundred, and the memory each
thousand rows hold."""

import statistics
import threading
import time

from .children import Session, rss_kib
from .common import GATE, log
from .figures import Figure, fmt


def lists(bench, during_fill=None):
    samples = bench.args.list_runs
    log(f"6. lists: {samples} searches of 500 rows, {samples} page-2 loads, fill to 100 pages, "
        f"{samples} more pages (~{int((3 * samples + 100) * GATE)} s)")
    session = Session(bench.chirper_cmd("--per-page", "500", output="null"), bench.chirper_env(), bench.stderr)
    last_request = [0.0]

    def paced(line):
        wait = last_request[0] + GATE - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        mark = session.out.mark()
        began = session.send(line)
        last_request[0] = began
        return mark, began

    def next_page(expected):
        """(write -> loading line, loading -> next/populated line, write -> last new row) in ms."""
        mark, began = paced("next-page")
        _, t_loading = session.out.wait(rf"^list: paging .* loading={expected}\b", mark)
        done, t_done = session.out.wait(rf"^list: (paging rows=\d+ page={expected}/.* next=|populated)", mark)
        _, t_rows = session.out.wait(r"^row: ", done, count=500)
        return (t_loading - began) * 1000, (t_done - t_loading) * 1000, (t_rows - began) * 1000

    search_ms, first_pages, late_pages = [], [], []
    fill = threading.Thread(target=during_fill) if during_fill else None
    try:
        for _ in range(samples):
            mark, began = paced("search en:ttfs")
            done, _ = session.out.wait(r"^list: paging rows=500 page=1/", mark)
            _, t_rows = session.out.wait(r"^row: ", done, count=500)
            search_ms.append((t_rows - began) * 1000)
            first_pages.append(next_page(2))
        rss_early = rss_kib(session.proc.pid)
        if fill:
            fill.start()
        for page in range(3, 101):
            next_page(page)
        if fill:
            fill.join()
        rss_100 = rss_kib(session.proc.pid)
        for page in range(101, 101 + samples):
            late_pages.append(next_page(page))
        rss_late = rss_kib(session.proc.pid)
        session.out.wait(rf"^list: paging rows={(100 + samples) * 500} ", 0)  # every row arrived once
    finally:
        session.close("quit")
        if fill and not fill.is_alive() and fill.ident is None:
            fill.start()  # the lists failed early: still measure what was to overlap them
        if fill and fill.ident is not None:
            fill.join()
    bench.figures.append(Figure("6a", "search → 500 rows printed (--per-page 500)", "ms", search_ms))
    f1 = Figure("6b", "next-page after 1 page: `loading=2` → `next=3`", "ms", [p[1] for p in first_pages])
    f100 = Figure("6c", f"next-page after 100–{99 + samples} pages: `loading=N` → `next=N+1`", "ms",
                  [p[1] for p in late_pages], target="≤ 1.5 × 6b", base=f1)
    r1 = Figure("6d", "next-page after 1 page: write → 500th new row", "ms", [p[2] for p in first_pages])
    r100 = Figure("6e", f"next-page after 100–{99 + samples} pages: write → 500th new row", "ms",
                  [p[2] for p in late_pages], target="≤ 1.5 × 6d", base=r1)
    bench.figures += [f1, f100, r1, r100]
    if rss_early and rss_100:
        # What the rows beyond the first page hold, per thousand, against the target's bound.
        per_thousand = (rss_100 - rss_early) / 1024 / 49.5
        bench.figures.append(Figure(
            "6f", "resident memory per 1,000 rows, 500 → 50,000 rows", "MiB per 1,000 rows", [per_thousand],
            target="≤ 0.5 MiB",
            decide=lambda f: (None, "met" if f.chirper[0] <= 0.5 else f"MISSED (+{f.chirper[0] - 0.5:.2f} MiB)")))
    bench.notes.append(
        "6: write of `next-page` → `loading=N` line (median): after 1 page "
        f"{fmt(statistics.median([p[0] for p in first_pages]), 'ms')} ms, after 100 pages "
        f"{fmt(statistics.median([p[0] for p in late_pages]), 'ms')} ms. chirper-play's resident memory: "
        f"{(rss_early or 0) / 1024:.1f} MiB with 1 page (500 rows), {(rss_100 or 0) / 1024:.1f} MiB with 100 "
        f"pages (50,000 rows), {(rss_late or 0) / 1024:.1f} MiB with {100 + samples}. Requests are paced "
        f"{GATE} s apart so that chirper-play's one-request-a-second gate never adds a wait.")
