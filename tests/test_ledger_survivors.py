"""Behaviours the full mutation run (``benchmarks/mutation.py``) found untested,
each named for what it notices; see ``docs/ledger.md`` "Mutation testing"."""

from __future__ import annotations

import os

import orjson
import pytest

from baton.errors import EnvelopeError
from baton.ledger import EventDraft, Ledger
from baton.ledger.envelope import Event
from baton.ledger.erase import erase_payloads
from baton.ledger.feed import FeedHead, scan_bytes
from baton.ledger.verify import verify_ledger
from tests.test_ledger_checks import feed_of, resealed


@pytest.mark.parametrize("data", [[1, 2], "text", 3])
def test_a_line_whose_data_is_not_an_object_is_refused_on_the_checked_path(tmp_path, data):
    _, lines = feed_of(tmp_path, 1)
    raw = orjson.loads(lines[0])
    with pytest.raises(EnvelopeError, match="field 'data' must be an object"):
        Event.from_dict({**raw, "data": data})


@pytest.mark.parametrize("schema", ["1", True, 1.0])
def test_a_line_whose_schema_is_not_an_integer_is_refused(tmp_path, schema):
    _, lines = feed_of(tmp_path, 1)
    raw = orjson.loads(lines[0])
    with pytest.raises(EnvelopeError, match="field 'schema' must be an integer"):
        Event.from_dict({**raw, "schema": schema})


def test_a_line_without_its_optional_fields_verifies_by_the_hash_of_its_envelope(tmp_path):
    """A writer that leaves ``actor``, ``session`` and ``schema`` out (their
    defaults) hashes the full envelope; the line still verifies and reads."""
    ledger, lines = feed_of(tmp_path, 2)
    raw = orjson.loads(lines[1])
    for name in ("actor", "session", "schema"):
        assert raw.pop(name) in (None, 1)
    short = orjson.dumps(raw) + b"\n"
    ledger.feed_path("w1").write_bytes(lines[0] + short)
    scan = scan_bytes("w1", lines[0] + short, FeedHead())
    assert scan.problems == [] and [e.seq for e in scan.events] == [1, 2]
    assert verify_ledger(tmp_path / ".baton" / "ledger").ok


def test_a_line_without_its_optional_fields_and_a_wrong_hash_is_refused(tmp_path):
    ledger, lines = feed_of(tmp_path, 2)
    raw = orjson.loads(lines[1])
    del raw["actor"]
    raw["hash"] = "sha256:" + "0" * 64
    ledger.feed_path("w1").write_bytes(lines[0] + orjson.dumps(raw) + b"\n")
    [problem] = verify_ledger(tmp_path / ".baton" / "ledger").all_problems()
    assert problem.kind == "bad_hash" and problem.seq == 2 and "does not match its hash" in problem.message


def test_reading_the_chunks_of_a_feed_that_does_not_exist_reads_nothing(tmp_path):
    ledger, _ = feed_of(tmp_path, 1)
    assert list(ledger.read_feed_chunks("nobody")) == []


def test_a_quarantined_torn_tail_is_a_plain_readable_file(tmp_path):
    ledger, lines = feed_of(tmp_path, 1)
    ledger.feed_path("w1").write_bytes(lines[0] + b'{"v":1,')
    with Ledger(tmp_path / ".baton", "w1", fsync="never").locked() as txn:
        txn.append([EventDraft("test.noted", "test/w1", {"n": 1})])
    [kept] = (tmp_path / ".baton" / "quarantine").iterdir()
    umask = os.umask(0)
    os.umask(umask)
    assert kept.stat().st_mode & 0o777 == 0o644 & ~umask


def test_a_new_feed_is_a_plain_readable_file(tmp_path):
    ledger, _ = feed_of(tmp_path, 1)
    umask = os.umask(0)
    os.umask(umask)
    assert ledger.feed_path("w1").stat().st_mode & 0o777 == 0o644 & ~umask


def test_a_new_lock_file_is_a_plain_readable_file(tmp_path):
    with Ledger(tmp_path / ".baton", "w1", fsync="never").locked():
        pass
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / ".baton" / "ledger.lock").stat().st_mode & 0o777 == 0o644 & ~umask


