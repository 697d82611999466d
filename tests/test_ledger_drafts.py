"""A malformed draft is refused before anything is sealed or written — on
both ledgers, alone or inside a batch — so no line a reader would reject (and
lose) is ever acknowledged."""

from __future__ import annotations

import pytest

from baton.errors import EnvelopeError
from baton.ledger import EventDraft, Ledger
from baton.ledger.memory import MemoryLedger

BAD_DRAFTS = {
    "empty type": EventDraft("", "note/1", {"n": 0}),
    "type not a string": EventDraft(7, "note/1", {"n": 0}),
    "empty stream": EventDraft("note.added", "", {"n": 0}),
    "stream not a string": EventDraft("note.added", None, {"n": 0}),
    "schema not an integer": EventDraft("note.added", "note/1", {"n": 0}, schema="1"),
    "schema a boolean": EventDraft("note.added", "note/1", {"n": 0}, schema=True),
    "actor not a string": EventDraft("note.added", "note/1", {"n": 0}, actor=5),
    "session not a string": EventDraft("note.added", "note/1", {"n": 0}, session=["s"]),
}
MESSAGES = {
    "empty type": "an event type must be a non-empty string",
    "type not a string": "an event type must be a non-empty string",
    "empty stream": "an event stream must be a non-empty string",
    "stream not a string": "an event stream must be a non-empty string",
    "schema not an integer": "event schema must be an integer",
    "schema a boolean": "event schema must be an integer",
    "actor not a string": "event actor must be a string or None",
    "session not a string": "event session must be a string or None",
}


def ledgers(tmp_path):
    return {"jsonl": Ledger(tmp_path / ".baton", "w", fsync="never"), "memory": MemoryLedger("w")}


@pytest.mark.parametrize("kind", ["jsonl", "memory"])
@pytest.mark.parametrize("bad", list(BAD_DRAFTS), ids=list(BAD_DRAFTS))
def test_a_malformed_draft_is_refused_and_nothing_of_its_batch_is_written(tmp_path, kind, bad):
    ledger = ledgers(tmp_path)[kind]
    with ledger.locked() as txn:
        txn.append([EventDraft("note.added", "note/1", {"n": 1})])
        with pytest.raises(EnvelopeError, match=f"^{MESSAGES[bad]}$"):
            txn.append([EventDraft("note.added", "note/1", {"n": 2}), BAD_DRAFTS[bad]])
        with pytest.raises(EnvelopeError, match=f"^{MESSAGES[bad]}$"):
            txn.append([BAD_DRAFTS[bad]])
        [after] = txn.append([EventDraft("note.added", "note/1", {"n": 3})])
    assert [e.data["n"] for e in ledger.read_all()] == [1, 3]
    assert after.seq == 2 and after.stream_version == 2


def test_a_malformed_draft_in_a_batch_is_refused_before_any_clock_tick_or_id_is_spent():
    from baton.ledger.envelope import seal_batch

    spent: list[str] = []

    def clock() -> int:
        spent.append("tick")
        return 1_700_000_000_000_000_000

    def new_id(now: int) -> str:
        spent.append("id")
        return "id"

    with pytest.raises(EnvelopeError, match="event schema must be an integer"):
        seal_batch([EventDraft("note.added", "note/1", {}), BAD_DRAFTS["schema not an integer"]], writer="w",
                   seq=0, prev=None, max_hlc=0, clock=clock, version_of=lambda s: 0, new_id=new_id,
                   timestamp=str)
    assert spent == []


def test_a_draft_with_an_actor_and_a_session_is_sealed_with_them(tmp_path):
    ledger = Ledger(tmp_path / ".baton", "w", fsync="never")
    with ledger.locked() as txn:
        [event] = txn.append([EventDraft("note.added", "note/1", {"n": 1}, actor="ana", session="s-1")])
    assert (event.actor, event.session) == ("ana", "s-1")
    [read] = Ledger(tmp_path / ".baton", "reader").read_all()
    assert (read.actor, read.session) == ("ana", "s-1")


def test_two_events_appended_together_are_marked_as_one_batch_and_one_alone_is_not(tmp_path):
    ledger = Ledger(tmp_path / ".baton", "w", fsync="never")
    with ledger.locked() as txn:
        [alone] = txn.append([EventDraft("note.added", "note/1", {"n": 0})])
        first, second = txn.append([EventDraft("note.added", "note/1", {"n": n}) for n in (1, 2)])
    assert "batch" not in alone.extra
    assert first.extra["batch"] == {"id": first.id, "n": 1, "of": 2}
    assert second.extra["batch"] == {"id": first.id, "n": 2, "of": 2}
