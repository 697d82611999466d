"""Turning cursors into the events after them, the same way for every ledger.

``read_changes`` is the one implementation of "changes since cursors" over
the protocol's primitives (list feeds, check a head, size, read a feed), so
the JSONL and in-memory ledgers cannot disagree about when a feed was
rewritten. A ledger that already holds some of those events in memory passes
``serve`` and they are not read again.

``ReadLog`` is that memory for ``Ledger``: what it read or appended while it
held the lock. The lock holder's catch-up is then served from it, so the
bytes the ledger read to learn the feeds' heads are the bytes the projections
fold — each read once.
"""

from __future__ import annotations

from typing import Callable, Mapping

import attrs

from baton.ledger.envelope import Event
from baton.ledger.feed import FeedScan, last_line_length
from baton.ledger.protocol import Changes, Cursor, FeedRewritten, LedgerProtocol

Served = tuple[FeedScan, Cursor]


def cursor_after(scan: FeedScan, start: Cursor, ident: int | None) -> Cursor:
    """The cursor a reader holds after ``scan``, which began at ``start``."""
    if not scan.events:
        return Cursor(start.head, ident, start.line)
    return Cursor(scan.head, ident, last_line_length(scan, start.head))


def read_changes(
    ledger: LedgerProtocol,
    cursors: Mapping[str, Cursor],
    serve: Callable[[str, Cursor], Served | None] | None = None,
) -> Changes:
    """See ``LedgerProtocol.changes_since``."""
    names = ledger.feed_names()
    present = set(names)
    for feed in cursors:
        if feed not in present:
            raise FeedRewritten(feed, "disappeared")
    scans: list[FeedScan] = []
    ends: dict[str, Cursor] = {}
    for feed in names:
        start = cursors.get(feed)
        if start is not None and start.head.offset and not ledger.head_holds(feed, start):
            raise FeedRewritten(feed)
        begin = start or Cursor()
        got = serve(feed, begin) if serve is not None else None
        if got is None:
            info = ledger.feed_info(feed)
            if info is None:
                if start is not None:
                    raise FeedRewritten(feed, "disappeared")
                continue
            if info.size == begin.head.offset:
                continue
            scan = ledger.read_feed(feed, begin.head)
            got = (scan, cursor_after(scan, begin, info.ident))
        scan, end = got
        if scan.events:
            scans.append(scan)
            ends[feed] = end
    return Changes.of(scans, ends)


@attrs.define
class _Read:
    start: Cursor
    events: list[Event]
    ends: list[int]
    end: Cursor


class ReadLog:
    """Per feed, the run of events read or appended since the lock was taken."""

    def __init__(self) -> None:
        self._reads: dict[str, _Read] = {}

    def clear(self) -> None:
        self._reads.clear()

    def add(self, feed: str, start: Cursor, events: list[Event], ends: list[int], end: Cursor) -> None:
        run = self._reads.get(feed)
        if run is not None and run.end.at(start):
            run.events.extend(events)
            run.ends.extend(ends)
            run.end = end
        else:
            self._reads[feed] = _Read(start, list(events), list(ends), end)

    def after(self, feed: str, start: Cursor) -> Served | None:
        """The logged events of ``feed`` after ``start``, if the log covers it."""
        run = self._reads.get(feed)
        if run is None:
            return None
        first = run.start.head.seq
        if run.start.at(start):
            skip = 0
        elif first < start.head.seq <= run.end.head.seq:
            skip = start.head.seq - first
            if run.events[skip - 1].hash != start.head.hash or run.ends[skip - 1] != start.head.offset:
                return None
        else:
            return None
        return FeedScan(feed=feed, events=run.events[skip:], ends=run.ends[skip:], head=run.end.head), run.end
