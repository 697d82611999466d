"""Baton's durable append with and without its one-call write, in one process, in alternating blocks.

    python benchmarks/append_dsync.py [--events 2000] [--block 50] [--dir DIR]

The same code twice: two long-lived ledgers (``fsync: always``) in one
folder, one appending with ``pwritev2(RWF_DSYNC)`` after its own durable
append (``baton.ledger.files.write_durably``), the other with that call
switched off for the process (``files.dsync_writes = False``: ``write`` +
``fsync``, what a kernel without the call gets). Each block of ``--block``
events is appended by both, the one going first alternating, so both see
the same disk weather. Prints each arm's median wall and CPU time an append
(CPU: user + system of this process over the block, which the disk's
weather moves far less than wall time), the per-block wall ratio and the
per-block CPU difference with quartiles. Linux only (needs ``RWF_DSYNC``).
No test asserts on these numbers.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]  # benchmarks/ledger.py, and this checkout's baton

from baton.ledger import files  # noqa: E402

import ledger as bench_ledger  # noqa: E402  (benchmarks/ledger.py, with this checkout's baton)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=2000, help="events appended by each arm (default: 2000)")
    parser.add_argument("--block", type=int, default=50, help="events per alternating block (default: 50)")
    parser.add_argument("--dir", type=Path, default=None, help="where to write (default: a temporary folder)")
    args = parser.parse_args(argv)
    if not files.dsync_writes:
        parser.error("this system has no pwritev2 RWF_DSYNC: nothing to compare")
    work = Path(tempfile.mkdtemp(prefix="baton-append-dsync-", dir=args.dir))
    try:
        print(f"# machine: {bench_ledger.machine_note(work)}")
        print(f"# command: {' '.join([Path(sys.executable).name, *sys.argv])}", flush=True)
        arms = {"one call": bench_ledger.Ledger(work / "dsync" / ".baton", "bench", fsync="always"),
                "write+fsync": bench_ledger.Ledger(work / "fsync" / ".baton", "bench", fsync="always")}
        for ledger in arms.values():  # a new feed's first append is write + fsync in both: not timed
            with ledger.locked() as txn:
                txn.append(bench_ledger.drafts(1))
        batch = bench_ledger.drafts(args.events)
        cpu: dict[str, list[float]] = {name: [] for name in arms}
        wall: dict[str, list[float]] = {name: [] for name in arms}
        os.sync()
        for index, lo in enumerate(range(0, args.events, args.block)):
            drafts = batch[lo:lo + args.block]
            names = list(arms) if index % 2 == 0 else list(arms)[::-1]
            for name in names:
                files.dsync_writes = name == "one call"
                ledger = arms[name]
                used, start = time.process_time(), time.perf_counter()
                for draft in drafts:
                    with ledger.locked() as txn:
                        txn.append([draft])
                wall[name].append((time.perf_counter() - start) / len(drafts) * 1e6)
                cpu[name].append((time.process_time() - used) / len(drafts) * 1e6)
        files.dsync_writes = True
        for ledger in arms.values():
            ledger.close()
        print(f"\n{args.events} events, alternating blocks of {args.block}\n")
        for name in arms:
            print(f"{name:>11}: wall {statistics.median(wall[name]):8.1f} µs an append (median block), "
                  f"CPU {statistics.median(cpu[name]):6.1f} µs")
        ratio = [a / b for a, b in zip(wall["one call"], wall["write+fsync"])]
        less = [a - b for a, b in zip(cpu["one call"], cpu["write+fsync"])]
        q1, _, q3 = statistics.quantiles(ratio, n=4)
        print(f"wall, one call / write+fsync per block: median {statistics.median(ratio):.3f}, "
              f"quartiles {q1:.3f}-{q3:.3f}")
        q1, _, q3 = statistics.quantiles(less, n=4)
        print(f"CPU, one call - write+fsync per block: median {statistics.median(less):+.1f} µs, "
              f"quartiles {q1:+.1f} to {q3:+.1f}; lower in {sum(d < 0 for d in less)} of {len(less)} blocks")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
