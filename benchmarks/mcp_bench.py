"""``baton mcp``: start to first result, and the ``handoff_list`` round trip, beside an empty MCP server.

    python benchmarks/mcp_bench.py [--size 1000] [--repeat 7] [--calls 200] [--block 20] [--cache DIR] [--baseline DIR]

Both servers are built with the same SDK and run by the same interpreter:

- **baton**: ``baton mcp --project ROOT`` (the venv's console script), on a
  project built through the application (``benchmarks/build.py``);
- **empty**: ``MCPServer("empty")`` with one tool, ``empty``, that returns an
  empty string (``EMPTY_SERVER`` below) — everything an MCP server on this SDK
  pays, and nothing else.

The client here is not the SDK: it writes newline-delimited JSON-RPC to the
child's stdin and reads its stdout (the stdio transport), so neither figure
carries client-side cost. Each session is the standard handshake
(``initialize`` with protocol 2025-11-25, ``notifications/initialized``) and
then ``tools/call``.

Rows:

1. **start to first result**: fork, handshake, the first ``tools/call``
   (``handoff_list`` with ``limit: 20`` / ``empty``) answered. Median of
   ``--repeat`` interleaved fresh processes. Targets: well under a second
   (``START_TARGET_MS``), and baton beside the empty server (no ratio target:
   the row shows what Baton adds to the SDK's own start). The server's CPU
   time by its first result is a row too: on a busy machine it varies far
   less than the wall time.
2. **round trip**: in one started session, ``--calls`` further ``tools/call``
   of ``handoff_list`` (``limit: 20``), and as many of ``empty`` in the empty
   server's session, interleaved in blocks; median per call, and the server's
   CPU time per call (``/proc``). Target: ≤ 2× the empty tool. A third kind,
   ``canned``, is a tool of the empty server returning ``handoff_list``'s own
   answer, read from a file (its JSON as structured content and as text, as
   Baton answers): what the SDK costs to carry an answer of that size, so the
   rest is Baton's work (catch-up, query, screening).

With ``--baseline DIR`` (a source tree of another Baton revision, say
``git archive main | tar -x -C DIR``), a third server, **baseline**, is that
revision's ``baton mcp`` (the same interpreter and SDK, ``PYTHONPATH=DIR``),
started and called interleaved with the other two: before/after rows from one
run.

Every answer is checked (a JSON-RPC error, ``isError``, or a list without
handoffs fails the run), so an error is never timed as a success. No test
asserts on these numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

PROTOCOL = "2025-11-25"
START_TARGET_MS = 1000.0
ROUND_TRIP_TARGET = 2.0
LIST_ARGUMENTS = {"limit": 20}

EMPTY_PYTHON = sys.executable
"""The interpreter of the empty SDK server (``run.py --install regular`` sets its venv's)."""

EMPTY_SERVER = """
import json, os
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent

server = MCPServer("empty", log_level="WARNING")


@server.tool()
def empty() -> str:
    \"\"\"Return an empty string.\"\"\"
    return ""


CANNED = os.environ.get("BATON_BENCH_CANNED")
if CANNED:
    with open(CANNED) as fh:
        TEXT = fh.read()
    DATA = json.loads(TEXT)

    @server.tool()
    def canned() -> CallToolResult:
        \"\"\"Return a fixed answer: its JSON as structured content and as text.\"\"\"
        return CallToolResult(content=[TextContent(type="text", text=TEXT)], structured_content=DATA)


server.run("stdio")
"""


class Session:
    """One MCP server process driven over its stdio transport, one request at a time."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.proc.stdout, selectors.EVENT_READ)
        self.buffer = b""
        self.next_id = 0

    def _send(self, message: dict) -> None:
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def _line(self, timeout: float = 60.0) -> bytes:
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(left):
                raise SystemExit(f"no answer from {self.proc.args!r} in {timeout} s; "
                                 f"stderr: {self._stderr()[-1500:]}")
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                raise SystemExit(f"{self.proc.args!r} closed its stdout; stderr: {self._stderr()[-1500:]}")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def _stderr(self) -> str:
        try:
            self.proc.kill()
            return self.proc.stderr.read().decode("utf-8", "replace")
        except Exception:  # noqa: BLE001 - only for an error message
            return ""

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            message = json.loads(self._line())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise SystemExit(f"{method} failed: {message['error']}")
                return message["result"]
            # a notification or a server request: not expected here; skip it

    def handshake(self) -> None:
        self.request("initialize", {"protocolVersion": PROTOCOL, "capabilities": {},
                                    "clientInfo": {"name": "baton-bench", "version": "0"}})
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, tool: str, arguments: dict) -> dict:
        result = self.request("tools/call", {"name": tool, "arguments": arguments})
        if result.get("isError"):
            raise SystemExit(f"tools/call {tool} is an error: {result}")
        return result

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()
        self.selector.close()


def _listed(result: dict) -> dict:
    data = result.get("structuredContent") or {}
    if not data.get("handoffs"):
        raise SystemExit(f"handoff_list listed no handoffs: {str(result)[:500]}")
    return result


SERVERS = {
    "baton": ("handoff_list", LIST_ARGUMENTS, _listed),
    "baseline": ("handoff_list", LIST_ARGUMENTS, _listed),
    "empty": ("empty", {}, lambda result: result),
    "canned": ("canned", {}, lambda result: result),
}
"""Kinds of call: ``canned`` runs on the empty server (a fixed answer of handoff_list's size)."""


def start(kind: str, root: Path, launcher: list[str], env: dict[str, str]) -> tuple[Session, float]:
    """A fresh server: its session and the ms from fork to the first tool result (its CPU
    time by then: ``cpu_ms(session.proc.pid)``)."""
    argv = ([*launcher, "mcp", "--project", str(root)] if kind in ("baton", "baseline")
            else [EMPTY_PYTHON, "-c", EMPTY_SERVER])
    tool, arguments, check = SERVERS[kind]
    session = Session(argv, env)
    session.handshake()
    check(session.call(tool, arguments))
    return session, (time.perf_counter() - session.started) * 1000


def cpu_ms(pid: int) -> float | None:
    """The process's user + system CPU time so far (Linux ``/proc``), else None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def round_trips(session: Session, kind: str, calls: int) -> tuple[list[float], float | None]:
    """``calls`` round trips: each one's wall ms, and the server's CPU ms over all of them."""
    tool, arguments, check = SERVERS[kind]
    times = []
    cpu_before = cpu_ms(session.proc.pid)
    for _ in range(calls):
        t0 = time.perf_counter()
        result = session.call(tool, arguments)
        times.append((time.perf_counter() - t0) * 1000)
        check(result)
    cpu_after = cpu_ms(session.proc.pid)
    return times, (None if cpu_before is None or cpu_after is None else cpu_after - cpu_before)


def mcp_samples(root: Path, launcher: list[str], env: dict[str, str], repeat: int, calls: int = 200,
                block: int = 20, baseline: Path | None = None) -> dict[str, list[float]]:
    """Interleaved: per repetition, a fresh baton server and a fresh empty one (and the
    baseline's, with ``baseline``) from start to first result; in the last repetition's
    sessions, ``calls`` round trips each, alternating blocks."""
    servers = ("empty", "baton") + (("baseline",) if baseline else ())
    samples: dict[str, list[float]] = {f"{measure} {kind}": [] for measure in ("start", "start cpu", "call",
                                                                               "server cpu")
                                       for kind in (*servers, "canned") if not (measure.startswith("start")
                                                                                and kind == "canned")}
    canned = canned_answer(root)
    env = dict(env, BATON_BENCH_CANNED=str(canned))
    envs = {kind: env for kind in servers}
    if baseline:
        envs["baseline"] = dict(env, PYTHONPATH=str(baseline))
    for rep in range(-1, repeat):  # rep -1 warms the page cache and the bytecode; not kept
        sessions = {}
        try:
            for kind in servers:
                sessions[kind], ms = start(kind, root, launcher, envs[kind])
                cpu = cpu_ms(sessions[kind].proc.pid)
                if rep >= 0:
                    samples[f"start {kind}"].append(ms)
                    if cpu is not None:
                        samples[f"start cpu {kind}"].append(cpu)
            if rep == repeat - 1:
                for _ in range(0, calls, block):
                    for kind in (*servers, "canned"):
                        walls, cpu = round_trips(sessions["empty" if kind == "canned" else kind], kind, block)
                        samples[f"call {kind}"].extend(walls)
                        if cpu is not None:
                            samples[f"server cpu {kind}"].append(cpu / block)
        finally:
            for session in sessions.values():
                session.close()
    canned.unlink()
    return samples


def canned_answer(root: Path) -> Path:
    """``handoff_list``'s answer (limit 20) as the server gives it, in a file the empty server serves back."""
    import orjson

    from baton.app import Baton

    with Baton.open(root) as app:  # the JSON the tool answers with (baton.mcp_server.screened_answer; not imported
        # here: that would import the SDK into this process, and benchmarks/secrets.py shadows the stdlib's)
        data = orjson.loads(orjson.dumps(app.list_handoffs(limit=LIST_ARGUMENTS["limit"]).to_json(), default=str))
    fd, name = tempfile.mkstemp(prefix="baton-bench-canned-", suffix=".json")
    os.write(fd, orjson.dumps(data))
    os.close(fd)
    return Path(name)


def mcp_rows(root: Path, launcher: list[str], env: dict[str, str], repeat: int,
             calls: int = 200, baseline: Path | None = None, block: int = 20) -> tuple[list[dict], dict]:
    """The rows ``benchmarks/run.py`` prints (``events`` is filled in by the caller)."""
    samples = mcp_samples(root, launcher, env, repeat, calls, block=block, baseline=baseline)
    start_baton, start_empty = (statistics.median(samples[k]) for k in ("start baton", "start empty"))
    call_baton, call_empty = (statistics.median(samples[k]) for k in ("call baton", "call empty"))
    rows = [
        {"measure": "MCP start→1st result", "command": "baton mcp: handoff_list", "wall_ms": start_baton,
         "rss_mb": None, "baseline": "well under 1 s", "baseline_ms": START_TARGET_MS,
         "ratio": start_baton / START_TARGET_MS, "target": 1.0},
        {"measure": "MCP start→1st result", "command": "baton mcp: handoff_list", "wall_ms": start_baton,
         "rss_mb": None, "baseline": "empty SDK server", "baseline_ms": start_empty,
         "ratio": start_baton / start_empty, "target": None},
        {"measure": "MCP round trip", "command": "handoff_list (limit 20)", "wall_ms": call_baton,
         "rss_mb": None, "baseline": "empty SDK tool", "baseline_ms": call_empty,
         "ratio": call_baton / call_empty, "target": ROUND_TRIP_TARGET},
        {"measure": "MCP round trip", "command": "handoff_list (limit 20)", "wall_ms": call_baton,
         "rss_mb": None, "baseline": "same answer, canned", "baseline_ms": statistics.median(samples["call canned"]),
         "ratio": call_baton / statistics.median(samples["call canned"]), "target": None},
    ]
    if samples["start cpu baton"] and samples["start cpu empty"]:
        cpu_start_baton, cpu_start_empty = (statistics.median(samples[k]) for k in ("start cpu baton",
                                                                                     "start cpu empty"))
        rows.append({"measure": "MCP start→1st result", "command": "baton mcp, CPU", "wall_ms": cpu_start_baton,
                     "rss_mb": None, "baseline": "empty SDK server, CPU", "baseline_ms": cpu_start_empty,
                     "ratio": cpu_start_baton / cpu_start_empty, "target": None})
    if samples["server cpu baton"] and samples["server cpu empty"]:
        cpu_baton, cpu_empty = (sum(samples[k]) / len(samples[k]) for k in ("server cpu baton", "server cpu empty"))
        rows.append({"measure": "MCP round trip", "command": "handoff_list, server CPU", "wall_ms": cpu_baton,
                     "rss_mb": None, "baseline": "empty SDK tool, CPU", "baseline_ms": cpu_empty,
                     "ratio": cpu_baton / cpu_empty if cpu_empty else float("inf"), "target": ROUND_TRIP_TARGET})
        if samples["server cpu canned"]:
            cpu_canned = sum(samples["server cpu canned"]) / len(samples["server cpu canned"])
            rows.append({"measure": "MCP round trip", "command": "handoff_list, server CPU", "wall_ms": cpu_baton,
                         "rss_mb": None, "baseline": "canned answer, CPU", "baseline_ms": cpu_canned,
                         "ratio": cpu_baton / cpu_canned if cpu_canned else float("inf"), "target": None})
    if baseline:
        start_base, call_base = (statistics.median(samples[k]) for k in ("start baseline", "call baseline"))
        cpu_base = sum(samples["server cpu baseline"]) / max(1, len(samples["server cpu baseline"]))
        cpu_now = sum(samples["server cpu baton"]) / max(1, len(samples["server cpu baton"]))
        rows += [
            {"measure": "MCP start→1st result", "command": "baton mcp: handoff_list", "wall_ms": start_baton,
             "rss_mb": None, "baseline": "baseline revision", "baseline_ms": start_base,
             "ratio": start_baton / start_base, "target": None},
            *([{"measure": "MCP start→1st result", "command": "baton mcp, CPU",
                "wall_ms": statistics.median(samples["start cpu baton"]), "rss_mb": None,
                "baseline": "baseline rev., CPU", "baseline_ms": statistics.median(samples["start cpu baseline"]),
                "ratio": statistics.median(samples["start cpu baton"]) / statistics.median(
                    samples["start cpu baseline"]), "target": None}]
              if samples["start cpu baton"] and samples["start cpu baseline"] else []),
            {"measure": "MCP round trip", "command": "handoff_list (limit 20)", "wall_ms": call_baton,
             "rss_mb": None, "baseline": "baseline revision", "baseline_ms": call_base,
             "ratio": call_baton / call_base, "target": None},
            {"measure": "MCP round trip", "command": "handoff_list, server CPU", "wall_ms": cpu_now,
             "rss_mb": None, "baseline": "baseline rev., CPU", "baseline_ms": cpu_base,
             "ratio": cpu_now / cpu_base if cpu_base else float("inf"), "target": None},
            {"measure": "MCP round trip", "command": "baseline rev.: handoff_list", "wall_ms": call_base,
             "rss_mb": None, "baseline": "empty SDK tool", "baseline_ms": call_empty,
             "ratio": call_base / call_empty, "target": ROUND_TRIP_TARGET},
        ]
    return rows, {"samples_ms": samples, "protocol": PROTOCOL, "calls": calls,
                  "baseline": str(baseline) if baseline else None}


def launcher_and_env(cache: Path) -> tuple[list[str], dict[str, str]]:
    """The ``baton`` beside this interpreter (else ``python -m baton``) and the environment
    to run it in: no project or debug setting, bytecode cached under ``cache/pycache``."""
    script = Path(sys.executable).parent / "baton"
    launcher = [str(script)] if script.exists() else [sys.executable, "-m", "baton"]
    env = {k: v for k, v in os.environ.items() if k not in ("BATON_PROJECT", "BATON_DEBUG")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(cache / "pycache")
    return launcher, env


def main(argv: list[str] | None = None) -> int:
    import build as bench_build  # benchmarks/build.py

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1000, help="ledger size in events (default: 1000)")
    parser.add_argument("--repeat", type=int, default=7, help="fresh starts of each server (default: 7)")
    parser.add_argument("--calls", type=int, default=200, help="round trips per server (default: 200)")
    parser.add_argument("--block", type=int, default=20,
                        help="round trips per interleaved block (default: 20); the server CPU per call is read from "
                             "/proc in 10 ms ticks per block, so longer blocks give a steadier CPU row")
    parser.add_argument("--cache", type=Path, default=bench_build.DEFAULT_CACHE,
                        help="built projects are kept and reused here (as benchmarks/build.py)")
    parser.add_argument("--out", type=Path, default=None, help="also write every sample as JSON")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="a source tree of another Baton revision, served beside this one (before/after rows)")
    args = parser.parse_args(argv)
    launcher, env = launcher_and_env(args.cache)
    cached, meta = bench_build.cached_project(args.cache, args.size)
    scratch = Path(tempfile.mkdtemp(prefix="baton-bench-mcp-"))
    try:
        root = scratch / "project"
        shutil.copytree(cached, root, symlinks=True)
        rows, detail = mcp_rows(root, launcher, env, args.repeat, args.calls, baseline=args.baseline,
                                block=args.block)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for row in rows:
        target = row["target"]
        holds = "" if target is None else ("yes" if row["ratio"] <= target else "NO")
        print(f"{meta['events']:>6} | {row['measure']:<21} | {row['command']:<27} | {row['wall_ms']:8.2f} ms | "
              f"{row['baseline']:<20} | {row['baseline_ms']:8.2f} ms | {row['ratio']:5.2f} | {holds}")
    if args.out:
        args.out.write_text(json.dumps({"events": meta["events"], "rows": rows, **detail}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
