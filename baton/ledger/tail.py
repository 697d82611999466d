"""Reading a feed from its end: what ``baton log --limit N`` or ``--since
TIME`` shows are the last events of each feed, so a year of events need not
be read to show the last twenty.

A feed's tail is found by reading windows of it backwards from its end, and
only the events from there on are read as every reader reads them
(``scan_chunks``: hash, digest, seq, ``prev``, hlc and batches checked),
chained from the line before the tail. Within a feed hlc only rises, so the
line before the tail bounds every earlier one: when its hlc is at or below
``after_hlc`` nothing earlier can be wanted. Counting the wanted lines in the
windows only guesses where the tail starts (a damaged or torn line counts
what it parses to); the caller checks what the read gave, and reads the
whole feed when the guess fell short (``Ledger.iter_tail``). Past a quarter
of the feed the windows stop and the whole feed is read: a filter that
matches nothing recent costs a quarter more than a whole read, not twice it.
"""

from __future__ import annotations

from collections import deque
from functools import partial
from typing import Any, Callable, Iterable, Iterator, cast

import orjson

from baton.ledger.envelope import Event
from baton.ledger.feed import FeedHead, line_ending_at
from baton.ledger.files import read_range
from baton.model import frozen

TAIL_WINDOW = 1 << 16
"""The first window read back from a feed's end; each next one is larger, up to ``TAIL_WINDOW_MAX``."""
TAIL_WINDOW_MAX = 1 << 22


@frozen
class TailWant:
    """What a tail must hold: the last ``limit`` events ``wanted`` accepts
    (None: no count), or every event after ``after_hlc`` (None: no bound).
    ``wanted(type, stream, hlc)``."""

    wanted: Callable[[str, str, int], bool]
    limit: int | None = None
    after_hlc: int | None = None
    seen: Callable[[], None] | None = None
    """Told of each event the read goes through (``baton log``'s progress on a terminal)."""

    def before_all(self, head: FeedHead) -> bool:
        """Whether every event up to ``head`` is at or before ``after_hlc`` (none of them wanted)."""
        return self.after_hlc is not None and head.offset > 0 and head.hlc <= self.after_hlc

    def head(self, read: "Read", size: int) -> FeedHead:
        """``tail_head``: where a feed of ``size`` bytes is read from."""
        return tail_head(read, size, self)

    def kept(self, events: Callable[[FeedHead], Iterator[Event]], head: FeedHead) -> Iterable[Event]:
        """A feed's events read from ``head`` on (``events(head)``): with a
        limit, its last ``limit`` wanted ones, checked — when the tail gave
        fewer though more of the feed lies before it (the windows counted
        lines the read did not give: damage, a torn tail), the whole feed's."""
        if self.limit is None:
            return self._told(events(head))
        kept = deque((e for e in self._told(events(head)) if self.wanted(e.type, e.stream, e.hlc)),
                     maxlen=self.limit)
        if len(kept) < self.limit and head.offset and not self.before_all(head):
            kept = deque((e for e in self._told(events(FeedHead())) if self.wanted(e.type, e.stream, e.hlc)),
                         maxlen=self.limit)
        return kept

    def _told(self, events: Iterator[Event]) -> Iterator[Event]:
        if self.seen is None:
            return events
        return self._each(events, self.seen)

    @staticmethod
    def _each(events: Iterator[Event], seen: Callable[[], None]) -> Iterator[Event]:
        for e in events:
            seen()
            yield e


Read = Callable[[int, int], bytes]


def tail_head(read: Read, size: int, want: TailWant, window: int | None = None) -> FeedHead:
    """Where to start reading a feed of ``size`` bytes so that what follows
    holds what ``want`` asks (a guess: see the module), as the head of the
    line before it; ``FeedHead()`` (the whole feed) when nothing shorter
    is found."""
    at = _tail_start(read, size, want, window or TAIL_WINDOW)
    if at <= 0:
        return FeedHead()
    line = line_ending_at(read, at)
    fields = _envelope_of(line) if line is not None else None
    if fields is None:
        return FeedHead()
    seq, hash_, hlc = fields
    return FeedHead(offset=at, seq=seq, hash=hash_, hlc=hlc)


