"""A read command on a disk that cannot be written, beside the same command on a normal disk, per version.

    python benchmarks/full_disk_read.py [--repeat 3] [--command status] NAME=BATON_EXE [...] -- PROJECT [...]

e.g. ``main=/tmp/full22-main-venv/bin/baton branch=/tmp/full22-branch-venv/bin/baton -- /tmp/x/p10000``
(regular installs with compiled bytecode: docs/performance.md). Each PROJECT is a copy of a benchmark
project (``/tmp/baton-100k/project-N-r2/repo``, ``cp -a``, rebuilt by the version that reads it); every
folder on its path must be readable by ``nobody``.

For every project and version the command (``baton COMMAND --json --project PROJECT``) runs:

- ``normal``: as root, on a disk it can write (its catch-up takes the lock, finds nothing new);
- ``full``: as ``nobody`` (``setpriv``), to whom the project's ``.baton/`` is read-only — the path
  a full disk takes too (``Project.read_only``: no lock, no index written, the projections in
  memory). A read-only ``.baton/`` stands in for a full disk here because no full file system can be
  made on this machine (no tmpfs may be mounted); the code that answers is the same.

Prints, per project and version, the median wall and CPU time (user + system of the child) of each,
and the ratio full / normal; CPU time is what the load of the machine moves least. Root's ``normal``
runs come first, then ``nobody``'s ``full``; the project is not written by either. No test asserts
on these numbers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``argv`` (which must succeed)."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {err}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--command", default="status")
    parser.add_argument("items", nargs="+", help="NAME=BATON_EXE ... -- PROJECT ...")
    args = parser.parse_args()
    if "--" in sys.argv:
        cut = sys.argv.index("--")
        versions = [a for a in sys.argv[1:cut] if "=" in a and not a.startswith("--")]
        projects = [Path(p) for p in sys.argv[cut + 1:]]
    else:
        raise SystemExit("name the projects after --")
    home = Path("/tmp/full-disk-read-home")
    home.mkdir(exist_ok=True)
    home.chmod(0o777)
    env = {**os.environ, "HOME": str(home)}
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(f"command: baton {args.command} --json; repeat {args.repeat}; load average {' '.join(load)} "
          f"({os.cpu_count()} cores)")
    for project in projects:
        events = sum(len(p.read_bytes().splitlines()) for p in (project / ".baton" / "ledger").glob("*.jsonl"))
        print(f"\n{project} ({events:,} events, index {(project / '.baton' / 'index.sqlite').stat().st_size:,} bytes)")
        print(f"{'version':<10} {'normal wall':>12} {'normal cpu':>11} {'full wall':>10} {'full cpu':>9} "
              f"{'cpu ratio':>10} {'wall ratio':>11}")
        for item in versions:
            name, exe = item.split("=", 1)
            argv = [exe, args.command, "--json", "--project", str(project)]
            normal = [timed(argv, env) for _ in range(args.repeat)]
            full = [timed(NOBODY + argv, env) for _ in range(args.repeat)]
            nw, nc = (statistics.median(x[i] for x in normal) for i in (0, 1))
            fw, fc = (statistics.median(x[i] for x in full) for i in (0, 1))
            print(f"{name:<10} {nw:>11.2f}s {nc:>10.2f}s {fw:>9.2f}s {fc:>8.2f}s {fc / nc:>9.1f}x {fw / nw:>10.1f}x",
                  flush=True)
            print(f"  raw normal {[(round(w, 2), round(c, 2)) for w, c in normal]} "
                  f"full {[(round(w, 2), round(c, 2)) for w, c in full]}", flush=True)


if __name__ == "__main__":
    main()
