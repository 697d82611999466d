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

import heapq

from baton.ledger.envelope import Event
from baton.ledger.feed import FeedHead, FeedScan, last_line_length
from baton.ledger.protocol import Changes, Cursor, FeedInfo, FeedRewritten, LedgerProtocol
from baton.values import Value, replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a hook never needs it)
if TYPE_CHECKING:
    from typing import Callable, Iterator, Mapping

Served = tuple[FeedScan, Cursor]


def cursor_after(scan: FeedScan, start: Cursor, ident: int | None) -> Cursor:
    """The cursor a reader holds after ``scan``, which began at ``start``."""
    if not scan.events:
        return Cursor(start.head, ident, start.line)
    return Cursor(scan.head, ident, last_line_length(scan, start.head))


def _to_read(ledger: LedgerProtocol, cursors: Mapping[str, Cursor],
             serve: Callable[[str, Cursor], Served | None] | None,
             ) -> Iterator[tuple[str, Cursor, Served | None, FeedInfo | None]]:
    """Per feed with something after its cursor: ``(feed, begin, served, info)``
    — ``served`` what ``serve`` already holds, else None and the feed's ``info``
    to read it. Checks every cursor first.

    Raises:
        FeedRewritten: a feed with a cursor disappeared or changed other than by appending.
    """
    names = ledger.feed_names()
    present = set(names)
    for feed in cursors:
        if feed not in present:
            raise FeedRewritten(feed, "disappeared")
    for feed in names:
        start = cursors.get(feed)
        if start is not None and start.head.offset and not ledger.head_holds(feed, start):
            raise FeedRewritten(feed)
        begin = start or Cursor()
        got = serve(feed, begin) if serve is not None else None
        if got is not None:
            yield feed, begin, got, None
            continue
        info = ledger.feed_info(feed)
        if info is None:
            if start is not None:
                raise FeedRewritten(feed, "disappeared")
            continue
        if info.size != begin.head.offset:
            yield feed, begin, None, info


def read_changes(
    ledger: LedgerProtocol,
    cursors: Mapping[str, Cursor],
    serve: Callable[[str, Cursor], Served | None] | None = None,
) -> Changes:
    """See ``LedgerProtocol.changes_since``."""
    scans: list[FeedScan] = []
    ends: dict[str, Cursor] = {}
    for feed, begin, got, info in list(_to_read(ledger, cursors, serve)):
        if got is None:
            assert info is not None  # nothing served: the feed's info came instead
            scan = ledger.read_feed(feed, begin.head)
            got = (scan, cursor_after(scan, begin, info.ident))
        scan, end = got
        if scan.events:
            scans.append(scan)
            ends[feed] = end
    return Changes.of(scans, ends)


class ChangeStream:
    """``read_changes`` for a ledger of any size: the events after
    ``cursors``, merged in project order, read a chunk of each feed at a time
    (``read_feed_chunks``), so memory holds a chunk per feed, not the ledger.

    Iterate it once. ``cursors`` then holds, per feed that yielded events, the
    cursor just after the last event yielded — also when the caller stopped
    early (replaying up to a point in time). The same checks as
    ``read_changes`` are made when it is built: a feed with a cursor that
    disappeared or changed other than by appending raises ``FeedRewritten``.
    """

    def __init__(self, ledger: LedgerProtocol, cursors: Mapping[str, Cursor],
                 serve: Callable[[str, Cursor], Served | None] | None = None) -> None:
        self._sources: list[tuple[str, Cursor, Iterator[FeedScan]]] = []
        self._idents: dict[str, int | None] = {}
        self._last: dict[str, tuple[Event, int, int]] = {}
        self._begins: dict[str, int] = {}
        self._bytes = 0
        for feed, begin, got, info in list(_to_read(ledger, cursors, serve)):
            if got is not None:
                scan, end = got
                if scan.events:
                    self._sources.append((feed, begin, iter([scan])))
                    self._idents[feed] = end.ident
                    self._begins[feed] = begin.head.offset
                    self._bytes += scan.ends[-1] - begin.head.offset
                continue
            assert info is not None  # nothing served: the feed's info came instead
            self._sources.append((feed, begin, ledger.read_feed_chunks(feed, begin.head, info.size)))
            self._idents[feed] = info.ident
            self._begins[feed] = begin.head.offset
            self._bytes += info.size - begin.head.offset

    @staticmethod
    def _lines(begin: Cursor, scans: Iterator[FeedScan]) -> Iterator[tuple[Event, int, int]]:
        before = begin.head.offset
        for scan in scans:
            for event, end in zip(scan.events, scan.ends):
                yield event, end, end - before
                before = end

    def __iter__(self) -> Iterator[Event]:
        runs = [self._lines(begin, scans) for _feed, begin, scans in self._sources]
        if not runs:
            return
        merged = runs[0] if len(runs) == 1 else heapq.merge(*runs, key=lambda run: run[0].merge_key)
        last = self._last
        for found in merged:
            last[found[0].writer] = found
            yield found[0]

    def estimated_total(self, handed_out: int) -> int:
        """How many events the stream holds in all, estimated from the bytes
        behind the ``handed_out`` events so far (for progress displays)."""
        done = sum(end - self._begins[feed] for feed, (_e, end, _l) in self._last.items())
        return handed_out if not done else round(handed_out * self._bytes / done)

    @property
    def cursors(self) -> dict[str, Cursor]:
        return {feed: Cursor(FeedHead(end, event.seq, event.hash, event.hlc), self._idents.get(feed), line)
                for feed, (event, end, line) in self._last.items()}


class _Read(Value):
    """One feed's run in a ``ReadLog``: its lists grow in place; a new end is a new run (``replace``)."""

    start: Cursor
    events: list[Event]
    ends: list[int]
    end: Cursor


class ReadLog:
    """Per feed, the run of events read or appended since the lock was taken.

    Bounded: past ``LIMIT`` events in all (a cold read of a large ledger), a
    feed's run is dropped and that feed is no longer logged until the lock is
    released; a later catch-up under the same lock reads it from disk
    (``ChangeStream``) instead of holding the whole ledger in memory.
    """

    LIMIT = 2_000

    def __init__(self) -> None:
        self._reads: dict[str, _Read] = {}
        self._dropped: set[str] = set()
        self._held = 0

    def clear(self) -> None:
        self._reads.clear()
        self._dropped.clear()
        self._held = 0

    def add(self, feed: str, start: Cursor, events: list[Event], ends: list[int], end: Cursor,
            owned: bool = False) -> None:
        """``owned``: ``events`` and ``ends`` are new lists nobody else keeps
        (a writer's own append), held as they are instead of copied."""
        if feed in self._dropped:
            return
        if self._held + len(events) > self.LIMIT:
            run = self._reads.pop(feed, None)
            self._held -= len(run.events) if run else 0
            self._dropped.add(feed)
            return
        self._held += len(events)
        run = self._reads.get(feed)
        if run is not None and run.end.at(start):
            run.events.extend(events)
            run.ends.extend(ends)
            self._reads[feed] = replace(run, end=end)
        else:
            self._held -= len(run.events) if run else 0
            self._reads[feed] = _Read(start, events if owned else list(events), ends if owned else list(ends), end)

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