def test_a_problem_across_feeds_has_no_offset(tmp_path):
    """``-1``: the problem is not on one line (``verify --json`` shows it; repair does not cut there)."""
    first, lines = feed_of(tmp_path, 1, "w1")
    _, other = feed_of(tmp_path, 1, "w2")
    first.feed_path("w2").write_bytes(resealed(other[0], id=orjson.loads(lines[0])["id"]))
    [problem] = verify_ledger(tmp_path / ".baton" / "ledger").all_problems()
    assert problem.kind == "duplicate_id" and problem.to_json()["offset"] == -1


def test_sealing_a_malformed_draft_directly_is_refused():
    from baton.ledger.envelope import seal

    with pytest.raises(EnvelopeError, match="an event stream must be a non-empty string"):
        seal(EventDraft("note.added", "", {}), event_id="x", writer="w", seq=1, at="2024-05-01T12:00:00.000000Z",
             hlc=1, stream_version=1, prev=None)


def test_a_mapping_that_is_not_a_dict_reads_as_the_same_event(tmp_path):
    from types import MappingProxyType

    _, lines = feed_of(tmp_path, 1)
    raw = orjson.loads(lines[0])
    del raw["schema"]
    assert Event.from_dict(MappingProxyType(raw)) == Event.from_dict(raw)
    assert Event.from_dict(MappingProxyType(raw)).schema == 1


def test_a_stream_s_cursor_records_the_length_of_the_line_it_ends_after(tmp_path):
    ledger, lines = feed_of(tmp_path, 5)
    stream = ledger.stream_since({})
    for _ in zip(range(3), stream):
        pass
    cursor = stream.cursors["w1"]
    assert cursor.head.seq == 3 and cursor.head.offset == sum(map(len, lines[:3]))
    assert cursor.line == len(lines[2])


def estimate_after(ledger, cursors, lines) -> None:
    stream = ledger.stream_since(cursors)
    assert stream.estimated_total(0) == 0
    for _ in zip(range(3), stream):
        pass
    assert stream.estimated_total(3) == 5  # 5 events in 5 lines of about the same length
    assert stream.estimated_total(3) == round(3 * sum(map(len, lines[4:])) / sum(map(len, lines[4:7])))


def test_a_catch_up_estimates_the_events_it_holds_from_the_bytes_behind_those_handed_out(tmp_path):
    ledger, lines = feed_of(tmp_path, 9)
    first = ledger.stream_since({})
    for _ in zip(range(4), first):
        pass
    estimate_after(ledger, first.cursors, lines)


def test_a_catch_up_served_from_the_read_log_estimates_the_same(tmp_path):
    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never")
    with ledger.locked() as txn:
        for n in range(4):
            txn.append([EventDraft("test.noted", "test/w1", {"n": n})])
        after_four = ledger.cursors()
        for n in range(4, 9):
            txn.append([EventDraft("test.noted", "test/w1", {"n": n})])
        estimate_after(ledger, after_four, ledger.feed_path("w1").read_bytes().splitlines(keepends=True))


# -- erasing payloads and merging erased copies --------------------------------------------------------------

def forget_feed(tmp_path, named: list[str]) -> list[bytes]:
    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never")
    with ledger.locked() as txn:
        txn.append([EventDraft("handoff.forgotten", "handoff/1", {"events": named})])
    return ledger.feed_path("w1").read_bytes().splitlines(keepends=True)


def test_a_sound_forget_line_names_the_events_it_erases(tmp_path):
    from baton.ledger.erase import forgotten_ids

    [line] = forget_feed(tmp_path, ["e1", "e2"])
    assert forgotten_ids(line) == ["e1", "e2"]
    assert forgotten_ids(line.replace(b"handoff.forgotten", b"handoff.remembered")) == []


@pytest.mark.parametrize("damage", ["payload", "hash", "erased"])
def test_a_forget_line_that_is_not_sound_names_nothing(tmp_path, damage):
    from baton.ledger.erase import forgotten_ids

    [line] = forget_feed(tmp_path, ["e1"])
    raw = orjson.loads(line)
    if damage == "payload":
        raw["data"]["events"] = ["e1", "e9"]  # the digest no longer matches
    elif damage == "hash":
        raw["hash"] = "sha256:" + "0" * 64
    else:
        del raw["data"]
    assert forgotten_ids(orjson.dumps(raw)) == []


