"""The index may lag the ledger, never lead it (issue 27, with issue 25's check).

A durable command fsyncs its feed, then writes the index without a sync of
its own (SQLite's WAL with ``synchronous=NORMAL``): after a power loss the
index may come back older than the feed — the same as a copy of an earlier
index put back. The next command must catch up from the feed and report
nothing corrupt; only a feed *shorter* than what the index acknowledged is
a loss (``tests/test_ledger_lost_heads.py``)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3

from baton.commands.context import Project
from baton.ledger import EventDraft
from tests.conftest import run_baton
from tests.ledger_support import own_feed, write


def index_files(project) -> list:
    return sorted(p.name for p in (project / ".baton").glob("index.sqlite*"))


def snapshot_index(project, where) -> None:
    """What a power loss may leave: the index as it stood some commands ago
    (between commands it is one file: closing it checkpoints its WAL)."""
    assert index_files(project) == ["index.sqlite"]
    shutil.copy2(project / ".baton" / "index.sqlite", where)


def roll_back_index(project, where) -> None:
    for name in index_files(project):
        os.unlink(project / ".baton" / name)
    shutil.copy2(where, project / ".baton" / "index.sqlite")


def recorded_seq(project) -> int:
    feed = own_feed(project).name[:-len(".jsonl")]
    with sqlite3.connect(project / ".baton" / "index.sqlite") as db:
        row = db.execute("SELECT seq FROM feed_heads WHERE feed = ?", (feed,)).fetchone()
    return row[0] if row else 0


def seqs(project) -> list[int]:
    return [json.loads(line)["seq"] for line in own_feed(project).read_bytes().splitlines()]


def begin(project):
    r = run_baton("session", "begin", "--owner", "a@example.com", "--branch", "main", "--json",
                  "--project", str(project))
    return r.returncode, json.loads(r.stdout) if r.stdout.strip() else None


def test_an_index_rolled_back_behind_the_feed_catches_up_and_reports_nothing_corrupt(project, tmp_path):
    write(project, 3)
    snapshot_index(project, tmp_path / "earlier.sqlite")
    write(project, 4, start=3)
    lines = len(seqs(project))
    roll_back_index(project, tmp_path / "earlier.sqlite")
    assert recorded_seq(project) < lines  # the index lags the feed, as after a power loss

    code, out = begin(project)

    assert code == 0, out
    assert seqs(project) == list(range(1, len(seqs(project)) + 1))  # appended after the feed's end: no seq reused
    assert len(seqs(project)) > lines
    assert recorded_seq(project) == len(seqs(project))  # caught up: it knows every line again
    assert run_baton("verify", "--project", str(project)).returncode == 0


def test_a_rolled_back_index_catches_up_in_a_reading_command_too(project, tmp_path):
    write(project, 2)
    snapshot_index(project, tmp_path / "earlier.sqlite")
    r = run_baton("checkpoint", "create", "--no-input", "--title", "late", "--objective", "o", "--json",
                  "--project", str(project))
    assert r.returncode == 0, r.stdout + r.stderr
    handoff = json.loads(r.stdout)["id"]
    roll_back_index(project, tmp_path / "earlier.sqlite")

    listed = run_baton("handoff", "list", "--json", "--project", str(project))

    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert handoff in listed.stdout  # folded from the feed, not lost with the index
    assert recorded_seq(project) == len(seqs(project))


def test_a_rolled_back_index_and_a_torn_last_write_heal_without_a_refusal(project, tmp_path):
    """Power lost mid-append: the feed ends in a torn line no one was told
    about, and the index is from before the lines under it. The torn bytes
    lie past anything the index acknowledged: a torn tail, healed."""
    write(project, 2)
    snapshot_index(project, tmp_path / "earlier.sqlite")
    write(project, 2, start=2)
    feed = own_feed(project)
    feed.write_bytes(feed.read_bytes() + b'{"v":1,"id":"01')
    roll_back_index(project, tmp_path / "earlier.sqlite")

    code, out = begin(project)

    assert code == 0, out
    assert list((project / ".baton" / "quarantine").glob("*.torn"))
    assert run_baton("verify", "--project", str(project)).returncode == 0


def test_a_durable_command_syncs_its_feed_before_the_index_knows_the_new_line(project, monkeypatch):
    """The order that makes a lagging index the only possible outcome of a
    power loss: when the feed's fsync runs, the index does not yet hold the
    line being synced (a reader of the index sees the previous seq)."""
    write(project, 2)
    before = len(seqs(project))
    seen: list[tuple[int, int]] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        path = os.readlink(f"/proc/self/fd/{fd}")
        if path.endswith(".jsonl"):
            seen.append((recorded_seq(project), fd))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    opened = Project.open(project)
    try:
        with opened.writing() as scope:
            scope.append([EventDraft("test.noted", "test/1", {"n": 9})], durable=True)
    finally:
        opened.close()
    assert seen and all(index_seq == before for index_seq, _ in seen)
    assert recorded_seq(project) == before + 1 == len(seqs(project))
