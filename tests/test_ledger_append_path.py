"""What a long-lived writer keeps between appends to make each one cheaper —
the lock file's descriptor, its own feed's descriptor and the ledger
folder's listing — and why none of them can let two writers hold the lock at
once, an append land in a file no longer at the feed's path, or a feed go
unseen."""

from __future__ import annotations

import os
import shutil
import time

import pytest

import baton.ledger.listing as listing
import baton.ledger.store as store
from baton.errors import LedgerBusy
from baton.ledger import EventDraft, Ledger
from baton.ledger.verify import verify_ledger


def note(n: int) -> EventDraft:
    return EventDraft("test.noted", "test/1", {"n": n})


def append(ledger: Ledger, n: int) -> None:
    with ledger.locked() as txn:
        txn.append([note(n)])


def test_the_lock_file_stays_open_between_locks_and_is_closed_with_the_ledger(tmp_path):
    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never")
    append(ledger, 0)
    kept = ledger._lock_fd
    append(ledger, 1)
    assert kept is not None and ledger._lock_fd == kept
    ledger.close()
    assert ledger._lock_fd is None
    append(ledger, 2)  # opened again


def test_a_lock_file_moved_away_between_locks_is_not_locked_again(tmp_path):
    """A project moved and copied back (or a lock file renamed aside): the
    kept descriptor's file still exists, but the path names another one."""
    baton = tmp_path / ".baton"
    first = Ledger(baton, "w1", fsync="never")
    append(first, 0)
    os.rename(baton / "ledger.lock", baton / "ledger.lock.moved")
    (baton / "ledger.lock").write_bytes(b"")
    second = Ledger(baton, "w2", fsync="never")
    with second.locked():
        with pytest.raises(LedgerBusy):
            with first.locked(wait=0.1):
                pass  # pragma: no cover - a lock on the moved file would exclude no one
    append(first, 1)


def test_a_lock_file_deleted_between_locks_is_opened_again_so_both_writers_lock_the_same_file(tmp_path):
    baton = tmp_path / ".baton"
    first = Ledger(baton, "w1", fsync="never")
    append(first, 0)
    (baton / "ledger.lock").unlink()
    second = Ledger(baton, "w2", fsync="never")
    with second.locked():  # creates and locks a new lock file
        with pytest.raises(LedgerBusy):
            with first.locked(wait=0.1):
                pass  # pragma: no cover - a lock on the deleted file would exclude no one
    append(first, 1)
    assert [e.data["n"] for e in first.read_all()] == [0, 1]


def test_a_lock_file_replaced_between_locks_is_opened_again(tmp_path):
    baton = tmp_path / ".baton"
    first = Ledger(baton, "w1", fsync="never")
    append(first, 0)
    replacement = baton / "lock.new"
    replacement.write_bytes(b"")
    os.replace(replacement, baton / "ledger.lock")
    second = Ledger(baton, "w2", fsync="never")
    with second.locked():
        with pytest.raises(LedgerBusy):
            with first.locked(wait=0.1):
                pass  # pragma: no cover


def _rename_aside(baton):
    os.rename(baton / "ledger.lock", baton / "ledger.lock.moved")
    (baton / "ledger.lock").write_bytes(b"")


def _replace(baton):
    (baton / "lock.new").write_bytes(b"")
    os.replace(baton / "lock.new", baton / "ledger.lock")


def _delete(baton):
    (baton / "ledger.lock").unlink()


def _move_project_and_copy_it_back(baton):
    project = baton.parent
    moved = project.with_name("moved")
    os.rename(project, moved)
    shutil.copytree(moved, project)


@pytest.mark.parametrize("change", [_rename_aside, _replace, _delete, _move_project_and_copy_it_back])
def test_a_writer_that_waits_as_long_as_it_takes_locks_the_file_the_lock_path_names_now(tmp_path, change):
    """The blocking lock of a long-lived writer (``locked()`` without
    ``wait``: every append that waits its turn) takes its kept descriptor
    and then checks, with a ``stat`` of the lock file's path, that the path
    still names the file it locked: here it does not (renamed aside,
    replaced, deleted, or the whole project moved away and copied back),
    so it locks the file the path names now, the one every other writer
    locks. Without that ``stat`` it would lock the old file and exclude no
    one (the kept descriptor's file still exists, or is only unlinked)."""
    baton = tmp_path / "project" / ".baton"
    first = Ledger(baton, "w1", fsync="never")
    append(first, 0)
    append(first, 1)
    change(baton)
    with first.locked() as txn:
        with pytest.raises(LedgerBusy):
            with Ledger(baton, "w2", fsync="never").locked(wait=0.1):
                pass  # pragma: no cover - the old file's lock would exclude no one
        txn.append([note(2)])
    events = Ledger(baton, "reader").read_all()
    assert [e.data["n"] for e in events if e.writer == "w1"] == [0, 1, 2]
    assert verify_ledger(first.ledger_dir).ok