def test_erasing_a_payload_syncs_the_rewritten_feed_and_the_folder_and_keeps_its_mode(tmp_path, monkeypatch):
    from tests.test_ledger_durability import FsyncCounter

    ledger, lines = feed_of(tmp_path, 2)
    feed = ledger.feed_path("w1")
    feed.chmod(0o640)
    fsyncs = FsyncCounter(monkeypatch)
    fds = len(os.listdir("/proc/self/fd"))
    assert erase_payloads(tmp_path / ".baton" / "ledger", [orjson.loads(lines[0])["id"]]) == {"w1": 1}
    assert len(os.listdir("/proc/self/fd")) == fds  # no descriptor left open
    assert sum(1 for p in fsyncs.synced if "/.erase." in p) == 1 and fsyncs.of("/.baton/ledger") == 1
    assert feed.stat().st_mode & 0o777 == 0o640
    assert "data" not in orjson.loads(feed.read_bytes().splitlines()[0])


def test_erasing_nothing_rewrites_and_syncs_nothing(tmp_path, monkeypatch):
    from tests.test_ledger_durability import FsyncCounter

    ledger, lines = feed_of(tmp_path, 2)
    fsyncs = FsyncCounter(monkeypatch)
    assert erase_payloads(tmp_path / ".baton" / "ledger", ["no-such-event"]) == {}
    assert fsyncs.synced == []


def test_copies_that_differ_by_more_than_an_erasure_name_the_line_and_seq(tmp_path):
    from baton.ledger.erase import NotAnErasure, merge_erasures

    _, lines = feed_of(tmp_path, 4)
    raw = b"".join(lines)
    garbled = b"".join(lines[:2] + [b"not json\n"] + lines[3:])
    for ours, theirs in ((garbled, raw), (raw, garbled)):
        with pytest.raises(NotAnErasure) as caught:
            merge_erasures(ours, theirs, set())
        assert caught.value.seq == 3 and caught.value.side == "both" and caught.value.unnamed is False
        assert str(caught.value) == "line 3 (seq 3) differs between the copies by more than an erased payload"


def test_a_new_line_is_envelope_version_1_and_an_event_built_without_a_schema_has_schema_1(tmp_path):
    _, lines = feed_of(tmp_path, 1)
    raw = orjson.loads(lines[0])
    assert raw["v"] == 1 and raw["schema"] == 1
    fields = {name for name in Event._fields if name not in ("schema", "extra")}
    assert Event(**{k: raw.get(k) for k in fields}).schema == 1


# -- the read log: what a ledger read or appended under its lock, served again without reading -----------------

def test_a_catch_up_under_the_lock_returns_every_event_appended_since_its_cursor(tmp_path):
    ledger, _ = feed_of(tmp_path, 1)
    with ledger.locked() as txn:
        txn.append([EventDraft("test.noted", "test/w1", {"n": 1})])
        before = ledger.cursors()
        txn.append([EventDraft("test.noted", "test/w1", {"n": 2})])
        txn.append([EventDraft("test.noted", "test/w1", {"n": 3}), EventDraft("test.noted", "test/w1", {"n": 4})])
        changes = ledger.changes_since(before)
        assert [e.data["n"] for e in changes.events] == [2, 3, 4]
        assert changes.cursors["w1"] == ledger.cursors()["w1"]
        streamed = ledger.stream_since(before)
        assert [e.data["n"] for e in streamed] == [2, 3, 4]
    assert [e.data["n"] for e in Ledger(tmp_path / ".baton", "reader").changes_since(before).events] == [2, 3, 4]


def test_a_catch_up_in_a_later_lock_sees_what_another_writer_appended_in_between(tmp_path):
    ledger, _ = feed_of(tmp_path, 1)
    other = Ledger(tmp_path / ".baton", "w2", fsync="never")
    with other.locked() as txn:
        txn.append([EventDraft("test.noted", "test/w2", {"n": 1})])
    with ledger.locked():
        before = ledger.cursors()
    with other.locked() as txn:
        txn.append([EventDraft("test.noted", "test/w2", {"n": 2})])
    with ledger.locked():
        assert [e.data["n"] for e in ledger.changes_since(before).events] == [2]
        assert [e.data["n"] for e in ledger.changes_since({}).events if e.writer == "w2"] == [1, 2]


class ReadCounter:
    def __init__(self, ledger, monkeypatch) -> None:
        self.reads: list[int] = []
        real = ledger._read_range

        def counted(path, start, size=None):
            data = real(path, start, size)
            self.reads.append(len(data))
            return data

        monkeypatch.setattr(ledger, "_read_range", counted)


