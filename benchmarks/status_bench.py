"""MCP ``baton_status`` round trip at several ledger sizes, beside the empty SDK tool, in one run (issue 27 item 6).

    python benchmarks/status_bench.py [--sizes 1000,10000,100000] [--calls 200] [--block 20] [--cache DIR] [--out FILE]

One ``baton mcp`` server per size (a copy of the project ``benchmarks/build.py``
cached) and one empty server (``mcp_bench.EMPTY_SERVER``: the same SDK, a tool
returning an empty string), all started first and then called in interleaved
blocks, so every size sees the same machine: the median ``baton_status``
round trip per size beside the empty tool's, and each server's CPU time per
call (``/proc``). Target (issue 27): flat in the number of handoffs, i.e.
the ratio at the largest size about the one at the smallest. Run it with the
interpreter of the install to time (``run.py``'s regular-install venv: its
``baton`` script sits beside it). Every answer is checked (a JSON-RPC error,
``isError``, or an answer without ``handoffs`` fails the run). No test
asserts on these numbers.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import build as bench_build  # noqa: E402  (benchmarks/build.py)
import mcp_bench  # noqa: E402  (benchmarks/mcp_bench.py)


def _status(result: dict) -> dict:
    if "handoffs" not in (result.get("structuredContent") or {}):
        raise SystemExit(f"baton_status answered without handoffs: {str(result)[:500]}")
    return result


def status_rows(projects: list[tuple[Path, int]], launcher: list[str], env: dict[str, str], *,
                calls: int = 200, block: int = 20) -> tuple[list[dict], dict]:
    """One ``baton mcp`` server per project (``(root, events)``: the caller's copies) and one
    empty server, all started first, then ``calls`` round trips each in interleaved blocks
    of ``block``: per project, the median ``baton_status`` round trip beside the empty tool's
    and beside the first project's, and each server's CPU time per call. Returns the rows and
    every sample."""
    mcp_bench.SERVERS["status"] = ("baton_status", {}, _status)
    sessions: dict[str, mcp_bench.Session] = {}
    events: dict[str, int] = {}
    walls: dict[str, list[float]] = {}
    cpus: dict[str, list[float]] = {}
    try:
        for root, n in projects:
            key = f"{n}"
            events[key] = n
            session = mcp_bench.Session([*launcher, "mcp", "--project", str(root)], env)
            sessions[key] = session
            session.handshake()
            _status(session.call("baton_status", {}))  # first call: catch-up, page cache
        empty = mcp_bench.Session([mcp_bench.EMPTY_PYTHON, "-c", mcp_bench.EMPTY_SERVER], env)
        sessions["empty"] = empty
        empty.handshake()
        empty.call("empty", {})
        for _ in range(0, calls, block):
            for key, session in sessions.items():
                kind = "empty" if key == "empty" else "status"
                times, cpu = mcp_bench.round_trips(session, kind, block)
                walls.setdefault(key, []).extend(times)
                if cpu is not None:
                    cpus.setdefault(key, []).append(cpu / block)
    finally:
        for session in sessions.values():
            session.close()
    empty_ms = statistics.median(walls["empty"])
    empty_cpu = statistics.mean(cpus["empty"]) if cpus.get("empty") else None
    rows = []
    for key, n in events.items():
        wall = statistics.median(walls[key])
        cpu = statistics.mean(cpus[key]) if cpus.get(key) else None
        rows.append({"events": n, "command": "baton_status", "wall_ms": wall, "baseline": "empty SDK tool",
                     "baseline_ms": empty_ms, "ratio": wall / empty_ms, "server_cpu_ms": cpu,
                     "empty_cpu_ms": empty_cpu})
    return rows, {"calls": calls, "block": block, "walls_ms": walls, "cpu_ms_per_call": cpus}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--calls", type=int, default=200, help="round trips per server (default: 200)")
    parser.add_argument("--block", type=int, default=20, help="round trips per interleaved block (default: 20)")
    parser.add_argument("--cache", type=Path, default=bench_build.DEFAULT_CACHE)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    launcher, env = mcp_bench.launcher_and_env(args.cache)
    scratch = Path(tempfile.mkdtemp(prefix="baton-bench-status-"))
    try:
        projects = []
        for size in [int(s) for s in args.sizes.split(",")]:
            cached, meta = bench_build.cached_project(args.cache, size)
            root = scratch / f"project-{size}"
            shutil.copytree(cached, root, symlinks=True)
            projects.append((root, meta["events"]))
        rows, detail = status_rows(projects, launcher, env, calls=args.calls, block=args.block)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    first = rows[0]
    empty_cpu = first["empty_cpu_ms"]
    print("| events | baton_status ms | empty tool ms | × empty | server CPU ms/call | × smallest size |")
    print("|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        cpu = "n/a" if r["server_cpu_ms"] is None else f"{r['server_cpu_ms']:.2f}"
        print(f"| {r['events']:,} | {r['wall_ms']:.2f} | {r['baseline_ms']:.2f} | {r['ratio']:.2f} | {cpu} | "
              f"{r['wall_ms'] / first['wall_ms']:.2f} |")
    print(f"\n{args.calls} round trips per server in interleaved blocks of {args.block}; medians; empty tool CPU "
          f"{'n/a' if empty_cpu is None else format(empty_cpu, '.2f')} ms/call")
    if args.out:
        args.out.write_text(json.dumps({"rows": rows, **detail}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
