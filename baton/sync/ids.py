"""The duplicate-id check of an import, and its cache (``.baton/sync-ids.db``).

An event id names one event in the whole ledger: an imported feed repeating
an id a local feed (or another imported feed) already has is refused. The
local ids come from the cache, which holds every local feed's ids up to where
it last looked; what feeds gained since is searched, and recorded only once
it exceeds ``CACHE_LAG`` (a write costs fsyncs: a one-event sync writes none).
"""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import orjson

from baton.sync.local import TAIL, LocalFeeds, unlink
from baton.sync.refusals import RefusedFeed

if TYPE_CHECKING:
    from baton.sync.ledger_ref import RefFeed

ID_CACHE = "sync-ids.db"
"""Every local feed's event ids up to where the last import looked (the duplicate check's cache).

No longer than ``index.sqlite``: SQLite opens a path of at most 511 bytes (its journal's, the
longest, included), so a cache named longer could not be opened in a project deep enough for
the index alone (roots of 481–483 bytes with ``sync-ids.sqlite``): every import there read every
local feed instead, silently."""
LEGACY_ID_CACHE = "sync-ids.sqlite"
"""The cache's name before: removed when the cache is first made under its new name."""
EVENT_ID = re.compile(rb'"hlc":\d+,"id":"([^"\\]{1,128})","prev":')
"""An event's own id in a canonical line: the member between ``hlc`` and ``prev``."""
ID_CHUNK = 8 << 20
FEW_IDS = 16
"""Up to this many ids, each is searched for in a local feed's bytes; more, every id there is read first."""
CACHE_LAG = 1 << 20
"""The id cache is written only once the local feeds have gained more than
this since it last recorded them (or an import brings more): below it, their
new bytes are searched for the wanted ids instead. A write costs a
transaction and the checkpoint its connection's close runs (fsyncs), far more
than searching a MiB; so a sync importing one event writes nothing."""


def repeated_ids(imported_ids: dict[str, list[tuple[str, int]]], ids: "EventIds",
                 torn: dict[str, int] | None = None) -> tuple[list[tuple[str, RefusedFeed]], set[str]]:
    """Imported feeds repeating an event id another event already has (in
    a local feed, in another imported feed, or earlier in the same feed):
    an id names one event in the whole ledger. Read only when something is
    imported: every local feed's ids, then each staged event's. ``torn``:
    local feeds an import appends to before their end (feed → offset), the
    bytes after it a torn tail set aside (a line or a batch cut short): the
    ids of its whole lines are the very events the import brings back, not
    repeats of them.

    Returns the refusals and the feeds the ref keeps as the remote holds them
    (two remote feeds repeating each other's ids: neither can be told the original)."""
    keep: set[str] = set()
    if not imported_ids:
        return [], keep
    importing = set(imported_ids)
    wanted = {event_id for ids in imported_ids.values() for event_id, _ in ids}
    seen = ids.known(wanted)
    if torn:
        seen = ids.before_tails(seen, torn)
    problems: dict[str, RefusedFeed] = {}

    def refuse(feed: str, event_id: str, seq: int, other: str) -> None:
        where = "earlier in the same feed" if other == feed else f"in feed {other}"
        problems.setdefault(feed, RefusedFeed(feed, "remote", "duplicate_id", seq,
                                              f"the remote's feed {feed} repeats event id {event_id}, "
                                              f"already {where}"))

    staged: dict[str, tuple[str, int]] = {}
    for feed in sorted(importing):
        for event_id, seq in imported_ids[feed]:
            if event_id in seen:
                refuse(feed, event_id, seq, seen[event_id])
            elif event_id in staged:  # two feeds of the remote: neither can be told the original,
                other, other_seq = staged[event_id]  # so neither is taken, and the ref keeps both
                refuse(feed, event_id, seq, other)
                if other != feed:
                    refuse(other, event_id, other_seq, feed)
                    keep.update((feed, other))
            else:
                staged[event_id] = (feed, seq)
    return sorted(problems.items()), keep


