"""A disk that refuses: the ledger says which file and why (``StorageError``),
never a bare ``OSError`` and never a silent success (found by the mutation
run's not-covered mutants: docs/ledger.md "Mutation testing")."""

from __future__ import annotations

import os

import pytest

from baton.errors import StorageError
from baton.ledger import EventDraft, Ledger
from baton.ledger.verify import verify_ledger
from tests.test_ledger_checks import feed_of


def _refusing(real, needle: str):
    def refuse(path, *args, **kwargs):
        if needle in os.fspath(path):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path, *args, **kwargs)
    return refuse


def test_a_ledger_folder_that_cannot_be_listed_is_a_storage_error(tmp_path, monkeypatch):
    ledger, _ = feed_of(tmp_path, 1)
    monkeypatch.setattr(os, "scandir", _refusing(os.scandir, "ledger"))
    with pytest.raises(StorageError, match="cannot list the ledger at"):
        ledger.feed_names()


def test_a_lock_file_that_cannot_be_opened_is_a_storage_error(tmp_path, monkeypatch):
    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never")
    monkeypatch.setattr(os, "open", _refusing(os.open, "ledger.lock"))
    with pytest.raises(StorageError, match="cannot open the ledger lock"):
        with ledger.locked():
            pass


def test_a_feed_that_cannot_be_opened_for_an_append_is_a_storage_error(tmp_path, monkeypatch):
    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never")
    monkeypatch.setattr(os, "open", _refusing(os.open, "w1.jsonl"))
    with pytest.raises(StorageError, match="cannot open feed"):
        with ledger.locked() as txn:
            txn.append([EventDraft("test.noted", "test/w1", {})])


def test_verify_of_a_folder_that_cannot_be_listed_is_a_storage_error(tmp_path, monkeypatch):
    from pathlib import Path

    feed_of(tmp_path, 1)
    real = Path.glob

    def refuse(self, pattern):
        raise PermissionError(13, "Permission denied", str(self))
    monkeypatch.setattr(Path, "glob", refuse)
    with pytest.raises(StorageError, match="cannot list"):
        verify_ledger(tmp_path / ".baton" / "ledger")
    monkeypatch.setattr(Path, "glob", real)


def test_verify_of_a_feed_that_cannot_be_read_is_a_storage_error(tmp_path, monkeypatch):
    import baton.ledger.verify as verify

    feed_of(tmp_path, 1)

    def refuse(feed, *args, **kwargs):
        raise PermissionError(13, "Permission denied", feed)
    monkeypatch.setattr(verify, "scan_chunks", refuse)
    with pytest.raises(StorageError, match="cannot read .*w1.jsonl"):
        verify_ledger(tmp_path / ".baton" / "ledger")


def _refuse_reading_w1(monkeypatch) -> None:
    """Opening feed ``w1`` fails as a disk that refuses would (every read of a
    feed opens it with ``baton.ledger.files.open_feed``)."""
    monkeypatch.setattr(os, "open", _refusing(os.open, "w1.jsonl"))


def _planned(tmp_path):
    """A feed of three events whose second line is damaged, and its repair plan."""
    from baton.ledger.repair import plan_repair

    ledger, lines = feed_of(tmp_path, 3)
    ledger.feed_path("w1").write_bytes(lines[0] + lines[1].replace(b'"n":1', b'"n":7') + lines[2])
    ledger_dir = tmp_path / ".baton" / "ledger"
    [plan] = [p for p in plan_repair(ledger_dir, verify_ledger(ledger_dir)) if p.cut is not None]
    return ledger, plan


def test_a_repair_that_cannot_read_the_feed_is_a_storage_error_and_cuts_nothing(tmp_path, monkeypatch):
    from baton.ledger.repair import set_aside

    ledger, plan = _planned(tmp_path)
    before = ledger.feed_path("w1").read_bytes()
    _refuse_reading_w1(monkeypatch)
    with pytest.raises(StorageError, match="cannot read feed .*w1.jsonl"):
        set_aside(tmp_path / ".baton", plan, fsync=False)
    monkeypatch.undo()
    assert ledger.feed_path("w1").read_bytes() == before


def test_a_repair_whose_cut_fails_is_a_storage_error_naming_the_feed(tmp_path, monkeypatch):
    from baton.ledger.repair import set_aside

    ledger, plan = _planned(tmp_path)
    before = ledger.feed_path("w1").read_bytes()
    def refuse(fd, size):
        raise OSError(5, "Input/output error")
    monkeypatch.setattr(os, "ftruncate", refuse)  # the feed is cut through its descriptor
    with pytest.raises(StorageError, match="could not set aside the damaged lines of .*w1.jsonl"):
        set_aside(tmp_path / ".baton", plan, fsync=False)
    assert ledger.feed_path("w1").read_bytes() == before


