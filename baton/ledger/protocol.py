"""The ledger protocol: the small surface everything above the ledger uses.

Two ledgers implement it: ``Ledger`` (one JSONL file per writer under
``.baton/ledger/``) and ``MemoryLedger`` (the same bytes, kept in memory).
The projection runner and ``Project`` use nothing else, so either can run
over either — and tests can hold the two to the same results.

A reader keeps, per feed, a ``Cursor``: the head it has read up to and what
it takes to prove later that the feed is still the one it read (the length
of the line at the head, whose hash chains every line before it: a cursor
holds by content, not by the file's inode, so it survives a copy). ``changes_since`` turns
cursors into the events appended after them, merged in project order; a feed
that changed other than by appending raises ``FeedRewritten`` so the reader
can start over.

A ledger may also learn where to start from an index that has already
folded it (``seed_from``): then a new process reads only what the index has
not seen, instead of every feed from byte 0.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

from baton.errors import StorageError
from baton.ledger.envelope import Event, EventDraft
from baton.ledger.feed import FeedHead, FeedScan, merge_feeds
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a hook never needs it)
if TYPE_CHECKING:
    from typing import Callable, Iterable, Iterator, Mapping, Protocol

    from baton.ledger.tail import TailWant
else:
    Protocol = object  # an interface for type checkers; at run time a plain base (~0.07 ms less a class)


class Cursor(Value):
    """How far a reader has got in one feed, and how to check it still holds (a named tuple: ``baton.values.Value``)."""

    head: FeedHead = FeedHead()
    ident: int | None = None
    """The feed file's inode when the cursor was taken (None for feeds that are
    not files). Not part of the check that a cursor still holds: that is by
    content — the feed is no shorter and the line at ``head`` still hashes to
    ``head.hash``, which chains (through ``prev``) every line before it — so a
    copied, moved or restored project keeps its index (docs/ledger.md)."""
    line: int = 0
    """Bytes of the line ending at ``head.offset``, newline included (0:
    unknown), so checking the head reads exactly that line."""

    def at(self, other: "Cursor | None") -> bool:
        """Same place in the feed (offset, seq, hash), whatever else differs."""
        a, b = self.head, (other.head if other is not None else FeedHead())
        return (a.offset, a.seq, a.hash) == (b.offset, b.seq, b.hash)


class FeedInfo(Value):
    """A feed's size in bytes and its identity (inode; None in memory)."""

    size: int
    ident: int | None


class Changes(Value):
    """What the feeds gained after some cursors (a named tuple: ``baton.values.Value``).

    ``scans`` holds, per feed that gained events, only those events (with
    their line ends); ``cursors`` the new cursor of each of those feeds;
    ``events`` all of them merged in project order.
    """

    scans: list[FeedScan]
    cursors: dict[str, Cursor]
    events: list[Event]

    @classmethod
    def of(cls, scans: Iterable[FeedScan], cursors: Mapping[str, Cursor]) -> "Changes":
        scans = [s for s in scans if s.events]
        return cls(scans, {s.feed: cursors[s.feed] for s in scans}, list(merge_feeds(s.events for s in scans)))


class FeedRewritten(StorageError):
    """A feed changed other than by appending (replaced, cut shorter,
    rewritten in place, removed) since a cursor into it was taken: what was
    read from it before can no longer be trusted."""

    code = "feed_rewritten"

    def __init__(self, feed: str, how: str = "changed other than by appending") -> None:
        super().__init__(f"feed {feed} {how}", details={"feed": feed})
        self.feed = feed


class Seed(Value):
    """What an index that folded the ledger up to ``cursors`` knows.

    ``stream_version(stream)`` is the version of ``stream`` among the folded
    events, looked up when first needed; it returns None once the index has
    forgotten what it folded (a rebuild), after which the seed must not be
    used. ``token`` names that state of the index.
    """

    token: object
    cursors: Mapping[str, Cursor]
    max_hlc: int
    stream_version: Callable[[str], int | None]


class EventStream(Protocol):
    """The events after some cursors, handed out as they are read, in project
    order (``changes.ChangeStream`` is the one implementation). Iterate it once."""

    def __iter__(self) -> Iterator[Event]: ...

    def estimated_total(self, handed_out: int) -> int:
        """How many events the stream holds in all, estimated from the bytes
        behind the ``handed_out`` events so far (for progress displays)."""
        ...

    @property
    def cursors(self) -> dict[str, Cursor]:
        """Per feed that yielded events, the cursor just after the last one yielded."""
        ...


