"""The hook-path commands under two versions of the code, side by side.

    python benchmarks/hook_path_ab.py PROJECT_COPY REPEAT NAME=PYTHONPATH[@PROJECT] [NAME=PYTHONPATH[@PROJECT] ...]

e.g. ``old=/tmp/main-worktree new=/path/to/this/checkout`` on a *copy* of a
project built by ``benchmarks/build.py``. Each repetition runs ``python -c
pass``, then every command under every version, interleaved, as fresh
processes with the project as the working directory (the hook's payload
names it as its ``cwd`` and a new session id each time, so every hook run
delivers a brief). The first repetition warms the page cache and git's
identity cache and is not kept. Prints the median wall time and CPU time
(user + system, from the kernel's accounting of the child) of each, and each
beside ``python -c pass`` of the same run and beside the stack's floor, with
and without attrs (``FLOORS``). Compile the bytecode of every
version first (``python -m compileall -q baton``): with
``PYTHONDONTWRITEBYTECODE`` set every import would compile from source.

The last two columns are CPU beside the two floors' CPU (issue 27's hook-path
targets read CPU on a loaded machine). Run it with ``BATON_HOOK_SERVER=0``: the
hook path in its own process.

``@PROJECT`` runs that version on its own copy instead of ``PROJECT_COPY``:
versions that leave different files behind (a hook-path process now leaves
the index's WAL for the next one, ``baton.process_end``) would otherwise
pay for each other's — the one that closes checkpoints the other's WAL,
the other creates the WAL again.
"""

from __future__ import annotations

import itertools
import json
import os
import resource
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "bootstrap --json": ["bootstrap", "--json"],
    "bootstrap --peek": ["bootstrap", "--json", "--peek"],
    "session handoff": ["session", "handoff", "--json"],
    "resume latest": ["resume", "latest"],
    "hook SessionStart": ["hook", "claude-code", "SessionStart"],
    "hook UserPromptSubmit": ["hook", "claude-code", "UserPromptSubmit"],
    "hook SessionEnd": ["hook", "claude-code", "SessionEnd"],
}
"""The hooks' payloads name a new session at each SessionStart; the prompt and the
end name the session that start began (an end with no handoff to hand on)."""
FLOORS = {"stack floor": "import attrs, orjson, sqlite3, hashlib, argparse",
          "stack floor without attrs": "import orjson, sqlite3, hashlib, argparse"}
"""Timed in the same repetitions: the hook path's target is ≤ 1.15× the first, the
prompt hook's (an ordinary prompt, which asks for no handoff) ≤ 1.15× the second."""


def main() -> None:
    if len(sys.argv) < 4 or not sys.argv[2].isdigit() or not all("=" in v for v in sys.argv[3:]):
        sys.exit(__doc__.strip().splitlines()[2].strip().join(["usage: ", ""]))
    project, repeat = sys.argv[1], int(sys.argv[2])
    versions = [(label, *(spec.split("@", 1) if "@" in spec else (spec, project)))
                for label, spec in (v.split("=", 1) for v in sys.argv[3:])]
    python = sys.executable
    ids = itertools.count()
    began: dict[str, str] = {}
    wall: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}

    def run(key: str, argv: list[str], env: dict[str, str], stdin: bytes | None = None, cwd: str = project) -> None:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=cwd)
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0 or done.stderr:
            raise SystemExit(f"{key} failed ({done.returncode}): {done.stderr[-500:]!r}")
        if "SessionStart" in key and b"additionalContext" not in done.stdout:
            raise SystemExit(f"{key} delivered no brief: {done.stdout[:300]!r}")
        wall.setdefault(key, []).append(elapsed)
        cpu.setdefault(key, []).append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)

    for rep in range(-1, repeat):
        run("python -c pass", [python, "-c", "pass"], dict(os.environ))
        for floor, imports in FLOORS.items():
            run(floor, [python, "-c", imports], dict(os.environ))
        for name, words in COMMANDS.items():
            for label, path, where in versions:
                payload = None
                if "hook" in name:
                    if "SessionStart" in name:
                        began[label] = f"ab-{os.getpid()}-{next(ids)}"
                    payload = json.dumps({"session_id": began[label], "source": "startup", "reason": "other",
                                          "cwd": where, "transcript_path": "/dev/null",
                                          "hook_event_name": words[-1],
                                          "prompt": "run the failing parser test again and tell me what it prints"
                                          }).encode()
                run(f"{name} [{label}]", [python, "-m", "baton", *words], dict(os.environ, PYTHONPATH=path), payload,
                    where)
        if rep == -1:
            wall.clear()
            cpu.clear()
    floor_wall, floor_cpu = statistics.median(wall["python -c pass"]), statistics.median(cpu["python -c pass"])
    stack, bare = statistics.median(wall["stack floor"]), statistics.median(wall["stack floor without attrs"])
    stack_cpu, bare_cpu = statistics.median(cpu["stack floor"]), statistics.median(cpu["stack floor without attrs"])
    print(f"{'':34} {'wall ms':>8} {'ratio':>6} {'cpu ms':>8} {'ratio':>6} {'/stack':>7} {'/no-attrs':>9} "
          f"{'cpu/stack':>9} {'cpu/no-attrs':>12}   (medians of {repeat}; load {os.getloadavg()[0]:.1f})")
    for key in wall:
        w, c = statistics.median(wall[key]), statistics.median(cpu[key])
        print(f"{key:34} {w * 1000:8.1f} {w / floor_wall:6.2f} {c * 1000:8.1f} {c / floor_cpu:6.2f} "
              f"{w / stack:7.2f} {w / bare:9.2f} {c / stack_cpu:9.2f} {c / bare_cpu:12.2f}")


if __name__ == "__main__":
    main()
