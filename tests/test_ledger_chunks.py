"""Reading a feed a chunk at a time (replay and catch-up of any size) finds
exactly what reading it whole finds: the same events, line ends, head, torn
tail and corruption, wherever the chunk boundaries fall."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.errors import LedgerCorrupt
from baton.ledger import EventDraft, Ledger
from baton.ledger.feed import FeedHead, scan_bytes, scan_chunks

WRITER = "w1"


def feed_bytes(tmp_path, sizes: list[int]) -> bytes:
    ticks = itertools.count(1_700_000_000_000_000_000, 1_000)
    ledger = Ledger(tmp_path / ".baton", WRITER, fsync="never", clock=lambda: next(ticks))
    with ledger.locked() as txn:
        for i, size in enumerate(sizes):
            txn.append([EventDraft("test.noted", f"test/{i % 3}", {"n": i, "pad": "x" * size})])
    return (tmp_path / ".baton" / "ledger" / f"{WRITER}.jsonl").read_bytes()


def chunked(raw: bytes, chunk: int, start: FeedHead = FeedHead()):
    return list(scan_chunks(WRITER, lambda at, n: raw[at:at + n], start, len(raw), chunk_bytes=chunk))


def joined(scans):
    events = [e for s in scans for e in s.events]
    ends = [x for s in scans for x in s.ends]
    return events, ends, scans[-1].head if scans else None, scans[-1].torn if scans else None


def whole(raw: bytes):
    scan = scan_bytes(WRITER, raw, FeedHead())
    return scan.events, scan.ends, scan.head, scan.torn


@settings(deadline=None)
@given(sizes=st.lists(st.integers(0, 3000), min_size=1, max_size=12), chunk=st.integers(1, 4000),
       torn=st.integers(0, 200))
def test_chunked_reading_finds_what_whole_reading_finds(tmp_path_factory, sizes, chunk, torn):
    raw = feed_bytes(tmp_path_factory.mktemp("feed"), sizes)
    last = raw.splitlines()[-1]
    raw += last[: min(torn, len(last) - 1)]  # a dying writer's partial line (or nothing)
    assert joined(chunked(raw, chunk)) == whole(raw)


def test_a_damaged_line_before_the_last_is_corruption_at_any_chunk_size(tmp_path):
    raw = feed_bytes(tmp_path, [500] * 6)
    lines = raw.splitlines(keepends=True)
    lines[2] = lines[2].replace(b'"n":2', b'"n":9')
    damaged = b"".join(lines)
    for chunk in (64, 700, 1500, len(damaged)):
        with pytest.raises(LedgerCorrupt):
            chunked(damaged, chunk)


def test_chunks_continue_from_a_cursor_in_the_middle(tmp_path):
    raw = feed_bytes(tmp_path, [100, 2000, 50, 700, 10])
    middle = whole(raw[: raw.index(b"\n", raw.index(b"\n") + 1) + 1])
    start = middle[2]
    events, ends, head, torn = joined(chunked(raw, 300, start))
    all_events, all_ends, all_head, _ = whole(raw)
    assert events == all_events[2:] and ends == all_ends[2:] and head == all_head and torn is None


@pytest.mark.parametrize("chunk", [64, 700, 1500])
def test_a_run_of_nul_bytes_and_newlines_at_the_end_is_a_torn_tail_at_any_chunk_size(tmp_path, chunk):
    """The last chunk is scanned as the feed's end even when it ends with a
    newline: lost blocks there are a torn tail, not a corrupt line."""
    raw = feed_bytes(tmp_path, [500] * 3) + b"\x00" * 40 + b"\n"
    events, _ends, _head, torn = joined(chunked(raw, chunk))
    assert len(events) == 3 and torn is not None and torn.reason == "a run of NUL bytes"
    assert (events, torn) == whole(raw)[::3]
