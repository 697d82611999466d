"""``baton sync`` on a full disk (review18 V5): refused before anything is fetched
like every other writing command (``disk_full``), and a write the disk refuses
midway — the remote's feed staged in ``.baton/sync-incoming/``, or the imported
bytes appended to a teammate's feed — takes back what it wrote (no ``.part`` left,
no torn tail) and says the disk is full and what to do. docs/ledger.md, "A full disk".

The disk is made full by fault injection here (a write failing with ENOSPC part way,
as a real full disk fails it); tests/test_disk_full.py fills a real tmpfs."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import baton.sync.importing as importing
from baton.ledger import files
from tests.cli_support import run_json
from tests.sync_support import checkpoint, make_team, writer_of


def _team_with_news(capsys, tmp_path: Path) -> tuple[Path, Path, Path]:
    """(a, b, a's feed on b): both synced once, then a records two handoffs and syncs them."""
    _remote, a, b = make_team(tmp_path)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    checkpoint(capsys, a, "News 1")
    checkpoint(capsys, a, "News 2")
    run_json(capsys, a, "sync")
    return a, b, b / ".baton" / "ledger" / f"{writer_of(a)}.jsonl"


def _incoming(project: Path) -> list[str]:
    folder = project / ".baton" / "sync-incoming"
    return sorted(os.listdir(folder)) if folder.is_dir() else []


def test_sync_on_a_full_disk_is_refused_before_it_fetches_anything(capsys, tmp_path, monkeypatch):
    _a, b, feed = _team_with_news(capsys, tmp_path)
    before = feed.read_bytes()
    monkeypatch.setattr(files, "disk_full", lambda path: f"the disk holding {path} is full (0 bytes free)")
    refused = run_json(capsys, b, "sync", expect=1)
    assert refused["error"]["code"] == "disk_full"
    assert "sync imports and records events and cannot run" in refused["error"]["message"]
    assert "free space on that disk" in refused["error"]["message"]
    assert feed.read_bytes() == before and _incoming(b) == []


def test_a_sync_whose_import_the_disk_refuses_midway_leaves_no_torn_tail(capsys, tmp_path, monkeypatch):
    _a, b, feed = _team_with_news(capsys, tmp_path)
    before = feed.read_bytes()

    def half_then_full(fd, data):  # the disk fills after half the bytes are written
        os.write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files, "write_all", half_then_full)
    refused = run_json(capsys, b, "sync", expect=1)
    assert refused["error"]["code"] == "disk_full"
    assert refused["error"]["message"].startswith(f"the disk holding {b / '.baton'} is full: sync could not write")
    assert "free space on that disk" in refused["error"]["message"]
    assert feed.read_bytes() == before and _incoming(b) == []
    monkeypatch.undo()  # room again: the next sync imports everything
    run_json(capsys, b, "sync")
    assert b"News 2" in feed.read_bytes()
    assert run_json(capsys, b, "verify")["ok"]


class _FillsUp:
    """A file whose writes fail with ENOSPC once ``room`` bytes are written (a full disk)."""

    def __init__(self, real, room: int) -> None:
        self.real, self.room = real, room

    def write(self, data: bytes) -> int:
        if len(data) > self.room:
            self.real.write(data[: self.room])
            self.real.flush()
            raise OSError(errno.ENOSPC, "No space left on device")
        self.room -= len(data)
        return self.real.write(data)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.real.close()


def test_a_sync_whose_staging_the_disk_refuses_leaves_no_part_file(capsys, tmp_path, monkeypatch):
    _a, b, feed = _team_with_news(capsys, tmp_path)
    before = feed.read_bytes()
    monkeypatch.setattr(importing, "open", lambda path, mode="r": _FillsUp(open(path, mode), 100), raising=False)
    refused = run_json(capsys, b, "sync", expect=1)
    assert refused["error"]["code"] == "disk_full"
    assert "sync could not write the remote's feed" in refused["error"]["message"]
    assert feed.read_bytes() == before and _incoming(b) == []
