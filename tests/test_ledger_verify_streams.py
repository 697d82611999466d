"""What ``verify`` says of streams across feeds and of recorded heads: the
kinds, offsets and seqs ``verify --json`` shows (found by the mutation run:
``benchmarks/mutation.py``, docs/ledger.md "Mutation testing")."""

from __future__ import annotations

import orjson

from baton.ledger import EventDraft, Ledger
from baton.ledger.integrity import HEADS_TYPE
from baton.ledger.verify import verify_ledger
from tests.ledger_contract import START_NS, ticking
from tests.test_ledger_checks import feed_of, resealed

LATER = START_NS + 10_000_000


def _later_writer(tmp_path, writer: str = "w2") -> Ledger:
    return Ledger(tmp_path / ".baton", writer, fsync="never", clock=ticking(LATER))


def _write(ledger: Ledger, *drafts: EventDraft) -> list[bytes]:
    with ledger.locked() as txn:
        txn.append(list(drafts))
    return ledger.feed_path(ledger.writer).read_bytes().splitlines(keepends=True)


def _report(tmp_path):
    return verify_ledger(tmp_path / ".baton" / "ledger", erasure_type="handoff.forgotten")


def test_a_later_version_skipped_on_a_stream_is_a_stream_gap_with_no_offset(tmp_path):
    feed_of(tmp_path, 2, "w1")  # test/w1 at versions 1 and 2
    other = _later_writer(tmp_path)
    [line] = _write(other, EventDraft("test.noted", "test/other", {}))
    other.feed_path("w2").write_bytes(resealed(line, stream="test/w1", stream_version=5))
    [problem] = _report(tmp_path).all_problems()
    assert (problem.kind, problem.feed, problem.seq) == ("stream_gap", "w2", 1)
    assert problem.to_json()["offset"] == -1
    assert "stream 'test/w1': expected version 3, found 5" in problem.message


def test_a_writer_writing_a_version_of_its_own_stream_again_is_a_stream_fork(tmp_path):
    ledger, lines = feed_of(tmp_path, 2, "w1")
    second = resealed(lines[1], stream_version=1)
    ledger.feed_path("w1").write_bytes(lines[0] + second)
    [problem] = _report(tmp_path).all_problems()
    assert (problem.kind, problem.seq, problem.to_json()["offset"]) == ("stream_fork", 2, -1)
    assert "expected version 2, found 1" in problem.message


def test_a_version_another_writer_wrote_unseen_is_concurrent_not_corrupt(tmp_path):
    feed_of(tmp_path, 2, "w1")
    other = _later_writer(tmp_path)
    [line] = _write(other, EventDraft("test.noted", "test/other", {}))
    other.feed_path("w2").write_bytes(resealed(line, stream="test/w1", stream_version=2))
    report = _report(tmp_path)
    assert report.ok and report.all_problems() == []
    [concurrent] = report.concurrent
    assert (concurrent.kind, concurrent.feed, concurrent.seq, concurrent.to_json()["offset"]) == ("concurrent", "w2", 1, -1)
    assert "version 2 was also written by another writer" in concurrent.message


def test_after_a_concurrent_version_the_stream_goes_on_from_the_highest_version(tmp_path):
    """w1 wrote versions 1 and 2 of test/w1; w2, apart, also wrote a version 2;
    w1's version 3 then follows on, neither a gap nor concurrent."""
    first, lines = feed_of(tmp_path, 2, "w1")
    other = _later_writer(tmp_path)
    [line] = _write(other, EventDraft("test.noted", "test/other", {}))
    other.feed_path("w2").write_bytes(resealed(line, stream="test/w1", stream_version=2))
    third = Ledger(tmp_path / ".baton", "w1", fsync="never", clock=ticking(LATER + 10_000_000))
    _write(third, EventDraft("test.noted", "test/w1", {"n": 3}))
    assert orjson.loads(first.feed_path("w1").read_bytes().splitlines()[-1])["stream_version"] == 3
    report = _report(tmp_path)
    assert report.all_problems() == [] and len(report.concurrent) == 1


