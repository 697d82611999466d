"""One real capture from another writer, arriving late or in order: the next hook-path command beside the same
command with nothing new (issue 27 item 1).

    python benchmarks/late_bench.py [--sizes 1000,10000] [--repeat 5] [--cache DIR] [--baseline DIR] [--out FILE]

On projects built through the application (``benchmarks/build.py``; sizes are
events in ``.baton/ledger/*.jsonl``), every command a fresh process
(``python -m baton``, ``PYTHONPATH`` naming this tree), per repetition and
per command (``bootstrap --json``, the Claude Code SessionStart hook):

- **nothing new**: the command, right after the previous one;
- **late capture**: one ``handoff.captured`` written through the application
  by another checkout (a copy of the project taken before the measurement,
  writer ``late-writer``), its feed's next line delivered as ``baton sync``
  or a pull would — it sorts before what the index has folded (checked);
- **in-order capture**: one ``handoff.captured`` written through the
  application by a third checkout (writer ``in-order-writer``) at that
  moment, so after everything folded, delivered the same way.

Ratios are medians of the per-repetition ``capture run / nothing-new run``
pairs (target, issue 27: ≤ 1.5×). With ``--baseline DIR`` (a source tree of
another revision: ``git archive main | tar -x -C DIR``) the same is measured
on a separate copy with that tree, in the same repetitions: before/after
from one run. Every run is checked (exit code), so a failure is never timed
as a success. No test asserts on these numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TREE = HERE.parent
sys.path.insert(0, str(TREE))
sys.path.insert(0, str(HERE))

import build as bench_build  # noqa: E402  (benchmarks/build.py)

_load = bench_build.load_sibling




bench_commands = _load("baton_bench_commands", "commands.py")

TARGET = 1.5
COMMANDS = {
    "bootstrap --json": ["bootstrap", "--json"],
    "hook claude-code SessionStart": ["hook", "claude-code", "SessionStart"],
}
LATE_WRITER = "late-writer"
IN_ORDER_WRITER = "in-order-writer"
RUNS = iter(range(10**9))


launcher_for = bench_commands.launcher_for


def run(side: tuple[list[str], dict[str, str]], name: str, root: Path) -> dict:
    launcher, env = side
    stdin = None
    if name.startswith("hook "):
        stdin = json.dumps({"session_id": f"late-bench-{next(RUNS)}", "transcript_path": "/dev/null",
                            "cwd": str(root), "hook_event_name": "SessionStart", "source": "startup"}).encode()
    sample = bench_commands.spawn([*launcher, *COMMANDS[name], "--project", str(root)], env, stdin=stdin)
    return bench_commands.checked(sample, f"baton {name}")


def writer_app(root: Path, writer: str):
    """The application object of ``root`` appending as ``writer`` (its own feed)."""
    from baton.app import Baton
    from baton.commands.context import Project

    opened = Project.open(root)
    project = Project(opened.paths, opened.config, writer)
    opened.close()
    return Baton(project)


class Checkout:
    """Another checkout of a project (a copy of it now), writing as ``writer``
    through the application; ``capture()`` returns the lines its feed gained."""

    def __init__(self, root: Path, writer: str) -> None:
        self.root = root.parent / f"{root.name}-{writer}"
        shutil.copytree(root, self.root, symlinks=True)
        self.app = writer_app(self.root, writer)
        self.mix = bench_build.Rounds(self.app)
        self.feed = self.root / ".baton" / "ledger" / f"{writer}.jsonl"
        self.at = 0
        self.n = 0

    def capture(self) -> bytes:
        self.n += 1
        self.mix.capture(10**6 + self.n)
        raw = self.feed.read_bytes()
        gained, self.at = raw[self.at:], len(raw)
        return gained

    def close(self) -> None:
        self.app.project.close()
        shutil.rmtree(self.root, ignore_errors=True)


def deliver(root: Path, writer: str, lines: bytes) -> None:
    with open(root / ".baton" / "ledger" / f"{writer}.jsonl", "ab") as fh:
        fh.write(lines)


def folded_last_hlc(root: Path) -> int:
    with sqlite3.connect(root / ".baton" / "index.sqlite") as db:
        return json.loads(db.execute("SELECT value FROM meta WHERE key = 'last_key'").fetchone()[0])[0]


def measure(copies: dict[str, Path], sides: dict[str, tuple[list[str], dict[str, str]]],
            repeat: int) -> dict[str, list[float]]:
    """Per side: the remote captures are written first (before anything the
    measurement appends), so every one of them arrives late."""
    for side, root in copies.items():  # each side folds its own index once, before the copies are taken
        run(sides[side], "hook claude-code SessionStart", root)
    late = {side: Checkout(root, LATE_WRITER) for side, root in copies.items()}
    in_order = {side: Checkout(root, IN_ORDER_WRITER) for side, root in copies.items()}
    pending = {side: [late[side].capture() for _ in range(repeat * len(COMMANDS))] for side in copies}
    samples: dict[str, list[float]] = {}

    def keep(key: str, value: float) -> None:
        samples.setdefault(key, []).append(value)

    try:
        for side, root in copies.items():  # appends after the captures: every one of them arrives late
            run(sides[side], "hook claude-code SessionStart", root)
        for rep in range(repeat):
            for side, root in copies.items():
                for name in COMMANDS:
                    steady = run(sides[side], name, root)
                    line = pending[side].pop(0)
                    if json.loads(line.splitlines()[-1])["hlc"] >= folded_last_hlc(root):
                        raise SystemExit("the remote capture does not sort before what the index folded")
                    deliver(root, LATE_WRITER, line)
                    after_late = run(sides[side], name, root)
                    again = run(sides[side], name, root)
                    deliver(root, IN_ORDER_WRITER, in_order[side].capture())
                    after_in_order = run(sides[side], name, root)
                    keep(f"{side}|{name}|nothing new", steady["wall_ms"])
                    keep(f"{side}|{name}|late capture", after_late["wall_ms"])
                    keep(f"{side}|{name}|late ratio", after_late["wall_ms"] / steady["wall_ms"])
                    keep(f"{side}|{name}|in-order capture", after_in_order["wall_ms"])
                    keep(f"{side}|{name}|in-order ratio", after_in_order["wall_ms"] / again["wall_ms"])
    finally:
        for checkout in [*late.values(), *in_order.values()]:
            checkout.close()
    return samples


def rows_for(events: int, samples: dict[str, list[float]], sides: list[str]) -> list[dict]:
    rows = []
    for side in sides:
        for name in COMMANDS:
            base = statistics.median(samples[f"{side}|{name}|nothing new"])
            for kind in ("late capture", "in-order capture"):
                ratio = statistics.median(samples[f"{side}|{name}|{kind.split()[0]} ratio"])
                rows.append({"events": events, "side": side, "command": name, "measure": kind,
                             "wall_ms": statistics.median(samples[f"{side}|{name}|{kind}"]), "baseline_ms": base,
                             "ratio": ratio, "target": TARGET, "meets": ratio <= TARGET})
    return rows


def table(rows: list[dict]) -> str:
    out = ["| events | tree | command | after | ms | nothing new, ms | × (paired median) | ≤ 1.5× |",
           "|---:|---|---|---|---:|---:|---:|---|"]
    for r in rows:
        out.append(f"| {r['events']:,} | {r['side']} | `{r['command']}` | {r['measure']} | {r['wall_ms']:.0f} | "
                   f"{r['baseline_ms']:.0f} | {r['ratio']:.2f} | {'yes' if r['meets'] else 'no'} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cache", type=Path,
                        default=Path(os.environ.get("BATON_BENCH_CACHE") or Path.home() / ".cache" / "baton-bench"))
    parser.add_argument("--baseline", type=Path, help="a source tree of another revision, measured alongside")
    parser.add_argument("--out", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    sides = {"now": launcher_for(TREE)}
    if args.baseline:
        sides["before"] = launcher_for(args.baseline.resolve())
    rows = []
    for size in [int(s) for s in args.sizes.split(",")]:
        cached, meta = bench_build.cached_project(args.cache, size)
        with tempfile.TemporaryDirectory(prefix=f"late-{size}-") as scratch:
            copies = {}
            for side in sides:
                copies[side] = Path(scratch) / side / "repo"
                shutil.copytree(cached, copies[side], symlinks=True)
            rows += rows_for(meta["events"], measure(copies, sides, args.repeat), list(sides))
        print(f"# {meta['events']} events done", file=sys.stderr, flush=True)
    print(table(rows))
    if args.out:
        args.out.write_text(json.dumps({"machine": bench_commands.machine_note(), "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
