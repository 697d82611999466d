"""Issue 9, part 2: deleting ``index.sqlite`` while writers run never fails a
writer — the index is a cache; a writer whose index vanished retries on a
fresh one (rebuilt from the ledger).

The slow variant deletes it every 2 ms under twice as many writers: before
new indexes were seeded in WAL mode (``ProjectionRunner._seed_new_index``),
a writer that created the index waited at its first write for the others'
locks, lost the file meanwhile and failed with "disk I/O error" at every
attempt (all 6 writers, in each of the 4 runs measured)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from tests.cli_support import run_json

WRITERS = 3
CAPTURES = 8


def writer_script(project, captures: int = CAPTURES) -> str:
    return f"""
import sys
from baton.cli import main
for i in range({captures}):
    code = main(["checkpoint", "create", "--title", f"w{{sys.argv[1]}}-{{i}}", "--objective", "o",
                 "--project", {str(project)!r}])
    if code:
        sys.exit(code)
"""


def test_writers_survive_index_sqlite_being_deleted_under_them(capsys, project):
    deleted_under_writers(capsys, project, WRITERS, CAPTURES, pause=0.05)


@pytest.mark.slow
def test_writers_survive_index_sqlite_being_deleted_every_few_milliseconds(capsys, project):
    deleted_under_writers(capsys, project, 2 * WRITERS, CAPTURES, pause=0.002)


def deleted_under_writers(capsys, project, writers: int, captures: int, pause: float) -> None:
    index = project / ".baton" / "index.sqlite"
    script = writer_script(project, captures)
    procs = [subprocess.Popen([sys.executable, "-c", script, str(n)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True) for n in range(writers)]
    deletions = 0
    while any(p.poll() is None for p in procs):
        for suffix in ("", "-wal", "-shm"):
            try:
                os.unlink(f"{index}{suffix}")
                deletions += suffix == ""
            except FileNotFoundError:
                pass
        time.sleep(pause)
    errors = [p.stderr.read() for p in procs]
    assert [p.returncode for p in procs] == [0] * writers, errors
    assert deletions > 0
    listed = run_json(capsys, project, "handoff", "list", "--limit", "1000")["handoffs"]
    assert len(listed) == writers * captures
    assert run_json(capsys, project, "verify")["ok"] is True
