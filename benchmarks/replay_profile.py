"""Where a full replay's time goes: per projection and event type, and per phase.

    python benchmarks/replay_profile.py PROJECT [--repeat N] [--batches]

Copies PROJECT (a folder holding ``.baton/``, e.g. a cached
``project-10000-r2/repo`` from ``benchmarks/build.py``) into a temporary
folder, runs ``baton rebuild --json`` in this process once unmeasured (the
copy's inodes are taken into its index) and then ``--repeat`` times measured,
with a timer around every projection's ``apply`` (per event type; a projection
that folds a batch's events of one document at once, ``apply_all``, per run,
counted in events) and around
the runner's phases (``fold``, ``_write_docs``, ``_materialize``, ``_load``,
the projections' ``index``). Times are CPU time (``time.process_time``) of the
fastest repetition, so other processes on the machine count less. The timers
add ~1 µs per ``apply`` call. ``--batches`` also prints the CPU of each batch
of ``REPLAY_BATCH`` events (its fold and its writes) and the first tenth of
the batches beside the last: a cost that grows with the index shows there
(at 10k and 100k it does not: docs/performance.md, "Full replay, fourth
round"). No test asserts on these numbers.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baton.cli import main as baton_main  # noqa: E402
from baton.projections import runner as runner_module  # noqa: E402

Timings = collections.Counter


def instrument(times: Timings, counts: Timings) -> None:
    """Wrap the runner's phases and, on first use, every projection's ``apply`` and ``index``."""
    clock = time.process_time
    cls = runner_module.ProjectionRunner

    def timed(name: str, method):
        def wrapper(self, *args, **kwargs):
            start = clock()
            try:
                return method(self, *args, **kwargs)
            finally:
                times[(name, "")] += clock() - start
        return wrapper

    fold = cls.fold

    def fold_wrapped(self, events, docs, load):
        for p in self.projections:
            if getattr(p, "_profiled", False):
                continue
            def counted(method, name, of_event, weight):
                """``method`` timed under ``(name, of_event(events))``, counted ``weight(events)``."""
                def timed_method(key, doc, events):
                    start = clock()
                    try:
                        return method(key, doc, events)
                    finally:
                        slot = (name, of_event(events))
                        times[slot] += clock() - start
                        counts[slot] += weight(events)
                return timed_method

            p.apply = counted(p.apply, p.name, lambda event: event.type, lambda event: 1)
            if getattr(p, "folds_runs", False):  # a batch's events of one document at once (``apply_all``)
                p.apply_all = counted(p.apply_all, p.name, lambda events: "(a run of one key)", len)
            if hasattr(p, "index"):
                index = p.index

                def index_timed(db, changed, index=index, name=p.name):
                    start = clock()
                    try:
                        return index(db, changed)
                    finally:
                        times[(f"{name}.index", "")] += clock() - start

                p.index = index_timed
            p._profiled = True
        events = list(events)
        counts[("(events)", "")] += len(events)
        return fold(self, events, docs, load)

    cls.fold = timed("fold (all projections)", fold_wrapped)
    for phase in ("_write_docs", "_materialize", "_load", "_reset_tables"):
        setattr(cls, phase, timed(phase, getattr(cls, phase)))


def instrument_batches(batches: list[list[float]]) -> None:
    """Per batch: [fold CPU, write CPU, events] (``fold`` then ``_write_docs``, as ``_replay_batches`` calls them)."""
    clock = time.process_time
    cls = runner_module.ProjectionRunner
    fold, write = cls.fold, cls._write_docs

    def fold_timed(self, events, docs, load):
        start = clock()
        try:
            return fold(self, events, docs, load)
        finally:
            batches.append([clock() - start, 0.0, len(events)])

    def write_timed(self, *args, **kwargs):
        start = clock()
        try:
            return write(self, *args, **kwargs)
        finally:
            if batches:
                batches[-1][1] += clock() - start

    cls.fold, cls._write_docs = fold_timed, write_timed


def print_batches(batches: list[list[float]]) -> None:
    full = batches[:-1] if len(batches) > 1 else batches  # the last batch is a remainder
    print(f"per batch of {runner_module.REPLAY_BATCH} events, ms CPU (fold + writes):")
    print("  " + " ".join(f"{(f + w) * 1000:.0f}" for f, w, _n in full))
    tenth = max(1, len(full) // 10)
    for name, part in (("first tenth", full[:tenth]), ("last tenth", full[-tenth:])):
        fold, write, events = (sum(b[i] for b in part) for i in range(3))
        print(f"  {name:<12} fold {fold / len(part) * 1000:6.1f} ms  writes {write / len(part) * 1000:6.1f} ms  "
              f"({(fold + write) / events * 1e6:.1f} µs an event)")


def rebuild(root: Path) -> float:
    start = time.process_time()
    with contextlib.redirect_stdout(io.StringIO()):
        code = baton_main(["rebuild", "--json", "--project", str(root)])
    if code != 0:
        raise SystemExit(f"baton rebuild exited {code}")
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--batches", action="store_true", help="also each batch's CPU, first tenth beside last")
    args = parser.parse_args(argv)
    batches: list[list[float]] = []
    with tempfile.TemporaryDirectory(prefix="baton-replay-profile-") as scratch:
        root = Path(scratch) / "repo"
        shutil.copytree(args.project, root, symlinks=True)
        rebuild(root)
        times: Timings = Timings()
        counts: Timings = Timings()
        if args.batches:  # outside the projections' timers: a batch's CPU is theirs and the runner's
            instrument_batches(batches)
        instrument(times, counts)
        best: tuple[float, Timings, Timings, list[list[float]]] | None = None
        for _ in range(args.repeat):
            times.clear()
            counts.clear()
            batches.clear()
            total = rebuild(root)
            if best is None or total < best[0]:
                best = (total, Timings(times), Timings(counts), [list(b) for b in batches])
    assert best is not None
    total, times, counts, batches = best
    events = counts.pop(("(events)", ""), 0)
    print(f"rebuild, in process: {total * 1000:.0f} ms CPU for {events} events "
          f"({total / max(events, 1) * 1e6:.1f} µs an event)")
    print(f"{'ms':>8} {'share':>6}  {'projection or phase':<24} {'event type':<22} {'events':>7} {'µs each':>8}")
    for (name, kind), spent in sorted(times.items(), key=lambda item: -item[1]):
        n = counts.get((name, kind), 0)
        each = f"{spent / n * 1e6:8.1f}" if n else ""
        print(f"{spent * 1000:8.1f} {spent / total * 100:5.1f}%  {name:<24} {kind:<22} {n or '':>7} {each:>8}")
    if args.batches:
        print_batches(batches)
    return 0


if __name__ == "__main__":
    sys.exit(main())
