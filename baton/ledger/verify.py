"""Checking a whole ledger: every chain, digest, sequence, batch and stream,
and every head the project has recorded.

Per feed: each line parses, its hash and digest hold, ``seq`` rises by one,
``prev`` links to the line before, the hlc rises, a batch is whole. Across
feeds: no event id appears twice, and every stream's versions run 1, 2, 3… in
project order — two writers that each appended version 3 of one stream are a
*fork* to resolve.

What the project has seen (``ledger.heads`` events, in which one feed vouches
for the others, and the heads the index recorded) must still be there: a feed
shorter than a recorded head is *truncated*, one that no longer exists is a
*missing_feed*, one holding another event at a recorded seq is *rewritten* —
except for the events a recorded ``baton repair`` set aside.

An erased payload (``data`` removed, ``digest`` kept: every chain still
verifies) is legitimate only when an ``erasure_type`` event (``baton forget``'s
``handoff.forgotten``) names its event id; any other is a problem. A torn tail
is reported but is not a failure: readers already ignore it and the next
writer quarantines it.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Protocol

import attrs
import orjson

from baton.errors import StorageError
from baton.ledger.envelope import Event
from baton.ledger.feed import (
    FeedHead,
    FeedProblem,
    TornTail,
    collector_paused,
    feed_name,
    holds_another_writer,
    is_feed_file_name,
    merge_feeds,
    scan_chunks,
)
from baton.ledger.integrity import HEADS_TYPE, REPAIRED_TYPE
from baton.model import frozen, mutable


@frozen
class RecordedHead:
    """A head ``(seq, hash, offset)`` of ``feed`` that ``source`` saw."""

    feed: str
    seq: int
    hash: str | None
    offset: int
    source: str


@mutable
class FeedReport:
    feed: str
    events: int
    erased: int
    head: FeedHead
    torn: TornTail | None
    problems: list[FeedProblem]

    def to_json(self) -> dict[str, Any]:
        return {
            "feed": self.feed, "events": self.events, "erased": self.erased,
            "last_seq": self.head.seq, "last_hash": self.head.hash,
            "torn_tail": self.torn.to_json() if self.torn else None,
            "problems": [p.to_json() for p in self.problems],
        }


@mutable
class VerifyReport:
    feeds: list[FeedReport]
    problems: list[FeedProblem]
    erased_by_forget: int = 0
    """Erased payloads a recorded forget names (legitimate)."""
    concurrent: list[FeedProblem] = attrs.field(factory=list)
    """Stream versions written again by another writer that had not seen
    them (replicas apart, then ``baton sync``): reported, not failures."""
    heads_checked: int = 0
    """Recorded heads checked against the feeds."""
    unfinished_forgets: dict[str, int] = attrs.field(factory=dict)
    """Handoff → payloads a recorded forget names that are still in the ledger
    (a ``baton forget`` killed between its append and its rewrite): not a
    chain problem, but the forget is not done until it runs again."""
    recorded: list[RecordedHead] = attrs.field(factory=list)
    """Every head checked (what ``repair`` acknowledges as lost)."""
    identities: list[tuple[str, int, Any]] = attrs.field(factory=list)
    """``(writer, seq, data[identity_key])`` of every event of ``identity_type`` (the project's
    ``project.initialized``: which project the ledger says it is)."""
    quarantined: set[str] = attrs.field(factory=set)
    """The quarantine files (``data.quarantine``) every recorded ``ledger.repaired`` names: a
    repair's manifest whose file is not among them was never recorded (``repair.unfinished_repairs``)."""

    @property
    def ok(self) -> bool:
        return not self.problems and all(not f.problems for f in self.feeds)

    @property
    def event_count(self) -> int:
        return sum(f.events for f in self.feeds)

    def all_problems(self) -> list[FeedProblem]:
        return [p for f in self.feeds for p in f.problems] + list(self.problems)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "events": self.event_count,
            "erased_by_forget": self.erased_by_forget,
            "heads_checked": self.heads_checked,
            "unfinished_forgets": [{"handoff": h, "payloads": n} for h, n in sorted(self.unfinished_forgets.items())],
            "feeds": [f.to_json() for f in self.feeds],
            "problems": [p.to_json() for p in self.all_problems()],
            "concurrent": [p.to_json() for p in self.concurrent],
        }