def open_id_cache(path: Path):
    """The id cache (a write-ahead log: a crash loses at most the last
    transaction, whose ids and offsets go together, and never tears it)."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.Error:
        db.close()
        raise
    return db


class EventIds:
    """The local feeds' event ids, looked up for the duplicate check (cached)."""

    def __init__(self, local: LocalFeeds, path: Path) -> None:
        self.local = local
        self.path = path
        self.db: sqlite3.Connection | None = None
        """The id cache's connection, open from the first look-up to ``close``."""

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None

    def known(self, wanted: set[str]) -> dict[str, str]:
        """Those of ``wanted`` that are the id of an event of a local feed → that feed.

        From ``.baton/sync-ids.db``, which holds every local feed's event
        ids up to where it last looked (the file's inode, that offset and the
        bytes just before it): only what a feed gained since is read (each
        line parsed, so an id a payload quotes is not taken for an event's),
        and a feed replaced or cut shorter is read again from its start.
        Without the cache (it cannot be opened), every feed is searched."""
        path = self.path
        made = not path.exists()
        try:
            db = open_id_cache(path)
        except sqlite3.Error:
            return self._scanned(wanted)
        if made:  # a cache of the name before is only a cache: its ids are read again into this one
            legacy = path.with_name(LEGACY_ID_CACHE)
            for leftover in (legacy, Path(f"{legacy}-wal"), Path(f"{legacy}-shm")):
                try:
                    unlink(leftover)
                except OSError:
                    pass  # left where it is: nothing reads it
        try:
            found = self._cached(db, wanted)
        except sqlite3.Error:
            db.close()
            for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
                unlink(leftover)  # a damaged cache is only a cache
            return self._scanned(wanted)
        self.db = db  # kept open for the ids this round imports (closed by ``close``)
        return found

    def record_imported(self, appended: dict[str, tuple[int, bytes | None]],
                        imported_ids: dict[str, list[tuple[str, int]]], out: dict[str, "RefFeed"]) -> None:
        """Add the ids just imported to the id cache, for each feed the cache
        had read up to where the import appended: the next import then reads
        none of these bytes again (a fresh clone's first import included)."""
        db = self.db
        if db is None:
            return
        if sum(out[feed].head.offset - start for feed, (start, _tail) in appended.items()
               if feed in out) <= CACHE_LAG:
            return  # a small import: the next one searches these bytes (``known``)
        try:
            db.execute("BEGIN")
            for feed, (start, tail) in appended.items():
                ids = imported_ids.get(feed)
                if not ids or not tail:
                    continue
                row = db.execute("SELECT ino, offset FROM scanned WHERE feed = ?", (feed,)).fetchone()
                if (row[1] if row else 0) != start:
                    continue  # the cache had not read this feed up to there: the next import will
                st = self.local.stat(feed)
                if st is None:
                    continue
                if start and row[0] != st.st_ino:
                    continue
                db.executemany("INSERT OR IGNORE INTO ids VALUES (?, ?)", [(i, feed) for i, _seq in ids])
                db.execute("INSERT OR REPLACE INTO scanned VALUES (?, ?, ?, ?)", (feed, st.st_ino, st.st_size, tail))
            db.execute("COMMIT")
        except (sqlite3.Error, OSError):
            try:  # only a cache: the next import reads the feed instead
                if db.in_transaction:
                    db.execute("ROLLBACK")
            except sqlite3.Error:
                pass

    def before_tails(self, seen: dict[str, str], torn: dict[str, int]) -> dict[str, str]:
        """``seen`` (id → local feed) without the ids found only in a torn
        tail: an id ``known`` placed in a feed of ``torn`` is looked for again
        in that feed's bytes before its offset, then in every other feed
        (each torn one before its offset). Read only after a torn tail."""
        doubtful = {event_id for event_id, feed in seen.items() if feed in torn}
        if not doubtful:
            return seen
        kept = {event_id: feed for event_id, feed in seen.items() if event_id not in doubtful}
        for name in sorted(set(self.local.names()) | set(torn)):
            if not doubtful:
                break
            for event_id in list(self.local_ids(name, doubtful, 0, torn.get(name))):
                kept[event_id] = name
                doubtful.discard(event_id)
        return kept

    def _scanned(self, wanted: set[str]) -> dict[str, str]:
        seen: dict[str, str] = {}
        for name in self.local.names():
            for event_id in self.local_ids(name, wanted):
                seen.setdefault(event_id, name)
        return seen

    def _cached(self, db, wanted: set[str]) -> dict[str, str]:
        db.execute("CREATE TABLE IF NOT EXISTS scanned (feed TEXT PRIMARY KEY, ino INTEGER, "
                   "offset INTEGER, tail BLOB)")
        db.execute("CREATE TABLE IF NOT EXISTS ids (id TEXT PRIMARY KEY, feed TEXT) WITHOUT ROWID")
        db.execute("BEGIN")
        names = self.local.names()
        scanned = {feed: (ino, offset, tail) for feed, ino, offset, tail
                   in db.execute("SELECT feed, ino, offset, tail FROM scanned")}
        for gone in set(scanned) - set(names):
            db.execute("DELETE FROM ids WHERE feed = ?", (gone,))
            db.execute("DELETE FROM scanned WHERE feed = ?", (gone,))
        gained: list[tuple[str, os.stat_result, tuple | None, int, bytes]] = []
        replaced = False
        for feed in names:
            st = self.local.stat(feed)
            if st is None:
                continue
            known = scanned.get(feed)
            ino, offset, tail = known or (None, 0, b"")
            if offset and (ino != st.st_ino or offset > st.st_size
                           or self.local.read(feed, offset - len(tail), len(tail)) != tail):
                db.execute("DELETE FROM ids WHERE feed = ?", (feed,))
                offset, tail, replaced = 0, b"", True
            if offset < st.st_size or (known is not None and known != (st.st_ino, offset, tail)):
                gained.append((feed, st, known, offset, tail))
        lazy: list[tuple[str, int, int]] = []
        if not replaced and sum(st.st_size - offset for _feed, st, _known, offset, _tail in gained) <= CACHE_LAG:
            lazy = [(feed, offset, st.st_size) for feed, st, _known, offset, _tail in gained]
        else:
            for feed, st, known, offset, tail in gained:
                if offset < st.st_size:
                    offset, tail = self._cache_lines(db, feed, offset, st.st_size, tail)
                if known != (st.st_ino, offset, tail):
                    db.execute("INSERT OR REPLACE INTO scanned VALUES (?, ?, ?, ?)",
                               (feed, st.st_ino, offset, tail))
        found: dict[str, str] = {}
        ordered = sorted(wanted)
        for at in range(0, len(ordered), 500):
            part = ordered[at:at + 500]
            found.update(db.execute(f"SELECT id, feed FROM ids WHERE id IN ({','.join('?' * len(part))})",
                                    part).fetchall())
        db.execute("COMMIT")
        for feed, offset, size in lazy:  # what feeds gained since the cache recorded them: searched, not recorded
            for event_id in self.local_ids(feed, wanted - set(found), offset, size):
                found.setdefault(event_id, feed)
        return found

    def _cache_lines(self, db, feed: str, offset: int, size: int, tail: bytes) -> tuple[int, bytes]:
        """Record the ids of the whole lines of ``feed`` from ``offset`` to ``size``:
        the new offset (after the last whole line) and the bytes before it."""
        carry = b""
        at = offset
        while at < size:
            data = self.local.read(feed, at, min(ID_CHUNK, size - at))
            if not data:
                break
            at += len(data)
            data = carry + data
            cut = data.rfind(b"\n") + 1
            rows = []
            for line in data[:cut].splitlines():
                try:
                    raw = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                event_id = raw.get("id") if isinstance(raw, dict) else None
                if isinstance(event_id, str):
                    rows.append((event_id, feed))
            db.executemany("INSERT OR IGNORE INTO ids VALUES (?, ?)", rows)
            if cut:
                offset += cut
                tail = (tail + data[:cut])[-TAIL:]
            carry = data[cut:]
        return offset, tail

    def local_ids(self, feed: str, wanted: set[str], start: int = 0, end: int | None = None) -> Iterator[str]:
        """Those of ``wanted`` that are the id of an event of a local feed.

        Found by their place in a line rather than by parsing every line (a
        tenth of the time): lines are written canonical (sorted keys), so an
        event's own id sits between its ``hlc`` and its ``prev``; with many
        ids, every id in that place is read first to keep the candidates. A
        line where a candidate is found is then parsed, so an id a payload
        merely quotes is not taken for an event's. The feed was verified
        when it was written. ``start`` (a line's first byte) and ``end``:
        only that part of the feed (by default, all of it)."""
        if end is None:
            st = self.local.stat(feed)
            if st is None:
                return
            end = st.st_size
        found: set[str] = set()
        at, carry = start, b""
        while at < end and len(found) < len(wanted):
            data = self.local.read(feed, at, min(ID_CHUNK, end - at))
            if not data:
                break
            at += len(data)
            data = carry + data
            cut = data.rfind(b"\n") + 1 if at < end else len(data)
            candidates = wanted - found
            if len(candidates) > FEW_IDS:
                candidates &= {m.group(1).decode("utf-8", "replace") for m in EVENT_ID.finditer(data, 0, cut)}
            for event_id in sorted(candidates):
                needle = f',"id":"{event_id}","prev":'.encode()
                hit = data.find(needle, 0, cut)
                while hit >= 0:
                    begin = data.rfind(b"\n", 0, hit) + 1
                    stop = data.find(b"\n", hit, cut)
                    try:
                        raw = orjson.loads(data[begin:stop if stop >= 0 else cut])
                    except orjson.JSONDecodeError:
                        raw = None
                    if isinstance(raw, dict) and raw.get("id") == event_id:
                        found.add(event_id)
                        yield event_id
                        break
                    hit = data.find(needle, hit + 1, cut)  # quoted inside a payload: read on
            carry = data[cut:]
