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
from baton.ledger.verify import verify_ledger

WRITER = "w1"
texts = st.text(st.characters(codec="utf-8"), max_size=12)
payload = st.dictionaries(
    st.text(max_size=5),
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | texts | st.floats(allow_nan=False, allow_infinity=False)
    | st.lists(texts, max_size=3),
    max_size=4,
)


class Feed:
    """A feed written by the real Ledger, and its lines."""

    def __init__(self, payloads: list[dict]) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="chain-"))
        ticks = itertools.count(1_700_000_000_000_000_000, 1_000)
        ledger = Ledger(self.dir / ".baton", WRITER, fsync="never", clock=lambda: next(ticks))
        with ledger.locked() as txn:
            for i, data in enumerate(payloads):
                txn.append([EventDraft("test.noted", f"test/{i % 2}", data)])
        self.raw = ledger.feed_path(WRITER).read_bytes()
        self.lines = self.raw.splitlines(keepends=True)
        self.events = ledger.read_all()
        self.ends = list(itertools.accumulate(len(line) for line in self.lines))

    def check(self, damaged: bytes):
        """Verify report and a collecting scan of ``damaged`` as this feed."""
        feed = self.dir / ".baton" / "ledger" / f"{WRITER}.jsonl"
        feed.write_bytes(damaged)
        report = verify_ledger(feed.parent)
        scan = scan_bytes(WRITER, damaged, FeedHead(), collect=True)
        return report, scan

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


feeds = st.lists(payload, min_size=2, max_size=5)


@given(feeds, st.data())
def test_every_single_byte_change_is_reported_unless_it_is_confined_to_the_last_line(payloads, data):
    feed = Feed(payloads)
    try:
        at = data.draw(st.integers(0, len(feed.raw) - 1), label="offset")
        new = data.draw(st.integers(0, 255).filter(lambda b: b != feed.raw[at]), label="byte")
        damaged = feed.raw[:at] + bytes([new]) + feed.raw[at + 1:]
        report, scan = feed.check(damaged)
        if not report.ok:
            assert {p.feed for p in report.all_problems()} == {WRITER}
            return
        if scan.events == feed.events and scan.torn is None:
            # A respelling that keeps every value (``\\u001f`` -> ``\\u001F``,
            # ``1e+20`` -> ``1E+20``): the hash is over canonical JSON, and
            # no reader can tell the two lines apart.
            return
        last_line_starts = feed.ends[-2]
        assert at >= last_line_starts, "a change before the last line went unreported"
        assert scan.torn is not None and scan.torn.offset == last_line_starts
        assert scan.events == feed.events[:-1]
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


@given(feeds, st.data())
def test_deleting_a_line_is_reported_unless_it_is_the_last_which_is_a_clean_truncation(payloads, data):
    feed = Feed(payloads)
    try:
        k = data.draw(st.integers(0, len(feed.lines) - 1), label="line")
        report, scan = feed.check(b"".join(feed.lines[:k] + feed.lines[k + 1:]))
        if k < len(feed.lines) - 1:
            assert not report.ok
            assert any(p.kind in ("gap", "broken_chain") for p in report.all_problems())
        else:
            # Cutting at a line boundary leaves a shorter, valid chain: no chain
            # can tell (the projection runner's cursor and Ledger's cache can).
            assert report.ok and scan.torn is None
            assert scan.events == feed.events[:-1]
    finally:
        feed.close()


@given(feeds, st.data())
def test_swapping_two_adjacent_lines_is_always_reported(payloads, data):
    feed = Feed(payloads)
    try:
        k = data.draw(st.integers(0, len(feed.lines) - 2), label="line")
        lines = list(feed.lines)
        lines[k], lines[k + 1] = lines[k + 1], lines[k]
        report, _ = feed.check(b"".join(lines))
        assert not report.ok
        assert any(p.kind in ("gap", "fork") for p in report.all_problems())
    finally:
        feed.close()


@given(feeds, st.data())
def test_a_truncated_feed_is_a_torn_tail_and_loses_no_event_before_the_cut(payloads, data):
    feed = Feed(payloads)
    try:
        cut = data.draw(st.integers(0, len(feed.raw) - 1), label="cut")
        report, scan = feed.check(feed.raw[:cut])
        complete = sum(1 for end in feed.ends if end <= cut)
        assert report.ok
        assert scan.events == feed.events[:complete]
        if cut in feed.ends or cut == 0:
            assert scan.torn is None
        else:
            assert scan.torn is not None and scan.torn.offset == (feed.ends[complete - 1] if complete else 0)
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
        assert report.forgotten == len(chosen)
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
