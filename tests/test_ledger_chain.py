"""The hash chain catches every damage to a feed that is not a torn tail.

Each property builds a feed with the real ``Ledger``, damages its bytes, and
checks the two readings DESIGN.md allows: ``verify`` reports a problem, or —
only when the damage is confined to the last line, or is a truncation — the
scan reports a torn tail (or a clean end) and every event before it is read
back intact.
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
from pathlib import Path

import orjson
from hypothesis import given
from hypothesis import strategies as st

from baton.ledger import EventDraft, Ledger
from baton.ledger.feed import FeedHead, scan_bytes
from baton.ledger.verify import RecordedHead, verify_ledger

WRITER = "w1"
texts = st.text(st.characters(codec="utf-8"), max_size=12)
payload = st.dictionaries(
    st.text(max_size=5),
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | texts | st.floats(allow_nan=False, allow_infinity=False)
    | st.lists(texts, max_size=3),
    max_size=4,
)


class Feed:
    """A feed written by the real Ledger, and its lines: the payloads
    appended ``group`` at a time (a group of several is one batch)."""

    def __init__(self, payloads: list[dict], group: int = 1) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="chain-"))
        ticks = itertools.count(1_700_000_000_000_000_000, 1_000)
        ledger = Ledger(self.dir / ".baton", WRITER, fsync="never", clock=lambda: next(ticks))
        self.batch_sizes = []
        with ledger.locked() as txn:
            for at in range(0, len(payloads), group):
                drafts = [EventDraft("test.noted", f"test/{i % 2}", data)
                          for i, data in enumerate(payloads[at:at + group], start=at)]
                txn.append(drafts)
                self.batch_sizes.append(len(drafts))
        self.raw = ledger.feed_path(WRITER).read_bytes()
        self.lines = self.raw.splitlines(keepends=True)
        self.events = ledger.read_all()
        self.ends = list(itertools.accumulate(len(line) for line in self.lines))
        self.batch_ends = [self.ends[n - 1] for n in itertools.accumulate(self.batch_sizes)]
        """Byte offsets where each append (batch) ends."""

    def check(self, damaged: bytes, *, head_recorded: bool = False):
        """Verify report and a collecting scan of ``damaged`` as this feed;
        ``head_recorded``: as an index that folded the whole feed would."""
        feed = self.dir / ".baton" / "ledger" / f"{WRITER}.jsonl"
        feed.write_bytes(damaged)
        last = self.events[-1]
        heads = [RecordedHead(WRITER, last.seq, last.hash, len(self.raw), "the index")] if head_recorded else None
        report = verify_ledger(feed.parent, recorded_heads=heads)
        scan = scan_bytes(WRITER, damaged, FeedHead(), collect=True)
        return report, scan

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


feeds = st.lists(payload, min_size=2, max_size=6)
groups = st.integers(1, 3)


@given(feeds, groups, st.data())
def test_every_single_byte_change_of_any_line_the_last_included_is_reported(payloads, group, data):
    feed = Feed(payloads, group)
    try:
        at = data.draw(st.integers(0, len(feed.raw) - 1), label="offset")
        new = data.draw(st.integers(0, 255).filter(lambda b: b != feed.raw[at]), label="byte")
        damaged = feed.raw[:at] + bytes([new]) + feed.raw[at + 1:]
        report, scan = feed.check(damaged)
        if report.ok:
            # Only a respelling that keeps every value (``\\u001f`` ->
            # ``\\u001F``, ``1e+20`` -> ``1E+20``) passes: the hash is over
            # canonical JSON, and no reader can tell the two lines apart.
            assert scan.events == feed.events and scan.torn is None, "a changed byte went unreported"
        else:
            assert {p.feed for p in report.all_problems()} == {WRITER}
            line_start = max([0] + [end for end in feed.ends if end <= at])
            # named at the changed line, or the one before when its newline was hit
            assert min(p.offset for p in report.all_problems() if p.offset >= 0) <= line_start
    finally:
        feed.close()


def test_a_respelled_escape_keeps_every_value_and_so_is_no_change():
    feed = Feed([{"ctl": "\x1f"}, {"n": 1}])
    try:
        at = feed.raw.index(b"\\u001f") + len(b"\\u001")
        damaged = feed.raw[:at] + b"F" + feed.raw[at + 1:]
        report, scan = feed.check(damaged)
        assert report.ok and scan.events == feed.events
    finally:
        feed.close()


def test_a_damaged_newline_between_the_last_two_lines_is_corruption_not_a_torn_tail():
    feed = Feed([{"n": 1}, {"n": 2}, {"n": 3}])
    try:
        at = feed.ends[-2] - 1
        report, scan = feed.check(feed.raw[:at] + b" " + feed.raw[at + 1:])
        assert not report.ok and scan.torn is None
        assert report.all_problems()[0].offset == feed.ends[-3]
    finally:
        feed.close()


@given(feeds, groups, st.data())
def test_deleting_any_line_is_reported_the_last_against_its_recorded_head(payloads, group, data):
    feed = Feed(payloads, group)
    try:
        k = data.draw(st.integers(0, len(feed.lines) - 1), label="line")
        damaged = b"".join(feed.lines[:k] + feed.lines[k + 1:])
        report, scan = feed.check(damaged, head_recorded=True)
        assert not report.ok
        if k < len(feed.lines) - 1:
            assert any(p.kind in ("gap", "broken_chain", "incomplete_batch") for p in report.all_problems())
        else:
            assert [p.kind for p in report.all_problems()] == ["truncated"]
            # Without a recorded head, only the chain speaks: a shorter, valid one.
            alone, _ = feed.check(damaged)
            assert alone.ok
    finally:
        feed.close()


@given(feeds, groups, st.data())
def test_duplicating_any_line_is_reported(payloads, group, data):
    feed = Feed(payloads, group)
    try:
        k = data.draw(st.integers(0, len(feed.lines) - 1), label="line")
        report, _ = feed.check(b"".join(feed.lines[:k + 1] + feed.lines[k:]))
        assert not report.ok
        assert any(p.kind in ("fork", "incomplete_batch") for p in report.all_problems())
    finally:
        feed.close()


@given(feeds, groups, st.data())
def test_swapping_two_adjacent_lines_is_always_reported(payloads, group, data):
    feed = Feed(payloads, group)
    try:
        k = data.draw(st.integers(0, len(feed.lines) - 2), label="line")
        lines = list(feed.lines)
        lines[k], lines[k + 1] = lines[k + 1], lines[k]
        report, _ = feed.check(b"".join(lines))
        assert not report.ok
        assert any(p.kind in ("gap", "fork") for p in report.all_problems())
    finally:
        feed.close()


@given(feeds, groups, st.data())
def test_a_truncated_feed_is_a_pure_cut_of_its_torn_tail_and_loses_nothing_before_it(payloads, group, data):
    feed = Feed(payloads, group)
    try:
        cut = data.draw(st.integers(0, len(feed.raw) - 1), label="cut")
        report, scan = feed.check(feed.raw[:cut])
        whole = [end for end in feed.batch_ends if end <= cut]  # appends that survived whole
        kept = sum(feed.batch_sizes[:len(whole)])
        assert report.ok
        assert scan.events == feed.events[:kept]
        if cut in feed.batch_ends or cut == 0:
            assert scan.torn is None
        else:
            assert scan.torn is not None and scan.torn.offset == (whole[-1] if whole else 0)
            assert scan.torn.offset + scan.torn.length == cut
    finally:
        feed.close()


@given(feeds, groups, st.data())
def test_any_truncation_is_reported_against_the_recorded_head(payloads, group, data):
    feed = Feed(payloads, group)
    try:
        cut = data.draw(st.integers(0, len(feed.raw) - 1), label="cut")
        report, _ = feed.check(feed.raw[:cut], head_recorded=True)
        assert [p.kind for p in report.all_problems()] == ["truncated"]
    finally:
        feed.close()


def erase(feed: "Feed", chosen: set[int]) -> list[bytes]:
    lines = []
    for i, line in enumerate(feed.lines):
        if i in chosen:
            raw = orjson.loads(line)
            del raw["data"]
            line = orjson.dumps(raw) + b"\n"
        lines.append(line)
    return lines


FORGOTTEN = "test.forgotten"


@given(feeds, st.data())
def test_erasing_payloads_a_recorded_forget_names_keeps_every_chain_valid(payloads, data):
    feed = Feed(payloads)
    try:
        chosen = data.draw(st.sets(st.integers(0, len(feed.lines) - 1), min_size=1), label="erased lines")
        lines = erase(feed, chosen)
        path = feed.dir / ".baton" / "ledger" / f"{WRITER}.jsonl"
        path.write_bytes(b"".join(lines))
        forget = Ledger(feed.dir / ".baton", "w2", fsync="never")
        with forget.locked() as txn:
            txn.append([EventDraft(FORGOTTEN, "test/f", {"events": [feed.events[i].id for i in chosen]})])
        report = verify_ledger(path.parent, erasure_type=FORGOTTEN)
        scan = scan_bytes(WRITER, b"".join(lines), FeedHead(), collect=True)
        assert report.ok, report.to_json()["problems"]
        assert report.feeds[0].feed == WRITER and report.feeds[0].erased == len(chosen)
        assert report.erased_by_forget == len(chosen)
        assert [e.erased for e in scan.events] == [i in chosen for i in range(len(feed.lines))]
        assert [e.hash for e in scan.events] == [e.hash for e in feed.events]
    finally:
        feed.close()


@given(feeds, st.data())
def test_an_erased_payload_no_forget_names_is_reported(payloads, data):
    feed = Feed(payloads)
    try:
        chosen = data.draw(st.sets(st.integers(0, len(feed.lines) - 1), min_size=1), label="erased lines")
        lines = erase(feed, chosen)
        report, _ = feed.check(b"".join(lines))
        problems = report.all_problems()
        assert [p.kind for p in problems] == ["erased_without_forget"] * len(chosen)
        assert sorted(p.seq for p in problems) == sorted(feed.events[i].seq for i in chosen)
        starts = [0, *itertools.accumulate(len(line) for line in lines)]
        assert all(p.offset == starts[p.seq - 1] for p in problems)
        assert "no recorded forget names it" in problems[0].message
    finally:
        feed.close()


def test_an_erased_line_is_still_checked_against_its_hash():
    feed = Feed([{"n": 1}, {"n": 2}, {"n": 3}])
    try:
        lines = erase(feed, {1})
        lines[1] = lines[1].replace(b'"type":"test.noted"', b'"type":"test.noteD"')
        report, _ = feed.check(b"".join(lines))
        assert [p.kind for p in report.feeds[0].problems] == ["bad_hash"]
        assert report.feeds[0].problems[0].offset == feed.ends[0]
    finally:
        feed.close()


def test_a_payload_changed_behind_its_digest_is_reported_even_in_the_last_line():
    feed = Feed([{"n": 1}, {"n": 2}])
    try:
        raw = orjson.loads(feed.lines[-1])
        raw["data"] = {"n": 3}
        report, _ = feed.check(feed.lines[0] + orjson.dumps(raw) + b"\n")
        assert [p.kind for p in report.all_problems()] == ["bad_digest"]
    finally:
        feed.close()


def test_every_byte_of_a_small_feed_changed_in_turn_is_reported():
    """Exhaustive over one feed (a single event, then a batch of two): each
    byte replaced by its neighbour value, by a space and by NUL."""
    feed = Feed([{"n": 1}, {"n": 2, "t": "x"}, {"n": 3}], group=1)
    batch = Feed([{"n": 1}, {"n": 2, "t": "x"}, {"n": 3}], group=2)
    try:
        for subject in (feed, batch):
            missed = []
            for at in range(len(subject.raw)):
                for new in {subject.raw[at] ^ 1, 0x20, 0x00} - {subject.raw[at]}:
                    damaged = subject.raw[:at] + bytes([new]) + subject.raw[at + 1:]
                    scan = scan_bytes(WRITER, damaged, FeedHead(), collect=True)  # the chain checks verify runs
                    if not scan.problems and not (scan.events == subject.events and scan.torn is None):
                        missed.append((at, new))
            assert missed == []
    finally:
        feed.close()
        batch.close()


def test_a_changed_byte_in_the_first_lines_writer_is_reported_not_read_as_another_writers_copy():
    feed = Feed([{"n": 1}, {"n": 2}])
    try:
        at = feed.raw.index(b'"writer":"w1"') + len(b'"writer":"')
        for new in (b" ", b"2"):  # no writer id at all; another writer id the line's hash does not hold
            report, scan = feed.check(feed.raw[:at] + new + feed.raw[at + 1:])
            assert not report.ok
            assert report.all_problems()[0].offset == 0
    finally:
        feed.close()