def append_notes(txn, *numbers) -> None:
    for n in numbers:
        txn.append([EventDraft("test.noted", "test/w1", {"n": n})])


def test_under_the_lock_a_catch_up_over_what_was_just_appended_reads_nothing(tmp_path, monkeypatch):
    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never")
    with ledger.locked() as txn:
        append_notes(txn, 0, 1)
        before = ledger.cursors()
        append_notes(txn, 2, 3)
        counter = ReadCounter(ledger, monkeypatch)
        assert [e.data["n"] for e in ledger.changes_since(before).events] == [2, 3]
        assert counter.reads == []


def test_past_its_limit_the_read_log_drops_a_feed_which_is_then_read_from_disk(tmp_path, monkeypatch):
    from baton.ledger.changes import ReadLog

    monkeypatch.setattr(ReadLog, "LIMIT", 4)
    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never")
    with ledger.locked() as txn:
        append_notes(txn, 0, 1, 2)
        at_three = ledger.cursors()
        append_notes(txn, 3)  # 4 events held: at the limit, still logged
        counter = ReadCounter(ledger, monkeypatch)
        assert [e.data["n"] for e in ledger.changes_since(at_three).events] == [3]
        assert counter.reads == []
        append_notes(txn, 4)  # past the limit: the feed is dropped from the log
        at_five = ledger.cursors()
        append_notes(txn, 5)  # and no longer logged
        assert [e.data["n"] for e in ledger.changes_since(at_five).events] == [5]
        assert counter.reads != []
        assert [e.data["n"] for e in ledger.changes_since(at_three).events] == [3, 4, 5]


# -- the byte check of a canonical line, and reading from an offset --------------------------------------------

def one_line(tmp_path) -> tuple[Ledger, bytes]:
    ledger, lines = feed_of(tmp_path, 1)
    return ledger, lines[0].rstrip(b"\n")


@pytest.mark.parametrize(("where", "kind"), [("hash", "bad_hash"), ("envelope", "bad_hash"),
                                             ("payload", "bad_digest")])
def test_a_canonical_line_changed_in_its_hash_envelope_or_payload_fails_the_byte_check(tmp_path, where, kind):
    from baton.ledger.feed import _canonical_line_verifies

    ledger, line = one_line(tmp_path)
    raw = orjson.loads(line)
    if where == "hash":
        digit = raw["hash"][-1]
        changed = line.replace(raw["hash"].encode(), (raw["hash"][:-1] + ("0" if digit != "0" else "1")).encode())
    elif where == "envelope":
        changed = line.replace(b'"stream":"test/w1"', b'"stream":"test/w2"')
    else:
        changed = line.replace(b'"data":{"n":0}', b'"data":{"n":1}')
    assert changed != line
    assert not _canonical_line_verifies(changed, orjson.loads(changed))
    ledger.feed_path("w1").write_bytes(changed + b"\n")
    [problem] = verify_ledger(tmp_path / ".baton" / "ledger").all_problems()
    assert problem.kind == kind


def test_a_missing_line_or_hash_hashes_to_nothing(tmp_path):
    from baton.ledger.feed import line_hashes_to

    _, line = one_line(tmp_path)
    recorded = orjson.loads(line)["hash"]
    assert line_hashes_to(line, recorded) is True
    assert line_hashes_to(None, recorded) is False
    assert line_hashes_to(line, None) is False


def test_a_file_scan_reads_from_the_head_it_is_given_and_raises_on_corruption_unless_collecting(tmp_path):
    from baton.errors import LedgerCorrupt
    from baton.ledger.feed import scan_file

    ledger, lines = feed_of(tmp_path, 4)
    path = ledger.feed_path("w1")
    head = scan_bytes("w1", b"".join(lines[:2]), FeedHead()).head
    assert [e.seq for e in scan_file(path, head).events] == [3, 4]
    path.write_bytes(b"".join(lines[:2]) + lines[2].replace(b'"n":2', b'"n":7') + lines[3])
    with pytest.raises(LedgerCorrupt, match="corrupt at byte"):
        scan_file(path)
    assert [p.kind for p in scan_file(path, collect=True).problems] == ["bad_digest"]


