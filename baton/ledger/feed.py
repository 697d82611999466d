"""Reading one feed: lines in, verified events out.

A feed is ``<writer>.jsonl``: one event per ``\\n``-terminated line, ``seq``
gapless from 1, each ``prev`` the ``hash`` of the line before. Reading is
incremental: a scan starts from a ``FeedHead`` (the byte offset, seq, hash and
hlc reached so far) and reads only the bytes after it.

A *torn tail* is only the trace of a writer that died mid-append: the bytes
after the last newline, a last run of NUL bytes, or an incomplete batch (the
events of one append carry ``batch``, and a batch is all-or-nothing). Readers
ignore it and the next writer of the feed quarantines it. Any other bad line —
a newline-terminated line that fails its hash, digest, seq, ``prev`` or batch,
the last line included — is corruption: ``strict`` scans raise, ``collect``
scans report and go on. Nothing that was fully written is ever cut.
"""

from __future__ import annotations

import gc
import heapq
import os
from contextlib import contextmanager
from hashlib import sha256 as _sha256

import orjson

from baton.canonical import canonical_bytes, sha256_tag
from baton.errors import EnvelopeError, LedgerCorrupt
from baton.ledger.clock import hlc_of_datetime, parse_rfc3339
from baton.ledger.envelope import KNOWN_FIELDS, Event
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a hook never needs it)
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Iterator

    from _typeshed import StrPath


class FeedHead(Value):
    """How far a reader has got in one feed (a named tuple: ``baton.values.Value``)."""

    offset: int = 0
    seq: int = 0
    hash: str | None = None
    hlc: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"offset": self.offset, "seq": self.seq, "hash": self.hash, "hlc": self.hlc}

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> "FeedHead":
        return cls(offset=raw["offset"], seq=raw["seq"], hash=raw.get("hash"), hlc=raw.get("hlc", 0))


class FeedProblem(Value):
    feed: str
    offset: int
    seq: int | None
    kind: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"feed": self.feed, "offset": self.offset, "seq": self.seq, "kind": self.kind, "message": self.message}


class TornTail(Value):
    offset: int
    length: int
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"offset": self.offset, "length": self.length, "reason": self.reason}


class FeedScan(Value):
    """What one read of a feed found (a named tuple: ``baton.values.Value``; ``scan_bytes``
    fills its lists while it reads, then makes the scan it returns)."""

    feed: str
    events: list[Event]
    ends: list[int]
    """Byte offset just past each event's line, parallel to ``events``."""
    head: FeedHead
    torn: TornTail | None = None
    problems: list[FeedProblem] | tuple[FeedProblem, ...] = ()
    """The problems met (a list, when ``scan_bytes`` made the scan)."""


@contextmanager
def collector_paused() -> Iterator[None]:
    """For reading a whole ledger: it allocates a few objects per event and
    frees none until it ends, so the cyclic collector would walk them all
    again and again (a fifth to a third of replay time at 100k events).
    Events and their payloads make no cycles to collect."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def feed_name(path: StrPath) -> str:
    return os.path.basename(path)[: -len(".jsonl")]


WRITER_ID_CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789-"
WRITER_ID_MAX = 64


def is_writer_id(name: str) -> bool:
    """Whether ``name`` is a writer id: 1 to 64 of ``[a-z0-9-]``, not starting with ``-``
    (``[a-z0-9][a-z0-9-]{0,63}``), and nothing else — no trailing newline, which the pattern
    this replaced let through (``re.match`` with ``$``). What a feed file's name is before
    ``.jsonl``, and what ``local.json`` and a remote's ref may name. String tests, not a pattern
    compiled in every process (docs/performance.md)."""
    return (0 < len(name) <= WRITER_ID_MAX and name[0] != "-"
            and not name.strip(WRITER_ID_CHARACTERS))


def is_feed_file_name(name: str) -> bool:
    """Whether ``name`` (a file name in the ledger folder) names a feed: a writer id and ``.jsonl``.
    Anything else there — a cloud drive's ``<w> (conflicted copy …).jsonl``, a ``feed.bak.jsonl`` —
    is no feed: never read as one, never deleted (``verify`` and ``doctor`` name it)."""
    return name.endswith(".jsonl") and is_writer_id(name[:-6])


FIRST_LINE_LIMIT = 65536
"""How far a feed file is read for its first line (``first_writer``); a longer first line is not judged."""


def first_writer(path: str) -> str | None:
    """The writer the first line of the file at ``path`` names, or None when it has no whole first
    line within ``FIRST_LINE_LIMIT`` (empty, or its first append still being written) or that line
    is no event naming one (damaged: ``verify`` says how). One read of 4 KiB for most feeds."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
            if b"\n" not in head and len(head) == 4096:
                head += fh.read(FIRST_LINE_LIMIT - 4096)
    except OSError:
        return None
    return first_line_writer(head)


