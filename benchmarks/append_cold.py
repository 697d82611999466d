"""Where a durable single-event append's time goes once the fsync has put the CPU to sleep.

    python benchmarks/append_cold.py [--events 1000]

Two measurements, each event its own sample, medians printed (µs):

1. one ``Ledger.locked()`` + ``txn.append([draft])`` per event with ``fsync:
   always``, split by timestamps taken around the lock, the catch-up, the
   sealing, the ``write``, the ``fsync`` and the release (the wrappers add
   ~1 µs each);
2. interleaved raw loops on two files of the same folder: ``write`` +
   ``fsync`` of a fixed line, and the same after sealing the event
   (``seal_batch``, what an append does before its ``write``): how much the
   Python work before it lengthens the ``fsync`` itself.

The same work costs two to three times as much right after an ``fsync`` as
in a loop without one (``append_ab.py --fsync never``): the caches are cold
after the sleep. No test asserts on these numbers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]  # benchmarks/ledger.py, and this checkout's baton

import baton.ledger.store as store  # noqa: E402
from baton.ledger.clock import rfc3339_micros, system_clock  # noqa: E402
from baton.ledger.envelope import seal_batch  # noqa: E402
from baton.ledger.ids import uuid7  # noqa: E402

import ledger as bench_ledger  # noqa: E402  (benchmarks/ledger.py, with this checkout's baton)

PHASES = ("lock", "catch-up", "to seal", "seal", "write", "after write", "fsync", "release")


def phases(work: Path, events: int) -> dict[str, float]:
    marks: dict[str, float] = {}
    clock = time.perf_counter

    def timed(name, fn):
        def run(*args, **kwargs):
            marks[name + "<"] = clock()
            out = fn(*args, **kwargs)
            marks[name] = clock()
            return out
        return run

    def starts(name, fn):
        def run(*args, **kwargs):
            marks[name] = clock()
            return fn(*args, **kwargs)
        return run

    def ends(name, fn):
        def run(*args, **kwargs):
            out = fn(*args, **kwargs)
            marks[name] = clock()
            return out
        return run

    real = (store.seal_batch, store.check_draft, store.seal_checked, os.write, os.fsync)
    ledger = store.Ledger(work / ".baton", "bench", fsync="always")
    with ledger.locked():
        pass
    # A single draft is sealed from its check to ``seal_checked`` (the ids and
    # the clock between them); a batch by ``seal_batch``.
    store.seal_batch = timed("seal", store.seal_batch)
    store.check_draft, store.seal_checked = starts("seal<", store.check_draft), ends("seal", store.seal_checked)
    refresh = store.Ledger.refresh
    store.Ledger.refresh = timed("refresh", refresh)
    os.write, os.fsync = timed("write", os.write), timed("fsync", os.fsync)
    rows = []
    try:
        for draft in bench_ledger.drafts(events):
            start = clock()
            with ledger.locked() as txn:
                txn.append([draft])
            end = clock()
            m = marks
            rows.append((m["refresh<"] - start, m["refresh"] - m["refresh<"], m["seal<"] - m["refresh"],
                         m["seal"] - m["seal<"], m["write"] - m["write<"], m["fsync<"] - m["write"],
                         m["fsync"] - m["fsync<"], end - m["fsync"]))
    finally:
        store.seal_batch, store.check_draft, store.seal_checked, os.write, os.fsync = real
        store.Ledger.refresh = refresh
        ledger.close()
    out = {name: statistics.median(r[i] for r in rows) * 1e6 for i, name in enumerate(PHASES)}
    out["total"] = statistics.median(sum(r) for r in rows) * 1e6
    return out


def fsync_after_sealing(work: Path, events: int) -> tuple[float, float]:
    line = b"x" * 1071 + b"\n"
    plain_fd = os.open(work / "plain", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    sealed_fd = os.open(work / "sealed", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    plain, sealed = [], []
    try:
        for draft in bench_ledger.drafts(events):
            lines: list[bytes] = []
            seal_batch([draft], writer="bench", seq=5, prev=None, max_hlc=0, clock=system_clock,
                       version_of=lambda stream: 0, new_id=uuid7, timestamp=rfc3339_micros, lines=lines)
            os.write(sealed_fd, lines[0])
            start = time.perf_counter()
            os.fsync(sealed_fd)
            sealed.append(time.perf_counter() - start)
            os.write(plain_fd, line)
            start = time.perf_counter()
            os.fsync(plain_fd)
            plain.append(time.perf_counter() - start)
    finally:
        os.close(plain_fd)
        os.close(sealed_fd)
    return statistics.median(sealed) * 1e6, statistics.median(plain) * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1000, help="events (samples) per measurement (default: 1000)")
    parser.add_argument("--dir", type=Path, default=None, help="where to write (default: a temporary folder)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="baton-append-cold-", dir=args.dir) as tmp:
        work = Path(tmp)
        print(f"# machine: {bench_ledger.machine_note(work)}")
        split = phases(work / "ledger", args.events)
        print("| phase of a durable append | µs (median) |")
        print("|---|---:|")
        for name, value in split.items():
            print(f"| {name} | {value:.1f} |")
        after, alone = fsync_after_sealing(work, args.events)
        print(f"\nraw fsync right after sealing the event: {after:.1f} µs; after a fixed line: {alone:.1f} µs "
              f"(interleaved, {args.events} each)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