def test_the_line_ending_at_the_first_byte_of_a_feed_is_the_empty_line_there():
    from baton.ledger.feed import line_ending_at

    raw = b'\n{"a":1}\n'
    assert line_ending_at(lambda at, size: raw[at:at + size], 1) == b""
    assert line_ending_at(lambda at, size: raw[at:at + size], 9) == b'{"a":1}'


@pytest.mark.parametrize("batch", [{"id": 7, "n": 2, "of": 2}, {"id": "x", "n": "2", "of": 2},
                                   {"id": "x", "n": 2, "of": "2"}, {"id": "x", "n": 1, "of": 2},
                                   {"id": "x", "n": 3, "of": 2}, "x"])
def test_a_resumed_scan_refuses_a_malformed_batch_at_its_first_line(tmp_path, batch):
    _, lines = feed_of(tmp_path, 2)
    head = scan_bytes("w1", lines[0], FeedHead()).head
    second = resealed(lines[1], batch=batch)
    scan = scan_bytes("w1", second, head, collect=True)
    assert [p.kind for p in scan.problems] == ["bad_batch"]
    sound = scan_bytes("w1", resealed(lines[1], batch={"id": "x", "n": 2, "of": 2}), head, collect=True)
    assert sound.problems == [] and [e.seq for e in sound.events] == [2]


# -- what a scan reports, to the byte ------------------------------------------------------------------------

def batch_lines(tmp_path, sizes=(1, 3)) -> list[bytes]:
    ledger = Ledger(tmp_path / ".baton", "w1", fsync="never")
    with ledger.locked() as txn:
        n = 0
        for size in sizes:
            txn.append([EventDraft("test.noted", "test/w1", {"n": n + i}) for i in range(size)])
            n += size
    return ledger.feed_path("w1").read_bytes().splitlines(keepends=True)


def test_a_gap_names_the_seq_expected_and_the_seq_found(tmp_path):
    _, lines = feed_of(tmp_path, 4)
    scan = scan_bytes("w1", b"".join(lines[:2] + lines[3:]), FeedHead(), collect=True)
    [problem] = [p for p in scan.problems if p.kind == "gap"]
    assert problem.message == "expected seq 3, found 4" and problem.seq == 4
    assert problem.offset == len(lines[0]) + len(lines[1])


def test_an_incomplete_batch_at_the_end_is_a_torn_tail_of_exactly_its_bytes_and_its_events_are_not_read(tmp_path):
    lines = batch_lines(tmp_path)
    feed = b"".join(lines[:3])  # one event, then 2 of a batch of 3
    scan = scan_bytes("w1", feed, FeedHead())
    assert [e.seq for e in scan.events] == [1] and scan.ends == [len(lines[0])]
    assert (scan.torn.offset, scan.torn.length) == (len(lines[0]), len(lines[1]) + len(lines[2]))
    head = scan_bytes("w1", lines[0], FeedHead()).head
    resumed = scan_bytes("w1", b"".join(lines[1:3]), head)  # the same, read from a cursor
    assert resumed.events == [] and resumed.torn.offset == len(lines[0])
    assert resumed.torn.length == len(lines[1]) + len(lines[2])


def test_an_incomplete_batch_in_the_middle_names_where_it_began_and_how_far_it_got(tmp_path):
    from baton.errors import LedgerCorrupt

    lines = batch_lines(tmp_path, sizes=(1, 3, 1))
    raw = orjson.loads(lines[2])
    damaged = b"".join(lines[:3]) + resealed(lines[4], seq=raw["seq"] + 1, prev=raw["hash"])
    scan = scan_bytes("w1", damaged, FeedHead(), collect=True)
    [problem] = [p for p in scan.problems if p.kind == "incomplete_batch"]
    assert problem.offset == len(lines[0]) and problem.seq == 2
    assert problem.message == "the batch begun at seq 2 ends after 2 of its 3 events"
    with pytest.raises(LedgerCorrupt, match="the batch begun at seq 2 ends after 2 of its 3 events"):
        scan_bytes("w1", damaged, FeedHead())


def test_a_run_of_nul_bytes_is_a_torn_tail_of_its_length_even_at_the_start_of_a_feed(tmp_path):
    _, lines = feed_of(tmp_path, 1)
    scan = scan_bytes("w1", lines[0] + b"\x00" * 8 + b"\n", FeedHead())
    assert (scan.torn.offset, scan.torn.length, scan.torn.reason) == (len(lines[0]), 9, "a run of NUL bytes")
    empty = scan_bytes("w1", b"\n\x00\x00", FeedHead())
    assert empty.events == [] and (empty.torn.offset, empty.torn.length) == (0, 3)