def _heads(tmp_path, heads: dict) -> None:
    recorder = Ledger(tmp_path / ".baton", "w9", fsync="never", clock=ticking(LATER))
    _write(recorder, EventDraft(HEADS_TYPE, "ledger/w9", {"heads": heads}))


def test_a_recorded_head_at_seq_1_that_no_longer_matches_is_a_rewritten_feed(tmp_path):
    feed_of(tmp_path, 1, "w1")
    _heads(tmp_path, {"w1": {"seq": 1, "hash": "sha256:" + "0" * 64, "offset": 0}})
    [problem] = _report(tmp_path).all_problems()
    assert (problem.kind, problem.feed, problem.seq, problem.to_json()["offset"]) == ("rewritten", "w1", 1, 0)


def test_a_recorded_head_at_seq_0_or_below_records_nothing(tmp_path):
    feed_of(tmp_path, 1, "w1")
    _heads(tmp_path, {"w1": {"seq": 0, "hash": None, "offset": 0}, "w2": {"seq": -1, "hash": None}})
    report = _report(tmp_path)
    assert report.ok and report.heads_checked == 0


def test_a_recorded_head_without_an_offset_is_reported_with_none(tmp_path):
    feed_of(tmp_path, 1, "w1")
    _heads(tmp_path, {"w1": {"seq": 1, "hash": "sha256:" + "0" * 64}})
    [problem] = _report(tmp_path).all_problems()
    assert problem.kind == "rewritten" and problem.to_json()["offset"] == -1


def test_of_two_recorded_heads_past_a_truncated_feed_the_higher_seq_is_reported(tmp_path):
    feed_of(tmp_path, 2, "w1")
    recorder = Ledger(tmp_path / ".baton", "w9", fsync="never", clock=ticking(LATER))
    _write(recorder, EventDraft(HEADS_TYPE, "ledger/w9", {"heads": {"w1": {"seq": 7, "hash": "sha256:" + "1" * 64}}}))
    _write(recorder, EventDraft(HEADS_TYPE, "ledger/w9", {"heads": {"w1": {"seq": 5, "hash": "sha256:" + "2" * 64}}}))
    report = _report(tmp_path)
    [problem] = report.all_problems()
    assert (problem.kind, problem.seq) == ("truncated", 7) and report.heads_checked == 2
    assert "ends at seq 2" in problem.message and "recorded seq 7" in problem.message


def test_a_concurrent_version_far_behind_the_stream_leaves_it_at_its_highest_version(tmp_path):
    """w1 wrote versions 1–3; w2, apart, wrote a version 1; w1's version 4 follows on."""
    feed_of(tmp_path, 3, "w1")
    other = _later_writer(tmp_path)
    [line] = _write(other, EventDraft("test.noted", "test/other", {}))
    other.feed_path("w2").write_bytes(resealed(line, stream="test/w1", stream_version=1))
    _write(Ledger(tmp_path / ".baton", "w1", fsync="never", clock=ticking(LATER + 10_000_000)),
           EventDraft("test.noted", "test/w1", {"n": 4}))
    report = _report(tmp_path)
    assert report.all_problems() == [] and [c.seq for c in report.concurrent] == [1]


def test_a_recorded_head_of_a_feed_that_is_gone_is_a_missing_feed_with_no_offset(tmp_path):
    feed_of(tmp_path, 1, "w1")
    _heads(tmp_path, {"w5": {"seq": 3, "hash": "sha256:" + "0" * 64, "offset": 120}})
    [problem] = _report(tmp_path).all_problems()
    assert (problem.kind, problem.feed, problem.seq, problem.to_json()["offset"]) == ("missing_feed", "w5", 3, -1)
    assert "feed 'w5' does not exist" in problem.message
