"""``baton sync`` at scale: writers × events into a fresh clone, then a sync with nothing new.

    .venv/bin/python benchmarks/sync_bench.py [--writers 10] [--events 10000] [--sizes 1000,10000] [--runs 5]

What it measures (docs/sync.md quotes a run):

1. A seed clone holds ``--writers`` feeds of ``--events`` events each (~1 KB
   lines, written straight through ``Ledger`` with ``fsync: never``: the
   feeds, not how they were produced, are what sync moves). ``baton sync``
   publishes them to a bare remote (local disk, dulwich's local transport).
2. A fresh ``git clone`` of the remote runs ``baton sync``: the time, and
   what it read — every segment blob once, and each local feed file read
   exactly once afterwards (by the projections' replay), counted at
   ``baton.ledger.files.read_range``.
3. The same clone syncs again with nothing new: the time, and that it opened
   no feed and read no segment.
4. Peak memory of a child process running only the sync of step 2 (its
   peak RSS reset just before, Linux ``/proc/self/clear_refs``) for each of
   ``--sizes`` events per writer: it should not grow with the feeds.
5. Incremental: the seed clone appends one event and publishes it; the
   clone's ``baton sync`` that imports it is timed, against real ``git
   fetch`` of one such small commit of the same ref into the same clone,
   the two interleaved ``--runs`` times (default 5): the medians, their
   ratio, and the lowest, median and highest ratio of a sync to the fetch
   right after it.

No number here is asserted by any test.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dulwich import porcelain  # noqa: E402
from dulwich.repo import Repo  # noqa: E402

from baton.app import Baton  # noqa: E402
from baton.ledger import files  # noqa: E402
from baton.ledger.store import Ledger  # noqa: E402
from benchmarks.ledger import drafts  # noqa: E402

BATCH = 1000


def seed(root: Path, writers: int, events: int) -> tuple[Path, Path]:
    """A bare remote holding ``writers`` feeds of ``events`` events on refs/baton/ledger."""
    remote = root / "remote.git"
    Repo.init_bare(str(remote), mkdir=True).close()
    origin = root / "seed"
    origin.mkdir()
    porcelain.init(str(origin)).close()
    Baton.init(origin)
    porcelain.add(str(origin), [str(origin / ".baton" / "config.json"), str(origin / ".baton" / ".gitignore")])
    porcelain.commit(str(origin), b"baton init", author=b"b <b@x>", committer=b"b <b@x>")
    with Repo(str(origin)) as repo:
        config = repo.get_config()
        config.set((b"remote", b"origin"), b"url", str(remote).encode())
        config.write_to_path()
    porcelain.push(str(origin), "origin", b"refs/heads/master", errstream=io.BytesIO())
    all_drafts = drafts(events)
    for w in range(writers):
        ledger = Ledger(origin / ".baton", f"bench-writer-{w:02d}", fsync="never")
        for i in range(0, events, BATCH):
            with ledger.locked() as txn:
                txn.append([_own(d, w) for d in all_drafts[i:i + BATCH]])
        ledger.close()
    started = time.perf_counter()
    with Baton.open(origin) as app:
        result = app.sync()
    print(f"publish {writers}x{events} from the seed clone: {time.perf_counter() - started:.2f} s "
          f"({sum(result.published.values())} events)", flush=True)
    return remote, origin


def _own(draft, writer: int):
    from baton.values import replace

    return replace(draft, stream=f"bench/w{writer}/{draft.stream.rsplit('/', 1)[-1]}")


def fresh_clone(remote: Path, target: Path) -> Path:
    porcelain.clone(str(remote), str(target), errstream=io.BytesIO()).close()
    return target


def measure_clone(remote: Path, root: Path) -> dict:
    clone = fresh_clone(remote, root / "clone")
    reads: Counter[str] = Counter()
    calls: Counter[str] = Counter()
    original = files.read_range

    def counted(path: str, start: int, size: int | None = None) -> bytes:
        data = original(path, start, size)
        reads[Path(path).name] += len(data)
        calls[Path(path).name] += 1
        return data

    files.read_range = counted
    try:
        started = time.perf_counter()
        with Baton.open(clone) as app:
            first = app.sync()
        first_s = time.perf_counter() - started
        feed_sizes = {p.name: p.stat().st_size for p in (clone / ".baton" / "ledger").glob("*.jsonl")}
        once = all(reads[name] == size for name, size in feed_sizes.items() if name.startswith("bench-"))
        reads.clear()
        started = time.perf_counter()
        with Baton.open(clone) as app:
            second = app.sync()
        second_s = time.perf_counter() - started
        second_reads = sum(reads[name] for name in feed_sizes)
    finally:
        files.read_range = original
    return {
        "first_sync_s": round(first_s, 2),
        "imported_events": sum(first.imported.values()),
        "segments_read": first.read.segments,
        "feeds": len(feed_sizes),
        "feed_bytes": sum(feed_sizes.values()),
        "projections_rebuilt": first.rebuilt,
        "each_feed_file_read_once_by_replay": once,
        "second_sync_s": round(second_s, 3),
        "second_sync_feeds_opened": len(second.read.feeds),
        "second_sync_segments_read": second.read.segments,
        "second_sync_feed_bytes_read_anywhere": second_reads,
        "second_sync_pushed": second.pushed,
    }


def _one_more(origin: Path, n: int) -> None:
    ledger = Ledger(origin / ".baton", "bench-writer-00", fsync="never")
    with ledger.locked() as txn:
        txn.append([_own(drafts(1)[0], 0)])
    ledger.close()
    with Baton.open(origin) as app:
        app.sync()


def measure_incremental(origin: Path, clone: Path, runs: int = 5) -> dict:
    """One new event: ``baton sync`` importing it, and ``git fetch`` of one
    small commit of the ref, interleaved ``runs`` times (a sync, then a fetch:
    both see the same load); each fetched event is then taken by a sync that
    is not measured, so every measured sync imports exactly one."""
    syncs, fetches = [], []
    for n in range(runs):
        _one_more(origin, n)
        started = time.perf_counter()
        with Baton.open(clone) as app:
            imported = sum(app.sync().imported.values())
        syncs.append(time.perf_counter() - started)
        assert imported == 1, imported
        _one_more(origin, 10 + n)
        started = time.perf_counter()
        subprocess.run(["git", "-C", str(clone), "fetch", "-q", "origin",
                        "+refs/baton/ledger:refs/bench/fetched"], check=True)
        fetches.append(time.perf_counter() - started)
        with Baton.open(clone) as app:
            app.sync()
    ratios = sorted(s / f for s, f in zip(syncs, fetches))
    return {"incremental_sync_s": round(statistics.median(syncs), 4),
            "git_fetch_one_commit_s": round(statistics.median(fetches), 4),
            "ratio": round(statistics.median(syncs) / statistics.median(fetches), 2),
            "ratio_per_run_min_median_max": [round(ratios[0], 2), round(statistics.median(ratios), 2),
                                             round(ratios[-1], 2)],
            "runs": runs}


def child_peak(writers: int, events: int) -> dict:
    """Step 2 alone in a child process (the seeding happens in this one): its
    time and peak RSS, against the same child's RSS before it synced."""
    with tempfile.TemporaryDirectory(prefix="baton-sync-bench-") as tmp:
        root = Path(tmp)
        remote, _ = seed(root, writers, events)
        clone = fresh_clone(remote, root / "clone")
        out = subprocess.run([sys.executable, __file__, "--child", str(clone)],
                             capture_output=True, text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return {"writers": writers, "events": events, **result}


def child(clone: Path) -> None:
    """Only the sync runs in this process (the clone was made by the parent)."""
    import importlib

    for name in ("sqlite_utils", "dulwich.client", "dulwich.pack", "baton.commands.sync",
                 "baton.projections.registry", "baton.projections.runner"):
        importlib.import_module(name)  # loaded before measuring: the sync would load them anyway

    _reset_peak()
    before = _status_kib("VmRSS")
    started = time.perf_counter()
    with Baton.open(clone) as app:
        result = app.sync()
    elapsed = time.perf_counter() - started
    peak = _status_kib("VmHWM")
    print(json.dumps({"sync_s": round(elapsed, 2), "imported_events": sum(result.imported.values()),
                      "rss_mib_before_sync": round(before / 1024, 1),
                      "peak_rss_mib_during_sync": round(peak / 1024, 1)}))


def _reset_peak() -> None:
    """Linux: writing 5 to clear_refs resets the peak RSS (VmHWM) to the current RSS."""
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--writers", type=int, default=10)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--sizes", default="1000,10000", help="events per writer for the memory runs")
    parser.add_argument("--runs", type=int, default=5, help="interleaved incremental syncs and fetches")
    parser.add_argument("--child", metavar="CLONE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(Path(args.child))
        return
    with tempfile.TemporaryDirectory(prefix="baton-sync-bench-") as tmp:
        root = Path(tmp)
        remote, origin = seed(root, args.writers, args.events)
        result = measure_clone(remote, root)
        result.update(measure_incremental(origin, root / "clone", args.runs))
    print(json.dumps(result, indent=2), flush=True)
    for size in [int(s) for s in args.sizes.split(",") if s]:
        print(json.dumps(child_peak(args.writers, size)), flush=True)


if __name__ == "__main__":
    os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")
    main()
