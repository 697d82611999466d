"""The segment format ``baton sync`` stores on the ledger ref (``baton.ledger.segments``): names, the size
limit, and how lines are packed. Two machines must cut the same feed the same way."""

from __future__ import annotations

from baton.ledger import segments
from baton.ledger.segments import SegmentPacker, segment_name, segment_start


def test_a_segment_is_named_by_its_start_offset_in_twelve_digits_and_holds_at_most_a_mebibyte():
    assert segment_name(1_048_517) == "000001048517.jsonl"
    assert segment_start("000001048517.jsonl") == 1_048_517
    assert segment_start("0000001048517.jsonl") is None and segment_start("00000104851.jsonl") is None
    assert segments.SEGMENT_BYTES == 1 << 20 and SegmentPacker().limit == 1 << 20


def test_a_packer_starts_at_the_feed_s_beginning_by_default():
    packer = SegmentPacker()
    assert packer.start == 0 and packer.end == 0 and packer.finish() is None
    packer.add(b"a\n")
    assert packer.finish() == (0, b"a\n")


def test_lines_fill_a_segment_exactly_to_its_limit_and_the_next_line_closes_it():
    packer = SegmentPacker(limit=6)
    packer.add(b"ab\ncd\n")  # exactly 6 bytes: the segment is full but still open
    assert list(packer.closed()) == []
    packer.add(b"ef\n")
    assert list(packer.closed()) == [(0, b"ab\ncd\n")]
    assert packer.finish() == (6, b"ef\n")


def test_a_line_longer_than_a_segment_gets_one_of_its_own_and_is_closed_at_once():
    packer = SegmentPacker(limit=4)
    packer.add(b"a\n" + b"x" * 9 + b"\n" + b"b\n")
    assert list(packer.closed()) == [(0, b"a\n"), (2, b"x" * 9 + b"\n")]
    assert packer.finish() == (12, b"b\n")


def test_an_oversized_last_line_is_a_closed_segment_not_the_open_one():
    packer = SegmentPacker(limit=4)
    packer.add(b"a\n" + b"x" * 9 + b"\n")
    assert list(packer.closed()) == [(0, b"a\n"), (2, b"x" * 9 + b"\n")]
    assert packer.finish() is None and packer.end == 12