def test_a_repair_that_cannot_open_the_lock_is_a_storage_error(tmp_path, monkeypatch):
    from baton.ledger.repair import set_aside

    _, plan = _planned(tmp_path)
    monkeypatch.setattr(os, "open", _refusing(os.open, "ledger.lock"))
    with pytest.raises(StorageError, match="cannot open the ledger lock"):
        set_aside(tmp_path / ".baton", plan, fsync=False)


def test_a_feed_whose_size_cannot_be_read_is_a_storage_error(tmp_path, monkeypatch):
    ledger, _ = feed_of(tmp_path, 1)
    monkeypatch.setattr(os, "stat", _refusing(os.stat, "w1.jsonl"))
    with pytest.raises(StorageError, match="cannot read feed .*w1.jsonl"):
        ledger.feed_info("w1")


def test_an_unknown_fsync_policy_is_refused_when_the_ledger_is_made(tmp_path):
    with pytest.raises(ValueError, match="fsync must be one of"):
        Ledger(tmp_path / ".baton", "w1", fsync="sometimes")


def test_registering_a_second_upcaster_for_one_type_and_version_is_refused():
    from baton.ledger.upcast import UpcasterRegistry

    registry = UpcasterRegistry()
    registry.register("note.added", 1)(lambda data: data)
    with pytest.raises(ValueError, match="an upcaster for note.added v1 is already registered"):
        registry.register("note.added", 1)(lambda data: data)


def test_planning_a_repair_of_a_feed_that_cannot_be_read_is_a_storage_error(tmp_path, monkeypatch):
    from baton.ledger.repair import plan_repair

    ledger, lines = feed_of(tmp_path, 3)
    ledger.feed_path("w1").write_bytes(lines[0] + lines[1].replace(b'"n":1', b'"n":7') + lines[2])
    ledger_dir = tmp_path / ".baton" / "ledger"
    report = verify_ledger(ledger_dir)
    _refuse_reading_w1(monkeypatch)
    with pytest.raises(StorageError, match="cannot read feed .*w1.jsonl"):
        plan_repair(ledger_dir, report)


def test_a_feed_that_grew_since_the_repair_was_planned_is_not_cut(tmp_path):
    from baton.ledger.repair import set_aside

    ledger, plan = _planned(tmp_path)
    with open(ledger.feed_path("w1"), "ab") as fh:
        fh.write(b"more")
    before = ledger.feed_path("w1").read_bytes()
    with pytest.raises(StorageError, match="changed since the repair was planned"):
        set_aside(tmp_path / ".baton", plan, fsync=False)
    assert ledger.feed_path("w1").read_bytes() == before


def test_a_feed_that_cannot_be_opened_for_reading_is_a_storage_error(tmp_path, monkeypatch):
    from baton.ledger import files

    ledger, _ = feed_of(tmp_path, 1)
    monkeypatch.setattr(os, "open", _refusing(os.open, "w1.jsonl"))
    with pytest.raises(StorageError, match="cannot read feed .*w1.jsonl"):
        files.read_range(str(ledger.feed_path("w1")), 0)


def test_feed_stats_name_each_feed_with_its_inode_size_and_mtime(tmp_path):
    ledger, _ = feed_of(tmp_path, 2, "w1")
    feed_of(tmp_path, 1, "w2")
    stats = ledger.feed_stats()
    assert [s[0] for s in stats] == ["w1", "w2"]
    st = os.stat(ledger.feed_path("w1"))
    assert stats[0][1:] == (st.st_ino, st.st_size, st.st_mtime_ns)


def test_feed_stats_skip_a_feed_removed_between_the_listing_and_its_stat(tmp_path, monkeypatch):
    ledger, _ = feed_of(tmp_path, 1, "w1")
    feed_of(tmp_path, 1, "w2")
    real = os.stat

    def gone(path, *args, **kwargs):
        if os.fspath(path).endswith("w1.jsonl"):
            raise FileNotFoundError(2, "No such file", os.fspath(path))
        return real(path, *args, **kwargs)
    monkeypatch.setattr(os, "stat", gone)
    assert [s[0] for s in ledger.feed_stats()] == ["w2"]


def test_feed_stats_of_a_feed_that_cannot_be_read_is_a_storage_error(tmp_path, monkeypatch):
    ledger, _ = feed_of(tmp_path, 1, "w1")
    monkeypatch.setattr(os, "stat", _refusing(os.stat, "w1.jsonl"))
    with pytest.raises(StorageError, match="cannot read feed .*w1.jsonl"):
        ledger.feed_stats()
