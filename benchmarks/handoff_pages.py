"""``handoff list`` paging: a page deep in the listing beside the first page, and beside OFFSET paging.

    python benchmarks/handoff_pages.py [--limit 50] [--repeat 5] PROJECT

PROJECT is a copy of a benchmark project (``/tmp/baton-100k/project-N-r2/repo``, ``cp -a``). In one
process, the project opened once (as the MCP server holds it), every page of ``list_handoffs`` is
walked by its ``next_cursor`` (keyset paging: ``handoffs.newest`` enters the ``(hlc, id)`` index at
the cursor's row). Per page the CPU time (``time.process_time``) of the call is taken ``--repeat``
times, the least kept (a repeat of the same page is a fresh query: the answers a long-lived process
remembers are cleared before each). Printed: the mean of the first five pages, of the last five,
and their ratio (last / first: 1.0 is a cost bounded by the page, not by its depth); then the same
rows read with ``LIMIT … OFFSET …`` at the first and last depths, the baseline keyset paging
replaces. No test asserts on these numbers.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import time
from pathlib import Path

from baton.app import Baton


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("project", type=Path)
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    costs: list[float] = []
    cursor = None
    with Baton.open(args.project) as app:
        runner = app.project.reading()
        while True:
            best = float("inf")
            for _ in range(args.repeat):
                runner._memo.clear()  # each repeat queries the index, as a new question would
                start = time.process_time()
                page = app.list_handoffs(limit=args.limit, cursor=cursor, count_total=False)
                best = min(best, time.process_time() - start)
            costs.append(best)
            if not page.more:
                break
            cursor = page.next_cursor
    first, last = statistics.mean(costs[:5]), statistics.mean(costs[-5:])
    print(f"{len(costs)} pages of {args.limit}: first five {first * 1e3:.2f} ms, last five {last * 1e3:.2f} ms CPU, "
          f"last/first {last / first:.2f}")
    db = sqlite3.connect(args.project / ".baton" / "index.sqlite")
    sql = ("SELECT id FROM handoff_rows WHERE COALESCE(baton, 0) = 0 ORDER BY hlc DESC, id DESC "
           "LIMIT ? OFFSET ?")
    offsets = {}
    for depth in (0, (len(costs) - 1) * args.limit):
        best = float("inf")
        for _ in range(args.repeat):
            start = time.process_time()
            db.execute(sql, (args.limit + 1, depth)).fetchall()
            best = min(best, time.process_time() - start)
        offsets[depth] = best
    (shallow, deep) = offsets.values()
    print(f"OFFSET paging (the query alone): offset 0 {shallow * 1e3:.2f} ms, offset {max(offsets):,} "
          f"{deep * 1e3:.2f} ms CPU, deep/first {deep / shallow:.2f}")


if __name__ == "__main__":
    main()
