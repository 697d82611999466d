"""CPU time of ``baton status --json`` on a clone that synced once (its sharing line read), in-process,
30 runs after one warm-up: ``python benchmarks/status_sharing_ab.py ROOT`` for a checkout at ROOT (main,
and a branch: run both, alternated, in one session, and compare)."""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path

RUNS = 30


def main() -> None:
    root = sys.argv[1]
    sys.path.insert(0, root)  # that checkout's baton and tests, before the installed one
    os.chdir(root)
    from baton.cli_run import main as baton
    from tests.sync_support import make_team

    _remote, a, _b = make_team(Path(tempfile.mkdtemp()))
    with contextlib.redirect_stdout(io.StringIO()):
        baton(["checkpoint", "create", "--title", "x", "--objective", "o", "--no-input", "--project", str(a), "--json"])
        baton(["sync", "--project", str(a), "--json"])
        baton(["status", "--project", str(a), "--json"])
        start = time.process_time()
        for _ in range(RUNS):
            baton(["status", "--project", str(a), "--json"])
        spent = time.process_time() - start
    print(f"{root}: {spent / RUNS * 1000:.1f} ms CPU per status")


if __name__ == "__main__":
    main()