def verify_ledger(
    ledger_dir: Path,
    *,
    erasure_type: str | None = None,
    recorded_heads: list[RecordedHead] | None = None,
    identity: tuple[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    own: str | None = None,
) -> VerifyReport:
    """``erasure_type``: the event type whose ``data.events`` lists the event
    ids whose payloads were erased on purpose (None: no erasure is legitimate).
    ``recorded_heads``: heads recorded outside the ledger (the index's).
    ``identity``: ``(event type, data key)`` whose values are collected in ``identities``
    on the same pass (the project id each ``project.initialized`` recorded).
    ``progress(done, about)``: told every ``PROGRESS_EVERY`` events how many
    were checked of about how many (estimated from the bytes read), and once
    at the end (``done == about``). ``own``: this clone's writer, whose feed file is checked
    whatever it holds; any other file named for a writer whose first event is another writer's is
    no feed and is not read (``feed.holds_another_writer``: ``stray_files`` names it)."""
    with collector_paused():
        return _verify(Path(ledger_dir), erasure_type, list(recorded_heads or ()), identity, progress, own)


PROGRESS_EVERY = 2000
"""How often ``verify_ledger`` tells its ``progress``: a ledger this small says nothing."""


def _told(events: Iterator[Event], passes: "list[_FeedPass]", size: int,
          progress: Callable[[int, int], None]) -> Iterator[Event]:
    """``events``, telling ``progress`` how far the check is on the way."""
    count = 0
    for count, event in enumerate(events, 1):
        if not count % PROGRESS_EVERY:
            read = sum(p.head.offset for p in passes)
            # never "done" here: a display ends its line then, and the last call below says so
            progress(count, max(count + 1, round(count * size / read) if read else count + 1))
        yield event
    if count >= PROGRESS_EVERY:
        progress(count, count)


VERIFY_CHUNK_BYTES = 1 << 18
"""How much of each feed ``verify`` reads (and holds parsed) at a time: every
feed is open at once for the merge, so this bounds its memory per feed."""


class _SeqHashes:
    """One feed's event hash by seq, for checking recorded heads at the end:
    32 bytes an event while seqs run 1, 2, 3… (a sound feed), a dict for the
    rest (a damaged feed whose seqs jump)."""

    __slots__ = ("_run", "_count", "_other")

    def __init__(self) -> None:
        self._run = bytearray()
        self._count = 0
        self._other: dict[int, str] = {}

    def add(self, seq: int, hash_: str) -> None:
        if seq == self._count + 1 and len(hash_) == 71 and hash_.startswith("sha256:"):
            try:
                digest = bytes.fromhex(hash_[7:])
            except ValueError:
                digest = None
            if digest is not None and digest.hex() == hash_[7:]:  # given back exactly as it was
                self._run += digest
                self._count = seq
                return
        self._other[seq] = hash_

    def get(self, seq: int) -> str | None:
        found = self._other.get(seq)
        if found is not None or not 0 < seq <= self._count:
            return found
        return "sha256:" + self._run[(seq - 1) * 32:seq * 32].hex()


class _FeedPass:
    """One feed read for ``verify``, a chunk at a time: its events in order for
    the merge, and what its report needs — counts, head, torn tail, problems,
    where each erased event starts — never the events themselves; each
    event's hash goes to ``add_hash`` (for the recorded heads checked at the end)."""

    def __init__(self, path: Path, add_hash: Callable[[str, int, str], None]) -> None:
        self.path, self.name, self._add_hash = path, feed_name(path), add_hash
        self.events = self.erased = 0
        self.head = FeedHead()
        self.torn: TornTail | None = None
        self.problems: list[FeedProblem] = []
        self.starts: dict[str, int] = {}
        """Erased event id → the byte offset its line starts at (the end of the sound line before it)."""

    def read(self) -> Iterator[Event]:
        path = self.path
        try:
            fh = open(path, "rb")
        except OSError as exc:
            raise StorageError(f"cannot read {path}: {exc}") from exc
        with fh:
            def read(at: int, size: int) -> bytes:
                fh.seek(at)
                return fh.read(size)

            try:
                size = os.fstat(fh.fileno()).st_size
                scans = scan_chunks(self.name, read, FeedHead(), size, VERIFY_CHUNK_BYTES, collect=True)
                before, add, name = 0, self._add_hash, self.name
                for scan in scans:
                    self.problems.extend(scan.problems)
                    self.head, self.torn = scan.head, scan.torn or self.torn
                    self.events += len(scan.events)
                    for event, end in zip(scan.events, scan.ends):
                        add(name, event.seq, event.hash)
                        if event.erased:
                            self.erased += 1
                            self.starts[event.id] = before
                        before = end
                        yield event
            except OSError as exc:
                raise StorageError(f"cannot read {path}: {exc}") from exc

    def report(self) -> FeedReport:
        return FeedReport(feed=self.name, events=self.events, erased=self.erased, head=self.head, torn=self.torn,
                          problems=self.problems)


def _id_key(ident: str) -> str | bytes:
    """An event id as it is remembered for the duplicate check: a UUID in its
    canonical spelling (lower case, hyphens at 8-4-4-4-12) as its 16 bytes (a
    third of the string's memory), any other id as it is — so two ids are
    the same key exactly when they are the same string."""
    if len(ident) == 36 and ident[8] == ident[13] == ident[18] == ident[23] == "-":
        try:
            raw = bytes.fromhex(ident.replace("-", ""))
        except ValueError:
            return ident
        h = raw.hex()
        if ident == f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}":
            return raw
    return ident


