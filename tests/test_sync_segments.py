"""Feeds cut into segments for the ledger ref (``baton.ledger.segments``)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from baton.ledger.segments import SegmentPacker, segment_name, segment_start

lines = st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"x") + b"\n"), max_size=60)


def _pack(feed_lines: list[bytes], limit: int, batches: list[int] | None = None) -> list[tuple[int, bytes]]:
    packer = SegmentPacker(limit=limit)
    out: list[tuple[int, bytes]] = []
    i = 0
    for size in batches or [len(feed_lines)]:
        packer.add(b"".join(feed_lines[i:i + size]))
        i += size
        out.extend(packer.closed())
    packer.add(b"".join(feed_lines[i:]))
    out.extend(packer.closed())
    last = packer.finish()
    return out + ([last] if last else [])


@given(lines, st.integers(8, 200))
def test_segments_hold_the_feed_in_order_as_whole_lines(feed_lines, limit):
    segments = _pack(feed_lines, limit)
    assert b"".join(data for _, data in segments) == b"".join(feed_lines)
    offset = 0
    for start, data in segments:
        assert start == offset and data.endswith(b"\n")
        offset += len(data)


@given(lines, st.integers(8, 200))
def test_a_segment_exceeds_the_limit_only_to_hold_one_long_line(feed_lines, limit):
    for _, data in _pack(feed_lines, limit):
        assert len(data) <= limit or data.count(b"\n") == 1


@given(lines, st.integers(8, 200), st.lists(st.integers(0, 10), max_size=10))
def test_packing_in_batches_cuts_the_same_segments_as_packing_at_once(feed_lines, limit, batches):
    assert _pack(feed_lines, limit, batches) == _pack(feed_lines, limit)


@given(lines, st.integers(8, 200), st.integers(0, 60))
def test_resuming_from_the_open_segment_cuts_the_same_segments_as_packing_again(feed_lines, limit, cut):
    whole = _pack(feed_lines, limit)
    first = _pack(feed_lines[:cut], limit)
    if not first:
        return
    start, open_bytes = first[-1]
    packer = SegmentPacker(start, open_bytes, limit=limit)
    packer.add(b"".join(feed_lines[cut:]))
    resumed = first[:-1] + list(packer.closed())
    last = packer.finish()
    assert resumed + ([last] if last else []) == whole


def test_segment_names_sort_in_feed_order_and_read_back():
    names = [segment_name(n) for n in (0, 9, 1_048_576, 10_000_000_000)]
    assert names == sorted(names)
    assert [segment_start(n) for n in names] == [0, 9, 1_048_576, 10_000_000_000]
    assert segment_start("head.json") is None and segment_start("12.jsonl") is None


batched = st.lists(st.lists(st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"x") + b"\n"), min_size=1,
                            max_size=5), max_size=30)


def _pack_batches(batches: list[list[bytes]], limit: int, chunks: list[int] | None = None) -> list[tuple[int, bytes]]:
    """Pack whole batches, handed over ``chunks`` batches at a time, with their ends as the allowed cuts."""
    packer = SegmentPacker(limit=limit)
    out: list[tuple[int, bytes]] = []
    i = 0
    sizes = list(chunks or []) + [len(batches)]
    for size in sizes:
        group = batches[i:i + size]
        i += len(group)
        cuts, at = [], 0
        for batch in group:
            at += sum(map(len, batch))
            cuts.append(at)
        packer.add(b"".join(b"".join(batch) for batch in group), cuts)
        out.extend(packer.closed())
    last = packer.finish()
    return out + ([last] if last else [])


@given(batched, st.integers(8, 200))
def test_with_its_batch_ends_the_packer_cuts_inside_a_batch_only_when_the_batch_is_longer_than_a_segment(
        batches, limit):
    segments = _pack_batches(batches, limit)
    assert b"".join(data for _, data in segments) == b"".join(b"".join(b) for b in batches)
    ends, at, long_spans = set(), 0, []
    for batch in batches:
        size = sum(map(len, batch))
        if size > limit:
            long_spans.append((at, at + size))
        at += size
        ends.add(at)
    for start, data in segments:
        end = start + len(data)
        assert end in ends or any(lo < end < hi for lo, hi in long_spans)
        assert len(data) <= limit or data.count(b"\n") == 1


@given(batched, st.integers(8, 200), st.lists(st.integers(0, 6), max_size=8))
def test_packing_batches_in_chunks_cuts_the_same_segments_as_packing_them_at_once(batches, limit, chunks):
    assert _pack_batches(batches, limit, chunks) == _pack_batches(batches, limit)


def test_a_batch_longer_than_a_segment_fills_the_open_segment_before_it_is_cut_at_lines():
    line = b"123456789\n"
    segments = _pack_batches([[line] * 3, [line] * 30, [line] * 2], 100)
    assert [len(data) for _, data in segments] == [100, 100, 100, 50]
    assert segments[-1][0] == 300  # the long batch's last lines and the next batch share the last one