def first_line_writer(head: bytes) -> str | None:
    """The writer the first line of ``head`` (a feed file's first bytes) names, or None (``first_writer``):
    only a sound event names one — a line whose hash no longer holds is damage to this file, not
    another writer's copy."""
    line, newline, _ = head.partition(b"\n")
    if not newline:
        return None
    try:
        raw = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    writer = raw.get("writer") if type(raw) is dict else None
    if not isinstance(writer, str) or not is_writer_id(writer) or not line_hashes_to(line, raw.get("hash")):
        return None  # damaged (a byte of its writer changed, say): read as the file's writer's, ``verify`` says how
    return writer


def holds_another_writer(path: str, name: str, own: str | None = None) -> str | None:
    """The writer whose events the file ``name`` (a feed file name, ``is_feed_file_name``) holds,
    when its first event is not its name's writer's: a copy saved under another writer id's name
    (``cp A.jsonl B.jsonl``, a teammate's feed saved as the wrong file). No feed: never read as
    that writer's, never deleted (``verify`` and ``doctor`` name it). This clone's ``own`` feed
    is never judged so: its file is the one it appends to, and ``verify`` reports another writer's
    events there as ``wrong_writer``."""
    stem = name[:-6]
    if stem == own:
        return None
    writer = first_writer(path)
    return writer if writer is not None and writer != stem else None


def stray_files(ledger_dir: StrPath, own: str | None = None) -> dict[str, str | None]:
    """The ``*.jsonl`` files in the ledger folder that are no feed, sorted, each with the writer
    whose events it holds when that is why: named no writer id (``is_feed_file_name``: None), or
    named one but holding another writer's events (``holds_another_writer``). One rule for both:
    not read, never deleted, named by ``verify`` and ``doctor``."""
    from pathlib import Path  # lazy: ``verify``'s and ``doctor``'s, off the hook path

    try:
        found: dict[str, str | None] = {}
        for p in sorted(Path(ledger_dir).glob("*.jsonl")):
            if not is_feed_file_name(p.name):
                found[p.name] = None
            elif p.is_file() and not p.is_symlink() and (writer := holds_another_writer(str(p), p.name, own)):
                found[p.name] = writer
        return found
    except OSError:
        return {}


def merge_feeds(feeds: Iterable[Iterable[Event]]) -> Iterator[Event]:
    """The project's one stream: every feed merged by ``(hlc, writer, seq)``.

    Each feed is already in that order (one writer, rising seq and hlc), so a
    k-way merge gives the same sequence whatever order the feeds come in.
    """
    feeds = [feed for feed in feeds]
    if len(feeds) == 1:
        return iter(feeds[0])
    return heapq.merge(*feeds, key=_merge_key)


def _merge_key(event: Event) -> tuple[int, str, int]:
    return (event.hlc, event.writer, event.seq)


def encode_line(event: Event) -> bytes:
    """The line a writer stores: the event's canonical JSON and a newline."""
    return orjson.dumps(event.to_dict(), option=orjson.OPT_SORT_KEYS) + b"\n"


def last_line_length(scan: "FeedScan", start: "FeedHead") -> int:
    """Bytes (newline included) of the line ending at ``scan.head.offset``,
    or 0 when the scan found no event (the caller keeps what it knew)."""
    if not scan.ends:
        return 0
    before = scan.ends[-2] if len(scan.ends) > 1 else start.offset
    return scan.ends[-1] - before


