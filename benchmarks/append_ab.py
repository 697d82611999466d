"""The durable single-event append under several versions of the code, in rotated blocks.

    python benchmarks/append_ab.py [--events 500] [--block 50] [--floor] NAME=SOURCE_TREE [NAME=SOURCE_TREE ...]

e.g. ``old=/tmp/main-src new=/path/to/this/checkout`` (a source tree: an
exported commit is enough). Every version runs in a worker process of its own
(its ``baton`` first on ``sys.path``); the raw ``os.write`` + ``os.fsync``
loop of the same lines runs in this process. Each block of ``--block`` events
is appended by the raw loop and by every version in turn, the one going
first rotating from block to block, all in one folder of the same file
system, so every contender sees the same disk weather. Each worker appends
as ``benchmarks/ledger.py``'s ``baton_append`` does (``fsync: always``, one
locked transaction per event) on one ledger instance kept for the whole run
(a long-lived writer; opening it is not timed).
Prints, for every version, the median of its per-block ratios to the raw
loop with quartiles and range, its median time per event, and its CPU time
per event (user + system of its worker, which the disk's weather does not
move: what Baton itself costs; the raw loop's is this process's over the
same blocks). ``--floor`` adds a contender that is no version of Baton: the
least Python that makes the same system calls per event as a long-lived
writer (``flock``, a ``stat`` of the lock file and of the ledger folder, an
``lseek`` of the feed, ``write``, ``fsync``, ``flock``) and seals the same
way (two canonical dumps, two sha256, the payload copied back, the line
spliced), with no id, timestamp, event object or bookkeeping: how close
Python can come to the raw loop here. Where the system has ``pwritev2``'s
``RWF_DSYNC`` (Linux >= 4.7), ``--floor`` also adds ``floor-dsync``, the
same with the ``write`` and ``fsync`` made one ``pwritev2(RWF_DSYNC)`` call
(what an experiment of 2026-12-05 made Baton's durable append do; not kept:
docs/performance.md, "The durable append, fourth pass"), and
``raw-dsync``, the raw loop with that one call: what the primitive itself
is worth beside Python's share (neither uses Baton's code). Every ratio is
still to ``raw`` (``write`` + ``fsync``). No test asserts on these numbers.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import ledger as bench_ledger  # noqa: E402  (benchmarks/ledger.py, with this checkout's baton)

WORKER = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import baton.ledger  # this version's, before benchmarks/ledger.py puts its own checkout first
sys.path.insert(0, sys.argv[2])
import ledger as bench_ledger
assert bench_ledger.Ledger.__module__ == "baton.ledger.store" and baton.__file__.startswith(sys.argv[1])
from pathlib import Path
events, folder, policy = int(sys.argv[3]), Path(sys.argv[4]), sys.argv[5]
batch = bench_ledger.drafts(events)
ledger = bench_ledger.Ledger(folder, "bench", fsync=policy)
with ledger.locked():
    pass
print("ready", flush=True)
for request in sys.stdin:
    lo, hi = map(int, request.split())
    cpu, wall = time.process_time(), time.perf_counter()
    for draft in batch[lo:hi]:
        with ledger.locked() as txn:
            txn.append([draft])
    print(time.perf_counter() - wall, time.process_time() - cpu, flush=True)
"""


FLOOR = r"""
import fcntl, os, sys, threading, time
from hashlib import sha256
sys.path.insert(0, sys.argv[1])
import orjson
import ledger as bench_ledger
events, baton_dir, dsync = int(sys.argv[2]), sys.argv[3], sys.argv[4] == "dsync"
batch = bench_ledger.drafts(events)
os.makedirs(baton_dir + "/ledger", exist_ok=True)
lock_path, folder = baton_dir + "/ledger.lock", baton_dir + "/ledger"
lock_fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
feed_fd = os.open(folder + "/bench.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
guard, dumps, loads, SORTED = threading.RLock(), orjson.dumps, orjson.loads, orjson.OPT_SORT_KEYS
state = [0, None]  # seq, prev


def append(draft):
    with guard:
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
        os.stat(lock_path)
        os.stat(folder)
        os.lseek(feed_fd, 0, os.SEEK_END)
        now = time.time_ns()
        payload = dumps(draft.data, option=SORTED)
        digest = "sha256:" + sha256(payload).hexdigest()
        loads(payload)
        seq = state[0] + 1
        chained = dumps({"v": 1, "id": "0193a000-0000-7000-8000-000000000000", "writer": "bench", "seq": seq,
                         "at": "2026-12-05T00:00:00.000000Z", "hlc": now // 1000, "type": draft.type,
                         "stream": draft.stream, "stream_version": 1, "actor": draft.actor,
                         "session": draft.session, "schema": draft.schema, "digest": digest, "prev": state[1]},
                        option=SORTED)
        hash_ = "sha256:" + sha256(chained).hexdigest()
        line = chained[:-1] + b',"data":' + payload + b',"hash":"' + hash_.encode() + b'"}\n'
        state[:] = seq, hash_
        if dsync:
            os.pwritev(feed_fd, (line,), -1, os.RWF_DSYNC)
        else:
            os.write(feed_fd, line)
            os.fsync(feed_fd)
        fcntl.flock(lock_fd, fcntl.LOCK_UN)


print("ready", flush=True)
for request in sys.stdin:
    lo, hi = map(int, request.split())
    cpu, wall = time.process_time(), time.perf_counter()
    for draft in batch[lo:hi]:
        append(draft)
    print(time.perf_counter() - wall, time.process_time() - cpu, flush=True)
"""


