"""An in-memory ledger: the JSONL ledger's protocol without a file system.

For the ledger contract suite, and for running projections over "a ledger"
in tests (replay over it must equal replay over JSONL). It seals events
exactly as ``Ledger`` does (same envelope, hash chain, hlc and stream-version
rules) and keeps each feed as the very bytes a JSONL feed would hold, so what
is read back is what a disk round trip gives — never an alias of the caller's
``data`` dict — and cursors, offsets and head checks mean the same thing.

Several ``MemoryLedger`` handles made with ``for_writer`` share one set of
feeds, like several writers sharing one ``.baton/ledger/`` folder. Every read
sees every feed as it is, so nothing needs catching up, and an index has
nothing to teach it (``seed_from`` is accepted and ignored).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping

import attrs

from baton.errors import LedgerBusy, StreamVersionConflict
from baton.ledger.changes import ChangeStream, cursor_after, read_changes
from baton.ledger.clock import WallClock, rfc3339_micros, system_clock
from baton.ledger.envelope import Event, EventDraft, seal_batch
from baton.ledger.feed import (
    FeedHead,
    FeedScan,
    encode_line,
    holds_event_id,
    line_ending_at,
    line_hashes_to,
    merge_feeds,
    scan_bytes,
    scan_chunks,
)
from baton.ledger.ids import uuid7
from baton.ledger.integrity import heads_draft, heads_due
from baton.ledger.protocol import Changes, Cursor, FeedInfo, IndexSeed
from baton.model import mutable

if TYPE_CHECKING:
    from baton.ledger.tail import TailWant


@mutable
class _Feeds:
    """What several writer handles share: every feed's bytes and one lock."""

    raw: dict[str, bytearray] = attrs.field(factory=dict)
    lock: threading.RLock = attrs.field(factory=threading.RLock)


