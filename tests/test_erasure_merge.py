"""Two copies of one feed that differ by erased payloads (``baton.ledger.erase.merge_erasures``, docs/sync.md)."""

from __future__ import annotations

import itertools

import pytest

from baton.ledger.envelope import EventDraft
from baton.ledger.erase import NotAnErasure, erase_lines, merge_erasures
from baton.ledger.store import Ledger


@pytest.fixture
def feed(tmp_path) -> tuple[bytes, list[str]]:
    ticks = itertools.count(1_700_000_000_000_000_000, 1_000)
    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never", clock=lambda: next(ticks))
    with ledger.locked() as txn:
        events = txn.append([EventDraft("note.added", f"note/{n}", {"text": f"payload number {n}"})
                             for n in range(4)])
    ledger.close()
    return (tmp_path / ".baton" / "ledger" / "w1.jsonl").read_bytes(), [e.id for e in events]


def test_a_copy_with_a_forgotten_payload_erased_merges_into_the_erased_lines(feed):
    raw, ids = feed
    erased, _ = erase_lines(raw, frozenset([ids[1]]))
    merge = merge_erasures(raw, erased, {ids[1]})
    assert merge.data == erased
    assert merge.erased_in_ours == (ids[1],) and merge.erased_in_theirs == ()
    assert merge.erased_payloads == ({"text": "payload number 1"},)


def test_erasures_on_both_sides_are_united_and_the_longer_copys_lines_follow(feed):
    raw, ids = feed
    lines = raw.splitlines(keepends=True)
    ours, _ = erase_lines(b"".join(lines[:3]), frozenset([ids[0]]))
    theirs, _ = erase_lines(raw, frozenset([ids[2]]))
    merge = merge_erasures(ours, theirs, {ids[0], ids[2]})
    assert merge.data == erase_lines(raw, frozenset([ids[0], ids[2]]))[0]
    assert merge.erased_in_ours == (ids[2],) and merge.erased_in_theirs == (ids[0],)
    assert (merge.ours_lines, merge.theirs_lines) == (3, 4)


def test_an_erasure_no_forget_names_is_not_merged(feed):
    raw, ids = feed
    erased, _ = erase_lines(raw, frozenset([ids[3]]))
    with pytest.raises(NotAnErasure) as caught:
        merge_erasures(raw, erased, {ids[0]})
    assert caught.value.unnamed is True and caught.value.side == "theirs" and caught.value.seq == 4


def test_a_changed_payload_is_not_an_erasure(feed):
    raw, ids = feed
    changed = raw.replace(b"payload number 2", b"payload number X")
    with pytest.raises(NotAnErasure) as caught:
        merge_erasures(raw, changed, set(ids))
    assert caught.value.unnamed is False and caught.value.seq == 3


def test_an_erased_line_whose_other_fields_changed_is_not_an_erasure(feed):
    raw, ids = feed
    erased, _ = erase_lines(raw, frozenset([ids[1]]))
    tampered = erased.replace(b'"stream":"note/1"', b'"stream":"note/9"')
    with pytest.raises(NotAnErasure) as caught:
        merge_erasures(raw, tampered, set(ids))
    assert caught.value.unnamed is False
