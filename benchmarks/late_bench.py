"""One real capture from another writer, arriving late or in order: the next hook-path command beside the same
command with nothing new (issue 27 item 1).

    python benchmarks/late_bench.py [--sizes 1000,10000] [--repeat 5] [--modes own,relayed] [--cache DIR]
                                    [--baseline DIR] [--out FILE]

On projects built through the application (``benchmarks/build.py``; sizes are
events in ``.baton/ledger/*.jsonl``), every command a fresh process
(``python -P`` running the ``baton`` program, ``baton.launch.run``, with
``PYTHONPATH`` naming this tree), per repetition and per command (the hook
path: ``bootstrap --json``, ``session handoff --json``, ``resume latest``,
the Claude Code SessionStart hook):

- **nothing new**: the command, right after the previous one;
- **late capture**: one ``handoff.captured`` written through the application
  by another checkout (a copy of the project taken before the measurement,
  writer ``late-writer``), its feed's next line delivered as ``baton sync``
  or a pull would — it sorts before what the index has folded (checked);
- **in-order capture**: one ``handoff.captured`` written through the
  application by a third checkout (writer ``in-order-writer``) at that
  moment, so after everything folded, delivered the same way.

``--modes``: ``own`` runs every command in its own process
(``BATON_HOOK_SERVER=0``: a first hook after an idle hour); ``relayed`` with
the hook server on (a socket folder per tree, the server started and waited
for before the first repetition), so a warm server's child runs it.

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
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TREE = HERE.parent
sys.path.insert(0, str(TREE))
sys.path.insert(0, str(HERE))

from baton.hook_server import stop_servers  # noqa: E402

import build as bench_build  # noqa: E402  (benchmarks/build.py)

_load = bench_build.load_sibling




bench_commands = _load("baton_bench_commands", "commands.py")

TARGET = 1.5
COMMANDS = {
    "bootstrap --json": ["bootstrap", "--json"],
    "session handoff --json": ["session", "handoff", "--json"],
    "resume latest": ["resume", "latest"],
    "hook claude-code SessionStart": ["hook", "claude-code", "SessionStart"],
}
MODES = ("own", "relayed")
PROGRAM = "from baton.launch import run; run()"
"""The ``baton`` program (the console script's entry point), which relays a hook to a running hook server."""
LATE_WRITER = "late-writer"
IN_ORDER_WRITER = "in-order-writer"
RUNS = iter(range(10**9))


def launcher_for(tree: Path, mode: str, servers: Path) -> tuple[list[str], dict[str, str]]:
    """``python -P`` running the ``baton`` program of ``tree``; ``own``: the hook server off;
    ``relayed``: on, listening under a socket folder of this tree's own (``servers``)."""
    launcher, env = bench_commands.launcher_for(tree)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package's bytecode is compiled once, not at every run
    if mode == "own":
        return [launcher[0], "-P", "-c", PROGRAM], {**env, "BATON_HOOK_SERVER": "0"}
    servers.mkdir(mode=0o700, parents=True, exist_ok=True)
    return [launcher[0], "-P", "-c", PROGRAM], {**env, "BATON_HOOK_SERVER": "1", "XDG_RUNTIME_DIR": str(servers)}


def await_server(servers: Path, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if list((servers / "baton").glob("hook-*.sock")):
            return
        time.sleep(0.05)
    raise SystemExit(f"no hook server started under {servers}")


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


Lane = tuple[str, str]
"""(tree, mode): ``now`` or ``before``, ``own`` or ``relayed``."""


def measure(copies: dict[str, Path], lanes: dict[Lane, tuple[list[str], dict[str, str]]],
            repeat: int) -> dict[str, list[float]]:
    """Per tree: the remote captures are written first (before anything the
    measurement appends), so every one of them arrives late. Repetition -1
    warms the page cache and the servers and is not kept."""
    for side, root in copies.items():  # each tree folds its own index once, before the copies are taken
        run(lanes[(side, "own")] if (side, "own") in lanes else lanes[(side, "relayed")],
            "hook claude-code SessionStart", root)
    late = {side: Checkout(root, LATE_WRITER) for side, root in copies.items()}
    in_order = {side: Checkout(root, IN_ORDER_WRITER) for side, root in copies.items()}
    per_side = (repeat + 1) * len(COMMANDS) * len({mode for _side, mode in lanes})
    pending = {side: [late[side].capture() for _ in range(per_side)] for side in copies}
    samples: dict[str, list[float]] = {}
    try:
        for (side, mode), lane in lanes.items():  # appends after the captures: every one of them arrives late
            run(lane, "hook claude-code SessionStart", copies[side])
            if mode == "relayed":
                await_server(Path(lane[1]["XDG_RUNTIME_DIR"]))
        for rep in range(-1, repeat):
            for (side, mode), lane in lanes.items():
                for name in COMMANDS:
                    runs = one_round(lane, name, copies[side], pending[side].pop(0), in_order[side])
                    for key, value in runs.items() if rep >= 0 else ():
                        samples.setdefault(f"{side}|{mode}|{name}|{key}", []).append(value)
    finally:
        for checkout in [*late.values(), *in_order.values()]:
            checkout.close()
    return samples


def one_round(lane: tuple[list[str], dict[str, str]], name: str, root: Path, late_line: bytes,
              in_order: Checkout) -> dict[str, float]:
    """The command with nothing new, after the late capture, again, after an in-order capture."""
    steady = run(lane, name, root)
    if json.loads(late_line.splitlines()[-1])["hlc"] >= folded_last_hlc(root):
        raise SystemExit("the remote capture does not sort before what the index folded")
    deliver(root, LATE_WRITER, late_line)
    after_late = run(lane, name, root)
    again = run(lane, name, root)
    deliver(root, IN_ORDER_WRITER, in_order.capture())
    after_in_order = run(lane, name, root)
    return {"nothing new": steady["wall_ms"], "late capture": after_late["wall_ms"],
            "late ratio": after_late["wall_ms"] / steady["wall_ms"],
            "late cpu ratio": after_late["cpu_ms"] / steady["cpu_ms"],
            "in-order capture": after_in_order["wall_ms"],
            "in-order ratio": after_in_order["wall_ms"] / again["wall_ms"],
            "in-order cpu ratio": after_in_order["cpu_ms"] / again["cpu_ms"],
            "nothing new cpu": steady["cpu_ms"], "late capture cpu": after_late["cpu_ms"]}


def rows_for(events: int, samples: dict[str, list[float]], lanes: list[Lane]) -> list[dict]:
    rows = []
    for side, mode in lanes:
        for name in COMMANDS:
            at = f"{side}|{mode}|{name}|"
            base = statistics.median(samples[at + "nothing new"])
            for kind in ("late capture", "in-order capture"):
                arrival = kind.split()[0]
                ratio = statistics.median(samples[f"{at}{arrival} ratio"])
                rows.append({"events": events, "side": side, "mode": mode, "command": name, "measure": kind,
                             "wall_ms": statistics.median(samples[at + kind]), "baseline_ms": base,
                             "ratio": ratio, "cpu_ratio": statistics.median(samples[f"{at}{arrival} cpu ratio"]),
                             "target": TARGET, "meets": ratio <= TARGET})
    return rows


def table(rows: list[dict]) -> str:
    out = ["| events | tree | mode | command | after | ms | nothing new, ms | × wall (paired median) | × CPU | ≤ 1.5× |",
           "|---:|---|---|---|---|---:|---:|---:|---:|---|"]
    for r in rows:
        out.append(f"| {r['events']:,} | {r['side']} | {r['mode']} | `{r['command']}` | {r['measure']} | "
                   f"{r['wall_ms']:.0f} | {r['baseline_ms']:.0f} | {r['ratio']:.2f} | {r['cpu_ratio']:.2f} | "
                   f"{'yes' if r['meets'] else 'no'} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--modes", default="own", help="own, relayed or both (comma-separated)")
    parser.add_argument("--cache", type=Path,
                        default=Path(os.environ.get("BATON_BENCH_CACHE") or Path.home() / ".cache" / "baton-bench"))
    parser.add_argument("--baseline", type=Path, help="a source tree of another revision, measured alongside")
    parser.add_argument("--out", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    trees = {"now": TREE}
    if args.baseline:
        trees["before"] = args.baseline.resolve()
    modes = [m for m in args.modes.split(",") if m]
    if not modes or not set(modes) <= set(MODES):
        parser.error(f"--modes: one or more of {', '.join(MODES)}")
    rows = []
    for size in [int(s) for s in args.sizes.split(",")]:
        cached, meta = bench_build.cached_project(args.cache, size)
        with tempfile.TemporaryDirectory(prefix=f"late-{size}-") as scratch:
            servers = Path(tempfile.mkdtemp(prefix="blb-", dir="/tmp"))  # short: a socket path has a limit
            lanes = {(side, mode): launcher_for(tree, mode, servers / side) for side, tree in trees.items()
                     for mode in modes}
            copies = {}
            for side in trees:
                copies[side] = Path(scratch) / side / "repo"
                shutil.copytree(cached, copies[side], symlinks=True)
            try:
                rows += rows_for(meta["events"], measure(copies, lanes, args.repeat), list(lanes))
            finally:
                for side in trees:
                    stop_servers(servers / side)
                shutil.rmtree(servers, ignore_errors=True)
        print(f"# {meta['events']} events done", file=sys.stderr, flush=True)
    print(table(rows))
    if args.out:
        args.out.write_text(json.dumps({"machine": bench_commands.machine_note(), "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