def line_hashes_to(line: bytes | None, recorded: str | None, *, seq: int = 0, hlc: int = 0) -> bool:
    """True when ``line`` (without its newline) is an event whose hash is
    ``recorded`` and whose bytes still hash to it: what a remembered head
    checks to prove the feed still holds the line it stopped after. With
    ``seq`` or ``hlc`` (non-zero), the event must carry those too: a head
    whose seq or hlc was edited (in the index) does not hold, or a writer
    starting from it would leave a gap or turn its clock back."""
    if line is None or recorded is None:
        return False
    try:
        raw = orjson.loads(line)
        if type(raw) is not dict or raw.get("hash") != recorded:
            return False
        if (seq and raw.get("seq") != seq) or (hlc and raw.get("hlc") != hlc):
            return False
        if _canonical_line_verifies(line, raw):
            return True
        return _hash_of(raw, Event.from_dict(raw)) == recorded
    except (orjson.JSONDecodeError, EnvelopeError):
        return False


def line_in(chunk: bytes, length: int) -> bytes | None:
    """The line a remembered head points at, cut from ``chunk`` (the
    ``length`` bytes before the head): exactly one line, newline-terminated,
    or None when the bytes there are no longer one whole line."""
    if len(chunk) != length or not chunk.endswith(b"\n") or b"\n" in chunk[:-1]:
        return None
    return chunk[:-1]


def _check(feed: str, line: bytes, head: FeedHead) -> tuple[Event | None, str | None, str | None]:
    """Parse and check one line against the head before it.

    Returns ``(event, kind, message)``; ``kind`` is None when the line is sound.
    The event is returned whenever the line parsed, so a collecting scan can
    resynchronise on it.
    """
    return check_line_after(feed, line, head.seq, head.hash, head.hlc)


def check_line_after(
    feed: str, line: bytes, seq: int, prev: str | None, hlc: int
) -> tuple[Event | None, str | None, str | None]:
    """``line`` (without its newline) checked as the next event of feed ``feed``
    after the event ``seq``, hash ``prev``, ``hlc``: ``(event, kind, message)``
    as ``_check`` returns them (``baton repair`` walks a damaged feed with it)."""
    try:
        raw = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None, "bad_json", "line is not valid JSON"
    try:
        event = Event.from_dict(raw)
    except EnvelopeError as exc:
        return None, "bad_envelope", str(exc)
    if not _line_verifies(line, event.digest, event.hash):  # both strings: ``from_dict`` checked them
        if event.hash != _hash_of(raw, event):
            return event, "bad_hash", f"event {event.id} does not match its hash"
        if not event.data_intact():
            return event, "bad_digest", f"event {event.id} payload does not match its digest"
    if event.writer != feed:
        return event, "wrong_writer", f"event written by {event.writer!r} found in feed {feed!r}"
    if event.seq != seq + 1:
        kind = "fork" if event.seq <= seq else "gap"
        return event, kind, f"expected seq {seq + 1}, found {event.seq}"
    if event.prev != prev:
        return event, "broken_chain", f"seq {event.seq} does not link to the hash of seq {seq}"
    if event.hlc <= hlc:
        return event, "hlc_regressed", f"seq {event.seq} has hlc {event.hlc}, not above {hlc}"
    return event, None, None


_HASHED = frozenset(KNOWN_FIELDS) - {"hash", "data"}
_DATA_KEY = b',"data":'
_DIGEST_KEY = b',"digest":"'
_HASH_KEY = b',"hash":"'
_TAG_LEN = len("sha256:") + 64


def _canonical_line_verifies(line: bytes, raw: object) -> bool:
    """Check hash and digest straight from the bytes of a canonical line.

    Writers store each event as its canonical JSON (sorted keys, compact), so
    the payload's canonical bytes are a slice of the line, and the chained
    part's canonical bytes are the line with the ``data`` and ``hash``
    members cut out. Hashing those slices checks both values without
    serializing anything again. When every envelope field is known the
    members sit in a fixed order: ``data`` follows ``actor`` and ``at`` (a
    string can hold no unescaped quote, so the first ``,"data":`` is the
    member), and no member after the top-level ``digest`` holds an object, so
    the last ``,"digest":"`` is that member.

    The check is sound whatever the line holds: every byte of the line is in
    exactly one of the two hashed slices or the two cut-out member names, so
    both hashes match only if the line is byte for byte the one the writer
    hashed (short of a sha256 collision). A line that is not canonical
    (another writer's formatting, an erased payload, unknown fields that
    shift the members) simply fails here and gets the full check instead.
    """
    if type(raw) is not dict:
        return False
    digest, recorded = raw.get("digest"), raw.get("hash")
    if type(digest) is not str or type(recorded) is not str:
        return False
    return _line_verifies(line, digest, recorded)


