"""Segments as a sync reads and writes them: where one may end, the line ending at an offset.

The segment format itself (1 MiB blobs named by their offset) is
``baton.ledger.segments``; the ref's layout is ``baton.sync.ledger_ref``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from baton.ledger.feed import FeedScan

if TYPE_CHECKING:
    from baton.sync.ledger_ref import RefFeed


def batch_ends(scan: FeedScan, start: int) -> list[int]:
    """Where a segment may end in the bytes ``scan`` read from ``start``: after
    each event that is not inside a batch (a batch is all-or-nothing, so a
    segment holds the whole of it)."""
    cuts = []
    for event, end in zip(scan.events, scan.ends):
        batch = event.extra.get("batch") if event.extra else None
        if type(batch) is not dict or batch.get("n") == batch.get("of"):
            cuts.append(end - start)
    return cuts


def line_in_segment(data: bytes, end: int) -> bytes | None:
    """The whole line ending at ``end`` in a segment's ``data`` (without its
    newline), or None when no line ends there."""
    if end <= 0 or end > len(data) or data[end - 1:end] != b"\n":
        return None
    return data[data.rfind(b"\n", 0, end - 1) + 1:end - 1]


def segment_before(remote: "RefFeed", offset: int) -> int:
    """Where to start reading ``remote`` to see the line ending at ``offset`` too."""
    if not offset:
        return 0
    return max((start for start, _ in remote.segments if start < offset), default=0)
