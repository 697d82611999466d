"""Durability, tested with a counting ``fsync`` shim rather than trusted:
what ``fsync: always`` and ``never`` sync, that claims, promotions and
repairs are synced whatever the policy, that torn-tail quarantine syncs the
bytes before cutting, and that a ledger whose write, fsync or quarantine
failed refuses every later append."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from baton.errors import StorageError
from baton.ledger import EventDraft, Ledger


class FsyncCounter:
    """Replaces ``os.fsync``: records what each call synced (by path), and can fail."""

    def __init__(self, monkeypatch) -> None:
        self.synced: list[str] = []
        self.fail_on: str | None = None
        real = os.fsync

        def fsync(fd: int) -> None:
            path = os.readlink(f"/proc/self/fd/{fd}")
            if self.fail_on is not None and self.fail_on in path:
                raise OSError(5, "Input/output error (injected)")
            self.synced.append(path)
            real(fd)

        monkeypatch.setattr(os, "fsync", fsync)

    def of(self, suffix: str) -> int:
        return sum(1 for p in self.synced if p.endswith(suffix))

    def clear(self) -> None:
        self.synced.clear()


@pytest.fixture
def fsyncs(monkeypatch):
    return FsyncCounter(monkeypatch)


def note(n: int) -> EventDraft:
    return EventDraft("test.noted", "test/1", {"n": n})


def append(ledger: Ledger, *drafts: EventDraft, durable: bool = False):
    with ledger.locked() as txn:
        return txn.append(list(drafts), durable=durable)


def test_fsync_always_syncs_every_append_and_the_folder_when_the_feed_is_new(tmp_path, fsyncs):
    ledger = Ledger(tmp_path / ".baton", "w1", fsync="always")
    append(ledger, note(0))
    assert fsyncs.of("/w1.jsonl") == 1 and fsyncs.of("/.baton/ledger") == 1
    append(ledger, note(1), note(2))
    append(ledger, note(3))
    assert fsyncs.of("/w1.jsonl") == 3 and fsyncs.of("/.baton/ledger") == 1


def test_fsync_never_syncs_nothing_unless_the_append_is_durable(tmp_path, fsyncs):
    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never")
    append(ledger, note(0))
    append(ledger, note(1))
    assert fsyncs.synced == []
    append(ledger, note(2), durable=True)
    assert fsyncs.of("/w1.jsonl") == 1


def test_a_durable_first_append_also_syncs_the_new_feed_s_folder(tmp_path, fsyncs):
    append(Ledger(tmp_path / ".baton", "w1", fsync="never"), note(0), durable=True)
    assert fsyncs.of("/w1.jsonl") == 1 and fsyncs.of("/.baton/ledger") == 1


def never_project(project: Path) -> None:
    config = project / ".baton" / "config.json"
    raw = orjson.loads(config.read_bytes())
    raw["fsync"] = "never"
    config.write_bytes(orjson.dumps(raw))


def test_a_claim_is_synced_even_with_fsync_never(project, fsyncs):
    from baton.app import Baton

    never_project(project)
    with Baton.open(project) as app:
        app.end_session("s1", {"nextSteps": ["a"]})
        fsyncs.clear()
        brief = app.bootstrap(session_id="s2")
    assert brief.to_json()["claimed"] is True
    assert sum(1 for p in fsyncs.synced if p.endswith(".jsonl")) >= 1


def test_a_promotion_is_synced_even_with_fsync_never(project, fsyncs):
    from tests.app_support import promote_handoff, validate_handoff_command
    from tests.test_handoff_lifecycle import _capture

    never_project(project)
    handoff_id = _capture(project).handoff_id
    validate_handoff_command(project, handoff_id)
    fsyncs.clear()
    promote_handoff(project, handoff_id)
    assert sum(1 for p in fsyncs.synced if p.endswith(".jsonl")) >= 1


def test_an_ordinary_command_is_not_synced_with_fsync_never(project, fsyncs):
    from tests.test_handoff_lifecycle import _capture

    never_project(project)
    fsyncs.clear()
    _capture(project)
    assert [p for p in fsyncs.synced if p.endswith(".jsonl")] == []


def test_quarantining_a_torn_tail_syncs_the_copy_its_folder_and_the_cut_feed(tmp_path, fsyncs):
    baton = tmp_path / ".baton"
    ledger = Ledger(baton, "w1", fsync="never")
    append(ledger, note(0))
    feed = ledger.feed_path("w1")
    feed.write_bytes(feed.read_bytes() + b'{"v":1,"id":"half')
    fsyncs.clear()
    append(Ledger(baton, "w1", fsync="never"), note(1))
    assert fsyncs.of(".torn") == 1 and fsyncs.of("/.baton/quarantine") == 1 and fsyncs.of("/w1.jsonl") == 1
    order = [p.rsplit(".", 1)[-1] if p.endswith((".torn", ".jsonl")) else "dir" for p in fsyncs.synced]
    assert order == ["torn", "dir", "jsonl"]  # the copy is safe before the feed is cut


def test_a_failed_fsync_poisons_the_ledger_until_it_is_reopened(tmp_path, fsyncs):
    baton = tmp_path / ".baton"
    ledger = Ledger(baton, "w1", fsync="always")
    append(ledger, note(0))
    fsyncs.fail_on = "w1.jsonl"
    with pytest.raises(StorageError, match="the disk did not confirm them"):
        append(ledger, note(1))
    fsyncs.fail_on = None
    with pytest.raises(StorageError, match="must be reopened"):
        append(ledger, note(2))
    assert [e.data["n"] for e in Ledger(baton, "reader").read_all()] == [0, 1]  # written, just not known synced
    append(Ledger(baton, "w1", fsync="always"), note(3))


def test_a_failed_write_poisons_the_ledger(tmp_path, monkeypatch):
    from baton.ledger import files

    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never")
    append(ledger, note(0))

    def broken(fd, data):
        raise OSError(28, "No space left on device (injected)")

    monkeypatch.setattr(files, "write_all", broken)
    with pytest.raises(StorageError, match="the disk is full"):
        append(ledger, note(1))
    monkeypatch.undo()
    with pytest.raises(StorageError, match="the disk is full"):
        append(ledger, note(2))


def test_a_failed_quarantine_poisons_the_ledger_and_cuts_nothing(tmp_path, fsyncs):
    baton = tmp_path / ".baton"
    append(Ledger(baton, "w1", fsync="never"), note(0))
    feed = baton / "ledger" / "w1.jsonl"
    damaged = feed.read_bytes() + b'{"v":1,"id":"half'
    feed.write_bytes(damaged)
    fsyncs.fail_on = ".torn"
    ledger = Ledger(baton, "w1", fsync="never")
    with pytest.raises(StorageError, match="could not quarantine"):
        append(ledger, note(1))
    assert feed.read_bytes() == damaged
    fsyncs.fail_on = None
    with pytest.raises(StorageError, match="could not quarantine"):
        append(ledger, note(2))
    assert feed.read_bytes() == damaged


def test_a_repair_is_synced_even_with_fsync_never(project, fsyncs):
    from baton.app import Baton

    never_project(project)
    [feed] = (project / ".baton" / "ledger").glob("*.jsonl")
    with Baton.open(project) as app:
        app.capture({"work": {"title": "T", "objective": "O"}})
    lines = feed.read_bytes().splitlines(keepends=True)
    lines[-1] = lines[-1].replace(b'"title":"T"', b'"title":"X"')
    feed.write_bytes(b"".join(lines))
    fsyncs.clear()
    with Baton.open(project) as app:
        result = app.repair(yes=True)
    assert result.exit_code == 0
    assert fsyncs.of(".repair") == 1 and fsyncs.of(".manifest.json") == 1
    assert sum(1 for p in fsyncs.synced if p.endswith(".jsonl")) >= 2  # the cut feed, then the recorded repair
