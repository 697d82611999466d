"""Claims under contention: 16 processes claiming a stream of batons through the application.

    python benchmarks/claims_bench.py [--size 1000] [--processes 16] [--batons 64] [--cache DIR]

On a project built through the application (``benchmarks/build.py``):

- ``--processes`` claiming processes, each with its own long-lived
  ``baton.app.Baton`` (the object the CLI builds per run and the MCP server
  keeps), all starting sessions for the SAME owner and branch: each one
  calls ``Baton.bootstrap`` with a new session id, over and over, so all of
  them race for every baton left for that owner and branch. A call that
  receives nothing writes nothing.
- One producer (this process, its own ``Baton``) leaves ``--batons`` batons
  for that owner and branch, one after another (``Baton.end_session`` with
  next steps): it leaves baton k, waits until a claiming process reports
  having received it, then leaves baton k + 1. Every claim takes the ledger
  lock, catches up with what the others appended, and appends
  ``baton.claimed`` only if the baton's stream is still at the version it
  read — so a second claim of a baton must fail.
- **Baseline**, in the same run: the same stream with ONE claiming process.

Reported: claims per second (batons handed over, from the first baton left to
the last one received; each hand-over is a producer's ``end_session`` plus
the winning ``bootstrap``), under contention and alone, and **double claims
or lost batons**, counted three ways: ids received by more than one session
(from the processes' reports), ``baton.claimed`` events per baton in the
ledger, and batons of the stream never claimed or still pending at the end.
They are reported, never hidden. No test asserts on these numbers.
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
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

OWNER = "bench-claims@example.invalid"
BRANCH = "bench-claims"
WAIT_S = 30.0
"""How long the producer waits for a baton to be received before it counts it lost and goes on."""


def worker(root: str, index: int, tag: str) -> int:
    """A claiming process: open the application, say ready, wait for "go", then start sessions
    until told to stop, printing each baton received (its id)."""
    from baton.app import Baton

    app = Baton.open(root)
    app.bootstrap(session_id=f"{tag}-w{index}-warm", owner=OWNER, branch=BRANCH, peek=True)  # imports, index
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":
        return 1
    watch = selectors.DefaultSelector()
    watch.register(sys.stdin, selectors.EVENT_READ)
    calls = 0
    while not watch.select(0):
        calls += 1
        out = app.bootstrap(session_id=f"{tag}-w{index}-{calls}", owner=OWNER, branch=BRANCH)
        if out.record is not None:
            print(json.dumps({"claimed": out.record.id, "at": time.monotonic()}), flush=True)
    print(json.dumps({"calls": calls}), flush=True)
    app.close()
    return 0


class Claimers:
    """``count`` claiming processes, started and warmed up; their reports read as they come."""

    def __init__(self, root: Path, count: int, tag: str, env: dict[str, str]) -> None:
        argv = [sys.executable, str(Path(__file__).resolve()), "--worker", str(root), "--tag", tag]
        self.procs = [subprocess.Popen([*argv, "--index", str(i)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, env=env) for i in range(count)]
        self.selector = selectors.DefaultSelector()
        self.buffers: dict[int, bytes] = {}
        for i, p in enumerate(self.procs):
            line = p.stdout.readline().strip()
            if line != b"ready":
                self.stop()
                raise SystemExit(f"a claiming process did not start: {line!r} {p.stderr.read()[-1500:]!r}")
            self.selector.register(p.stdout, selectors.EVENT_READ, i)
            self.buffers[i] = b""
        self.received: list[tuple[int, str, float]] = []
        self.calls = 0

    def go(self) -> None:
        for p in self.procs:
            p.stdin.write(b"go\n")
            p.stdin.flush()

    def poll(self, timeout: float) -> list[tuple[int, str, float]]:
        """Reports that arrive within ``timeout`` seconds: (process, baton id, when)."""
        found = []
        for key, _ in self.selector.select(timeout):
            i = key.data
            chunk = os.read(key.fileobj.fileno(), 65536)
            if not chunk:
                self.selector.unregister(key.fileobj)
                continue
            self.buffers[i] += chunk
            *lines, self.buffers[i] = self.buffers[i].split(b"\n")
            for line in lines:
                report = json.loads(line)
                if "claimed" in report:
                    found.append((i, report["claimed"], report["at"]))
                else:
                    self.calls += report.get("calls", 0)
        self.received.extend(found)
        return found

    def stop(self) -> None:
        for p in self.procs:
            try:
                p.stdin.write(b"stop\n")
                p.stdin.close()
            except OSError:
                pass
        deadline = time.monotonic() + 120
        while self.selector.get_map() and time.monotonic() < deadline:
            self.poll(1.0)
        for p in self.procs:
            try:
                p.wait(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            if p.returncode not in (0, None):
                raise SystemExit(f"a claiming process failed (exit {p.returncode}): {p.stderr.read()[-1500:]!r}")


def stream(root: Path, processes: int, batons: int, tag: str, env: dict[str, str]) -> dict:
    """Leave ``batons`` batons one after another while ``processes`` processes race to claim each."""
    from baton.app import Baton

    claimers = Claimers(root, processes, tag, env)
    left: list[str] = []
    waits: list[float] = []
    lost = 0
    try:
        with Baton.open(root) as producer:
            claimers.go()
            start = time.monotonic()
            for k in range(batons):
                t0 = time.monotonic()
                result = producer.end_session(f"{tag}-producer-{k}", {"nextSteps": [f"Pick up item {k}"]},
                                              owner=OWNER, branch=BRANCH)
                if result.created is None:
                    raise SystemExit(f"end_session left no baton (#{k})")
                baton_id = result.created.record.id
                left.append(baton_id)
                deadline = t0 + WAIT_S
                while not any(r[1] == baton_id for r in claimers.received):
                    if time.monotonic() > deadline:
                        lost += 1
                        break
                    claimers.poll(deadline - time.monotonic())
                else:
                    waits.append((next(r[2] for r in claimers.received if r[1] == baton_id) - t0) * 1000)
            end = max([start, *(r[2] for r in claimers.received)])
    finally:
        claimers.stop()
    return {"processes": processes, "left": left, "received": claimers.received, "wall_s": end - start,
            "handover_ms": waits, "timed_out": lost, "calls": claimers.calls}


def ledger_claims(root: Path, ids: list[str]) -> tuple[Counter, int]:
    """``baton.claimed`` events per baton of ``ids``, and how many of ``ids`` are still pending."""
    from baton.app import Baton

    wanted = set(ids)
    with Baton.open(root) as app:
        claims = Counter(e.data.get("handoff_id") for e in app.project.ledger.read_all()
                         if e.type == "baton.claimed" and e.data.get("handoff_id") in wanted)
        pending = {r.id for r in app.pending_batons().records}
    return claims, len(wanted & pending)


def check(run: dict, root: Path) -> dict:
    ids = run["left"]
    received = Counter(r[1] for r in run["received"])
    events, pending = ledger_claims(root, ids)
    return {
        "batons": len(ids),
        "received": sum(received.values()),
        "double_received": sum(n - 1 for n in received.values() if n > 1),
        "double_claimed_in_ledger": sum(n - 1 for n in events.values() if n > 1),
        "unclaimed": sum(1 for i in ids if events[i] == 0),
        "still_pending": pending,
        "foreign": sum(1 for i in received if i not in set(ids)),
        "per_process": dict(Counter(r[0] for r in run["received"])),
        "bootstrap_calls": run["calls"],
        "handover_ms_median": statistics.median(run["handover_ms"]) if run["handover_ms"] else None,
    }


def claim_rows(root: Path, processes: int, batons: int | None = None) -> tuple[list[dict], dict]:
    """The rows ``benchmarks/run.py`` prints (``events`` is filled in by the caller)."""
    batons = batons or 64
    env = {k: v for k, v in os.environ.items() if k not in ("BATON_PROJECT", "BATON_DEBUG")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE.parent), env.get("PYTHONPATH")]))
    tag = f"claims-{os.getpid()}"
    contended = stream(root, processes, batons, f"{tag}-many", env)
    contended_check = check(contended, root)
    alone = stream(root, 1, batons, f"{tag}-one", env)
    alone_check = check(alone, root)
    rate, rate_alone = (len(run_["received"]) / run_["wall_s"] if run_["wall_s"] > 0 else 0.0
                        for run_ in (contended, alone))
    per_claim, per_claim_alone = (1000 / r if r else float("inf") for r in (rate, rate_alone))
    doubles = contended_check["double_received"] + contended_check["double_claimed_in_ledger"]
    lost = contended_check["unclaimed"] + contended_check["still_pending"] + contended_check["foreign"]
    rows = [
        {"measure": "claims (contention)", "command": f"{processes} procs: {rate:.0f} claims/s",
         "wall_ms": per_claim, "rss_mb": None, "baseline": f"1 proc: {rate_alone:.0f} claims/s",
         "baseline_ms": per_claim_alone, "ratio": per_claim / per_claim_alone, "target": None},
        {"measure": "claims (contention)", "command": f"double claims+lost, of {batons}",
         "wall_ms": float(doubles + lost), "rss_mb": None, "baseline": "none allowed",
         "baseline_ms": float(batons), "ratio": (doubles + lost) / batons, "target": 0.0},
    ]
    detail = {"batons": batons, "processes": processes, "contended": contended_check, "alone": alone_check,
              "contended_wall_s": contended["wall_s"], "alone_wall_s": alone["wall_s"]}
    return rows, detail


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1000, help="ledger size in events (default: 1000)")
    parser.add_argument("--processes", type=int, default=16, help="claiming processes (default: 16)")
    parser.add_argument("--batons", type=int, default=None, help="batons in the stream (default: 64)")
    parser.add_argument("--cache", type=Path, default=None, help="built projects (as benchmarks/build.py)")
    parser.add_argument("--out", type=Path, default=None, help="also write the details as JSON")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--tag", default="", help=argparse.SUPPRESS)
    parser.add_argument("--index", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.worker, args.index, args.tag)
    sys.path.insert(0, str(HERE))
    import build as bench_build  # benchmarks/build.py

    cached, meta = bench_build.cached_project(args.cache or bench_build.DEFAULT_CACHE, args.size)
    scratch = Path(tempfile.mkdtemp(prefix="baton-bench-claims-"))
    try:
        root = scratch / "project"
        shutil.copytree(cached, root, symlinks=True)
        rows, detail = claim_rows(root, args.processes, args.batons)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for row in rows:
        target = row["target"]
        holds = "" if target is None else ("yes" if row["ratio"] <= target else "NO")
        print(f"{meta['events']:>6} | {row['measure']:<20} | {row['command']:<30} | {row['wall_ms']:8.2f} | "
              f"{row['baseline']:<20} | {row['baseline_ms']:8.2f} | {row['ratio']:5.2f} | {holds}")
    print(json.dumps({k: v for k, v in detail.items() if k != "calls"}, indent=1))
    if args.out:
        args.out.write_text(json.dumps({"events": meta["events"], "rows": rows, **detail}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