DSYNC = hasattr(os, "RWF_DSYNC") and hasattr(os, "pwritev")
"""Whether this system has ``pwritev2``'s ``RWF_DSYNC`` (Linux >= 4.7)."""


def raw_pwritev_dsync(lines: list[bytes], target: Path) -> float:
    """``raw_write_fsync`` with the write and its sync in one call: ``pwritev2(RWF_DSYNC)``."""
    fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        def run() -> None:
            for line in lines:
                os.pwritev(fd, (line,), -1, os.RWF_DSYNC)

        return bench_ledger.timed(run)
    finally:
        os.close(fd)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=500, help="events appended by each contender (default: 500)")
    parser.add_argument("--block", type=int, default=bench_ledger.BLOCK,
                        help=f"events per rotated block (default: {bench_ledger.BLOCK})")
    parser.add_argument("--dir", type=Path, default=None, help="where to write (default: a temporary folder)")
    parser.add_argument("--fsync", choices=("always", "never"), default="always",
                        help="the versions' fsync policy (default: always); never shows what the append costs "
                             "beside the sync (the raw loop still syncs)")
    parser.add_argument("--floor", action="store_true",
                        help="add the least Python making the same system calls and hashes (not Baton; see above)")
    parser.add_argument("versions", nargs="+", metavar="NAME=SOURCE_TREE")
    args = parser.parse_args(argv)
    versions = dict(v.split("=", 1) for v in args.versions)
    work = Path(tempfile.mkdtemp(prefix="baton-append-ab-", dir=args.dir))
    workers: dict[str, subprocess.Popen] = {}
    try:
        print(f"# machine: {bench_ledger.machine_note(work)}")
        print(f"# command: {' '.join([Path(sys.executable).name, *sys.argv])}", flush=True)
        lines_dir = work / "lines" / ".baton"
        bench_ledger.baton_append(lines_dir, bench_ledger.drafts(args.events), "never")
        lines = (lines_dir / "ledger" / "bench.jsonl").read_bytes().splitlines(keepends=True)
        for name, tree in versions.items():
            worker = subprocess.Popen(
                [sys.executable, "-c", WORKER, str(Path(tree).resolve()), str(HERE), str(args.events),
                 str(work / name / ".baton"), args.fsync],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": ""})
            workers[name] = worker
            assert worker.stdout is not None and worker.stdout.readline().strip() == "ready"
        floors = ({"floor": "fsync", "floor-dsync": "dsync"} if DSYNC else {"floor": "fsync"}) if args.floor else {}
        if floors and args.fsync != "always":
            parser.error("--floor syncs every event: use it with --fsync always")
        for name, mode in floors.items():
            versions[name] = ""
            worker = subprocess.Popen(
                [sys.executable, "-c", FLOOR, str(HERE), str(args.events), str(work / name / ".baton"), mode],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": ""})
            workers[name] = worker
            assert worker.stdout is not None and worker.stdout.readline().strip() == "ready"

        cpu: dict[str, list[float]] = {name: [] for name in versions}

        def remote(name: str):
            def run(lo: int, hi: int) -> float:
                worker = workers[name]
                assert worker.stdin is not None and worker.stdout is not None
                worker.stdin.write(f"{lo} {hi}\n")
                worker.stdin.flush()
                wall, used = map(float, worker.stdout.readline().split())
                cpu[name].append(used)
                return wall
            return run

        cpu["raw"] = []

        def raw(lo: int, hi: int) -> float:
            used = time.process_time()
            wall = bench_ledger.raw_write_fsync(lines[lo:hi], work / "raw.jsonl")
            cpu["raw"].append(time.process_time() - used)
            return wall

        def raw_dsync(lo: int, hi: int) -> float:
            used = time.process_time()
            wall = raw_pwritev_dsync(lines[lo:hi], work / "raw-dsync.jsonl")
            cpu["raw-dsync"].append(time.process_time() - used)
            return wall

        contenders = {"raw": raw}
        if floors and DSYNC:
            cpu["raw-dsync"] = []
            contenders["raw-dsync"] = raw_dsync
        contenders.update({name: remote(name) for name in versions})
        os.sync()
        times = bench_ledger.rotated_blocks(contenders, args.events, args.block)
        sizes = [min(args.events, lo + args.block) - lo for lo in range(0, args.events, args.block)]
        print(f"\n{args.events} events of {statistics.mean(len(x) for x in lines):.0f} bytes per line, "
              f"rotated blocks of {args.block}\n")
        print(f"| {'contender':<11} | {'ms/event (median block)':>23} | {'CPU ms/event':>12} | per-block ratio to raw")
        print(f"|{'-' * 13}|{'-' * 25}|{'-' * 14}|{'-' * 60}")
        for name in contenders:
            per_event = statistics.median(t / n for t, n in zip(times[name], sizes)) * 1000
            used = statistics.median(t / n for t, n in zip(cpu[name], sizes)) * 1000
            ratio = ("" if name == "raw" else
                     bench_ledger.spread_text(bench_ledger.spread(bench_ledger.block_ratios(times, name, "raw"))))
            print(f"| {name:<11} | {per_event:>23.3f} | {used:>12.3f} | {ratio}")
        return 0
    finally:
        for worker in workers.values():
            if worker.stdin is not None:
                worker.stdin.close()
            worker.wait(timeout=60)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
