"""Issue 27, "a full disk at 100k": on a disk that cannot be written (a full
disk, a read-only ``.baton/``) a read starts from a copy in memory of
``index.sqlite`` when that index is of this Baton, and folds only what the
feeds gained past its cursors — not a replay of the whole ledger (tens of
seconds at 100k events). The answer is the one a full replay in memory gives,
after new events, after a late feed from another writer, and from an index
whose last commits are still in its write-ahead log; an index that is damaged,
pinned in the past or of other projections is not copied (the whole ledger is
replayed, as before); nothing under ``.baton/`` is written.
docs/ledger.md, "A full disk"."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli_support import run_json


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def fill_the_disk(monkeypatch) -> None:
    """From now on every project's disk is full (``files.disk_full``, as
    tests/test_disk_full_index.py makes it)."""
    from baton.ledger import files

    monkeypatch.setattr(files, "disk_full", lambda path: f"the disk holding {path} is full (0 bytes free)")


def _checkpoints(capsys, project: Path, *titles: str) -> None:
    for title in titles:
        run_json(capsys, project, "checkpoint", "create", "--title", title, "--objective", f"about {title}")


def _read_from_memory(project: Path):
    """A read on the project as it is (a full disk or a read-only ``.baton/``, the
    test says which): its catch-up and every document it answers from."""
    from baton.commands.context import Project

    opened = Project.open(project)
    try:
        assert opened.read_only
        runner = opened.runner
        done = runner.catch_up(allow_pinned=True)
        return done, runner.snapshot()
    finally:
        opened.close()


def _full_replay(project: Path):
    """Every document as a replay of the whole ledger in memory makes them (the
    answer before this change, the reference after it)."""
    from baton.commands.context import Project

    opened = Project.open(project)
    try:
        runner = opened.runner
        runner._copy_refused = True  # the open that copied nothing
        done = runner.catch_up(allow_pinned=True)
        assert done.rebuilt and runner.in_memory
        return runner.snapshot()
    finally:
        opened.close()


def _events(project: Path) -> int:
    return sum(len(p.read_bytes().splitlines()) for p in (project / ".baton" / "ledger").glob("*.jsonl"))


def test_a_read_on_a_full_disk_with_a_current_index_folds_nothing(capsys, project, monkeypatch):
    _checkpoints(capsys, project, "one", "two")
    fill_the_disk(monkeypatch)
    done, documents = _read_from_memory(project)
    assert (done.events, done.rebuilt) == (0, False)
    assert documents == _full_replay(project)


def test_a_read_on_a_full_disk_folds_only_the_events_after_the_index_cursors(capsys, project, monkeypatch):
    _checkpoints(capsys, project, "one", "two")
    index = (project / ".baton" / "index.sqlite").read_bytes()
    before = _events(project)
    _checkpoints(capsys, project, "three", "four")
    for suffix in ("-wal", "-shm"):  # the index as it was before the last two: behind the feeds
        (project / ".baton" / f"index.sqlite{suffix}").unlink(missing_ok=True)
    (project / ".baton" / "index.sqlite").write_bytes(index)
    fill_the_disk(monkeypatch)
    done, documents = _read_from_memory(project)
    assert (done.events, done.rebuilt) == (_events(project) - before, False)
    assert documents == _full_replay(project)
    titles = {doc["work"]["title"] for doc in documents["handoffs"].values()}
    assert {"one", "two", "three", "four"} <= titles


def test_a_read_on_a_full_disk_with_a_late_feed_from_another_writer_answers_as_a_full_replay(capsys, project,
                                                                                            tmp_path, monkeypatch):
    _checkpoints(capsys, project, "one")
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(project, elsewhere)  # a clone: its first write takes a writer id of its own
    _checkpoints(capsys, elsewhere, "written elsewhere first")
    _checkpoints(capsys, project, "two", "three")
    ours = {p.name for p in (project / ".baton" / "ledger").glob("*.jsonl")}
    [late] = [p for p in (elsewhere / ".baton" / "ledger").glob("*.jsonl") if p.name not in ours]
    shutil.copy2(late, project / ".baton" / "ledger" / late.name)  # arrived after, sorts before "two"
    fill_the_disk(monkeypatch)
    before = snapshot(project / ".baton")
    done, documents = _read_from_memory(project)
    assert done.events >= 1
    assert documents == _full_replay(project)
    titles = {doc["work"]["title"] for doc in documents["handoffs"].values()}
    assert {"one", "two", "three", "written elsewhere first"} <= titles
    assert snapshot(project / ".baton") == before


def test_a_read_on_a_full_disk_reads_the_commits_still_in_the_index_write_ahead_log(capsys, project, monkeypatch):
    index = project / ".baton" / "index.sqlite"
    _checkpoints(capsys, project, "one")
    holder = sqlite3.connect(index)  # open across the next commits: the last to close would fold the log back
    try:
        holder.execute("PRAGMA wal_autocheckpoint=0")
        holder.execute("SELECT COUNT(*) FROM docs").fetchone()
        _checkpoints(capsys, project, "two")  # before the disk filled: its commit is in index.sqlite-wal
        assert (project / ".baton" / "index.sqlite-wal").stat().st_size > 0
        fill_the_disk(monkeypatch)
        done, documents = _read_from_memory(project)
    finally:
        holder.close()
    assert (done.events, done.rebuilt) == (0, False)
    assert documents == _full_replay(project)


def _replayed_whole_on_a_full_disk_after(capsys, project: Path, monkeypatch, spoil: Callable[[Path], None]
                                         ) -> dict[str, bytes]:
    """Two checkpoints, then the index (its write-ahead log and shared memory gone) spoiled by
    ``spoil`` and the disk filled: a read replays the whole ledger in memory, and answers as a full
    replay does. What ``.baton/`` held before the read is returned."""
    _checkpoints(capsys, project, "one", "two")
    for suffix in ("-wal", "-shm"):
        (project / ".baton" / f"index.sqlite{suffix}").unlink(missing_ok=True)
    spoil(project / ".baton" / "index.sqlite")
    fill_the_disk(monkeypatch)
    before = snapshot(project / ".baton")
    done, documents = _read_from_memory(project)
    assert done.rebuilt
    assert documents == _full_replay(project)
    return before


def _index_meta(statement: str) -> Callable[[Path], None]:
    """What spoils an index by running ``statement`` (on its ``meta`` table) in it."""
    def spoil(index: Path) -> None:
        with sqlite3.connect(index) as conn:
            conn.execute(statement)
        conn.close()

    return spoil


def test_a_damaged_index_on_a_full_disk_is_left_where_it_is_and_the_ledger_replayed(capsys, project, monkeypatch):
    def damage(index: Path) -> None:
        data = bytearray(index.read_bytes())
        data[4096:] = b"\xff" * (len(data) - 4096)  # every page after the first: not a B-tree page
        index.write_bytes(bytes(data))

    before = _replayed_whole_on_a_full_disk_after(capsys, project, monkeypatch, damage)
    assert snapshot(project / ".baton") == before  # not moved aside into cache/: nothing is written


def test_an_index_of_other_projections_on_a_full_disk_is_not_copied(capsys, project, monkeypatch):
    _replayed_whole_on_a_full_disk_after(capsys, project, monkeypatch,
                                         _index_meta("UPDATE meta SET value = '[0]' WHERE key = 'signature'"))


def test_an_index_pinned_in_the_past_on_a_full_disk_is_not_copied_the_present_is_read(capsys, project,
                                                                                    monkeypatch):
    _replayed_whole_on_a_full_disk_after(capsys, project, monkeypatch, _index_meta(
        "INSERT OR REPLACE INTO meta (key, value) VALUES ('pinned_until', '2020-01-01T00:00:00Z')"))


def test_a_read_only_baton_dir_reads_its_index_copied_and_writes_nothing(capsys, project, monkeypatch):
    _checkpoints(capsys, project, "one", "two")
    baton, real = str(project / ".baton"), os.access
    monkeypatch.setattr(os, "access", lambda path, mode, *args, **kwargs: (
        False if mode & os.W_OK and os.fspath(path).startswith(baton) else real(path, mode, *args, **kwargs)))
    before = snapshot(project / ".baton")
    done, documents = _read_from_memory(project)
    assert (done.events, done.rebuilt) == (0, False)
    assert documents == _full_replay(project)
    assert snapshot(project / ".baton") == before  # no -wal or -shm made beside the index
    titles = [h["title"] for h in run_json(capsys, project, "handoff", "list")["handoffs"]]
    assert {"one", "two"} <= set(titles)
    assert snapshot(project / ".baton") == before


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="needs root to run a command as another user (`setpriv`)")
def test_a_baton_dir_another_user_owns_is_read_through_its_index_and_left_as_it_is(capsys):
    """A real read-only ``.baton/``: the project is root's, the reader ``nobody``
    (root ignores ``chmod``; ``nobody`` cannot write a byte of it)."""
    place = Path(tempfile.mkdtemp(prefix="baton-read-only-", dir="/tmp"))
    try:
        place.chmod(0o755)
        project = place / "p"
        project.mkdir()
        run_json(capsys, project, "init")
        _checkpoints(capsys, project, "one", "two")
        before = snapshot(project / ".baton")
        shown = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m", "baton",
             "handoff", "list", "--json", "--project", str(project)],
            capture_output=True, text=True, env={**os.environ, "HOME": str(place)}, timeout=120)
        assert shown.returncode == 0, shown.stderr
        assert '"one"' in shown.stdout and '"two"' in shown.stdout
        assert snapshot(project / ".baton") == before
        assert not (project / ".baton" / "index.sqlite-wal").exists()
    finally:
        shutil.rmtree(place, ignore_errors=True)


def test_a_start_on_a_full_disk_within_its_fold_limit_reads_from_the_index_copied(capsys, project, monkeypatch):
    """A session start's fold limit counts what the copy lacks, not the whole
    ledger: with a current index it answers (before, a ledger past the limit was
    refused as a replay too long for the start's time)."""
    from baton.commands.context import Limits, Project

    _checkpoints(capsys, project, "one", "two")
    fill_the_disk(monkeypatch)
    opened = Project.open(project, limits=Limits(fold_limit=1))
    try:
        assert opened.reading().counts()["handoffs"] == 2
    finally:
        opened.close()


def test_doctor_on_a_full_disk_says_the_index_was_read_into_memory(capsys, project, monkeypatch):
    _checkpoints(capsys, project, "one")
    fill_the_disk(monkeypatch)
    checks = {c["name"]: c for c in run_json(capsys, project, "doctor", expect=3)["checks"]}
    assert checks["index"]["detail"] == ("index.sqlite read into memory and brought up to date there "
                                         "(not written: the disk holding .baton/ is full)")