def test_a_sound_event_glued_to_other_bytes_is_reported_as_such(tmp_path):
    _, lines = feed_of(tmp_path, 2)
    glued = lines[0] + lines[1].rstrip(b"\n") + b'{"v":1}\n' + lines[1]
    scan = scan_bytes("w1", glued, FeedHead(), collect=True)
    assert scan.problems[0].kind == "bad_json" and scan.problems[0].offset == len(lines[0])
    assert scan.problems[0].message == "a complete event is followed by other bytes where its newline should be"


def test_a_chunked_scan_stops_at_the_size_it_was_given_though_the_feed_grew(tmp_path):
    from baton.ledger.feed import scan_chunks

    _, lines = feed_of(tmp_path, 6)
    raw = b"".join(lines)
    size = sum(map(len, lines[:4]))
    for chunk in (50, len(lines[0]) + 3, 1 << 20):
        scans = list(scan_chunks("w1", lambda at, n: raw[at:at + n], FeedHead(), size, chunk_bytes=chunk))
        assert [e.seq for s in scans for e in s.events] == [1, 2, 3, 4]
        assert scans[-1].head.offset == size and all(s.torn is None for s in scans)


def test_the_bytes_before_a_head_are_its_line_only_when_they_are_exactly_one_line():
    from baton.ledger.feed import line_in

    assert line_in(b'{"a":1}\n', 8) == b'{"a":1}'
    assert line_in(b'{"a":1}\n\n', 9) is None
    assert line_in(b'{"a":1}\n', 9) is None
    assert line_in(b'{"a":1}', 7) is None


@pytest.mark.parametrize("after", [b"", b"garbage\n", b"garbage"])
def test_a_blank_line_where_a_scan_starts_is_corruption_there(tmp_path, after):
    ledger, lines = feed_of(tmp_path, 2)
    for start, prefix in ((FeedHead(), b""), (scan_bytes("w1", lines[0], FeedHead()).head, lines[0])):
        scan = scan_bytes("w1", b"\n" + after, start, collect=True)
        assert scan.events == []
        assert (scan.problems[0].offset, scan.problems[0].kind) == (len(prefix), "bad_json")
        assert scan.problems[0].message == "line is not valid JSON"
    ledger.feed_path("w1").write_bytes(b"\n" + b"".join(lines))
    [problem, *_] = verify_ledger(tmp_path / ".baton" / "ledger").all_problems()
    assert (problem.offset, problem.message) == (0, "line is not valid JSON")


def test_a_collecting_scan_from_a_cursor_keeps_its_head_after_a_bad_line_before_an_open_batch(tmp_path):
    lines = batch_lines(tmp_path, sizes=(1, 1, 3))
    head = scan_bytes("w1", lines[0], FeedHead()).head
    bad = lines[1].replace(b'"data":{"n":1}', b'"data":{"n":9}')
    scan = scan_bytes("w1", bad + lines[2], head, collect=True)
    assert [(p.kind, p.offset) for p in scan.problems] == [("bad_digest", len(lines[0]))]
    assert scan.torn.offset == len(lines[0]) + len(bad) and scan.events == []
    assert scan.head.offset == len(lines[0]) + len(bad)


# -- the in-memory ledger and cursors ------------------------------------------------------------------------

def test_a_memory_ledger_s_first_event_has_hlc_one_under_a_clock_at_the_epoch():
    from baton.ledger.memory import MemoryLedger

    ledger = MemoryLedger("m", clock=lambda: 0)
    with ledger.locked() as txn:
        first, second = txn.append([EventDraft("test.noted", "test/m", {"n": n}) for n in (0, 1)])
    assert (first.hlc, second.hlc) == (1, 2)


def test_a_memory_ledger_receives_another_writer_s_lines_and_returns_their_events(tmp_path):
    from baton.ledger.memory import MemoryLedger

    _, lines = feed_of(tmp_path, 2)
    ledger = MemoryLedger("m")
    received = ledger.receive("w1", b"".join(lines))
    assert [e.seq for e in received] == [1, 2] and [e.seq for e in ledger.read_all()] == [1, 2]