_HASH_AT = len(_HASH_KEY)
_DATA_AT = len(_DATA_KEY)


def _line_verifies(line: bytes, digest: str, recorded: str) -> bool:
    """``_canonical_line_verifies`` of a line whose ``digest`` and ``hash``
    members are the strings given (an envelope read from it says so): the
    slices hashed as they are, without a view of the line (each slice is
    one copy of its bytes; a view costs more calls than the copy)."""
    start = line.find(_DATA_KEY)
    cut = line.rfind(_DIGEST_KEY)
    if start < 0 or cut < start or len(recorded) != _TAG_LEN:
        return False
    at = line.find(_HASH_KEY, cut)
    stop = at + _HASH_AT + _TAG_LEN
    if at < 0 or line[stop:stop + 1] != b'"' or line[at + _HASH_AT:stop] != recorded.encode():
        return False
    if digest != "sha256:" + _sha256(line[start + _DATA_AT:cut]).hexdigest():
        return False
    chained = _sha256(line[:start])
    chained.update(line[cut:at])
    chained.update(line[stop + 1:])
    return recorded == "sha256:" + chained.hexdigest()


def _hash_of(raw: object, event: Event) -> str:
    """``event.compute_hash()``, taken straight from the parsed line when the
    line spells out every hashed field (then the two are the same dict)."""
    if type(raw) is dict and _HASHED <= raw.keys():
        body = raw.copy()
        del body["hash"]
        body.pop("data", None)
        return sha256_tag(canonical_bytes(body))
    return event.compute_hash()


