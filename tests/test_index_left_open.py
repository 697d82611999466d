"""A hook-path process leaves the index's connection open to its ``os._exit``
(``baton.process_end``): closing the last connection would checkpoint the
WAL into the database (two fsyncs) for nothing. What it committed stays in
the WAL, where the next process reads it."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from baton import process_end
from baton.projections import runner
from baton.projections.runner import IndexDb
from tests.handoff_support import git_init
from tests.harness_support import fixture


def _hook(project, event: str, session: str) -> subprocess.CompletedProcess:
    payload = json.dumps(fixture("claude-code", event, project, session_id=session))
    return subprocess.run([sys.executable, "-m", "baton", "hook", "claude-code", event.split(".")[0]],
                          input=payload, capture_output=True, text=True, cwd=project)


def test_closing_the_index_in_a_process_that_ends_with_os_exit_keeps_the_connection(tmp_path, monkeypatch):
    monkeypatch.setattr(process_end, "_ENDS_WITH_EXIT", [True])
    monkeypatch.setattr(process_end, "_KEPT", [])
    db = IndexDb(sqlite3.connect(tmp_path / "i.sqlite"))
    db.close()
    assert process_end._KEPT == [db.conn]
    assert db.conn.execute("SELECT 1").fetchone() == (1,)  # still open


def test_closing_the_index_in_any_other_process_closes_it(tmp_path, monkeypatch):
    monkeypatch.setattr(process_end, "_ENDS_WITH_EXIT", [False])
    monkeypatch.setattr(process_end, "_KEPT", [])
    db = IndexDb(sqlite3.connect(tmp_path / "i.sqlite"))
    db.close()
    assert process_end._KEPT == []
    with pytest.raises(sqlite3.ProgrammingError):
        db.conn.execute("SELECT 1")


def test_a_hook_leaves_its_transactions_in_the_wal_and_the_next_hook_reads_them(project):
    git_init(project, {"src/app.py": "x = 1\n"})
    first = _hook(project, "SessionStart.startup", "s1")
    assert first.returncode == 0 and "additionalContext" in first.stdout, first.stderr
    assert (project / ".baton" / "index.sqlite-wal").is_file()  # not checkpointed away at the end
    again = _hook(project, "SessionStart.startup", "s1")  # the index knows s1 began: nothing delivered twice
    assert again.returncode == 0 and again.stdout.strip() in ("", "{}"), again.stdout
    ended = _hook(project, "SessionEnd", "s1")
    assert ended.returncode == 0 and not ended.stderr


def test_an_index_removed_without_its_wal_is_rebuilt_whole(project):
    """SQLite discards the WAL of an empty database: removing ``index.sqlite``
    alone, while a hook's WAL is left beside it, still rebuilds from the ledger."""
    git_init(project, {"src/app.py": "x = 1\n"})
    assert _hook(project, "SessionStart.startup", "s1").returncode == 0
    (project / ".baton" / "index.sqlite").unlink()
    assert (project / ".baton" / "index.sqlite-wal").is_file()
    again = _hook(project, "SessionStart.startup", "s1")
    assert again.returncode == 0 and again.stdout.strip() in ("", "{}"), (again.stdout, again.stderr)
    with sqlite3.connect(project / ".baton" / "index.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def _wal_db(tmp_path, rows: int) -> IndexDb:
    path = tmp_path / "i.sqlite"
    db = IndexDb(sqlite3.connect(path), wal=path.with_name("i.sqlite-wal"))
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")  # the WAL grows as a rebuild's would
    with db.conn:
        db.execute("CREATE TABLE t (x)")
        db.conn.executemany("INSERT INTO t VALUES (?)", [("x" * 1000,) for _ in range(rows)])
    return db


def test_a_kept_wal_larger_than_the_limit_is_checkpointed_and_truncated_first(tmp_path, monkeypatch):
    monkeypatch.setattr(process_end, "_ENDS_WITH_EXIT", [True])
    monkeypatch.setattr(process_end, "_KEPT", [])
    db = _wal_db(tmp_path, rows=3000)
    assert db.wal.stat().st_size > runner.WAL_KEPT_BYTES
    db.close()
    assert db.wal.stat().st_size == 0
    with sqlite3.connect(tmp_path / "i.sqlite") as other:  # what was committed is in the database itself
        assert other.execute("SELECT COUNT(*) FROM t").fetchone() == (3000,)


def test_a_small_kept_wal_is_left_as_it_is(tmp_path, monkeypatch):
    monkeypatch.setattr(process_end, "_ENDS_WITH_EXIT", [True])
    monkeypatch.setattr(process_end, "_KEPT", [])
    db = _wal_db(tmp_path, rows=10)
    size = db.wal.stat().st_size
    db.close()
    assert 0 < size <= runner.WAL_KEPT_BYTES and db.wal.stat().st_size == size
