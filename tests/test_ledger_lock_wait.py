"""``Ledger.locked(wait=...)``: a bounded wait for the write lock, for callers
that must never hang (the MCP server, the harness hooks)."""

from __future__ import annotations

import fcntl
import os
import threading

import pytest

from baton.errors import LedgerBusy
from baton.ledger import EventDraft, Ledger
from baton.ledger.memory import MemoryLedger


@pytest.fixture
def ledger(tmp_path):
    return Ledger(tmp_path / ".baton", "w1", fsync="never")


def _held_elsewhere(ledger):
    """The lock file flocked through another open file description (as another process would)."""
    ledger.ledger_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(ledger.lock_path, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def test_a_free_lock_is_taken_within_the_wait_and_appends(ledger):
    with ledger.locked(wait=0) as txn:
        txn.append([EventDraft("test.appended", "test/1", {})])
    assert [e.type for e in ledger.read_all()] == ["test.appended"]


def test_a_lock_held_elsewhere_gives_up_with_ledger_busy_and_leaves_it_usable(ledger):
    fd = _held_elsewhere(ledger)
    try:
        with pytest.raises(LedgerBusy) as caught:
            with ledger.locked(wait=0.1):
                pytest.fail("the lock was held by another holder")
        assert caught.value.code == "ledger_busy" and "0.1 s" in caught.value.message
    finally:
        os.close(fd)
    with ledger.locked(wait=1) as txn:  # released: the next taker gets it
        txn.append([EventDraft("test.appended", "test/1", {})])
    assert len(ledger.read_all()) == 1


def test_a_wait_longer_than_a_thread_lock_may_be_given_waits_as_long_as_it_takes(ledger):
    with ledger.locked(wait=1e12) as txn:  # past threading.TIMEOUT_MAX: no OverflowError
        txn.append([EventDraft("test.appended", "test/1", {})])
    assert len(ledger.read_all()) == 1


def test_a_held_lock_taken_when_it_is_let_go_within_the_wait(ledger):
    fd = _held_elsewhere(ledger)
    threading.Timer(0.2, os.close, [fd]).start()
    with ledger.locked(wait=30) as txn:
        txn.append([EventDraft("test.appended", "test/1", {})])
    assert len(ledger.read_all()) == 1


def test_another_thread_holding_the_instance_makes_a_bounded_taker_give_up(ledger):
    inside, release = threading.Event(), threading.Event()

    def hold():
        with ledger.locked():
            inside.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert inside.wait(30)
        with pytest.raises(LedgerBusy):
            with ledger.locked(wait=0.05):
                pass
    finally:
        release.set()
        holder.join(30)


def test_the_holder_itself_reenters_whatever_the_wait(ledger):
    with ledger.locked(wait=0):
        with ledger.locked(wait=0) as inner:
            inner.append([EventDraft("test.appended", "test/1", {})])
    assert len(ledger.read_all()) == 1


def test_the_memory_ledger_bounds_its_wait_the_same_way():
    ledger = MemoryLedger("w1")
    inside, release = threading.Event(), threading.Event()

    def hold():
        with ledger.locked():
            inside.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert inside.wait(30)
        with pytest.raises(LedgerBusy):
            with ledger.locked(wait=0.05):
                pass
    finally:
        release.set()
        holder.join(30)
    with ledger.locked(wait=0) as txn:
        txn.append([EventDraft("test.appended", "test/1", {})])


def test_a_lock_held_past_the_wait_says_its_reason_and_its_advice_apart(ledger):
    fd = _held_elsewhere(ledger)
    try:
        with pytest.raises(LedgerBusy) as caught:
            with ledger.locked(wait=0.1):
                pytest.fail("the lock was held by another holder")
    finally:
        os.close(fd)
    busy = caught.value
    assert busy.reason == "the ledger stayed locked by another process for 0.1 s"
    assert busy.advice == LedgerBusy.TRY_AGAIN
    assert busy.message == f"{busy.reason}; {busy.advice}"


def test_a_busy_error_without_advice_says_only_its_reason():
    busy = LedgerBusy("the ledger stayed locked: a process of its own waits for it", details={"deferred": "x"})
    assert busy.message == busy.reason and busy.advice is None and busy.details == {"deferred": "x"}


def test_the_reason_of_a_busy_line_another_process_logged_leaves_out_its_advice_and_what_follows():
    said = (f"the ledger stayed locked by another process for 600 s; {LedgerBusy.TRY_AGAIN}; 1 kept hook "
            "still waits in .baton/deferred/")
    assert LedgerBusy.reason_of(said) == "the ledger stayed locked by another process for 600 s"
    assert LedgerBusy.reason_of("the feed is damaged") == "the feed is damaged"
