#!/usr/bin/env python3
"""Usage: sync_withheld_bench.py PROJECT FORGOTTEN_ID (a copy of the 100k project, its oldest handoff forgotten).

CPU time of sync's new step (forgotten_withheld.brought_edits) on a copy of the 100k project whose
oldest handoff was forgotten, beside held_copies (the per-sync step next to it) and a full ledger read."""
import sys
import time

from baton.commands import forgotten_derived, forgotten_withheld
from baton.commands.context import Project


def cpu(label, fn, n=3):
    best = None
    for _ in range(n):
        t = time.process_time(); out = fn(); d = time.process_time() - t
        best = d if best is None else min(best, d)
    print(f"{label:70s} {best*1000:9.1f} ms CPU  -> {out}")
    return best

p = Project.open(sys.argv[1]); p.reading()
oldest = sys.argv[2]
cursors = {f: c.head.hlc for f, c in p.runner.cursors().items()}
feed = max(cursors, key=lambda f: p.runner.cursors()[f].head.seq)
print("feeds", len(cursors), "import simulated into", feed)
base = cpu("held_copies (existing per-sync step)", lambda: len(forgotten_derived.held_copies(p.runner)))
full = cpu("ledger.iter_all full read (baseline)", lambda: sum(1 for _ in p.ledger.iter_all()), n=1)
tail = cpu("brought_edits: import of a feed's newest events", lambda: len(forgotten_withheld.brought_edits(p, cursors, [feed], [])))
back = {**cursors, feed: cursors[feed] - 60_000_000_000}  # the last minute of that feed imported
minute = cpu("brought_edits: import of that feed's last minute", lambda: len(forgotten_withheld.brought_edits(p, back, [feed], [])))
scrub = cpu("brought_edits: the oldest handoff's forget imported (once)", lambda: len(forgotten_withheld.brought_edits(p, cursors, [], [oldest])), n=1)
print(f"ratios: newest/held_copies={tail/base:.1f}  minute/full_read={minute/full:.3f}  forget_imported/full_read={scrub/full:.2f}")
