"""Feeds cut into segments for the ledger ref (``baton.ledger.segments``)."""

from __future__ import annotations

from hypothesis import given, strategies as st

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