def test_a_forked_child_does_not_share_its_parent_s_lock(tmp_path):
    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never")
    append(ledger, 0)
    go_read, go_write = os.pipe()
    answer_read, answer_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the same instance, a copy of what it keeps
        os.close(go_write)
        os.close(answer_read)
        os.read(go_read, 1)  # the parent now holds the lock
        try:
            with ledger.locked(wait=0.2):
                answer = b"taken"
        except LedgerBusy:
            answer = b"busy"
        except BaseException:  # noqa: BLE001 - anything else is reported, never raised in the child
            answer = b"error"
        os.write(answer_write, answer)
        os._exit(0)
    os.close(go_read)
    os.close(answer_write)
    with ledger.locked():
        os.write(go_write, b"x")
        with os.fdopen(answer_read, "rb") as reply:
            answer = reply.read()
    os.close(go_write)
    os.waitpid(pid, 0)
    assert answer == b"busy"
    append(ledger, 1)


def _settle(folder, monkeypatch):
    """Make the ledger folder look unchanged for long enough: its times set in
    the past and the clock moved on (what an idle minute does)."""
    past = time.time_ns() - 3600 * 10**9
    os.utime(folder, ns=(past, past))
    later = time.time_ns() + 2 * listing.SETTLED_NS
    monkeypatch.setattr(listing.time, "time_ns", lambda: later)


class ScanCounter:
    def __init__(self, monkeypatch) -> None:
        self.calls = 0
        real = os.scandir

        def scandir(path):
            self.calls += 1
            return real(path)

        monkeypatch.setattr(listing.os, "scandir", scandir)


def test_a_settled_folder_is_listed_once_while_nothing_is_added(tmp_path, monkeypatch):
    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never")
    append(ledger, 0)
    _settle(ledger.ledger_dir, monkeypatch)
    scans = ScanCounter(monkeypatch)
    for n in range(1, 4):
        append(ledger, n)  # appending to a feed changes no entry of the folder
    assert ledger.feed_names() == ["w1"] and scans.calls == 1


def test_a_feed_added_after_a_reused_listing_is_seen_by_the_next_lock(tmp_path, monkeypatch):
    baton = tmp_path / ".baton"
    ledger = Ledger(baton, "w1", fsync="never")
    append(ledger, 0)
    _settle(ledger.ledger_dir, monkeypatch)
    assert ledger.feed_names() == ["w1"]
    assert ledger.feed_names() == ["w1"]  # reused
    monkeypatch.undo()
    append(Ledger(baton, "w2", fsync="never"), 1)
    with ledger.locked() as txn:
        assert ledger.feed_names() == ["w1", "w2"]
        assert txn.stream_version("test/1") == 2  # w2's event is counted before w1 appends


def test_a_folder_changed_just_now_is_listed_again_at_every_lock(tmp_path, monkeypatch):
    """Within the file system's clock tick an added entry may leave the
    folder's time unchanged: a listing taken before that clock is known to
    have moved past the folder's last change is never reused (here the
    folder's time is ahead of every clock)."""
    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never")
    append(ledger, 0)
    ahead = time.time_ns() + 3600 * 10**9
    os.utime(ledger.ledger_dir, ns=(ahead, ahead))
    scans = ScanCounter(monkeypatch)
    for n in range(1, 4):
        append(ledger, n)
    assert scans.calls == 3


def _clock_past_folder(ledger: Ledger) -> int:
    """Append until the writer's feed shows a change time after the ledger
    folder's (the file system's clock moved past the folder's last change);
    the number of events appended so far."""
    n, feed, deadline = 1, ledger.feed_path(ledger.writer), time.monotonic() + 30
    append(ledger, 0)
    while os.stat(feed).st_ctime_ns <= os.stat(ledger.ledger_dir).st_ctime_ns:
        assert time.monotonic() < deadline, "the file system's clock never moved"
        time.sleep(0.01)
        append(ledger, n)
        n += 1
    return n


