"""A long-lived ``Ledger`` instance: what it caches must never outlive the files."""

from __future__ import annotations

import os
import shutil

import pytest

from baton.errors import StreamVersionConflict
from baton.ledger import EventDraft, Ledger
from baton.ledger.verify import verify_ledger


def note(stream="s", **data):
    return EventDraft("test.noted", stream, data)


def test_an_append_after_the_feed_file_was_replaced_lands_in_the_new_file(tmp_path):
    baton = tmp_path / ".baton"
    ledger = Ledger(baton, "w1", fsync="never")
    with ledger.locked() as txn:
        txn.append([note(n=1)])
    feed = ledger.feed_path("w1")
    copy = feed.with_name("copy.tmp")
    shutil.copy(feed, copy)
    old_inode = os.stat(feed).st_ino
    os.replace(copy, feed)  # e.g. an erasing rewrite, or a sync that replaced the file
    assert os.stat(feed).st_ino != old_inode

    with ledger.locked() as txn:
        txn.append([note(n=2)])

    assert [e.data["n"] for e in Ledger(baton, "reader").read_all()] == [1, 2]
    assert verify_ledger(baton / "ledger").ok


def test_a_long_lived_writer_sees_what_another_process_appended_since(tmp_path):
    baton = tmp_path / ".baton"
    mine, theirs = Ledger(baton, "mine", fsync="never"), Ledger(baton, "theirs", fsync="never")
    with mine.locked() as txn:
        txn.append([note("claim/x", n=1)], expected={"claim/x": 0})
    with theirs.locked() as txn:
        txn.append([note("claim/x", n=2)], expected={"claim/x": 1})

    with pytest.raises(StreamVersionConflict):
        with mine.locked() as txn:
            txn.append([note("claim/x", n=3)], expected={"claim/x": 1})
    with mine.locked() as txn:
        [event] = txn.append([note("claim/x", n=3)], expected={"claim/x": 2})
    assert event.stream_version == 3 and event.seq == 2


def test_a_writer_rereads_everything_when_a_feed_shrank_under_it(tmp_path):
    baton = tmp_path / ".baton"
    writer = Ledger(baton, "w1", fsync="never")
    other = Ledger(baton, "w2", fsync="never")
    with other.locked() as txn:
        txn.append([note("s", n=1)])
        txn.append([note("s", n=2)])
    with writer.locked() as txn:
        assert txn.stream_version("s") == 2
    feed = other.feed_path("w2")
    feed.write_bytes(feed.read_bytes().splitlines(keepends=True)[0])

    with writer.locked() as txn:
        assert txn.stream_version("s") == 1


def test_a_writer_forgets_the_events_of_a_feed_that_disappeared(tmp_path):
    baton = tmp_path / ".baton"
    writer, other = Ledger(baton, "w1", fsync="never"), Ledger(baton, "w2", fsync="never")
    with other.locked() as txn:
        txn.append([note("s", n=1)])
    with writer.locked() as txn:
        assert txn.stream_version("s") == 1
    other.feed_path("w2").unlink()

    with writer.locked() as txn:
        assert txn.stream_version("s") == 0
        txn.append([note("s", n=2)], expected={"s": 0})



def test_threads_sharing_one_instance_take_turns_under_its_lock(tmp_path):
    import threading

    baton = tmp_path / ".baton"
    ledger = Ledger(baton, "w1", fsync="never")
    failures = []

    def work(k):
        try:
            for i in range(40):
                with ledger.locked() as txn:
                    version = txn.stream_version("s")
                    txn.append([note("s", k=k, i=i)], expected={"s": version})
        except Exception as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert failures == []
    events = Ledger(baton, "reader").read_all()
    assert [e.stream_version for e in events] == list(range(1, 161))
    assert [e.seq for e in events] == list(range(1, 161))
    assert verify_ledger(baton / "ledger").ok
