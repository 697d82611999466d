"""Ledger benchmark: append and replay throughput against three baselines.

    /work/venv/bin/python benchmarks/ledger.py [--events N] [--fsync-events M] [--dir DIR]

Measured in one run, on the same disk, with the same ~1 KB events:

- Baton append, ``fsync: never`` and ``fsync: always`` — one locked
  transaction per event (``Ledger.locked()`` + ``txn.append([draft])``), the
  path every command takes;
- Baton replay — ``ProjectionRunner.rebuild()`` with the default projections
  into a fresh ``index.sqlite`` (every line's hash, digest and chain link is
  checked while it is folded), and ``verify_ledger`` alone;
- (a) a raw loop of ``os.write`` + ``os.fsync`` of the very same lines;
- (b) reading the same feed and ``orjson.loads`` of every line;
- (c) the ``eventsourcing`` library's SQLite application (``PERSISTENCE_MODULE=
  eventsourcing.sqlite``, a temporary file): one ``save`` per event for
  append, ``repository.get`` of every aggregate for replay.

fsync-bound runs use ``--fsync-events`` (default ``min(N, 5000)``) because a
virtual disk's fsync latency, not Baton, sets their pace; the table says which
count each row used. They run in **rotated blocks** (``--block``, default 50
events): each block of events is appended by every fsync-bound contender in
turn, the one going first rotating from block to block, so all see the same
disk weather (a virtual disk's fsync latency drifts by 10x in minutes) and
none always follows another. The durable-append target is the **median of the
per-block ratios** Baton / (a), printed with its quartiles and range. No
number here is asserted by any test.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baton.ledger import EventDraft, Ledger  # noqa: E402
from baton.ledger.verify import verify_ledger  # noqa: E402
from baton.projections.registry import default_projections  # noqa: E402
from baton.projections.runner import ProjectionRunner  # noqa: E402

WORDS = ("handoff baton ledger session resume verify chain branch owner claim evidence risk "
         "decision artifact freshness objective projection replay writer stream").split()
STREAMS = 50
BLOCK = 50


def drafts(count: int, seed: int = 7) -> list[EventDraft]:
    """About 1 KB per line once sealed: ~560 bytes of payload plus the envelope."""
    rnd = random.Random(seed)
    out = []
    for i in range(count):
        body = " ".join(rnd.choice(WORDS) for _ in range(70))[:520]
        out.append(EventDraft("bench.noted", f"bench/{i % STREAMS}",
                              {"i": i, "title": f"note {i}", "body": body, "tags": ["bench", WORDS[i % len(WORDS)]]}))
    return out


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


# -- Baton ---------------------------------------------------------------------

def baton_append(baton_dir: Path, batch: list[EventDraft], fsync: str) -> float:
    ledger = Ledger(baton_dir, "bench", fsync=fsync)
    with ledger.locked():
        pass  # opening and reading what is already there is not appending

    def run() -> None:
        for draft in batch:
            with ledger.locked() as txn:
                txn.append([draft])

    return timed(run)


def baton_replay(baton_dir: Path) -> float:
    for leftover in baton_dir.glob("index.sqlite*"):
        leftover.unlink()
    runner = ProjectionRunner(baton_dir, Ledger(baton_dir, "reader"), default_projections())
    try:
        return timed(runner.rebuild)
    finally:
        runner.close()


def baton_verify(baton_dir: Path) -> float:
    def run() -> None:
        assert verify_ledger(baton_dir / "ledger").ok

    return timed(run)


# -- baselines -------------------------------------------------------------------

def raw_write_fsync(lines: list[bytes], target: Path) -> float:
    fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        def run() -> None:
            for line in lines:
                os.write(fd, line)
                os.fsync(fd)

        return timed(run)
    finally:
        os.close(fd)


def raw_read_loads(feed: Path) -> float:
    def run() -> None:
        with open(feed, "rb") as fh:
            for line in fh:
                orjson.loads(line)

    return timed(run)


_STREAM_CLASS = None


def eventsourcing_app(db_path: Path):
    """An eventsourcing SQLite application and its aggregate class (defined once:
    the library registers every aggregate class by its topic)."""
    global _STREAM_CLASS
    from eventsourcing.application import Application
    from eventsourcing.domain import Aggregate, event

    if _STREAM_CLASS is None:
        class Stream(Aggregate):
            @event("Opened")
            def __init__(self, name: str) -> None:
                self.name = name
                self.count = 0

            @event("Noted")
            def note(self, payload: dict) -> None:
                self.count += 1
                self.last = payload

        _STREAM_CLASS = Stream
    app = Application(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(db_path),
                           "IS_SNAPSHOTTING_ENABLED": "n"})
    return app, _STREAM_CLASS


class EventsourcingAppender:
    """One eventsourcing SQLite application, appended to in rounds."""

    def __init__(self, db_path: Path) -> None:
        self.app, Stream = eventsourcing_app(db_path)
        self.streams = [Stream(f"bench/{k}") for k in range(STREAMS)]
        self.app.save(*self.streams)
        self.done = 0

    def append(self, batch: list[EventDraft]) -> float:
        def run() -> None:
            for draft in batch:
                stream = self.streams[self.done % STREAMS]
                stream.note(draft.data)
                self.app.save(stream)
                self.done += 1

        return timed(run)


def eventsourcing_replay(db_path: Path, batch: list[EventDraft]) -> float:
    """Load ``batch`` in large transactions (loading is not what is timed), then
    replay every aggregate from its events."""
    app, Stream = eventsourcing_app(db_path)
    streams = [Stream(f"bench/{k}") for k in range(STREAMS)]
    app.save(*streams)
    for start in range(0, len(batch), 5_000):
        for i in range(start, min(len(batch), start + 5_000)):
            streams[i % STREAMS].note(batch[i].data)
        app.save(*streams)
    ids = [s.id for s in streams]
    del streams

    def run() -> None:
        total = 0
        for agg_id in ids:
            total += app.repository.get(agg_id).count
        assert total == len(batch)

    return timed(run)


# -- rotated blocks ----------------------------------------------------------------

def rotated_blocks(contenders: dict[str, Callable[[int, int], float]], count: int,
                   block: int = BLOCK) -> dict[str, list[float]]:
    """Seconds each contender took for each block of ``block`` events.

    ``contenders[name](lo, hi)`` appends events ``lo`` to ``hi`` and returns
    the seconds it took. Every block is run by every contender in turn (so
    the same bytes, the same file system, the same minute), and the one that
    goes first rotates from block to block (AB, BA, AB... for two)."""
    names = list(contenders)
    times: dict[str, list[float]] = {name: [] for name in names}
    for index, lo in enumerate(range(0, count, block)):
        hi = min(count, lo + block)
        turn = index % len(names)
        for name in names[turn:] + names[:turn]:
            times[name].append(contenders[name](lo, hi))
    return times


def block_ratios(times: dict[str, list[float]], name: str, baseline: str) -> list[float]:
    return [a / b for a, b in zip(times[name], times[baseline])]


def spread(ratios: list[float]) -> dict[str, float]:
    """The median of per-block ratios, with quartiles and range (what varies between blocks)."""
    ordered = sorted(ratios)
    if len(ordered) >= 4:
        q1, _, q3 = statistics.quantiles(ordered, n=4)
    else:
        q1, q3 = ordered[0], ordered[-1]
    return {"median": statistics.median(ordered), "q1": q1, "q3": q3, "min": ordered[0], "max": ordered[-1],
            "blocks": len(ordered)}


def spread_text(s: dict[str, float]) -> str:
    return (f"median {s['median']:.2f}, quartiles {s['q1']:.2f}-{s['q3']:.2f}, "
            f"range {s['min']:.2f}-{s['max']:.2f} over {s['blocks']:.0f} blocks")


# -- report --------------------------------------------------------------------

def machine_note(work: Path) -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    fs = "unknown"
    try:
        best = ""
        for line in Path("/proc/mounts").read_text().splitlines():
            dev, mnt, kind = line.split()[:3]
            if str(work.resolve()).startswith(mnt) and len(mnt) >= len(best):
                best, fs = mnt, f"{kind} on {dev} (mounted at {mnt})"
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    from importlib.metadata import version

    return (f"{cpu}, {os.cpu_count()} CPUs, load average {load:.1f} at start; {fs}; "
            f"Python {platform.python_version()}, orjson {orjson.__version__}, "
            f"SQLite {__import__('sqlite3').sqlite_version}, eventsourcing {version('eventsourcing')}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=100_000, help="events for the fsync=never and replay runs")
    parser.add_argument("--fsync-events", type=int, default=None,
                        help="events for the fsync-bound runs (default: min(events, 5000))")
    parser.add_argument("--block", type=int, default=BLOCK,
                        help=f"events per rotated block of the fsync-bound runs (default: {BLOCK})")
    parser.add_argument("--dir", type=Path, default=None, help="where to write (default: a temporary folder)")
    args = parser.parse_args(argv)
    n = args.events
    m = args.fsync_events if args.fsync_events is not None else min(n, 5_000)
    work = Path(tempfile.mkdtemp(prefix="baton-bench-", dir=args.dir))
    try:
        print(f"# machine: {machine_note(work)}")
        print(f"# command: {' '.join([Path(sys.executable).name, *sys.argv])}", flush=True)
        batch = drafts(n)
        rows: dict[str, tuple[int, float]] = {}

        never = work / "never" / ".baton"
        rows["append_never"] = (n, baton_append(never, batch, "never"))
        feed = never / "ledger" / "bench.jsonl"
        lines = feed.read_bytes().splitlines(keepends=True)
        line_size = statistics.mean(len(line) for line in lines)

        # The fsync-bound runs take turns in rotated blocks, so all three see
        # the same disk weather and none always runs right after another.
        appender = EventsourcingAppender(work / "es-append.sqlite")
        os.sync()  # what the runs above left dirty is not flushed inside the timed fsyncs
        durable = rotated_blocks({
            "append_always": lambda lo, hi: baton_append(work / "always" / ".baton", batch[lo:hi], "always"),
            "raw_fsync": lambda lo, hi: raw_write_fsync(lines[lo:hi], work / "raw.jsonl"),
            "es_append": lambda lo, hi: appender.append(batch[lo:hi]),
        }, m, args.block)
        for key, times in durable.items():
            rows[key] = (m, sum(times))
        per_block = spread(block_ratios(durable, "append_always", "raw_fsync"))

        rows["replay"] = (n, min(baton_replay(never) for _ in range(2)))
        rows["verify"] = (n, min(baton_verify(never) for _ in range(2)))
        rows["raw_loads"] = (n, min(raw_read_loads(feed) for _ in range(3)))
        rows["es_replay"] = (n, eventsourcing_replay(work / "es-replay.sqlite", batch))

        rate = {k: c / t for k, (c, t) in rows.items()}
        labels = {
            "append_never": "Baton append, fsync never (1 txn/event)",
            "append_always": "Baton append, fsync always (1 txn/event)",
            "replay": "Baton replay: rebuild default projections",
            "verify": "Baton verify_ledger (all chains)",
            "raw_fsync": "(a) raw os.write + os.fsync per line",
            "raw_loads": "(b) read + orjson.loads per line",
            "es_append": "(c) eventsourcing SQLite: save per event",
            "es_replay": "(c) eventsourcing SQLite: replay aggregates",
        }
        print(f"\nevents of {line_size:.0f} bytes per line on average\n")
        print(f"| {'run':<44} | {'events':>7} | {'seconds':>8} | {'events/s':>9} |")
        print(f"|{'-' * 46}|{'-' * 9}|{'-' * 10}|{'-' * 11}|")
        for key, label in labels.items():
            count, seconds = rows[key]
            print(f"| {label:<44} | {count:>7} | {seconds:>8.2f} | {rate[key]:>9,.0f} |")

        # (name, ratio, needed, True when the ratio must be at most ``needed``)
        targets = [
            ("durable append ≤ 1.25 × (a) time, per block", per_block["median"], 1.25, True),
            ("replay ≥ 1/3 × (b)", rate["replay"] / rate["raw_loads"], 1 / 3, False),
            ("durable append ≥ 3 × (c) append", rate["append_always"] / rate["es_append"], 3.0, False),
            ("replay ≥ 3 × (c) replay", rate["replay"] / rate["es_replay"], 3.0, False),
        ]
        print(f"\n| {'target':<44} | {'ratio':>7} | {'needed':>6} | {'holds':<5} |")
        print(f"|{'-' * 46}|{'-' * 9}|{'-' * 8}|{'-' * 7}|")
        for name, ratio, needed, at_most in targets:
            holds = ratio <= needed if at_most else ratio >= needed
            print(f"| {name:<44} | {ratio:>7.2f} | {needed:>6.2f} | {'yes' if holds else 'NO':<5} |")
        print(f"\nBaton durable append / (a), per block of {args.block}: {spread_text(per_block)}.")
        print(f"fsync-bound rows ((a), append fsync always, (c) append) used {m} events in rotated blocks of "
              f"{args.block}; the others {n}.")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