SPILL_BYTES = 8 << 20
"""Above this many bytes of feeds, what ``verify`` remembers per event (id,
hash) and per stream (versions) goes to a private temporary SQLite database
on disk, so its memory stays the same at any size; below, into dicts."""


class _InMemory:
    """What the checks across feeds remember, in dicts: O(events) memory (an
    id's 16 bytes and a hash's 32 an event, a stream's versions), no I/O."""

    def __init__(self) -> None:
        self._ids: dict[str | bytes, str] = {}
        self._writers: dict[str, str] = {}
        self._versions: dict[str, int] = {}
        self._written: dict[tuple[str, str], int] = {}
        self._hashes: dict[str, _SeqHashes] = {}

    def seen(self, key: str | bytes, writer: str, order: int, seq: int) -> str | None:
        """Note an event id; the writer it was last seen from before, if any."""
        first = self._ids.get(key)
        self._ids[key] = self._writers.setdefault(writer, writer)
        return first

    def duplicates(self) -> Iterator[tuple[int, str, int, str, str]]:
        return iter(())  # every one was answered by ``seen``

    def known(self, keys: list[str | bytes]) -> set[str | bytes]:
        """Which of ``keys`` were seen."""
        return {key for key in keys if key in self._ids}

    def stream(self, stream: str, writer: str) -> tuple[int, int]:
        return self._versions.get(stream, 0), self._written.get((stream, writer), 0)

    def set_stream(self, stream: str, writer: str, version: int, mine: int) -> None:
        self._versions[stream] = version
        self._written[(stream, writer)] = mine

    def add_hash(self, feed: str, seq: int, hash_: str) -> None:
        found = self._hashes.get(feed)
        if found is None:
            found = self._hashes[feed] = _SeqHashes()
        found.add(seq, hash_)

    def hash_at(self, feed: str, seq: int) -> str | None:
        found = self._hashes.get(feed)
        return found.get(seq) if found is not None else None

    def close(self) -> None:
        pass


