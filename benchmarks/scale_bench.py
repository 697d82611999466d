"""Lineage, verify and a copied project at scale, each beside a baseline from the same run (issue 27 items 2-4).

    python benchmarks/scale_bench.py [--sizes 1000,10000,30000] [--repeat 3] [--cache DIR] [--baseline DIR] [--out FILE]

On projects built through the application (``benchmarks/build.py``; the
sizes are events in ``.baton/ledger/*.jsonl``), every command a fresh
process (``python -m baton``, ``PYTHONPATH`` naming this tree), repeated
``--repeat`` times interleaved, medians:

1. **lineage**: ``baton lineage --format json`` and ``baton lineage`` (text)
   beside ``baton handoff list --json`` (target, issue 27: json ≤ 2×). The
   built projects continue every other handoff and never fork, so nothing can
   conflict there; a **branched** copy of each adds, through the ledger, a
   fork off every 10th handoff deciding ``D-001`` otherwise (cloned captures
   appended by a second writer, folded like any synced events), so the
   conflict search runs on real candidates too.
2. **verify**: ``baton verify --json`` beside a process that reads the same
   feeds and ``orjson.loads`` every line (time: linear), and its **peak RSS**
   beside the same command's at the smallest size (target, issue 27: within
   20%, ≤ 1.2×).
3. **copied project**: ``baton handoff list --json`` as the first command in
   a fresh ``shutil.copytree`` of the project (new inodes, the index copied
   with it) beside the same command in the warm original. Before cursors held
   by content this was a full rebuild.

With ``--baseline DIR`` (a source tree of another revision: ``git archive
main | tar -x -C DIR``), every row's command is also run from that tree in the
same repetitions, and a "(base)" row follows each: before/after from one run.

Every run is checked (exit code), so a failure is never timed as a success.
No test asserts on these numbers.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TREE = HERE.parent
sys.path.insert(0, str(TREE))
sys.path.insert(0, str(HERE))

import build as bench_build  # noqa: E402  (benchmarks/build.py)

_load = bench_build.load_sibling




bench_commands = _load("baton_bench_commands", "commands.py")

TARGETS = {"lineage json": 2.0, "verify rss": 1.2}
READ_AND_PARSE = bench_commands.READ_AND_PARSE
FORK_EVERY = 10


launcher_for = bench_commands.launcher_for


def branched(root: Path) -> int:
    """Add a fork off every ``FORK_EVERY``-th handoff deciding ``D-001`` otherwise
    (cloned captures, appended by a second writer); returns how many."""
    from baton.ledger import EventDraft, Ledger
    from baton.ledger.ids import uuid7

    captured = []
    for path in sorted((root / ".baton" / "ledger").glob("*.jsonl")):
        with open(path, "rb") as fh:
            for line in fh:
                if b'"type":"handoff.captured"' in line:
                    event = json.loads(line)
                    if isinstance((event.get("data") or {}).get("handoff"), dict):
                        captured.append(event["data"])
    drafts = []
    for n, data in enumerate(captured[::FORK_EVERY]):
        clone = copy.deepcopy(data)
        record = clone["handoff"]
        parent, record["id"] = record["id"], uuid7()
        record["lineage"] = {"parents": [parent], "relation": "fork", "branch_label": f"try-{n}", "merge_basis": []}
        record["decisions"] = [{**(record.get("decisions") or [{}])[0], "id": "D-001",
                                "decision": f"Token store: the other one, take {n}"}]
        record["status"] = "draft"
        drafts.append(EventDraft("handoff.captured", f"handoff/{record['id']}", clone))
    other = Ledger(root / ".baton", "bench-forks", fsync="never")
    for start in range(0, len(drafts), 500):
        with other.locked() as txn:
            txn.append(drafts[start:start + 500])
    other.close()
    return len(drafts)


EVERY_RECORD = ["--limit", str(10**9)]
"""``handoff list`` lists every record with this (its default is the newest 50),
on this tree and on an older ``--baseline`` alike (which has no ``--limit 0``):
the baseline lineage is measured beside is the whole listing."""
WHOLE_GRAPH = ["--limit", "0"]
"""``lineage`` shows the whole graph with this (its default is the newest 50 handoffs); a
``--baseline`` from before that default has no ``--limit`` and shows the whole graph anyway."""


def run(argv: list[str], env: dict[str, str], what: str) -> dict:
    return bench_commands.checked(bench_commands.spawn(argv, env), what)


def measure(root: Path, repeat: int, sides: dict[str, tuple[list[str], dict[str, str]]]) -> dict[str, list[dict]]:
    """Interleaved repetitions of every command on every side (``now``, and ``before`` with a baseline)."""
    fork = root.parent / (root.name + "-branched")
    _launcher, base_env = sides["now"]
    samples: dict[str, list[dict]] = {}

    def keep(key: str, sample: dict) -> None:
        samples.setdefault(key, []).append(sample)

    for side, (launcher, env) in sides.items():  # warm: each side folds its own index once
        for where in (root, fork):
            copy_ = where.parent / f"{where.name}-{side}"
            if not copy_.exists():
                shutil.copytree(where, copy_, symlinks=True)
            run([*launcher, "handoff", "list", "--json", "--project", str(copy_)], env, f"warm-up ({side})")
    for rep in range(repeat):
        keep("read + orjson.loads", run([sys.executable, "-c", READ_AND_PARSE, str(root)], base_env, "read+parse"))
        for side, (launcher, env) in sides.items():
            mine, forked = root.parent / f"{root.name}-{side}", root.parent / f"{root.name}-branched-{side}"
            at = ["--project", str(mine)]
            whole = WHOLE_GRAPH if side == "now" else []  # an older baseline's lineage has no --limit
            keep(f"{side}: handoff list --json",
                 run([*launcher, "handoff", "list", "--json", *EVERY_RECORD, *at], env, "list"))
            keep(f"{side}: lineage --format json",
                 run([*launcher, "lineage", "--format", "json", *whole, *at], env, "lineage json"))
            keep(f"{side}: lineage (text)", run([*launcher, "lineage", *whole, *at], env, "lineage text"))
            keep(f"{side}: handoff list --json (branched)",
                 run([*launcher, "handoff", "list", "--json", *EVERY_RECORD, "--project", str(forked)], env,
                     "list (branched)"))
            keep(f"{side}: lineage --format json (branched)",
                 run([*launcher, "lineage", "--format", "json", *whole, "--project", str(forked)], env,
                     "lineage (branched)"))
            keep(f"{side}: verify --json", run([*launcher, "verify", "--json", *at], env, "verify"))
            copied = root.parent / f"{root.name}-copied-{side}-{rep}"
            shutil.copytree(mine, copied, symlinks=True)
            keep(f"{side}: handoff list --json (fresh copy)",
                 run([*launcher, "handoff", "list", "--json", *EVERY_RECORD, "--project", str(copied)], env, "list (copy)"))
            shutil.rmtree(copied, ignore_errors=True)
    return samples


def med(samples: dict[str, list[dict]], key: str, field: str = "wall_ms") -> float | None:
    values = [s[field] for s in samples.get(key, ())]
    return None if not values or any(v is None for v in values) else statistics.median(values)


def rows_for(events: int, samples: dict[str, list[dict]], sides: list[str]) -> list[dict]:
    rows: list[dict] = []

    def row(measure: str, command: str, wall: float | None, rss: float | None, baseline: str,
            base: float | None, target: float | None) -> None:
        if wall is None or base is None:
            return
        rows.append({"events": events, "measure": measure, "command": command, "wall_ms": wall, "rss_mb": rss,
                     "baseline": baseline, "baseline_ms": base, "ratio": wall / base, "target": target})

    for side in sides:
        tag = "" if side == "now" else " (base)"
        listed = med(samples, f"{side}: handoff list --json")
        for cmd, target in (("lineage --format json", TARGETS["lineage json"]), ("lineage (text)", None)):
            key = f"{side}: {cmd}"
            row("lineage" + tag, cmd, med(samples, key), med(samples, key, "rss_mb"), "handoff list --json",
                listed, target)
        key = f"{side}: lineage --format json (branched)"
        row("lineage, forks" + tag, "lineage --format json", med(samples, key), med(samples, key, "rss_mb"),
            "handoff list --json", med(samples, f"{side}: handoff list --json (branched)"), TARGETS["lineage json"])
        key = f"{side}: verify --json"
        row("verify" + tag, "verify --json", med(samples, key), med(samples, key, "rss_mb"), "read + orjson.loads",
            med(samples, "read + orjson.loads"), None)
        key = f"{side}: handoff list --json (fresh copy)"
        row("copy, 1st command" + tag, "handoff list --json", med(samples, key), med(samples, key, "rss_mb"),
            "same, warm original", listed, None)
    return rows


def rss_rows(rows: list[dict]) -> list[dict]:
    """verify's peak RSS at each size beside its own at the smallest size (bounded memory: ≤ 1.2×)."""
    out = []
    for measure in ("verify", "verify (base)"):
        found = sorted((r for r in rows if r["measure"] == measure and r["rss_mb"]), key=lambda r: r["events"])
        for r in found[1:]:
            out.append({"events": r["events"], "measure": measure.replace("verify", "verify peak RSS"), "command": "verify --json (MB)",
                        "wall_ms": r["rss_mb"], "rss_mb": r["rss_mb"], "baseline": f"same at {found[0]['events']}",
                        "baseline_ms": found[0]["rss_mb"], "ratio": r["rss_mb"] / found[0]["rss_mb"],
                        "target": TARGETS["verify rss"] if measure == "verify" else None})
    return out