def _hides_sound_event(feed: str, line: bytes, head: FeedHead) -> bool:
    """True when a bad or unterminated line starts with a complete, sound next
    event followed by other bytes.

    A writer that dies mid-append leaves a prefix of one line; it never turns
    the newline of a line already written into another byte. When that byte
    is damaged, the sound event before it and what follows run together into
    one bad "line" — treating that as a torn tail would cut a fully written
    event, so it is reported as corruption instead.
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix: bytes | str = line[: exc.start]
    else:
        try:
            orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            prefix = text[: exc.pos]
        else:
            stripped = line.strip(b" \t\r\n")
            if stripped == line:
                return False  # one whole event and nothing else: a write cut just before its newline
            prefix = stripped  # whitespace where the newline was: no writer wrote that
    if not prefix:
        return False
    if isinstance(prefix, str):
        prefix = prefix.encode("utf-8")
    _, kind, _ = _check(feed, prefix, head)
    return kind is None


def _only_lost_bytes(rest: bytes) -> bool:
    """True when ``rest`` (from a line's start to the end of the feed) is a
    run of NUL bytes and newlines: what a file system leaves when a write
    extended the file but its blocks never reached the disk."""
    return b"\x00" in rest and not rest.replace(b"\x00", b"").replace(b"\n", b"")


def _opens_batch(batch: object, event: Event) -> bool:
    """``batch`` is a well-formed first member of a batch led by ``event``."""
    return (
        type(batch) is dict and batch.get("id") == event.id and batch.get("n") == 1
        and type(batch.get("of")) is int and batch["of"] >= 2
    )


def _inside_batch(batch: object) -> bool:
    """``batch`` is a well-formed later member of a batch."""
    if type(batch) is not dict:
        return False
    n, of = batch.get("n"), batch.get("of")
    return type(batch.get("id")) is str and type(n) is int and type(of) is int and 1 < n <= of


def scan_bytes(feed: str, raw: bytes, start: FeedHead, *, collect: bool = False, at_end: bool = True,
               resumed: bool = True, slim: bool = False) -> FeedScan:
    """Scan ``raw``, the bytes of the feed from ``start.offset`` on.

    ``at_end``: ``raw`` runs to the end of the feed, so it may end in a torn
    tail. A chunk in the middle of a feed (``scan_chunks``) passes False:
    there, every line is followed by more and a bad one is corruption, and a
    batch still open at the chunk's end is left unread (the scan's head stops
    before it) for the next chunk to read whole.

    A torn tail is only what a dying writer leaves: the bytes after the last
    newline, a last run of NUL bytes, or the events of an incomplete batch at
    the end (with whatever follows them). A newline-terminated line that
    parses but fails its hash, digest, seq, ``prev`` or batch — last line
    included — is corruption.

    ``resumed``: ``raw`` begins at a reader's cursor, which may sit inside a
    batch (a ``rebuild --until`` pinned there). ``scan_chunks`` passes False
    for every later chunk: a chunk never ends inside a sound open batch (it is
    carried whole to the next), so a later member at a chunk's start follows
    a damaged one, as in one scan of the whole feed.

    ``slim``: keep each event without its ``data`` (a repair's plan reads only heads, hashes
    and problems: its memory then grows with the number of events, not with their payloads).
    """
    events: list[Event] = []
    ends: list[int] = []
    problems: list[FeedProblem] = []
    scan = FeedScan(feed, events, ends, start, None, problems)
    """The lists being filled, for the steps below; the scan returned is made at the end."""
    torn: TornTail | None = None
    base = start.offset
    seq, last_hash, hlc, offset = start.seq, start.hash, start.hlc, start.offset
    pos = 0
    size = len(raw)
    find = raw.find
    pending: list[Any] | None = None
    """The batch open so far: [index of its first event, its byte position,
    the head before it, its id, members read, its size, its first seq]."""
    kind: str | None
    message: str | None
    while pos < size:
        nl = find(b"\n", pos)
        if nl < 0:
            end = size
            line = raw[pos:]
            if not (at_end and _hides_sound_event(feed, line, FeedHead(offset, seq, last_hash, hlc))):
                torn = TornTail(base + pos, size - pos, "no terminating newline")
                break
            event, kind, message = None, "bad_json", _NEWLINE_HIDDEN
        else:
            line = raw[pos:nl]
            end = nl + 1
            event, kind, message = check_line_after(feed, line, seq, last_hash, hlc)
            if kind is None and event is not None and (pending is not None or event.extra):
                pending, kind, message = _batch_step(scan, event, pending, pos, (offset, seq, last_hash, hlc),
                                                     base=base, resumed=resumed, collect=collect)
        if kind is None:
            assert event is not None  # no kind: a sound event, always (for type checkers)
            events.append(event._replace(data=None) if slim else event)  # type: ignore[attr-defined]
            offset = base + end
            ends.append(offset)
            seq, last_hash, hlc = event.seq, event.hash, event.hlc
            pos = end
            continue
        assert kind is not None  # else the event was read above (for type checkers)
        if at_end and nl >= 0 and _only_lost_bytes(raw[pos:]):
            torn = TornTail(base + pos, size - pos, "a run of NUL bytes")
            break
        _bad_line(scan, line, event, kind, message, base + pos, FeedHead(offset, seq, last_hash, hlc),
                  terminated=nl >= 0, collect=collect)
        pending = None
        offset = base + end
        if event is not None:
            seq, last_hash, hlc = event.seq, event.hash, max(hlc, event.hlc)
        pos = end
    if pending is not None:
        (offset, seq, last_hash, hlc), torn = _drop_open_batch(scan, pending, base=base, size=size, at_end=at_end)
    return FeedScan(feed, events, ends, FeedHead(offset, seq, last_hash, hlc), torn, problems)


_NEWLINE_HIDDEN = "a complete event is followed by other bytes where its newline should be"


def _batch_step(scan: FeedScan, event: Event, pending: list[Any] | None, pos: int, before: tuple[Any, ...], *,
                base: int, resumed: bool, collect: bool) -> tuple[list[Any] | None, str | None, str | None]:
    """``scan_bytes``' step for a sound line that carries a batch or follows
    an open one (``before``: the head before the line, as a tuple): the batch
    open after it (None when it closed or there is none), and the line's kind
    and message (None: the line is sound).

    Raises:
        LedgerCorrupt: (unless ``collect``) the open batch ends before its last member.
    """
    feed = scan.feed
    batch = event.extra.get("batch") if event.extra else None
    if pending is not None and not (
        type(batch) is dict and batch.get("id") == pending[3] and batch.get("n") == pending[4] + 1
        and batch.get("of") == pending[5]
    ):
        problem = FeedProblem(feed, base + pending[1], pending[6], "incomplete_batch",
                              f"the batch begun at seq {pending[6]} ends after {pending[4]} of "
                              f"its {pending[5]} events")
        if not collect:
            raise _corrupt(problem)
        scan.problems.append(problem)  # type: ignore[union-attr]  # a list while scan_bytes reads
        pending = None
    kind = message = None
    if pending is not None:
        pending[4] += 1
    elif batch is not None:
        if _opens_batch(batch, event):
            pending = [len(scan.events), pos, before, event.id, 1, batch["of"], event.seq]
        elif not pos and base and resumed and _inside_batch(batch):
            # A reader resuming from a cursor inside a batch (one
            # ``rebuild --until`` pinned there): the batch's first
            # members were read before; the rest is read as one.
            pending = [len(scan.events), pos, before, batch["id"], batch["n"], batch["of"], event.seq]
        else:
            kind, message = "bad_batch", f"event {event.id} carries a batch it does not begin"
    if pending is not None and pending[4] == pending[5]:
        pending = None
    return pending, kind, message


def _bad_line(scan: FeedScan, line: bytes, event: Event | None, kind: str, message: str | None, at: int,
              head: FeedHead, *, terminated: bool, collect: bool) -> None:
    """``scan_bytes``' step for a line that is not a sound next event (at byte
    ``at``, after ``head``): noted in ``scan.problems`` when collecting.

    Raises:
        LedgerCorrupt: (unless ``collect``) always.
    """
    if kind == "bad_json" and terminated and _hides_sound_event(scan.feed, line, head):
        message = _NEWLINE_HIDDEN
    problem = FeedProblem(scan.feed, at, event.seq if event else None, kind, message or kind)
    if not collect:
        raise _corrupt(problem)
    scan.problems.append(problem)  # type: ignore[union-attr]  # a list while scan_bytes reads


def _drop_open_batch(scan: FeedScan, pending: list[Any], *, base: int, size: int,
                     at_end: bool) -> tuple[tuple[int, int, str | None, int], TornTail | None]:
    """``scan_bytes``' last step when a batch is still open: a batch is
    all-or-nothing, so none of its events is read yet (a torn tail when the
    bytes run to the feed's end). Returns the head before it, as a tuple,
    and the torn tail (None when the bytes do not run to the feed's end)."""
    del scan.events[pending[0]:], scan.ends[pending[0]:]
    torn = None
    if at_end:
        begun = base + pending[1]
        torn = TornTail(begun, base + size - begun, f"an incomplete batch ({pending[4]} of {pending[5]} events)")
    before: tuple[int, int, str | None, int] = pending[2]
    return before, torn


def _corrupt(problem: FeedProblem) -> LedgerCorrupt:
    return LedgerCorrupt(
        f"feed {problem.feed!r} is corrupt at byte {problem.offset}: {problem.message}; "
        "run `baton verify`, then `baton repair`",
        details=problem.to_json(),
    )


CHUNK_BYTES = 1 << 20
"""How much of a feed ``scan_chunks`` reads at a time: replaying a ledger of
any size holds this much of it (and its events), not the whole feed."""


def scan_chunks(feed: str, read: Callable[[int, int], bytes], start: FeedHead, size: int,
                chunk_bytes: int = CHUNK_BYTES, *, collect: bool = False) -> Iterator[FeedScan]:
    """Scan the feed's bytes from ``start.offset`` up to ``size``, a chunk of
    whole lines at a time: one ``FeedScan`` per chunk, each continuing the
    last one's head, the final one reporting a torn tail as ``scan_bytes``
    does. ``read(offset, size)`` returns the feed's bytes (fewer at its end).
    The same events, checks and errors as one ``scan_bytes`` of it all
    (``collect``: its problems too, each in the scan of the chunk that held it)."""
    head, pos, carry = start, start.offset, b""
    while pos < size:
        data = read(pos, min(chunk_bytes, size - pos))
        if not data:
            break  # shorter than it was a moment ago: what is there is scanned below
        pos += len(data)
        buf = carry + data if carry else data
        resumed = head.offset == start.offset
        if pos >= size:
            yield scan_bytes(feed, buf, head, collect=collect, resumed=resumed)
            return
        cut = buf.rfind(b"\n") + 1
        if not cut:  # one line longer than a chunk: read on
            carry = buf
            continue
        scan = scan_bytes(feed, buf[:cut] if cut < len(buf) else buf, head, collect=collect, at_end=False,
                          resumed=resumed)
        # A batch still open at the cut was not read: it is carried, whole.
        carry, head = buf[scan.head.offset - head.offset:], scan.head
        yield scan
    if carry:
        yield scan_bytes(feed, carry, head, collect=collect, resumed=head.offset == start.offset)


def holds_event_id(read: Callable[[int, int], bytes], size: int, event_id: str,
                   chunk_bytes: int = CHUNK_BYTES) -> bool:
    """Whether a whole line among the first ``size`` bytes of a feed is an
    event whose ``id`` is ``event_id``, found without reading every event:
    the bytes are searched for the id as JSON spells it (quotes included),
    a chunk at a time, and only a line holding those bytes is parsed (the id
    may also stand in another event's payload). A line after the last
    newline (a torn tail) is not an event. Every JSON encoder writes an id
    of letters, digits and dashes as it is (a writer would have to escape
    such a character for no reason to hide it). Damage elsewhere is not
    looked at: a read of the events reports it."""
    needle = orjson.dumps(event_id)
    pos, carry = 0, b""
    while pos < size:
        data = read(pos, min(chunk_bytes, size - pos))
        if not data:
            break
        pos += len(data)
        buf = carry + data if carry else data
        cut = buf.rfind(b"\n") + 1
        whole, carry = buf[:cut], buf[cut:]
        at = whole.find(needle)
        while at >= 0:
            end = whole.find(b"\n", at)
            if _is_event_with_id(whole[whole.rfind(b"\n", 0, at) + 1:end], event_id):
                return True
            at = whole.find(needle, end)
    return False


def _is_event_with_id(line: bytes, event_id: str) -> bool:
    try:
        raw = orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return type(raw) is dict and raw.get("id") == event_id


def scan_file(path: StrPath, start: FeedHead = FeedHead(), *, collect: bool = False) -> FeedScan:
    with open(path, "rb") as fh:
        fh.seek(start.offset)
        raw = fh.read()
    return scan_bytes(feed_name(path), raw, start, collect=collect)


def line_ending_at(read: Callable[[int, int], bytes], offset: int, length: int = 0,
                   window: int = 1 << 12) -> bytes | None:
    """The complete line that ends exactly at ``offset`` (without its newline).

    ``read(start, size)`` returns the feed's bytes from ``start`` (fewer at
    its end). With the line's ``length`` known, exactly that line is read;
    otherwise (a cursor recorded before lengths were kept) windows of growing
    size are read backwards until the newline before it. Used to check that a
    remembered head still describes the feed: a feed rewritten rather than
    appended to no longer has the same line there.
    """
    if offset <= 0:
        return None
    if 0 < length <= offset:
        return line_in(read(offset - length, length), length)
    while True:
        read_from = max(0, offset - window)
        chunk = read(read_from, offset - read_from)
        if len(chunk) != offset - read_from or not chunk.endswith(b"\n"):
            return None
        body = chunk[:-1]
        start = body.rfind(b"\n") + 1
        if start or read_from == 0:
            return body[start:]
        window *= 4


def wall_us_ending_at(path: StrPath, offset: int) -> int | None:
    """The wall time (``at``, in microseconds) of the event whose line ends at ``offset`` in the feed
    at ``path`` (``line_ending_at``): when its writer's clock said it was written, whatever its
    ``hlc``. None when that line cannot be read or names no time."""
    try:
        with open(path, "rb") as f:
            def read(start: int, size: int) -> bytes:
                f.seek(start)
                return f.read(size)

            line = line_ending_at(read, offset)
    except OSError:
        return None
    if line is None:
        return None
    try:
        raw = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    at = raw.get("at") if isinstance(raw, dict) else None
    try:
        return hlc_of_datetime(parse_rfc3339(at)) if isinstance(at, str) else None
    except ValueError:
        return None