def test_a_writer_reuses_its_listing_once_its_own_appends_show_the_clock_past_the_folder_s_change(
        tmp_path, monkeypatch):
    """No wall-clock wait: the change time of a feed seen before a listing,
    later than the folder's, proves the listing was taken after the
    folder's last change had its time."""
    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never")
    n = _clock_past_folder(ledger)
    append(ledger, n)  # its catch-up sees the feed's change time
    append(ledger, n + 1)  # its listing comes after that: reused from now on
    scans = ScanCounter(monkeypatch)
    for k in range(n + 2, n + 5):
        append(ledger, k)
    assert scans.calls == 0


def test_a_reader_polling_feed_stats_reuses_its_listing_once_a_feed_shows_the_clock_past_the_folder_s_change(
        tmp_path, monkeypatch):
    """A long-lived reader (the status page) takes its witness from the
    feeds it stats, without the lock."""
    baton = tmp_path / ".baton"
    _clock_past_folder(Ledger(baton, "w1", fsync="never"))
    reader = Ledger(baton, "reader")
    reader.feed_stats()  # lists, and sees the feed's change time
    reader.feed_stats()  # lists once more, after that: kept
    scans = ScanCounter(monkeypatch)
    assert [s[0] for s in reader.feed_stats()] == ["w1"] and scans.calls == 0


def test_a_feed_added_after_a_listing_reused_on_the_file_system_s_clock_is_seen_by_the_next_lock(tmp_path):
    baton = tmp_path / ".baton"
    ledger = Ledger(baton, "w1", fsync="never")
    n = _clock_past_folder(ledger)
    append(ledger, n)
    append(ledger, n + 1)
    assert ledger._listing.kept is not None  # the listing is being reused
    append(Ledger(baton, "w2", fsync="never"), n + 2)
    with ledger.locked() as txn:
        assert ledger.feed_names() == ["w1", "w2"]
        assert txn.stream_version("test/1") == n + 3


def test_an_append_after_the_feed_was_replaced_between_locks_lands_in_the_new_file(tmp_path):
    """The feed's descriptor is kept between appends; the next lock's
    catch-up sees the path names another file, so the append goes there."""
    baton = tmp_path / ".baton"
    ledger = Ledger(baton, "w1", fsync="never")
    append(ledger, 0)
    feed = baton / "ledger" / "w1.jsonl"
    copy = feed.with_name("copy.tmp")
    copy.write_bytes(feed.read_bytes())
    os.replace(copy, feed)  # what a rewrite does: the kept descriptor now names an orphan
    append(ledger, 1)
    assert [e.data["n"] for e in Ledger(baton, "reader").read_all()] == [0, 1]


def test_an_append_after_a_rewrite_under_the_same_lock_lands_in_the_new_file(tmp_path):
    """A rewrite under the lock (``baton forget``) is followed by ``_forget``
    and a catch-up; the descriptor kept from before is not trusted."""
    baton = tmp_path / ".baton"
    ledger = Ledger(baton, "w1", fsync="never")
    append(ledger, 0)
    feed = baton / "ledger" / "w1.jsonl"
    with ledger.locked() as txn:
        txn.append([note(1)])
        copy = feed.with_name("copy.tmp")
        copy.write_bytes(feed.read_bytes())
        os.replace(copy, feed)
        ledger._forget()
        txn.refresh()
        txn.append([note(2)])
    assert [e.data["n"] for e in Ledger(baton, "reader").read_all()] == [0, 1, 2]



def test_a_kept_lock_file_still_excludes_another_writer_while_held(tmp_path):
    """Two ledgers of one project (two open lock files, as two processes have): while one holds
    the lock — taken a second time on its kept descriptor — the other cannot take it."""
    holder, other = Ledger(tmp_path / ".baton", "w1"), Ledger(tmp_path / ".baton", "w2")
    with holder.locked():
        pass
    with holder.locked():  # the kept descriptor, locked again
        with pytest.raises(LedgerBusy):
            with other.locked(wait=0.05):
                pass


