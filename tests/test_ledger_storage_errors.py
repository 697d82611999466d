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

    def refuse(path, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(path))
    monkeypatch.setattr(verify, "scan_file", refuse)
    with pytest.raises(StorageError, match="cannot read .*w1.jsonl"):
        verify_ledger(tmp_path / ".baton" / "ledger")