def test_a_memory_feed_holds_no_file_cursor_and_no_cursor_past_its_end(tmp_path):
    from baton.ledger.memory import MemoryLedger
    from baton.ledger.protocol import Cursor

    _, lines = feed_of(tmp_path, 2)
    ledger = MemoryLedger("m")
    ledger.receive("w1", b"".join(lines))
    cursor = ledger.cursors()["w1"]
    assert ledger.head_holds("w1", cursor)
    assert not ledger.head_holds("w1", Cursor(cursor.head, ident=7, line=cursor.line))
    past = FeedHead(cursor.head.offset + 5, cursor.head.seq, cursor.head.hash, cursor.head.hlc)
    assert not ledger.head_holds("w1", Cursor(past, None, cursor.line))


def test_a_cursor_is_at_another_with_the_same_offset_seq_and_hash_whatever_else_differs():
    from baton.ledger.protocol import Cursor

    head = FeedHead(10, 1, "sha256:" + "a" * 64, 5)
    assert Cursor().line == 0 and Cursor().ident is None
    assert Cursor(head, 1, 10).at(Cursor(FeedHead(10, 1, head.hash, 99), 2, 0)) is True
    assert Cursor(head).at(Cursor(FeedHead(10, 2, head.hash, 5))) is False
    assert Cursor().at(None) is True and Cursor(head).at(None) is False


def test_pausing_the_collector_for_a_replay_leaves_it_as_it_was():
    import gc

    from baton.ledger.feed import collector_paused

    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


# -- repair, in process --------------------------------------------------------------------------------------

def test_a_feed_whose_first_line_is_damaged_is_cut_from_byte_zero_naming_each_line_set_aside(tmp_path):
    from baton.ledger.repair import plan_repair

    ledger, lines = feed_of(tmp_path, 3)
    damaged = lines[0].replace(b'"n":0', b'"n":5')
    ledger.feed_path("w1").write_bytes(damaged + b"".join(lines[1:]) + b"torn")
    ledger_dir = tmp_path / ".baton" / "ledger"
    [plan] = plan_repair(ledger_dir, verify_ledger(ledger_dir))
    assert plan.cut == 0 and plan.kept.seq == 0
    assert [(i["offset"], i["bytes"]) for i in plan.set_aside] == [
        (0, len(damaged)), (len(damaged), len(lines[1])), (len(damaged) + len(lines[1]), len(lines[2])),
        (len(damaged) + len(lines[1]) + len(lines[2]), 4)]
    assert [i.get("seq") for i in plan.set_aside] == [1, 2, 3, None]
    assert plan.reasons[0].startswith("bad_digest at byte 0: ")


