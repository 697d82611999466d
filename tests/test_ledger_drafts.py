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
    "empty type": "type", "type not a string": "type", "empty stream": "stream",
    "stream not a string": "stream", "schema not an integer": "schema", "schema a boolean": "schema",
    "actor not a string": "actor", "session not a string": "session",
}


def ledgers(tmp_path):
    return {"jsonl": Ledger(tmp_path / ".baton", "w", fsync="never"), "memory": MemoryLedger("w")}


@pytest.mark.parametrize("kind", ["jsonl", "memory"])
@pytest.mark.parametrize("bad", list(BAD_DRAFTS), ids=list(BAD_DRAFTS))
def test_a_malformed_draft_is_refused_and_nothing_of_its_batch_is_written(tmp_path, kind, bad):
    ledger = ledgers(tmp_path)[kind]
    with ledger.locked() as txn:
        txn.append([EventDraft("note.added", "note/1", {"n": 1})])
        with pytest.raises(EnvelopeError, match=MESSAGES[bad]):
            txn.append([EventDraft("note.added", "note/1", {"n": 2}), BAD_DRAFTS[bad]])
        with pytest.raises(EnvelopeError, match=MESSAGES[bad]):
            txn.append([BAD_DRAFTS[bad]])
        [after] = txn.append([EventDraft("note.added", "note/1", {"n": 3})])
    assert [e.data["n"] for e in ledger.read_all()] == [1, 3]
    assert after.seq == 2 and after.stream_version == 2
