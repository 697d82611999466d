"""Two replicas writing apart, their feeds then joined (what ``baton sync`` does),
without git: the baton aggregate's lost claims and verify's ``concurrent``."""

from __future__ import annotations

import shutil
from pathlib import Path

from baton.domain.aggregates.baton import BatonKey, ClaimBaton, CreateBaton, decide, evolve
from baton.domain.batons import BatonRecord, baton_key
from baton.ledger.store import Ledger
from baton.ledger.verify import verify_ledger

KEY = baton_key("alice@example.com", "main", True)
STREAM = f"baton/{KEY}"


def _state(ledger: Ledger) -> BatonKey:
    state = BatonKey(KEY)
    for event in ledger.read_all():
        if event.stream == STREAM:
            state = evolve(state, event)
    return state


def _record(ledger: Ledger, command) -> None:
    state = _state(ledger)
    with ledger.locked() as txn:
        txn.append([e.draft() for e in decide(state, command)], expected={STREAM: state.version})


def _replicas(tmp_path: Path) -> tuple[Ledger, Ledger]:
    """Replica A leaves a shared baton; replica B starts as a copy of A's ledger."""
    a = Ledger(tmp_path / "a", "writer-a", fsync="never")
    record = BatonRecord(id="0193aaaa-0000-7000-8000-000000000001", key=KEY, owner="alice@example.com",
                         branch="main", shared=True, next_steps=("step",), created_at="2026-01-01T00:00:00.000000Z",
                         status="pending")
    _record(a, CreateBaton(record, session="s-left"))
    (tmp_path / "b" / "ledger").mkdir(parents=True)
    shutil.copy(a.feed_path("writer-a"), tmp_path / "b" / "ledger" / "writer-a.jsonl")
    return a, Ledger(tmp_path / "b", "writer-b", fsync="never")


def _joined(tmp_path: Path, *ledgers: Ledger) -> Ledger:
    folder = tmp_path / "joined" / "ledger"
    folder.mkdir(parents=True)
    for ledger in ledgers:
        shutil.copy(ledger.feed_path(ledger.writer), folder / f"{ledger.writer}.jsonl")
    return Ledger(tmp_path / "joined", "writer-j", fsync="never")


def test_a_claim_made_apart_after_the_baton_was_claimed_elsewhere_is_kept_as_a_conflict(tmp_path):
    a, b = _replicas(tmp_path)
    baton_id = _state(a).current.id
    _record(a, ClaimBaton(baton_id, "session-a", "2026-01-01T00:01:00.000000Z"))
    _record(b, ClaimBaton(baton_id, "session-b", "2026-01-01T00:02:00.000000Z"))
    joined = _joined(tmp_path, a, b)
    claims = sorted((e for e in joined.read_all() if e.type == "baton.claimed"), key=lambda e: (e.hlc, e.writer))
    state = _state(joined)
    winner, loser = claims
    assert state.current.claimed_by_session == winner.data["session"]
    [conflict] = state.conflicts
    assert (conflict["sessionId"], conflict["writer"], conflict["eventId"]) == (loser.data["session"], loser.writer,
                                                                               loser.id)
    assert conflict["winner"]["claimedBySession"] == winner.data["session"]


def test_a_claim_on_one_replica_leaves_no_conflict(tmp_path):
    a, _b = _replicas(tmp_path)
    _record(a, ClaimBaton(_state(a).current.id, "session-a", "2026-01-01T00:01:00.000000Z"))
    assert _state(a).conflicts == ()


def test_verify_reports_a_version_written_by_two_writers_apart_as_concurrent_not_a_failure(tmp_path):
    a, b = _replicas(tmp_path)
    baton_id = _state(a).current.id
    _record(a, ClaimBaton(baton_id, "session-a", "2026-01-01T00:01:00.000000Z"))
    _record(b, ClaimBaton(baton_id, "session-b", "2026-01-01T00:02:00.000000Z"))
    joined = _joined(tmp_path, a, b)
    _winner, loser = sorted((e for e in joined.read_all() if e.type == "baton.claimed"),
                            key=lambda e: (e.hlc, e.writer))
    report = verify_ledger(tmp_path / "joined" / "ledger")
    assert report.ok
    assert [(p.kind, p.feed, p.seq) for p in report.concurrent] == [("concurrent", loser.writer, loser.seq)]


def test_verify_still_fails_one_writer_writing_a_stream_version_it_already_passed(tmp_path):
    from baton.ledger.envelope import EventDraft

    ledger = Ledger(tmp_path / "one", "writer-a", fsync="never")
    with ledger.locked() as txn:
        txn.append([EventDraft("note.added", "notes/1", {"n": 1}), EventDraft("note.added", "notes/1", {"n": 2})])
    # a hand-made third event that claims version 1 again, written by the same writer
    from baton.ledger.envelope import seal
    from baton.ledger.feed import encode_line

    last = ledger.read_all()[-1]
    again = seal(EventDraft("note.added", "notes/1", {"n": 3}), event_id="0193aaaa-0000-7000-8000-0000000000ff",
                 writer="writer-a", seq=last.seq + 1, at=last.at, hlc=last.hlc + 1, stream_version=1, prev=last.hash)
    with open(ledger.feed_path("writer-a"), "ab") as fh:
        fh.write(encode_line(again))
    report = verify_ledger(tmp_path / "one" / "ledger")
    assert not report.ok
    assert [p.kind for p in report.problems] == ["stream_fork"]
    assert report.concurrent == []
