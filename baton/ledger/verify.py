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

import os
from pathlib import Path
from typing import Any, Iterator, Mapping, Protocol

import attrs

from baton.model import frozen, mutable
from baton.errors import StorageError
from baton.ledger.envelope import Event
from baton.ledger.feed import FeedHead, FeedProblem, TornTail, collector_paused, feed_name, merge_feeds, scan_chunks
from baton.ledger.integrity import HEADS_TYPE, REPAIRED_TYPE


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

    def to_json(self) -> dict:
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
    recorded: list[RecordedHead] = attrs.field(factory=list)
    """Every head checked (what ``repair`` acknowledges as lost)."""

    @property
    def ok(self) -> bool:
        return not self.problems and all(not f.problems for f in self.feeds)

    @property
    def event_count(self) -> int:
        return sum(f.events for f in self.feeds)

    def all_problems(self) -> list[FeedProblem]:
        return [p for f in self.feeds for p in f.problems] + list(self.problems)

    def to_json(self) -> dict:
        return {
            "ok": self.ok,
            "events": self.event_count,
            "erased_by_forget": self.erased_by_forget,
            "heads_checked": self.heads_checked,
            "feeds": [f.to_json() for f in self.feeds],
            "problems": [p.to_json() for p in self.all_problems()],
            "concurrent": [p.to_json() for p in self.concurrent],
        }


def verify_ledger(
    ledger_dir: Path,
    *,
    erasure_type: str | None = None,
    recorded_heads: list[RecordedHead] | None = None,
) -> VerifyReport:
    """``erasure_type``: the event type whose ``data.events`` lists the event
    ids whose payloads were erased on purpose (None: no erasure is legitimate).
    ``recorded_heads``: heads recorded outside the ledger (the index's)."""
    with collector_paused():
        return _verify(Path(ledger_dir), erasure_type, list(recorded_heads or ()))


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
    the merge, and what its report and the checks at the end need — counts,
    head, torn tail, problems, hashes by seq, where each erased event starts —
    never the events themselves."""

    def __init__(self, path: Path) -> None:
        self.path, self.name = path, feed_name(path)
        self.events = self.erased = 0
        self.head = FeedHead()
        self.torn: TornTail | None = None
        self.problems: list[FeedProblem] = []
        self.hashes = _SeqHashes()
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
                before, add = 0, self.hashes.add
                for scan in scans:
                    self.problems.extend(scan.problems)
                    self.head, self.torn = scan.head, scan.torn or self.torn
                    self.events += len(scan.events)
                    for event, end in zip(scan.events, scan.ends):
                        add(event.seq, event.hash)
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


def _verify(ledger_dir: Path, erasure_type: str | None, recorded: list[RecordedHead]) -> VerifyReport:
    """Every feed streamed through one merge: memory holds a chunk of each feed,
    and per event only its id and hash (and the streams' versions), never the
    events' payloads."""
    try:
        paths = sorted(p for p in ledger_dir.glob("*.jsonl") if p.is_file())
    except OSError as exc:
        raise StorageError(f"cannot list {ledger_dir}: {exc}") from exc
    passes = [_FeedPass(path) for path in paths]
    by_name = {p.name: p for p in passes}
    cross: list[FeedProblem] = []
    concurrent: list[FeedProblem] = []
    seen_ids: dict[str | bytes, str] = {}
    """Event id → the writer it was first seen from (one string per writer, shared)."""
    writers: dict[str, str] = {}
    versions: dict[str, int] = {}
    forgotten: set[str] = set()
    erased: list[tuple[str, str, int]] = []
    """(writer, id, seq) of every erased event."""
    set_aside: dict[str, set[str]] = {}
    written: dict[tuple[str, str], int] = {}
    """(stream, writer) → the highest version that writer wrote to the stream."""
    for event in merge_feeds(p.read() for p in passes):
        key = _id_key(event.id)
        first = seen_ids.get(key)
        if first is not None:
            cross.append(FeedProblem(event.writer, -1, event.seq, "duplicate_id",
                                     f"event id {event.id} also appears in feed {first!r}"))
        seen_ids[key] = writers.setdefault(event.writer, event.writer)
        want = versions.get(event.stream, 0) + 1
        mine = written.get((event.stream, event.writer), 0)
        seen = want - 1
        if mine < event.stream_version < want:
            # Another writer wrote this version first, and this writer had not
            # seen it: replicas apart, joined by sync. Not corruption.
            concurrent.append(FeedProblem(event.writer, -1, event.seq, "concurrent",
                                          f"stream {event.stream!r}: version {event.stream_version} was also "
                                          "written by another writer"))
        else:
            if event.stream_version != want:
                kind = "stream_fork" if event.stream_version < want else "stream_gap"
                cross.append(FeedProblem(event.writer, -1, event.seq, kind, f"stream {event.stream!r}: "
                                         f"expected version {want}, found {event.stream_version}"))
            seen = want
        versions[event.stream] = max(seen, event.stream_version)
        written[(event.stream, event.writer)] = max(mine, event.stream_version)
        data = event.data
        if data is None:
            erased.append((event.writer, event.id, event.seq))
        elif event.type == HEADS_TYPE:
            recorded.extend(_heads_in(data, f"ledger.heads of {event.writer} seq {event.seq}"))
        elif event.type == REPAIRED_TYPE:
            _note_repair(data, event, set_aside, recorded)
        elif erasure_type is not None and event.type == erasure_type:
            named = data.get("events")
            if isinstance(named, list):
                forgotten.update(i for i in named if isinstance(i, str))
    for writer, ident, seq in erased:
        if ident not in forgotten:
            found = by_name.get(writer)
            cross.append(FeedProblem(writer, found.starts.get(ident, -1) if found else -1, seq,
                                     "erased_without_forget",
                                     f"the payload of event {ident} was removed, and no recorded forget names it"))
    reports = [p.report() for p in passes]
    cross.extend(_check_heads(recorded, {p.name: p.hashes for p in passes}, {r.feed: r.head for r in reports},
                              set_aside))
    return VerifyReport(feeds=reports, problems=cross,
                        erased_by_forget=sum(1 for _w, ident, _s in erased if ident in forgotten),
                        concurrent=concurrent,
                        heads_checked=len(recorded),
                        recorded=[r for r in recorded if r.hash is None or r.hash not in set_aside.get(r.feed, ())])


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


def _note_repair(data: Mapping[str, Any], event, set_aside: dict[str, set[str]],
                 recorded: list[RecordedHead]) -> None:
    feed = data.get("feed")
    if not isinstance(feed, str):
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
                problem = FeedProblem(r.feed, r.offset, r.seq, kind,
                                      f"feed {r.feed!r} holds another event at seq {r.seq} than {r.source} recorded")
            else:
                continue
        key = (r.feed, kind)
        if key not in found or found[key][0] < r.seq:
            found[key] = (r.seq, problem)
    return [problem for _, problem in sorted(found.values(), key=lambda x: (x[1].feed, x[1].kind))]