def measure_size(cached: Path, events: int, repeat: int, sides: dict[str, tuple[list[str], dict[str, str]]],
                 scratch: Path) -> tuple[list[dict], dict]:
    """Every row above for one cached project (copied into ``scratch``, removed after)."""
    root = scratch / f"scale-{events}"
    fork = scratch / f"scale-{events}-branched"
    try:
        shutil.copytree(cached, root, symlinks=True)
        shutil.copytree(cached, fork, symlinks=True)
        forks = branched(fork)
        samples = measure(root, repeat, sides)
        return rows_for(events, samples, list(sides)), {"forks_added": forks, "samples": samples}
    finally:
        for path in scratch.glob(f"scale-{events}*"):
            shutil.rmtree(path, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,30000", help="ledger sizes in events (default: 1000,10000,30000)")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved repetitions (default: 3)")
    parser.add_argument("--cache", type=Path,
                        default=Path(os.environ.get("BATON_BENCH_CACHE") or Path.home() / ".cache" / "baton-bench"))
    parser.add_argument("--baseline", type=Path, default=None,
                        help="a source tree of another revision, measured in the same repetitions")
    parser.add_argument("--out", type=Path, default=None, help="also write every sample as JSON")
    args = parser.parse_args(argv)
    sides = {"now": launcher_for(TREE)}
    if args.baseline is not None:
        sides["before"] = launcher_for(args.baseline.resolve())
    machine = bench_commands.machine_note()
    print(f"# machine: {machine['cpu']}, {machine['cpus']} CPUs, load {machine['load_average_at_start']}, "
          f"Python {machine['python']}, baton at {machine['baton_commit']}"
          + (f"; before = {args.baseline}" if args.baseline else ""), flush=True)
    rows: list[dict] = []
    results = []
    scratch = Path(tempfile.mkdtemp(prefix="baton-bench-scale-"))
    started = time.perf_counter()
    try:
        for size in sorted(int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()):
            cached, meta = bench_build.cached_project(args.cache, size)
            t0 = time.perf_counter()
            these, detail = measure_size(cached, meta["events"], args.repeat, sides, scratch)
            rows.extend(these)
            results.append({"size": size, "events": meta["events"], **detail})
            print(f"# {meta['events']} events (+{detail['forks_added']} forks in the branched copy) measured in "
                  f"{time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    rows.extend(rss_rows(rows))
    run_py = _load("baton_bench_run", "run.py")
    print()
    print(run_py.table(rows))
    print(f"\nms = median wall time of {args.repeat} fresh processes, interleaved; RSS = the child's peak; "
          f"ratio = ms / base ms from the same repetitions. total {time.perf_counter() - started:.0f} s")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"machine": machine, "sizes": args.sizes, "repeat": args.repeat,
                                        "baseline": str(args.baseline) if args.baseline else None,
                                        "rows": rows, "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
