"""A copied, moved or restored project keeps its index (issue 27 item 4).

The index's cursors name a feed by content — the feed is no shorter and the
line at the cursor still hashes as recorded, a hash that chains every line
before it — not by the file's inode. So the first command in a copy of a
project reads only the line at each cursor and rebuilds nothing, while a feed
replaced by another history is still found and replayed.
"""

from __future__ import annotations

import itertools
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from baton.commands.context import Project
from baton.ledger import EventDraft, Ledger
from tests.cli_support import run_json

START_NS = 1_700_000_000_000_000_000


class CountingLedger(Ledger):
    """Every byte a ``Ledger`` reads from a feed goes through ``_read_range``."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.bytes_read = 0

    def _read_range(self, path, start, size=None):
        raw = super()._read_range(path, start, size)
        self.bytes_read += len(raw)
        return raw


def note(stream: str, n: int) -> EventDraft:
    return EventDraft("test.noted", stream, {"n": n, "text": "a realistic few hundred bytes of payload " * 6})


def append(ledger: Ledger, drafts) -> None:
    with ledger.locked() as txn:
        txn.append(drafts)


def generation(project: Path) -> str:
    """The index's generation: a new one is written by every rebuild (and only then)."""
    conn = sqlite3.connect(project / ".baton" / "index.sqlite")
    try:
        return conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0]
    finally:
        conn.close()


def inodes(project: Path) -> dict[str, int]:
    return {p.stem: p.stat().st_ino for p in (project / ".baton" / "ledger").glob("*.jsonl")}


@pytest.fixture
def warm(project):
    """A project with two feeds of 300 events, all folded into the index."""
    opened = Project.open(project)
    with opened.writing() as scope:
        for n in range(150):
            scope.append([note(f"s/{n % 5}", n)])
    opened.close()
    ticks = itertools.count(START_NS, 1_000)
    append(Ledger(project / ".baton", "beta", fsync="never", clock=lambda: next(ticks)),
           [note(f"s/{n % 5}/beta", n) for n in range(150)])
    opened = Project.open(project)
    opened.reading()
    opened.close()
    return project


def copied(project: Path) -> Path:
    target = project.parent / "copy" / project.name
    shutil.copytree(project, target)
    assert set(inodes(target).values()).isdisjoint(inodes(project).values())
    return target


def open_counting(root: Path) -> Project:
    opened = Project.open(root)
    opened._ledger = CountingLedger(opened.paths.baton_dir, opened.writer, fsync="never", clock=opened.clock)
    return opened


def test_the_first_catch_up_in_a_copied_project_reads_only_the_line_at_each_cursor_and_rebuilds_nothing(warm):
    copy = copied(warm)
    opened = open_counting(copy)
    cursors = opened.runner.cursors()

    with opened.ledger.locked():
        done = opened.runner.catch_up()

    assert not done.rebuilt and done.events == 0
    assert opened.ledger.bytes_read == sum(c.line for c in cursors.values())
    assert opened.runner.get("event_counts", "test.noted")["count"] == 300
    opened.close()


def test_a_command_in_a_copied_project_keeps_the_index_it_was_copied_with(warm, capsys):
    before = generation(warm)
    copy = copied(warm)

    listed = run_json(capsys, copy, "handoff", "list")

    assert listed is not None
    assert generation(copy) == before, "the copy's first command rebuilt the index"


def test_a_feed_replaced_by_a_copy_of_its_own_bytes_keeps_the_index(warm):
    feed = warm / ".baton" / "ledger" / "beta.jsonl"
    spare = feed.with_name("beta.tmp")
    shutil.copy(feed, spare)
    inode = feed.stat().st_ino
    os.replace(spare, feed)  # a restore from a backup: another file, the same bytes
    assert feed.stat().st_ino != inode
    before = generation(warm)
    opened = open_counting(warm)

    with opened.ledger.locked():
        done = opened.runner.catch_up()

    assert not done.rebuilt
    opened.close()
    assert generation(warm) == before


def test_a_feed_replaced_by_another_history_in_a_copied_project_is_still_found_and_replayed(warm):
    copy = copied(warm)
    elsewhere = warm.parent / "elsewhere" / ".baton"
    ticks = itertools.count(START_NS + 7, 1_000)
    append(Ledger(elsewhere, "beta", fsync="never", clock=lambda: next(ticks)),
           [note(f"s/{n % 5}/elsewhere", n) for n in range(200)])
    feed = copy / ".baton" / "ledger" / "beta.jsonl"
    other = elsewhere / "ledger" / "beta.jsonl"
    assert other.stat().st_size > feed.stat().st_size  # no shorter: only the line at the cursor tells
    spare = feed.with_name("beta.tmp")
    shutil.copy(other, spare)
    os.replace(spare, feed)
    before = generation(copy)
    opened = open_counting(copy)

    with opened.ledger.locked():
        done = opened.runner.catch_up()

    assert done.rebuilt and "beta changed other than by appending" in done.reason
    assert opened.runner.get("streams", "s/0/elsewhere")["version"] == 40
    assert opened.runner.get("event_counts", "test.noted")["count"] == 350
    opened.close()
    assert generation(copy) != before


def test_a_long_lived_project_reads_a_feed_replaced_by_another_history_as_a_rewrite_not_as_appended_lines(warm):
    opened = Project.open(warm)
    opened.reading()
    elsewhere = warm.parent / "elsewhere" / ".baton"
    ticks = itertools.count(START_NS + 7, 1_000)
    append(Ledger(elsewhere, "beta", fsync="never", clock=lambda: next(ticks)),
           [note(f"s/{n % 5}/elsewhere", n) for n in range(201)])
    feed = warm / ".baton" / "ledger" / "beta.jsonl"
    spare = feed.with_name("beta.tmp")
    shutil.copy(elsewhere / "ledger" / "beta.jsonl", spare)
    os.replace(spare, feed)  # longer, another file: what follows the old cursor does not chain to it

    with opened.ledger.locked():
        done = opened.runner.catch_up()

    assert done.rebuilt
    assert opened.runner.get("streams", "s/0/elsewhere")["version"] == 41
    assert opened.runner.get("streams", "s/0/beta") is None
    opened.close()
