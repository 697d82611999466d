"""The checks the mutation run found untested, each named for what it catches."""

from __future__ import annotations

import itertools

import orjson
import pytest

from baton.errors import LedgerCorrupt
from baton.ledger import EventDraft, Ledger
from baton.ledger.envelope import Event
from baton.ledger.feed import FeedHead, line_ending_at, scan_bytes
from baton.ledger.verify import verify_ledger


def ticking():
    ticks = itertools.count(1_700_000_000_000_000_000, 1_000)
    return lambda: next(ticks)


def feed_of(tmp_path, n: int, writer: str = "w1") -> tuple[Ledger, list[bytes]]:
    ledger = Ledger(tmp_path / ".baton", writer, fsync="never", clock=ticking())
    with ledger.locked() as txn:
        for i in range(n):
            txn.append([EventDraft("test.noted", f"test/{writer}", {"n": i})])
    return ledger, ledger.feed_path(writer).read_bytes().splitlines(keepends=True)


def resealed(line: bytes, **changes) -> bytes:
    """``line`` with ``changes`` made and its hash recomputed (a forger's line)."""
    raw = orjson.loads(line)
    raw.update(changes)
    raw["hash"] = Event.from_dict(raw).compute_hash()
    return orjson.dumps(raw, option=orjson.OPT_SORT_KEYS) + b"\n"


def test_an_event_id_in_two_feeds_is_reported_as_a_duplicate(tmp_path):
    first, lines = feed_of(tmp_path, 1, "w1")
    _, other = feed_of(tmp_path, 1, "w2")
    copied = resealed(other[0], id=orjson.loads(lines[0])["id"])
    first.feed_path("w2").write_bytes(copied)
    problems = verify_ledger(tmp_path / ".baton" / "ledger").all_problems()
    assert [p.kind for p in problems] == ["duplicate_id"]
    assert "also appears in feed 'w1'" in problems[0].message


def test_an_hlc_equal_to_the_one_before_is_a_regression(tmp_path):
    ledger, lines = feed_of(tmp_path, 2)
    before = orjson.loads(lines[0])
    second = resealed(lines[1], hlc=before["hlc"])
    ledger.feed_path("w1").write_bytes(lines[0] + second + lines[1][:0])
    report = verify_ledger(tmp_path / ".baton" / "ledger")
    [problem] = report.all_problems()
    assert problem.kind == "hlc_regressed" and problem.seq == 2
    assert f"not above {before['hlc']}" in problem.message


def test_a_feed_starting_with_a_blank_line_is_corrupt_not_one_torn_tail(tmp_path):
    ledger, lines = feed_of(tmp_path, 2)
    ledger.feed_path("w1").write_bytes(b"\n" + b"".join(lines))
    with pytest.raises(LedgerCorrupt) as caught:
        Ledger(tmp_path / ".baton", "reader").read_all()
    assert caught.value.details["offset"] == 0 and caught.value.details["kind"] == "bad_json"
    assert "is corrupt at byte 0" in caught.value.message


def test_a_run_of_nul_bytes_after_the_last_line_is_a_torn_tail(tmp_path):
    ledger, lines = feed_of(tmp_path, 2)
    ledger.feed_path("w1").write_bytes(b"".join(lines) + b"\x00" * 10 + b"\n" + b"\x00" * 5)
    scan = scan_bytes("w1", ledger.feed_path("w1").read_bytes(), FeedHead())
    assert len(scan.events) == 2 and scan.torn.offset == len(b"".join(lines))
    assert scan.torn.reason == "a run of NUL bytes"


def test_a_nul_line_followed_by_an_event_is_corruption(tmp_path):
    ledger, lines = feed_of(tmp_path, 2)
    ledger.feed_path("w1").write_bytes(lines[0] + b"\x00" * 8 + b"\n" + lines[1])
    [problem] = verify_ledger(tmp_path / ".baton" / "ledger").all_problems()[:1]
    assert problem.kind == "bad_json" and problem.offset == len(lines[0])


def test_the_line_ending_at_an_offset_is_found_with_or_without_its_length():
    raw = b'{"a":1}\n{"b":22}\n{"c":333}\n'
    read = lambda at, size: raw[at:at + size]  # noqa: E731
    ends = [8, 17, 27]
    assert line_ending_at(read, ends[1], 9) == b'{"b":22}'
    assert line_ending_at(read, ends[1]) == b'{"b":22}'
    assert line_ending_at(read, ends[0]) == b'{"a":1}'
    assert line_ending_at(read, ends[2], window=2) == b'{"c":333}'
    assert line_ending_at(read, 0) is None
    assert line_ending_at(read, 5) is None  # not the end of a line


def test_a_wrong_writer_in_a_feed_is_reported(tmp_path):
    ledger, lines = feed_of(tmp_path, 2)
    ledger.feed_path("w1").write_bytes(lines[0] + resealed(lines[1], writer="w9"))
    [problem] = verify_ledger(tmp_path / ".baton" / "ledger").all_problems()
    assert problem.kind == "wrong_writer" and "'w9'" in problem.message


def test_a_broken_chain_is_reported_where_it_breaks(tmp_path):
    ledger, lines = feed_of(tmp_path, 3)
    ledger.feed_path("w1").write_bytes(lines[0] + resealed(lines[1], prev="sha256:" + "1" * 64) + lines[2])
    problems = verify_ledger(tmp_path / ".baton" / "ledger").all_problems()
    assert problems[0].kind == "broken_chain" and problems[0].offset == len(lines[0])
    assert "does not link to the hash of seq 1" in problems[0].message


@pytest.mark.parametrize("field", ["actor", "session", "prev"])
def test_an_envelope_field_that_must_be_a_string_or_null_refuses_anything_else(tmp_path, field):
    from baton.errors import EnvelopeError

    _, lines = feed_of(tmp_path, 1)
    raw = orjson.loads(lines[0])
    with pytest.raises(EnvelopeError, match=f"field '{field}' must be a string or null"):
        Event.from_dict({**raw, field: 5})


def test_a_long_lived_writer_recreates_the_whole_baton_folder_if_it_went_away(tmp_path):
    import shutil

    ledger, _ = feed_of(tmp_path, 1)
    shutil.rmtree(tmp_path / ".baton")
    with ledger.locked() as txn:
        [event] = txn.append([EventDraft("test.noted", "test/w1", {"n": 9})])
    assert event.seq == 1 and (tmp_path / ".baton" / "ledger" / "w1.jsonl").is_file()


def test_a_long_lived_writer_rereads_a_feed_rewritten_in_place_under_its_cursor(tmp_path):
    ledger, _ = feed_of(tmp_path, 2, "other")
    mine = Ledger(tmp_path / ".baton", "w1", fsync="never")
    with mine.locked() as txn:
        assert txn.stream_version("test/other") == 2
    elsewhere = Ledger(tmp_path / "elsewhere", "other", fsync="never", clock=ticking())
    with elsewhere.locked() as txn:
        for i in range(5):
            txn.append([EventDraft("test.noted", "test/other", {"n": i, "pad": "x" * (7 * i)})])
    with open(ledger.feed_path("other"), "r+b") as fh:  # same inode; the old cursor now points mid-line
        fh.write(elsewhere.feed_path("other").read_bytes())

    with mine.locked() as txn:
        assert txn.stream_version("test/other") == 5