class MemoryLedger:
    """A ``LedgerProtocol`` over bytes in memory."""

    def __init__(self, writer: str = "memory", *, clock: WallClock = system_clock, _feeds: _Feeds | None = None) -> None:
        self.writer = writer
        self.clock = clock
        self._feeds = _feeds if _feeds is not None else _Feeds()
        self._lock_depth = 0

    def for_writer(self, writer: str, *, clock: WallClock | None = None) -> "MemoryLedger":
        """Another writer's handle on the same feeds."""
        return MemoryLedger(writer, clock=clock or self.clock, _feeds=self._feeds)

    # -- reading -------------------------------------------------------------
    def feed_names(self) -> list[str]:
        with self._feeds.lock:
            return sorted(self._feeds.raw)

    def feed_bytes(self, feed: str) -> bytes:
        """A copy of the feed's bytes, as its JSONL file would hold them."""
        with self._feeds.lock:
            return bytes(self._feeds.raw.get(feed, b""))

    def feed_info(self, feed: str) -> FeedInfo | None:
        with self._feeds.lock:
            raw = self._feeds.raw.get(feed)
            return None if raw is None else FeedInfo(len(raw), None)

    def read_feed(self, feed: str, start: FeedHead = FeedHead()) -> FeedScan:
        return scan_bytes(feed, self.feed_bytes(feed)[start.offset:], start)

    def read_feed_chunks(self, feed: str, start: FeedHead = FeedHead(),
                         size: int | None = None) -> Iterator[FeedScan]:
        raw = self.feed_bytes(feed)[:size]
        return scan_chunks(feed, lambda at, n: raw[at:at + n], start, len(raw))

    def stream_since(self, cursors: Mapping[str, Cursor]) -> ChangeStream:
        with self._feeds.lock:
            return ChangeStream(self, cursors)

    def read_all(self) -> list[Event]:
        """Every event of every feed, in project order."""
        return list(merge_feeds(self.read_feed(name).events for name in self.feed_names()))

    def iter_all(self) -> Iterator[Event]:
        return iter(self.read_all())

    def iter_tail(self, want: "TailWant") -> Iterator[Event]:
        """Every event: what a tail holds is among them (the protocol allows more)."""
        return self.iter_all()

    def holds_event(self, event_id: str) -> bool:
        for feed in self.feed_names():
            raw = self.feed_bytes(feed)

            def read(at: int, n: int, raw: bytes = raw) -> bytes:
                return raw[at:at + n]

            if holds_event_id(read, len(raw), event_id):
                return True
        return False

    def heads(self) -> dict[str, FeedHead]:
        return {name: self.read_feed(name).head for name in self.feed_names()}

    def cursors(self) -> dict[str, Cursor]:
        return {name: cursor_after(self.read_feed(name), Cursor(), None) for name in self.feed_names()}

    def head_holds(self, feed: str, cursor: Cursor) -> bool:
        if not cursor.head.offset:
            return True
        raw = self.feed_bytes(feed)
        if cursor.ident is not None or len(raw) < cursor.head.offset:
            return False
        line = line_ending_at(lambda at, size: raw[at:at + size], cursor.head.offset, cursor.line)
        return line_hashes_to(line, cursor.head.hash, seq=cursor.head.seq, hlc=cursor.head.hlc)

    def changes_since(self, cursors: Mapping[str, Cursor]) -> Changes:
        with self._feeds.lock:
            return read_changes(self, cursors)

    def seed_from(self, source: IndexSeed) -> None:
        """Nothing to learn: every read already sees every feed."""

    def stream_versions(self) -> dict[str, int]:
        versions: dict[str, int] = {}
        for event in self.read_all():
            versions[event.stream] = max(versions.get(event.stream, 0), event.stream_version)
        return versions

    def stream_version(self, stream: str) -> int:
        return self.stream_versions().get(stream, 0)

    def close(self) -> None:
        """Nothing is held open."""

    # -- writing -------------------------------------------------------------
    @contextmanager
    def locked(self, *, wait: float | None = None) -> Iterator["MemoryTransaction"]:
        if not self._feeds.lock.acquire(timeout=-1 if wait is None else max(0.0, wait)):
            raise LedgerBusy(f"the ledger stayed locked for {wait:g} s", advice=LedgerBusy.TRY_AGAIN)
        try:
            self._lock_depth += 1
            try:
                yield MemoryTransaction(self)
            finally:
                self._lock_depth -= 1
        finally:
            self._feeds.lock.release()

    def receive(self, writer: str, raw: bytes) -> list[Event]:
        """Add lines of another writer's feed, as ``baton sync`` would.

        Raises:
            LedgerCorrupt: the lines do not continue that feed's chain.
        """
        with self._feeds.lock:
            head = self.read_feed(writer).head
            scan = scan_bytes(writer, raw, head)
            if scan.torn is not None:
                raise ValueError(f"received lines for {writer!r} end in a torn line")
            self._feeds.raw.setdefault(writer, bytearray()).extend(raw)
            return scan.events

    def replace(self, writer: str, raw: bytes) -> None:
        """Replace a feed's bytes outright, as an erasing rewrite or a sync
        that replaced the file would: readers' cursors into it stop holding."""
        with self._feeds.lock:
            self._feeds.raw[writer] = bytearray(raw)

    def _append(self, drafts: list[EventDraft], expected: Mapping[str, int] | None) -> list[Event]:
        versions = self.stream_versions()
        for stream, version in (expected or {}).items():
            actual = versions.get(stream, 0)
            if actual != version:
                raise StreamVersionConflict(stream, version, actual)
        if not drafts:
            return []
        head = self.read_feed(self.writer).head
        max_hlc = max((e.hlc for e in self.read_all()), default=0)
        asked = len(drafts)
        drafts = list(drafts)
        if heads_due(head.seq, len(drafts)):
            vouch = heads_draft(self.writer, {
                feed: (h.seq, h.hash, h.offset) for feed, h in self.heads().items()
            })
            if vouch is not None:
                drafts.insert(0, vouch)  # first: the caller's events stay the feed's last lines
        sealed, _ = seal_batch(
            drafts, writer=self.writer, seq=head.seq, prev=head.hash, max_hlc=max_hlc, clock=self.clock,
            version_of=lambda stream: versions.get(stream, 0), new_id=uuid7, timestamp=rfc3339_micros,
        )
        batch = b"".join(encode_line(e) for e in sealed)
        self._feeds.raw.setdefault(self.writer, bytearray()).extend(batch)
        return scan_bytes(self.writer, batch, head).events[len(sealed) - asked:]


class MemoryTransaction:
    def __init__(self, ledger: MemoryLedger) -> None:
        self.ledger = ledger

    def refresh(self) -> None:
        """Nothing to catch up: every read sees every feed."""

    def stream_version(self, stream: str) -> int:
        return self.ledger.stream_version(stream)

    def append(
        self,
        drafts: Iterable[EventDraft],
        *,
        expected: Mapping[str, int] | None = None,
        durable: bool = False,
    ) -> list[Event]:
        """Same contract as ``LedgerTransaction.append`` (``durable`` has no meaning here).

        Raises:
            StreamVersionConflict: a stream is not at the expected version.
        """
        if not self.ledger._lock_depth:
            raise RuntimeError("append called outside `with ledger.locked()`")
        return self.ledger._append(list(drafts), expected)
