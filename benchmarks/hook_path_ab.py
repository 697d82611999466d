"""The hook-path commands under two versions of the code, side by side.

    python benchmarks/hook_path_ab.py PROJECT_COPY REPEAT NAME=PYTHONPATH [NAME=PYTHONPATH ...]

e.g. ``old=/tmp/main-worktree new=/path/to/this/checkout`` on a *copy* of a
project built by ``benchmarks/build.py``. Each repetition runs ``python -c
pass``, then every command under every version, interleaved, as fresh
processes with the project as the working directory (the hook's payload
names it as its ``cwd`` and a new session id each time, so every hook run
delivers a brief). The first repetition warms the page cache and git's
identity cache and is not kept. Prints the median wall time and CPU time
(user + system, from the kernel's accounting of the child) of each, and each
beside ``python -c pass`` of the same run. Compile the bytecode of every
version first (``python -m compileall -q baton``): with
``PYTHONDONTWRITEBYTECODE`` set every import would compile from source.
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
}


def main() -> None:
    project, repeat, versions = sys.argv[1], int(sys.argv[2]), [v.split("=", 1) for v in sys.argv[3:]]
    python = sys.executable
    ids = itertools.count()
    wall: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}

    def run(key: str, argv: list[str], env: dict[str, str], stdin: bytes | None = None) -> None:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=project)
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0 or done.stderr:
            raise SystemExit(f"{key} failed ({done.returncode}): {done.stderr[-500:]!r}")
        if "hook" in key and b"additionalContext" not in done.stdout:
            raise SystemExit(f"{key} delivered no brief: {done.stdout[:300]!r}")
        wall.setdefault(key, []).append(elapsed)
        cpu.setdefault(key, []).append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)

    for rep in range(-1, repeat):
        run("python -c pass", [python, "-c", "pass"], dict(os.environ))
        for name, words in COMMANDS.items():
            for label, path in versions:
                payload = None
                if "hook" in name:
                    payload = json.dumps({"session_id": f"ab-{os.getpid()}-{next(ids)}", "source": "startup",
                                          "cwd": project, "transcript_path": "/dev/null",
                                          "hook_event_name": "SessionStart"}).encode()
                run(f"{name} [{label}]", [python, "-m", "baton", *words], dict(os.environ, PYTHONPATH=path), payload)
        if rep == -1:
            wall.clear()
            cpu.clear()
    floor_wall, floor_cpu = statistics.median(wall["python -c pass"]), statistics.median(cpu["python -c pass"])
    print(f"{'':30} {'wall ms':>8} {'ratio':>6} {'cpu ms':>8} {'ratio':>6}   "
          f"(medians of {repeat}; load {os.getloadavg()[0]:.1f})")
    for key in wall:
        w, c = statistics.median(wall[key]), statistics.median(cpu[key])
        print(f"{key:30} {w * 1000:8.1f} {w / floor_wall:6.2f} {c * 1000:8.1f} {c / floor_cpu:6.2f}")


if __name__ == "__main__":
    main()
