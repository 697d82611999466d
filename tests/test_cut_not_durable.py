"""A feed cut whose sync fails after the cut (``ftruncate`` done, ``fsync``
failing with EIO) keeps the quarantine copy of the lines cut off: they are
gone from the feed, so the copy is the only one (docs/ledger.md, "baton repair")."""

from __future__ import annotations

import errno
import os

import pytest

from baton.commands.context import Project
from baton.errors import StorageError
from tests.ledger_support import own_feed, write
from tests.test_ledger_repair import damage_line


def _feed_sync_fails(monkeypatch) -> None:
    """``os.fsync`` fails with EIO for a descriptor on a feed (under ``/ledger/``), and only there."""
    real = os.fsync

    def fsync(fd):
        if "/ledger/" in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.EIO, "Input/output error")
        return real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


def test_a_repair_whose_cut_cannot_be_synced_keeps_the_quarantine_copy(project, monkeypatch):
    from baton.commands.repair import repair_project

    write(project, 4)
    feed, lines = damage_line(project, 2)
    opened = Project.open(project)
    try:
        _feed_sync_fails(monkeypatch)
        with pytest.raises(StorageError, match="not yet durable"):
            repair_project(opened, yes=True)
    finally:
        monkeypatch.undo()
        opened.close()
    assert feed.read_bytes() == b"".join(lines[:2])  # cut
    [aside] = (project / ".baton" / "quarantine").glob("*.repair")
    assert aside.read_bytes() == b"".join(lines[2:])


def test_a_torn_tail_whose_cut_cannot_be_synced_keeps_its_quarantine_copy(project, monkeypatch):
    from baton.ledger import EventDraft

    write(project, 2)
    feed = own_feed(project)
    whole = feed.read_bytes()
    feed.write_bytes(whole + b'{"v":1,"id":"01')
    opened = Project.open(project)
    try:
        _feed_sync_fails(monkeypatch)
        with pytest.raises(StorageError, match="not yet durable"):
            with opened.writing() as scope:
                scope.append([EventDraft("test.noted", "test/1", {"n": 9})])
    finally:
        monkeypatch.undo()
        opened.close()
    assert feed.read_bytes() == whole  # cut
    [aside] = (project / ".baton" / "quarantine").glob("*.torn")
    assert aside.read_bytes() == b'{"v":1,"id":"01'