def _tail_start(read: Read, size: int, want: TailWant, window: int) -> int:
    """The offset of a line's start (0: the feed's) from which the feed holds
    ``want.limit`` wanted events, or after whose previous line every event
    is after ``want.after_hlc``."""
    at, counted = size, 0
    while at > 0:
        if size - at > size // 4:
            return 0  # most of what is wanted lies further back: reading the feed whole costs little more
        low = max(0, at - window)
        chunk = read(low, at - low)
        if len(chunk) != at - low:
            return 0  # the feed changed under the reading: read it whole
        first = chunk.find(b"\n") + 1 if low else 0
        if low and not first:  # no line starts in the window
            window = window * 4
            continue
        lines = chunk[first:].split(b"\n")
        if want.after_hlc is not None:
            oldest = next((fields for fields in map(_kept_fields, lines) if fields is not None), None)
            if oldest is not None and oldest[2] <= want.after_hlc:
                return low + first
        if want.limit is not None:
            counted += sum(1 for fields in map(_kept_fields, lines) if fields is not None and want.wanted(*fields))
            if counted >= want.limit:
                return low + first
        at = low + first
        window = min(window * 2, TAIL_WINDOW_MAX)
    return 0


def last_seq(read: Read, size: int) -> int | None:
    """The ``seq`` of the last line of a feed of ``size`` bytes (a feed's seqs run 1, 2, …
    unbroken, so it is how many events the feed holds); None when that line is no event's
    (a torn tail) or the feed is empty."""
    line = line_ending_at(read, size) if size > 0 else None
    fields = _envelope_of(line) if line is not None else None
    return fields[0] if fields is not None else None


def events_held(ledger: Any) -> int | None:
    """How many events ``ledger``'s feeds hold (a ``Ledger``: its ``feed_names``, ``feed_info``, ``feed_path``), from each one's last line (``last_seq``), not by
    reading them: a progress display's steady total. None when a feed ends in no event's line
    (a torn tail): an estimate must do."""
    total = 0
    for feed in ledger.feed_names():
        info = ledger.feed_info(feed)
        if info is None or not info.size:
            continue
        seq = last_seq(partial(read_range, str(ledger.feed_path(feed))), info.size)
        if seq is None:
            return None
        total += seq
    return total


_KEPT_FIELDS = (("type", str), ("stream", str), ("hlc", int))
"""What a window's line is counted by: ``TailWant.wanted(type, stream, hlc)``."""
_ENVELOPE = (("seq", int), ("hash", str), ("hlc", int))
"""The head a reader has after a line."""


def _members(line: bytes, wanted: tuple[tuple[str, type], ...]) -> tuple[Any, ...] | None:
    """The line's ``wanted`` members, in order, each of its type; None when it is no event's line."""
    raw = _loads(line)
    if raw is None:
        return None
    values = tuple(raw.get(name) for name, _kind in wanted)
    if any(type(value) is not kind for value, (_name, kind) in zip(values, wanted)):
        return None
    return values


def _kept_fields(line: bytes) -> tuple[str, str, int] | None:
    """A line's ``(type, stream, hlc)``, or None when it is no event's line."""
    return cast("tuple[str, str, int] | None", _members(line, _KEPT_FIELDS))


def _envelope_of(line: bytes) -> tuple[int, str, int] | None:
    """A line's ``(seq, hash, hlc)``: the head a reader has after it; None when it is no event's line."""
    return cast("tuple[int, str, int] | None", _members(line, _ENVELOPE))


def _loads(line: bytes) -> dict[str, object] | None:
    if not line:
        return None
    try:
        raw = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return raw if type(raw) is dict else None
