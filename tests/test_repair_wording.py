"""What ``baton verify`` and ``baton repair`` say of a damaged feed reads as
English: no Python ``None`` for a line without a seq, "seq 1" for one event
kept, and one feed named as one feed (review15 F9)."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import run_baton
from tests.ledger_support import own_feed, write

GARBAGE = b"junk, not an event\n"


def _damage(feed: Path, at: int, replace: bool = False) -> None:
    lines = feed.read_bytes().splitlines(keepends=True)
    feed.write_bytes(b"".join(lines[:at] + [GARBAGE] + lines[at + replace:]))


def test_verify_says_a_line_that_does_not_parse_has_no_seq(project):
    write(project, 3)
    _damage(own_feed(project), 2)
    out = run_baton("verify", "--project", str(project)).stdout
    assert "seq None" not in out and "no seq: the line does not parse" in out


def test_a_repair_keeping_one_event_says_seq_1(project):
    write(project, 3)
    _damage(own_feed(project), 1, replace=True)  # seq 2 replaced: seq 1 alone is kept
    out = run_baton("repair", "--dry-run", "--project", str(project)).stdout
    assert "keeping seq 1:" in out and "seq 1-1" not in out


def test_repair_of_one_feed_names_the_other_damaged_feed_in_the_singular(project, tmp_path):
    write(project, 2)
    copy = tmp_path / "copy"
    shutil.copytree(project, copy, symlinks=True)
    first = own_feed(copy)
    write(copy, 2, start=5)  # the copy writes as another writer: a second feed
    second = next(p for p in (copy / ".baton" / "ledger").glob("*.jsonl") if p != first)
    _damage(first, 1)
    _damage(second, 1)
    r = run_baton("repair", "--feed", first.stem, "--yes", "--project", str(copy))
    assert r.returncode == 2
    assert f"feed {second.stem} is damaged too" in r.stderr + r.stdout and "feeds " not in r.stderr + r.stdout



def test_an_event_moved_down_by_a_pasted_line_is_not_called_another_event(project, tmp_path):
    write(project, 7)
    copy = tmp_path / "copy"
    shutil.copytree(project, copy, symlinks=True)
    first = own_feed(copy)
    write(copy, 1, start=20)  # the copy writes as another writer: a second feed
    second = next(p for p in (copy / ".baton" / "ledger").glob("*.jsonl") if p != first)
    lines = first.read_bytes().splitlines(keepends=True)
    # a teammate's event line pasted into the first feed: the events after it only move down
    first.write_bytes(b"".join(lines[:3] + [second.read_bytes().splitlines(keepends=True)[0]] + lines[3:]))
    out = run_baton("repair", "--dry-run", "--project", str(copy)).stdout
    assert "keeping seq 1-8" in out and "holds another event" not in out