def test_setting_lines_aside_syncs_the_copy_the_manifest_the_folder_and_the_cut_feed_and_leaks_nothing(
        tmp_path, monkeypatch):
    import fcntl

    from baton.ledger.repair import plan_repair, set_aside
    from tests.test_ledger_durability import FsyncCounter

    ledger, lines = feed_of(tmp_path, 3)
    ledger.close()
    ledger.feed_path("w1").write_bytes(lines[0] + lines[1].replace(b'"n":1', b'"n":7') + lines[2])
    ledger_dir = tmp_path / ".baton" / "ledger"
    [plan] = plan_repair(ledger_dir, verify_ledger(ledger_dir))
    (tmp_path / ".baton" / "ledger.lock").unlink()  # made again by the repair
    fsyncs = FsyncCounter(monkeypatch)
    fds = len(os.listdir("/proc/self/fd"))
    name = set_aside(tmp_path / ".baton", plan)
    assert len(os.listdir("/proc/self/fd")) == fds
    quarantine = tmp_path / ".baton" / "quarantine"
    assert fsyncs.of(f"/quarantine/{name}") == 1 and fsyncs.of(name.replace(".repair", ".manifest.json")) == 1
    assert fsyncs.of("/.baton/quarantine") == 1 and fsyncs.of("/ledger/w1.jsonl") == 1
    umask = os.umask(0)
    os.umask(umask)
    assert {p.stat().st_mode & 0o777 for p in quarantine.iterdir()} == {0o644 & ~umask}
    assert (tmp_path / ".baton" / "ledger.lock").stat().st_mode & 0o777 == 0o644 & ~umask
    fd = os.open(tmp_path / ".baton" / "ledger.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released
    finally:
        os.close(fd)
    assert ledger.feed_path("w1").read_bytes() == lines[0]


def test_a_repair_gives_the_first_bad_line_as_its_reason_and_sets_a_leading_blank_line_aside_alone(tmp_path):
    """The blank line goes alone; the event after it chains from the start and is kept; the
    garbage that replaced the second event goes next (the chain, not the line order, decides)."""
    from baton.ledger.repair import plan_repair

    ledger, lines = feed_of(tmp_path, 3)
    ledger.feed_path("w1").write_bytes(b"\n" + lines[0] + b"{}\n" + lines[2])
    ledger_dir = tmp_path / ".baton" / "ledger"
    [plan] = plan_repair(ledger_dir, verify_ledger(ledger_dir))
    assert len(plan.reasons) == 1 and plan.reasons[0].startswith("bad_json at byte 0: ")
    assert [(i["offset"], i["bytes"]) for i in plan.set_aside][:2] == [(0, 1), (1 + len(lines[0]), 3)]


def test_a_malformed_repair_record_is_read_without_failing_verify(tmp_path):
    from baton.ledger.integrity import REPAIRED_TYPE, ledger_stream

    ledger, _ = feed_of(tmp_path, 1)
    with ledger.locked() as txn:
        txn.append([EventDraft(REPAIRED_TYPE, ledger_stream("w1"),
                               {"feed": "w1", "set_aside": ["x", 5, {"hash": 7}], "lost": None, "kept": "x"})])
        txn.append([EventDraft(REPAIRED_TYPE, ledger_stream("w1"), {"feed": 3, "set_aside": "x"})])
    report = verify_ledger(tmp_path / ".baton" / "ledger")
    assert report.ok and report.heads_checked == 0


def test_lines_are_set_aside_and_torn_tails_quarantined_into_a_quarantine_that_already_exists(tmp_path):
    from baton.ledger.repair import plan_repair, set_aside

    ledger, lines = feed_of(tmp_path, 2)
    (tmp_path / ".baton" / "quarantine").mkdir()
    ledger.feed_path("w1").write_bytes(b"".join(lines) + b'{"v":1,')
    with Ledger(tmp_path / ".baton", "w1", fsync="never").locked() as txn:
        txn.append([EventDraft("test.noted", "test/w1", {"n": 2})])
    ledger.feed_path("w1").write_bytes(lines[0] + lines[1].replace(b'"n":1', b'"n":8'))
    ledger_dir = tmp_path / ".baton" / "ledger"
    [plan] = plan_repair(ledger_dir, verify_ledger(ledger_dir))
    assert set_aside(tmp_path / ".baton", plan, fsync=False).endswith(".repair")
    assert len(list((tmp_path / ".baton" / "quarantine").iterdir())) == 3  # the torn tail, the lines, a manifest


def test_only_well_formed_recorded_heads_are_checked_and_a_feed_report_says_what_it_found(tmp_path):
    from baton.ledger.integrity import HEADS_TYPE, ledger_stream

    ledger, lines = feed_of(tmp_path, 2, "w2")
    hash1 = orjson.loads(lines[0])["hash"]
    w1 = Ledger(tmp_path / ".baton", "w1", fsync="never")
    with w1.locked() as txn:
        txn.append([EventDraft(HEADS_TYPE, ledger_stream("w1"), {"heads": {
            "w2": {"seq": 1, "hash": hash1, "offset": len(lines[0])},
            "w3": {"seq": 0, "hash": None}, "w4": {"seq": "3"}, "w5": "x", "w6": {"seq": True}}})])
    report = verify_ledger(tmp_path / ".baton" / "ledger")
    assert report.ok and report.heads_checked == 1
    w2 = next(f for f in report.feeds if f.feed == "w2")
    assert w2.to_json()["feed"] == "w2" and w2.to_json()["events"] == 2 and w2.to_json()["erased"] == 0


def test_a_cursor_read_before_a_rewrite_under_the_lock_is_checked_again_once_the_ledger_forgets(tmp_path):
    """``baton forget`` rewrites feeds while holding the lock, then makes the
    ledger forget what it read: a cursor it had checked (or read to) before
    the rewrite is no longer taken on trust."""
    ledger, lines = feed_of(tmp_path, 3)
    with ledger.locked() as txn:
        txn.refresh()
        before = ledger.cursors()["w1"]
        assert ledger.head_holds("w1", before)
        erase_payloads(tmp_path / ".baton" / "ledger", [orjson.loads(lines[1])["id"]])
        ledger._forget()
        assert not ledger.head_holds("w1", before)
