"""Catch-up costs what the feeds gained, not what they hold.

A new process (a new ``Project``) with a warm index starts its ledger from the
index's cursors: it reads the one line at each cursor (to check the feed is
still the one folded) and the bytes appended since — once, for the ledger and
the projections together — and folds its own append without reading it back.
A long-lived ``Project`` does the same on every request. Every byte a
``Ledger`` reads from a feed goes through ``Ledger._read_range``; the
``CountingLedger`` here counts them.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from baton.commands.context import Project
from baton.errors import LedgerCorrupt, StreamVersionConflict
from baton.ledger import EventDraft, Ledger
from baton.projections.until import Until

START_NS = 1_700_000_000_000_000_000


class CountingLedger(Ledger):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.reads: list[tuple[str, int, int]] = []

    def _read_range(self, path, start, size=None):
        raw = super()._read_range(path, start, size)
        self.reads.append((Path(path).stem, start, len(raw)))
        return raw

    @property
    def bytes_read(self) -> int:
        return sum(n for _, _, n in self.reads)


def ticking(start: int):
    ticks = itertools.count(start, 1_000)
    return lambda: next(ticks)


def counting_project(root: Path) -> Project:
    """A ``Project`` as a new process opens it, its ledger instrumented."""
    opened = Project.open(root)
    opened._ledger = CountingLedger(opened.paths.baton_dir, opened.writer, fsync="never", clock=opened.clock)
    return opened


def note(stream: str, n: int) -> EventDraft:
    return EventDraft("test.noted", stream, {"n": n, "text": "a realistic few hundred bytes of payload " * 6})


def other_writer(project: Path, name: str) -> Ledger:
    return Ledger(project / ".baton", name, fsync="never")


def append(ledger: Ledger, drafts) -> list:
    with ledger.locked() as txn:
        return txn.append(drafts)


def feed_size(project: Path, writer: str) -> int:
    return os.path.getsize(project / ".baton" / "ledger" / f"{writer}.jsonl")


def last_line(project: Path, writer: str) -> int:
    return len((project / ".baton" / "ledger" / f"{writer}.jsonl").read_bytes().splitlines(keepends=True)[-1])


@pytest.fixture
def warm(project):
    """A project whose three feeds hold 600 events, all folded into the index."""
    opened = Project.open(project)
    with opened.writing() as scope:
        for n in range(200):
            scope.append([note(f"s/{n % 5}", n)])
    opened.close()
    for name in ("beta", "gamma"):
        append(other_writer(project, name), [note(f"s/{n % 5}", n) for n in range(200)])
    opened = Project.open(project)
    opened.reading()
    opened.close()
    return project


def feeds(project: Path) -> list[str]:
    return sorted(p.stem for p in (project / ".baton" / "ledger").glob("*.jsonl"))


def test_a_new_process_reads_only_the_new_bytes_and_the_line_at_each_cursor(warm):
    total = sum(feed_size(warm, f) for f in feeds(warm))
    before = {f: feed_size(warm, f) for f in feeds(warm)}
    append(other_writer(warm, "beta"), [note("s/1", 1000), note("s/2", 1001)])
    appended = feed_size(warm, "beta") - before["beta"]
    opened = counting_project(warm)
    ledger = opened.ledger
    cursor_lines = {f: c.line for f, c in opened.runner.cursors().items()}

    with opened.writing() as scope:
        caught_up = ledger.bytes_read
        version = scope.txn.stream_version("s/1")
        [event] = scope.append([note("s/1", 2000)], expected={"s/1": version})

    assert ledger.bytes_read == caught_up, "the append was read back"
    assert caught_up == appended + sum(cursor_lines.values())
    assert caught_up < total / 20
    assert sorted(ledger.reads) == sorted(
        [(f, before[f] - cursor_lines[f], cursor_lines[f]) for f in feeds(warm)] + [("beta", before["beta"], appended)])
    runner = opened.reading()
    assert runner.get("streams", "s/1")["version"] == event.stream_version == 122
    assert runner.get("event_counts", "test.noted")["count"] == 603
    assert runner.cursors()[opened.writer] == ledger.cursors()[opened.writer]
    opened.close()


def test_a_long_lived_project_reads_only_what_each_request_finds_new(warm):
    opened = counting_project(warm)
    ledger = opened.ledger
    opened.reading()
    beta = other_writer(warm, "beta")
    for round_ in range(3):
        size = feed_size(warm, "beta")
        append(beta, [note("s/3", 3000 + round_)])
        grown = feed_size(warm, "beta") - size
        lines = sum(c.line for c in opened.runner.cursors().values())
        ledger.reads.clear()

        runner = opened.reading()

        assert [r for r in ledger.reads if r[0] == "beta" and r[1] >= size] == [("beta", size, grown)]
        assert ledger.bytes_read == grown + lines
        lines = sum(c.line for c in opened.runner.cursors().values())
        ledger.reads.clear()
        with opened.writing() as scope:
            scope.append([note("s/4", 4000 + round_)], expected={"s/4": scope.txn.stream_version("s/4")})
        assert ledger.bytes_read == lines  # the checks at the cursors; nothing new, nothing read back
    assert runner.get("streams", "s/3")["version"] == 123
    assert opened.reading().get("streams", "s/4")["version"] == 123
    opened.close()


def test_a_seeded_ledger_knows_versions_the_index_has_not_folded_yet(warm):
    gamma = other_writer(warm, "gamma")
    [late] = append(gamma, [note("s/0", 5000)])  # written after the index's cursors
    opened = counting_project(warm)

    with pytest.raises(StreamVersionConflict):
        with opened.writing() as scope:
            scope.append([note("s/0", 1)], expected={"s/0": late.stream_version - 1})
    with opened.writing() as scope:
        assert scope.txn.stream_version("s/0") == late.stream_version == 121
        assert scope.txn.stream_version("never/seen") == 0
        [mine] = scope.append([note("s/0", 2)], expected={"s/0": 121})
    assert mine.stream_version == 122
    opened.close()


def test_a_feed_rewritten_in_place_under_a_warm_index_makes_the_new_process_rebuild(warm):
    feed = warm / ".baton" / "ledger" / "gamma.jsonl"
    elsewhere = warm.parent / "elsewhere" / ".baton"
    append(Ledger(elsewhere, "gamma", fsync="never", clock=ticking(START_NS)),
           [note(f"s/{n % 5}/elsewhere", n) for n in range(200)])
    other = (elsewhere / "ledger" / "gamma.jsonl").read_bytes()
    assert len(other) > feed.stat().st_size
    inode = feed.stat().st_ino
    with open(feed, "r+b") as fh:  # same inode, no shorter, another history: only the cursor's line tells
        fh.write(other)
    assert feed.stat().st_ino == inode
    opened = counting_project(warm)
    cursor = opened.runner.cursors()["gamma"]

    with opened.ledger.locked():
        done = opened.runner.catch_up()

    assert done.rebuilt and "gamma changed other than by appending" in done.reason
    assert ("gamma", cursor.head.offset - cursor.line, cursor.line) in opened.ledger.reads
    assert opened.runner.cursors()["gamma"].head.hash == Ledger(elsewhere, "r").read_feed("gamma").head.hash
    assert opened.runner.get("event_counts", "test.noted")["count"] == 600
    assert opened.runner.get("streams", "s/0/elsewhere")["version"] == 40
    opened.close()


def test_a_long_lived_project_rebuilds_when_a_feed_is_rewritten_in_place_between_requests(warm):
    opened = counting_project(warm)
    opened.reading()
    feed = warm / ".baton" / "ledger" / "gamma.jsonl"
    elsewhere = warm.parent / "elsewhere" / ".baton"
    append(Ledger(elsewhere, "gamma", fsync="never", clock=ticking(START_NS)),
           [note(f"s/{n % 5}/elsewhere", n) for n in range(201)])
    with open(feed, "r+b") as fh:  # same inode, longer: the old cursor now points into the middle of a line
        fh.write((elsewhere / "ledger" / "gamma.jsonl").read_bytes())

    with opened.ledger.locked():
        done = opened.runner.catch_up()

    assert done.rebuilt and "gamma changed other than by appending" in done.reason
    assert opened.runner.get("streams", "s/0/elsewhere")["version"] == 41
    with opened.writing() as scope:
        assert scope.txn.stream_version("s/0/elsewhere") == 41
    opened.close()


def test_a_cursor_line_that_no_longer_hashes_as_recorded_is_found_and_reported_as_corruption(warm):
    feed = warm / ".baton" / "ledger" / "beta.jsonl"
    raw = feed.read_bytes()
    last = raw.splitlines(keepends=True)[-1]
    changed = last.replace(b'"test.noted"', b'"test.noteD"')  # a hashed field, same length, same inode
    assert changed != last and len(changed) == len(last)
    with open(feed, "r+b") as fh:
        fh.seek(len(raw) - len(last))
        fh.write(changed)
    opened = counting_project(warm)

    with pytest.raises(LedgerCorrupt) as caught:
        with opened.ledger.locked():
            opened.runner.catch_up()

    # A whole, newline-terminated line that fails its hash is corruption even
    # as the last line: never a torn tail that readers would leave out.
    assert caught.value.details["feed"] == "beta" and caught.value.details["kind"] == "bad_hash"
    assert caught.value.details["offset"] == len(raw) - len(last)
    opened.close()


def test_a_seed_is_withdrawn_when_another_process_rebuilds_the_index(warm):
    mine = counting_project(warm)
    mine.reading()  # seeded from the index as it was
    theirs = Project.open(warm)
    with theirs.ledger.locked():
        pinned = theirs.runner.rebuild(until=Until.parse(theirs.ledger.read_all()[9].id))
    assert pinned.events == 10 and theirs.runner.get("streams", "s/3")["version"] == 2

    with mine.ledger.locked() as txn:  # the index now folds far less than the seed said
        assert txn.stream_version("s/3") == 120

    with theirs.ledger.locked():
        theirs.runner.rebuild()
    theirs.close()
    append(other_writer(warm, "beta"), [note("s/2", 7000)])
    with mine.writing() as scope:
        assert scope.txn.stream_version("s/2") == 121
        scope.append([note("s/2", 7001)], expected={"s/2": 121})
    assert mine.reading().get("streams", "s/2")["version"] == 122
    mine.close()


def test_a_pin_inside_the_lock_does_not_mislead_the_versions_the_ledger_reports(warm):
    opened = counting_project(warm)
    with opened.writing() as scope:
        assert scope.txn.stream_version("s/1") == 120
        opened.runner.rebuild(until=Until.parse(opened.ledger.read_all()[0].id))
        assert opened.runner.get("streams", "s/2") is None
        assert (scope.txn.stream_version("s/1"), scope.txn.stream_version("s/2")) == (120, 120)
    opened.close()


def test_a_long_lived_project_reading_again_with_nothing_new_reads_no_byte_and_takes_no_lock(warm):
    opened = counting_project(warm)
    opened.reading()
    ledger = opened.ledger
    ledger.reads.clear()
    taken = []
    locked = ledger.locked
    ledger.locked = lambda: (taken.append(1), locked())[1]

    runner = opened.reading()

    assert ledger.bytes_read == 0 and taken == []
    assert runner.get("event_counts", "test.noted")["count"] == 600
    opened.close()


def test_a_long_lived_project_folds_what_another_writer_appended_after_a_quiet_reading(warm):
    opened = counting_project(warm)
    opened.reading()
    opened.reading()  # quiet: nothing new
    append(other_writer(warm, "beta"), [note("s/3", 3000)])

    runner = opened.reading()

    assert runner.get("streams", "s/3")["version"] == 121
    opened.close()


def test_a_long_lived_project_finds_a_cursor_line_edited_in_place_after_a_quiet_reading(warm):
    opened = counting_project(warm)
    opened.reading()
    feed = warm / ".baton" / "ledger" / "beta.jsonl"
    raw = feed.read_bytes()
    last = raw.splitlines(keepends=True)[-1]
    changed = last.replace(b'"test.noted"', b'"test.noteD"')  # same size, same inode: only the bytes differ
    with open(feed, "r+b") as fh:
        fh.seek(len(raw) - len(last))
        fh.write(changed)

    with pytest.raises(LedgerCorrupt):
        opened.reading()
    opened.close()


def _counter():
    """A question whose answer counts how often it was computed."""
    calls = []

    def count() -> int:
        calls.append(1)
        return len(calls)
    return count


def test_a_remembered_answer_is_computed_again_once_another_process_changes_the_index(warm):
    opened = Project.open(warm)
    opened.reading()
    count = _counter()
    assert opened.runner.memo("question", count) == opened.runner.memo("question", count) == 1
    append(other_writer(warm, "beta"), [note("s/3", 3000)])
    theirs = Project.open(warm)
    theirs.reading()  # another connection folds the new event into the shared index
    theirs.close()

    assert opened.runner.memo("question", count) == 2
    opened.close()


def test_a_remembered_answer_is_computed_again_after_this_process_writes(warm):
    opened = Project.open(warm)
    opened.reading()
    count = _counter()
    assert opened.runner.memo("question", count) == 1
    with opened.writing() as scope:
        scope.append([note("s/4", 4000)])

    assert opened.runner.memo("question", count) == 2
    opened.close()
