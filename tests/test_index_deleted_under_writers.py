"""Issue 9, part 2: deleting ``index.sqlite`` while writers run never fails a
writer — the index is a cache; a writer whose index vanished retries on a
fresh one (rebuilt from the ledger)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from tests.cli_support import run_json

WRITERS = 3
CAPTURES = 8


def writer_script(project) -> str:
    return f"""
import sys
from baton.cli import main
for i in range({CAPTURES}):
    code = main(["checkpoint", "create", "--title", f"w{{sys.argv[1]}}-{{i}}", "--objective", "o",
                 "--project", {str(project)!r}])
    if code:
        sys.exit(code)
"""


def test_writers_survive_index_sqlite_being_deleted_under_them(capsys, project):
    index = project / ".baton" / "index.sqlite"
    script = writer_script(project)
    procs = [subprocess.Popen([sys.executable, "-c", script, str(n)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True) for n in range(WRITERS)]
    deletions = 0
    while any(p.poll() is None for p in procs):
        for suffix in ("", "-wal", "-shm"):
            try:
                os.unlink(f"{index}{suffix}")
                deletions += suffix == ""
            except FileNotFoundError:
                pass
        time.sleep(0.05)
    errors = [p.stderr.read() for p in procs]
    assert [p.returncode for p in procs] == [0] * WRITERS, errors
    assert deletions > 0
    listed = run_json(capsys, project, "handoff", "list", "--limit", "1000")["handoffs"]
    assert len(listed) == WRITERS * CAPTURES
    assert run_json(capsys, project, "verify")["ok"] is True
