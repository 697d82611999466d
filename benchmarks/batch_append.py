"""Batch append (4 events per locked transaction, ``fsync: always``) beside the
``eventsourcing`` library's SQLite save, finely interleaved, with the time spent
in ``fsync`` split out.

    python benchmarks/batch_append.py [--events 2000] [--rounds 50] [--repeat 3] [--baseline DIR]

``benchmarks/run.py``'s "Ledger append, 4 events/txn" row alternates the two in
five rounds; on a disk whose fsync latency drifts within seconds (a shared
virtual disk) that leaves the ratio to chance, so here each round is
``events / rounds`` events (10 transactions of Baton against 40 saves of the
library, by default) and the rounds alternate which goes first. The same
drafts as ``benchmarks/ledger.py`` (about 1.1 KB a line).

With ``--baseline DIR`` (a source tree of another revision, say ``git archive
main | tar -x -C DIR``) each repetition runs that revision and this one in
turn, each in a fresh process with ``PYTHONPATH`` set: before and after from
one run. Per row: Baton's ms per event, the library's, their ratio (target ≤
1/3), and per Baton transaction its wall time, the part spent in ``os.fsync``
and the process CPU time (user + system: the system part includes the file
system's work under ``fsync``). No test asserts on these numbers.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BATCH = 4
TARGET = 1 / 3


def measure(events: int, rounds: int) -> dict:
    """In this process, with whichever ``baton`` is first on ``sys.path``."""
    import baton
    from baton.ledger import Ledger

    spec = importlib.util.spec_from_file_location("baton_bench_ledger", HERE / "ledger.py")
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # eventsourcing finds the aggregate class by its module
    spec.loader.exec_module(bench)
    work = Path(tempfile.mkdtemp(prefix="baton-bench-batch-"))
    real_fsync = os.fsync
    in_fsync = [0.0, 0]

    def timed_fsync(fd: int) -> None:
        start = time.perf_counter()
        real_fsync(fd)
        in_fsync[0] += time.perf_counter() - start
        in_fsync[1] += 1

    try:
        drafts = bench.drafts(events)
        es = bench.EventsourcingAppender(work / "eventsourcing.sqlite")
        ledger = Ledger(work / ".baton", "bench", fsync="always")
        with ledger.locked() as txn:  # the feed's first append also syncs the folder: not timed
            txn.append(bench.drafts(BATCH, seed=1))
        baton_s = es_s = cpu_s = 0.0
        bounds = [events * r // rounds for r in range(rounds + 1)]
        for r, (lo, hi) in enumerate(zip(bounds, bounds[1:])):
            def ours() -> float:
                os.fsync = timed_fsync
                try:
                    cpu, start = time.process_time(), time.perf_counter()
                    for i in range(lo, hi, BATCH):
                        with ledger.locked() as txn:
                            txn.append(drafts[i:i + BATCH])
                    return time.perf_counter() - start, time.process_time() - cpu
                finally:
                    os.fsync = real_fsync

            if r % 2:
                es_s += es.append(drafts[lo:hi])
                wall, cpu = ours()
            else:
                wall, cpu = ours()
                es_s += es.append(drafts[lo:hi])
            baton_s += wall
            cpu_s += cpu
        ledger.close()
        txns = -(-events // BATCH)
        return {"baton": str(Path(baton.__file__).parent.parent), "baton_ms_per_event": baton_s / events * 1000,
                "es_ms_per_event": es_s / events * 1000, "ratio": baton_s / es_s,
                "txn_ms": baton_s / txns * 1000, "fsync_ms_per_txn": in_fsync[0] / txns * 1000,
                "fsyncs_per_txn": in_fsync[1] / txns, "cpu_ms_per_txn": cpu_s / txns * 1000}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def raw_floor(count: int) -> dict:
    """The file system's part alone, interleaved: appending 4.5 KB (one batch's
    lines) and ``fsync`` — the file grows, so the journal commits its new size
    and blocks — against rewriting 8 KB in place in an allocated file and
    ``fdatasync`` (what SQLite's WAL does once it has restarted after a
    checkpoint: nothing but data to flush). Milliseconds per call."""
    work = Path(tempfile.mkdtemp(prefix="baton-bench-raw-"))
    try:
        grow = os.open(work / "feed.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        wal = os.open(work / "wal", os.O_RDWR | os.O_CREAT, 0o644)
        slots = 512
        os.write(wal, b"\0" * (8192 * slots))
        os.fsync(wal)
        line, frame = b"x" * 4559 + b"\n", b"y" * 8192
        spent = {"append + fsync": 0.0, "overwrite + fdatasync": 0.0}

        def append() -> None:
            os.write(grow, line)
            os.fsync(grow)

        def overwrite(i: int) -> None:
            os.pwrite(wal, frame, 8192 * (i % slots))
            os.fdatasync(wal)

        for i in range(count):
            for name in (("append + fsync", "overwrite + fdatasync") if i % 2 else
                         ("overwrite + fdatasync", "append + fsync")):
                start = time.perf_counter()
                append() if name == "append + fsync" else overwrite(i)
                spent[name] += time.perf_counter() - start
        os.close(grow)
        os.close(wal)
        return {name: s / count * 1000 for name, s in spent.items()}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_worker(tree: Path, events: int, rounds: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker", "--events", str(events),
                          "--rounds", str(rounds)], env=env, cwd=tree, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", type=Path, default=None, help="a source tree of another Baton revision")
    parser.add_argument("--raw", type=int, default=0, metavar="N",
                        help="also time N raw appends+fsync against N in-place rewrites+fdatasync, interleaved")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(measure(args.events, args.rounds)))
        return 0
    trees = {"this": HERE.parent}
    if args.baseline:
        trees = {"baseline": args.baseline.resolve(), **trees}
    results: dict[str, list[dict]] = {name: [] for name in trees}
    print("| rev | Baton ms/event | eventsourcing ms/event | ratio | txn ms | fsync ms/txn | CPU ms/txn |")
    print("|---|---|---|---|---|---|---|")
    for _ in range(args.repeat):
        for name, tree in trees.items():
            r = run_worker(tree, args.events, args.rounds)
            assert r["fsyncs_per_txn"] == 1.0, r  # one fsync per batch, never more, never fewer
            results[name].append(r)
            print(f"| {name} | {r['baton_ms_per_event']:.3f} | {r['es_ms_per_event']:.3f} | {r['ratio']:.3f} "
                  f"| {r['txn_ms']:.3f} | {r['fsync_ms_per_txn']:.3f} | {r['cpu_ms_per_txn']:.3f} |", flush=True)
    for name, rows in results.items():
        ratios = [r["ratio"] for r in rows]
        cpu = statistics.median(r["cpu_ms_per_txn"] for r in rows)
        rest = statistics.median(r["txn_ms"] - r["fsync_ms_per_txn"] for r in rows)
        print(f"{name}: ratio median {statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f}; "
              f"target ≤ {TARGET:.3f}); per txn outside fsync {rest:.3f} ms, CPU {cpu:.3f} ms")
    if args.raw:
        floor = raw_floor(args.raw)
        a, o = floor["append + fsync"], floor["overwrite + fdatasync"]
        print(f"raw, {args.raw} each: append 4.5 KB + fsync {a:.3f} ms, overwrite 8 KB + fdatasync {o:.3f} ms "
              f"({a / o:.2f}x); a batch of {BATCH} at no CPU cost would be {a / o / BATCH:.3f} of the overwrite's "
              "time per event")
    return 0


if __name__ == "__main__":
    sys.exit(main())