class IndexSeed(Protocol):
    """An index a ledger may start from instead of byte 0 of every feed."""

    def ledger_seed(self) -> Seed | None:
        """The index's cursors and what goes with them, or None when it has
        nothing usable (new, or built by other projections)."""
        ...

    def seed_token(self) -> object:
        """Changes whenever the index forgets what it folded."""
        ...

    def sealed_heads(self) -> Mapping[str, tuple[int, str | None, int]]:
        """The last line of every feed the index ever acknowledged, as
        ``(seq, hash, offset)`` (kept across rebuilds; ``{}`` when unknown).
        A ledger refuses to append while a feed lacks one of them."""
        ...


class LedgerTxn(Protocol):
    """What a caller may do while holding the ledger's lock."""

    def refresh(self) -> None:
        """Read whatever the feeds gained since this holder last looked."""
        ...

    def stream_version(self, stream: str) -> int: ...

    def append(
        self, drafts: Iterable[EventDraft], *, expected: Mapping[str, int] | None = None, durable: bool = False
    ) -> list[Event]:
        """Seal and append ``drafts`` after checking every expected stream
        version; returns the events exactly as readers will read them back.

        Raises:
            StreamVersionConflict: a stream is not at the expected version.
        """
        ...


class LedgerProtocol(Protocol):
    writer: str

    def feed_names(self) -> list[str]: ...

    def feed_info(self, feed: str) -> FeedInfo | None:
        """Size and identity of ``feed`` now (None: it does not exist)."""
        ...

    def read_feed(self, feed: str, start: FeedHead = FeedHead()) -> FeedScan:
        """The sound events of ``feed`` after ``start`` (a torn tail is left out)."""
        ...

    def read_feed_chunks(self, feed: str, start: FeedHead = FeedHead(),
                         size: int | None = None) -> Iterator[FeedScan]:
        """``read_feed`` a chunk of whole lines at a time, up to ``size`` bytes
        (default: the feed's size now); the same events, checks and errors."""
        ...

    def read_all(self) -> list[Event]: ...

    def iter_all(self) -> Iterator[Event]:
        """``read_all``'s events in its order, read a chunk of each feed at a
        time: what a pass over the whole ledger holds is a chunk per feed."""
        ...

    def iter_tail(self, want: "TailWant") -> Iterator[Event]:
        """``iter_all``'s events from each feed's tail on: at least what
        ``want`` asks (``baton.ledger.tail``; a ledger without bytes to read
        backwards gives every event), in the same order."""
        ...

    def holds_event(self, event_id: str) -> bool:
        """Whether some feed holds an event with this id, found without
        reading every event (``feed.holds_event_id``)."""
        ...

    def head_holds(self, feed: str, cursor: Cursor) -> bool:
        """True when ``feed`` still has the line ``cursor`` stopped after
        (no shorter, and that line still hashes to the recorded hash; the
        file's identity does not matter: a copied feed holds)."""
        ...

    def cursors(self) -> dict[str, Cursor]:
        """How far this ledger has read each feed (exact while locked)."""
        ...

    def changes_since(self, cursors: Mapping[str, Cursor]) -> Changes:
        """Every event appended after ``cursors`` (feeds without one: from
        the start), merged in ``(hlc, writer, seq)`` order, with new cursors.

        Raises:
            FeedRewritten: a feed with a cursor changed other than by appending.
            LedgerCorrupt: a feed is damaged before its tail.
        """
        ...

    def stream_since(self, cursors: Mapping[str, Cursor]) -> EventStream:
        """``changes_since`` as an ``EventStream``: the events handed out as
        they are read, a chunk of each feed at a time (replay, large catch-ups).

        Raises:
            FeedRewritten: (when built) a feed with a cursor changed other than by appending.
            LedgerCorrupt: (while iterating) a feed is damaged before its tail.
        """
        ...

    def seed_from(self, source: IndexSeed) -> None:
        """Let the ledger start from what ``source`` folded when it has read nothing yet."""
        ...

    def locked(self, *, wait: float | None = None) -> AbstractContextManager[LedgerTxn]:
        """Hold the project's write lock, caught up with every feed (``wait``:
        give up after that many seconds with ``LedgerBusy``; None: no limit)."""
        ...

    def close(self) -> None: ...