def test_a_released_kept_lock_lets_another_writer_in_at_once(tmp_path):
    holder, other = Ledger(tmp_path / ".baton", "w1"), Ledger(tmp_path / ".baton", "w2")
    for _ in range(2):
        with holder.locked() as txn:
            txn.append([EventDraft("test.noted", "test/1", {"n": 1})])
        with other.locked(wait=0.05) as txn:
            txn.append([EventDraft("test.noted", "test/2", {"n": 2})])


def test_only_jsonl_files_in_the_ledger_folder_are_feeds(tmp_path):
    """A stray file and a folder named like a feed beside the feeds are not read as feeds."""
    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never")
    append(ledger, 0)
    folder = tmp_path / ".baton" / "ledger"
    (folder / "README.md").write_text("notes")
    (folder / "old.jsonl").mkdir()
    again = Ledger(tmp_path / ".baton", "w2", fsync="never")
    append(again, 1)
    assert sorted(p.name for p in folder.iterdir() if p.is_file()) == ["README.md", "w1.jsonl", "w2.jsonl"]
    assert [e.data["n"] for e in again.read_all()] == [0, 1]


class FeedStatCounter:
    """Counts ``stat`` calls on one feed's path."""

    def __init__(self, monkeypatch, feed) -> None:
        self.calls = 0
        real, path = os.stat, str(feed)

        def stat(target, *args, **kwargs):
            self.calls += str(target) == path
            return real(target, *args, **kwargs)

        monkeypatch.setattr(store.os, "stat", stat)


def _settled_writer(baton, writer: str = "w1") -> tuple[Ledger, int]:
    """A writer whose listing is reused and whose feed's path was checked under it; the events so far."""
    ledger = Ledger(baton, writer, fsync="never")
    n = _clock_past_folder(ledger)
    for k in range(n, n + 3):
        append(ledger, k)
    return ledger, n + 3


def test_a_settled_writer_sees_what_another_process_of_the_same_writer_appended_without_a_stat(
        tmp_path, monkeypatch):
    """Its feed's size comes from the descriptor it keeps on it (the path
    still names that file: no entry of the folder changed), and that size
    includes another process's appends to the same file."""
    baton = tmp_path / ".baton"
    ledger, n = _settled_writer(baton)
    append(Ledger(baton, "w1", fsync="never"), n)  # another process, the same writer
    stats = FeedStatCounter(monkeypatch, ledger.feed_path("w1"))
    with ledger.locked() as txn:
        assert txn.stream_version("test/1") == n + 1
        txn.append([note(n + 1)])
    assert stats.calls == 0
    events = Ledger(baton, "reader").read_all()
    assert [e.data["n"] for e in events] == list(range(n + 2))
    assert [e.seq for e in events] == list(range(1, n + 3))
    assert verify_ledger(ledger.ledger_dir).ok


def test_a_settled_writer_s_feed_replaced_between_locks_is_stat_ed_again_and_appended_to_in_the_new_file(
        tmp_path, monkeypatch):
    baton = tmp_path / ".baton"
    ledger, n = _settled_writer(baton)
    feed = ledger.feed_path("w1")
    copy = feed.with_name("copy.tmp")
    copy.write_bytes(feed.read_bytes())
    os.replace(copy, feed)  # the folder's entries changed: its listing and the path are checked again
    stats = FeedStatCounter(monkeypatch, feed)
    append(ledger, n)
    assert stats.calls == 1
    assert [e.data["n"] for e in Ledger(baton, "reader").read_all()] == list(range(n + 1))


def test_a_feed_change_time_ahead_of_the_wall_clock_settles_no_listing(tmp_path, monkeypatch):
    """A change time the kernel's clock has not reached yet (a file system
    that stores times from elsewhere) proves nothing about that clock."""
    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never")
    append(ledger, 0)
    real, ahead = os.stat, time.time_ns() + 3600 * 10**9

    def stat(path, *args, **kwargs):
        st = real(path, *args, **kwargs)
        if not str(path).endswith(".jsonl"):
            return st
        hidden = ("st_atime", "st_mtime", "st_ctime", "st_atime_ns", "st_mtime_ns", "st_blksize", "st_blocks",
                  "st_rdev")
        return os.stat_result(tuple(st), {**{name: getattr(st, name) for name in hidden}, "st_ctime_ns": ahead})

    monkeypatch.setattr(store.os, "stat", stat)
    scans = ScanCounter(monkeypatch)
    for n in range(1, 5):
        append(ledger, n)
    assert scans.calls == 4