class _OnDisk:
    """The same, in a private temporary SQLite database (on disk, deleted when
    closed): memory holds its page cache, a few thousand rows waiting to be
    written, and the ``RECENT`` streams last used. Ids are checked for
    duplicates once, at the end, by grouping them."""

    RECENT = 1024
    BATCH = 4096

    def __init__(self) -> None:
        self.db = db = sqlite3.connect("")  # "": a temporary database on disk, removed on close
        for pragma in ("journal_mode = OFF", "synchronous = OFF", "cache_size = -1024", "temp_store = FILE"):
            db.execute(f"PRAGMA {pragma}")
        db.execute("CREATE TABLE ids (key, ord INTEGER, writer TEXT, seq INTEGER)")
        db.execute("CREATE TABLE streams (stream TEXT PRIMARY KEY, version INTEGER, written TEXT) WITHOUT ROWID")
        db.execute("CREATE TABLE hashes (feed TEXT, seq INTEGER, hash, PRIMARY KEY (feed, seq)) WITHOUT ROWID")
        self._ids: list[tuple[str | bytes, int, str, int]] = []
        self._hashes: list[tuple[str, int, str | bytes]] = []
        self._recent: dict[str, list[Any]] = {}
        """Stream → [version, {writer: highest version it wrote}], oldest use first."""

    def seen(self, key: str | bytes, writer: str, order: int, seq: int) -> str | None:
        self._ids.append((key, order, writer, seq))
        if len(self._ids) >= self.BATCH:
            self._flush_ids()
        return None

    def _flush_ids(self) -> None:
        self.db.executemany("INSERT INTO ids VALUES (?, ?, ?, ?)", self._ids)
        self._ids.clear()

    def known(self, keys: list[str | bytes]) -> set[str | bytes]:
        """Which of ``keys`` were seen (a scan: asked only of a forget's few ids)."""
        self._flush_ids()
        found: set[str | bytes] = set()
        for start in range(0, len(keys), 500):
            chunk = keys[start:start + 500]
            marks = ", ".join("?" * len(chunk))
            found.update(row[0] for row in self.db.execute(f"SELECT DISTINCT key FROM ids WHERE key IN ({marks})",
                                                           chunk))
        return found

    def duplicates(self) -> Iterator[tuple[int, str, int, str, str]]:
        """``(order, writer, seq, id, writer seen before)`` of every id seen again, in no order."""
        self._flush_ids()
        rows = self.db.execute("SELECT key, ord, writer, seq FROM ids WHERE key IN "
                               "(SELECT key FROM ids GROUP BY key HAVING COUNT(*) > 1) ORDER BY key, ord")
        before = None
        for key, order, writer, seq in rows:
            if before is not None and before[0] == key:
                yield order, writer, seq, _id_text(key), before[1]
            before = (key, writer)

    def stream(self, stream: str, writer: str) -> tuple[int, int]:
        recent = self._recent
        entry = recent.pop(stream, None)
        if entry is None:
            row = self.db.execute("SELECT version, written FROM streams WHERE stream = ?", (stream,)).fetchone()
            entry = [row[0], orjson.loads(row[1])] if row else [0, {}]
            if len(recent) >= self.RECENT:
                self._evict()
        recent[stream] = entry  # now the most recently used
        return entry[0], entry[1].get(writer, 0)

    def _evict(self) -> None:
        """Write the least recently used quarter of the streams held (at least one) back to the database."""
        recent = self._recent
        oldest = list(itertools.islice(recent, max(1, len(recent) // 4)))
        self.db.executemany("INSERT OR REPLACE INTO streams VALUES (?, ?, ?)",
                            [(s, recent[s][0], orjson.dumps(recent.pop(s)[1]).decode()) for s in oldest])

    def set_stream(self, stream: str, writer: str, version: int, mine: int) -> None:
        entry = self._recent[stream]
        entry[0] = version
        entry[1][writer] = mine

    def add_hash(self, feed: str, seq: int, hash_: str) -> None:
        self._hashes.append((feed, seq, _hash_value(hash_)))
        if len(self._hashes) >= self.BATCH:
            self._flush_hashes()

    def _flush_hashes(self) -> None:
        self.db.executemany("INSERT OR REPLACE INTO hashes VALUES (?, ?, ?)", self._hashes)
        self._hashes.clear()

    def hash_at(self, feed: str, seq: int) -> str | None:
        self._flush_hashes()
        row = self.db.execute("SELECT hash FROM hashes WHERE feed = ? AND seq = ?", (feed, seq)).fetchone()
        if row is None:
            return None
        return "sha256:" + row[0].hex() if isinstance(row[0], bytes) else row[0]

    def close(self) -> None:
        self.db.close()


def _hash_value(hash_: str) -> str | bytes:
    """A hash as ``_OnDisk`` stores it: a canonical ``sha256:`` hash as its 32 bytes, anything else as written."""
    if len(hash_) == 71 and hash_.startswith("sha256:"):
        try:
            digest = bytes.fromhex(hash_[7:])
        except ValueError:
            return hash_
        if digest.hex() == hash_[7:]:
            return digest
    return hash_


def _id_text(key: str | bytes) -> str:
    """The id ``_id_key`` made ``key`` from."""
    if isinstance(key, bytes):
        h = key.hex()
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    return key


class _HashesOf:
    """One feed's hashes by seq, as ``_check_heads`` asks for them."""

    def __init__(self, memory: "_InMemory | _OnDisk", feed: str) -> None:
        self.memory, self.feed = memory, feed

    def get(self, seq: int) -> str | None:
        return self.memory.hash_at(self.feed, seq)


def _verify(ledger_dir: Path, erasure_type: str | None, recorded: list[RecordedHead],
            identity: tuple[str, str] | None = None,
            progress: Callable[[int, int], None] | None = None, own: str | None = None) -> VerifyReport:
    """Every feed streamed through one merge: memory holds a chunk of each feed;
    what the checks across feeds remember per event (its id and hash) and per
    stream goes into dicts, or for a ledger over ``SPILL_BYTES`` into a
    temporary database on disk — never the events' payloads."""
    try:
        paths = sorted(p for p in ledger_dir.glob("*.jsonl") if is_feed_file_name(p.name) and p.is_file()
                       and not p.is_symlink() and not holds_another_writer(str(p), p.name, own))
        size = sum(p.stat().st_size for p in paths)
    except OSError as exc:
        raise StorageError(f"cannot list {ledger_dir}: {exc}") from exc
    if size > SPILL_BYTES:
        memory: _InMemory | _OnDisk | None = None
        try:
            memory = _OnDisk()
            return _check_all(paths, memory, erasure_type, list(recorded), identity, (progress, size), own)
        except sqlite3.Error:
            pass  # no room for the temporary database (a full or read-only temp folder): check in memory
        finally:
            if memory is not None:
                memory.close()
    memory = _InMemory()
    return _check_all(paths, memory, erasure_type, recorded, identity, (progress, size), own)


def _check_all(paths: list[Path], memory: "_InMemory | _OnDisk", erasure_type: str | None,
               recorded: list[RecordedHead], identity: tuple[str, str] | None = None,
               told: tuple[Callable[[int, int], None] | None, int] = (None, 0), own: str | None = None) -> VerifyReport:
    """``told``: the ``progress`` to tell, and the feeds' size in bytes. ``own``: this clone's
    writer (``_note_repair``: whose repairs of a teammate's feed speak for this clone's copy)."""
    passes = [_FeedPass(path, memory.add_hash) for path in paths]
    merged = merge_feeds(p.read() for p in passes)
    if told[0] is not None:
        merged = _told(merged, passes, told[1], told[0])
    by_name = {p.name: p for p in passes}
    found: list[tuple[int, int, FeedProblem]] = []
    """(order in the merge, 0 for a duplicate id or 1 for a stream's version, the problem)."""
    concurrent: list[FeedProblem] = []
    forgotten: set[str] = set()
    named_by: dict[str, str] = {}
    """Each event id a forget names → the handoff it forgot."""
    erased: list[tuple[str, str, int]] = []
    """(writer, id, seq) of every erased event."""
    set_aside: dict[str, set[str]] = {}
    quarantined: set[str] = set()
    identities: list[tuple[str, int, Any]] = []
    seen, stream_of, set_stream = memory.seen, memory.stream, memory.set_stream
    for order, event in enumerate(merged):
        first = seen(_id_key(event.id), event.writer, order, event.seq)
        if first is not None:
            found.append((order, 0, _duplicate(event.writer, event.seq, event.id, first)))
        version, mine = stream_of(event.stream, event.writer)
        want = version + 1
        seen_version = want - 1
        if mine < event.stream_version < want:
            # Another writer wrote this version first, and this writer had not
            # seen it: replicas apart, joined by sync. Not corruption.
            concurrent.append(FeedProblem(event.writer, -1, event.seq, "concurrent",
                                          f"stream {event.stream!r}: version {event.stream_version} was also "
                                          "written by another writer"))
        else:
            if event.stream_version != want:
                kind = "stream_fork" if event.stream_version < want else "stream_gap"
                found.append((order, 1, FeedProblem(event.writer, -1, event.seq, kind, f"stream {event.stream!r}: "
                                                    f"expected version {want}, found {event.stream_version}")))
            seen_version = want
        set_stream(event.stream, event.writer, max(seen_version, event.stream_version),
                   max(mine, event.stream_version))
        data = event.data
        if data is None:
            erased.append((event.writer, event.id, event.seq))
        elif event.type == HEADS_TYPE:
            recorded.extend(_heads_in(data, f"ledger.heads of {event.writer} seq {event.seq}"))
        elif event.type == REPAIRED_TYPE:
            _note_repair(data, event, set_aside, recorded, own)
            if isinstance(data.get("quarantine"), str):
                quarantined.add(data["quarantine"])
        elif identity is not None and event.type == identity[0]:
            identities.append((event.writer, event.seq, data.get(identity[1])))
        elif erasure_type is not None and event.type == erasure_type:
            named = data.get("events")
            if isinstance(named, list):
                forgotten.update(i for i in named if isinstance(i, str))
                handoff = data.get("handoff")
                named_by.update((i, handoff if isinstance(handoff, str) else "?") for i in named if isinstance(i, str))
    for order, writer, seq, ident, first in memory.duplicates():
        found.append((order, 0, _duplicate(writer, seq, ident, first)))
    found.sort(key=lambda f: (f[0], f[1]))
    cross = [problem for _order, _kind, problem in found]
    for writer, ident, seq in erased:
        if ident not in forgotten:
            feed = by_name.get(writer)
            cross.append(FeedProblem(writer, feed.starts.get(ident, -1) if feed else -1, seq,
                                     "erased_without_forget",
                                     f"the payload of event {ident} was removed, and no recorded forget names it"))
    reports = [p.report() for p in passes]
    cross.extend(_check_heads(recorded, {p.name: _HashesOf(memory, p.name) for p in passes},
                              {r.feed: r.head for r in reports}, set_aside))
    return VerifyReport(feeds=reports, problems=cross,
                        erased_by_forget=sum(1 for _w, ident, _s in erased if ident in forgotten),
                        unfinished_forgets=_unfinished(named_by, {ident for _w, ident, _s in erased}, memory),
                        concurrent=concurrent,
                        heads_checked=len(recorded),
                        recorded=[r for r in recorded if r.hash is None or r.hash not in set_aside.get(r.feed, ())],
                        identities=identities, quarantined=quarantined)


def _unfinished(named_by: dict[str, str], erased: set[str], memory: "_InMemory | _OnDisk") -> dict[str, int]:
    """Handoff → how many ids its forget names that are in the ledger and not erased."""
    left = [ident for ident in named_by if ident not in erased]
    if not left:
        return {}
    present = memory.known([_id_key(ident) for ident in left])
    out: dict[str, int] = {}
    for ident in left:
        if _id_key(ident) in present:
            out[named_by[ident]] = out.get(named_by[ident], 0) + 1
    return out


def _duplicate(writer: str, seq: int, ident: str, first: str) -> FeedProblem:
    return FeedProblem(writer, -1, seq, "duplicate_id", f"event id {ident} also appears in feed {first!r}")


def _heads_in(data: Mapping[str, Any], source: str) -> list[RecordedHead]:
    heads = data.get("heads")
    out = []
    if isinstance(heads, dict):
        for feed, head in heads.items():
            if isinstance(head, dict) and type(head.get("seq")) is int and head["seq"] > 0:
                offset = head.get("offset")
                out.append(RecordedHead(feed, head["seq"], head.get("hash"),
                                        offset if type(offset) is int else -1, source))
    return out


def _note_repair(data: Mapping[str, Any], event: Event, set_aside: dict[str, set[str]],
                 recorded: list[RecordedHead], own: str | None = None) -> None:
    """A recorded repair: the heads it set aside or acknowledged as lost no longer count as
    lost, and the head it kept is recorded. What it set aside counts only for the copies it cut:
    every copy of a feed its own writer cut (the cut is shared by sync), or this clone's copy of a
    teammate's feed that this clone (``own``) repaired. A teammate's repair of its copy of another
    writer's feed says nothing of this clone's copy: a head of it recorded here still has to be
    there, or a truncated feed would pass as set aside."""
    feed = data.get("feed")
    if not isinstance(feed, str):
        return
    if own is not None and event.writer not in (feed, own):
        return
    gone = set_aside.setdefault(feed, set())
    for item in [*(data.get("set_aside") or ()), *(data.get("lost") or ())]:
        if isinstance(item, dict) and isinstance(item.get("hash"), str):
            gone.add(item["hash"])
    kept = data.get("kept")
    if isinstance(kept, dict):
        recorded.extend(_heads_in({"heads": {feed: kept}}, f"ledger.repaired of {event.writer} seq {event.seq}"))


class _Hashes(Protocol):
    def get(self, seq: int) -> str | None: ...


def _check_heads(recorded: list[RecordedHead], hashes: Mapping[str, _Hashes],
                 heads: Mapping[str, FeedHead], set_aside: Mapping[str, set[str]]) -> list[FeedProblem]:
    """The worst problem per feed and kind, over every recorded head."""
    found: dict[tuple[str, str], tuple[int, FeedProblem]] = {}
    for r in recorded:
        if r.hash is not None and r.hash in set_aside.get(r.feed, ()):
            continue  # set aside by a recorded repair
        feed_hashes = hashes.get(r.feed)
        if feed_hashes is None:
            kind = "missing_feed"
            problem = FeedProblem(r.feed, -1, r.seq, kind,
                                  f"feed {r.feed!r} does not exist, but {r.source} recorded it at seq {r.seq}")
        else:
            head = heads[r.feed]
            actual = feed_hashes.get(r.seq)
            if actual is None and r.seq > head.seq:
                kind = "truncated"
                problem = FeedProblem(r.feed, head.offset, r.seq, kind,
                                      f"feed {r.feed!r} ends at seq {head.seq}, but {r.source} recorded seq {r.seq}")
            elif actual != r.hash:
                kind = "rewritten"
                said = (f"feed {r.feed!r} holds another event at seq {r.seq} than {r.source} recorded"
                        if actual is not None else
                        f"feed {r.feed!r} has no readable event at seq {r.seq}, which {r.source} recorded "
                        "(it may sit past a damaged line)")
                problem = FeedProblem(r.feed, r.offset, r.seq, kind, said)
            else:
                continue
        key = (r.feed, kind)
        if key not in found or found[key][0] < r.seq:
            found[key] = (r.seq, problem)
    return [problem for _, problem in sorted(found.values(), key=lambda x: (x[1].feed, x[1].kind))]
