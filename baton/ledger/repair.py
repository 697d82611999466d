"""``baton repair``: the deliberate, recorded way past a damaged feed.

Nothing here runs implicitly. A plan names, per damaged feed, the lines it
sets aside and the events it keeps (``_sound_lines``): an event is kept when
it is provably the next event of the events kept before it — its hash and
digest hold and its seq, ``prev`` and hlc follow them — wherever it sits in
the feed (a line holding two events run together is split between them), and
a batch is kept whole or not at all. So a line of garbage between two events
is set aside alone, swapped lines are both kept, while garbage that replaced
an event (or an event whose hash fails) sets aside every line after it too:
none of them chains onto what is kept. From a payload erased without a
recorded forget on, every line is set aside. The lines set aside are moved
byte for byte into ``quarantine/`` with a manifest; the feed is cut at the
first byte not kept in place, or rewritten with the kept events in chain
order when events after it are kept.
A feed found shorter than a recorded head, missing, or rewritten has nothing
to cut: the plan records the heads that can no longer be found (``lost``).

The caller then appends a ``ledger.repaired`` event naming the feed, the head
kept and every event set aside or lost, so ``verify`` stops reporting the
heads recorded before the repair. Problems across feeds (a stream forked by
two writers, an event id in two feeds) are not a cut's to fix: they are
reported as left.
"""

from __future__ import annotations

import json
import os
from hashlib import sha256
from pathlib import Path
from typing import Any

import attrs
import orjson

import baton.ledger.files as files
from baton.errors import StorageError
from baton.ledger.envelope import Event, EventDraft
from baton.ledger.feed import FeedHead, FeedProblem, check_line_after, scan_bytes
from baton.ledger.ids import uuid7
from baton.ledger.integrity import REPAIRED_TYPE, ledger_stream
from baton.ledger.quarantined import read_copies
from baton.ledger.verify import VerifyReport
from baton.model import frozen

LINE_PROBLEMS = frozenset({
    "bad_json", "bad_envelope", "bad_hash", "bad_digest", "wrong_writer", "fork", "gap", "broken_chain",
    "hlc_regressed", "incomplete_batch", "bad_batch", "erased_without_forget",
})
"""Problems a cut fixes: they sit on a line of one feed."""
HEAD_PROBLEMS = frozenset({"truncated", "missing_feed", "rewritten"})
"""Problems a repair acknowledges: a recorded head the feed no longer has."""


@frozen
class FeedRepair:
    """What repairing one feed does."""

    feed: str
    cut: int | None
    """Byte from which the feed's lines are set aside (None: nothing to cut)."""
    length: int
    """Bytes set aside."""
    kept: FeedHead
    set_aside: list[dict[str, Any]]
    """Per line set aside: ``offset``, ``bytes``, ``reason`` and ``sha256``, and ``seq``,
    ``id``, ``hash``, ``type`` when the line still parses as an envelope."""
    lost: list[dict[str, Any]]
    """Recorded heads ``{"seq", "hash", "source"}`` the kept feed does not hold."""
    reasons: list[str]
    kept_after: list[list[int]] = attrs.field(factory=list)
    """``[offset, bytes]`` of each line after ``cut`` that the repair keeps (they
    chain on past the lines set aside): empty when the feed is simply cut. An
    event cut out of a line with other bytes glued to it is kept without
    them and given its newline (``kept_piece``)."""
    size: int = 0
    """The feed's size when planned."""
    digest: str | None = attrs.field(default=None, repr=False)
    """sha256 of the feed's bytes when planned: a feed that changed since is not touched."""
    base: bytes = attrs.field(default=b"", repr=False)
    """A restore (``plan_restore``): the copy of the feed on this clone's ledger ref, read before
    the feed's bytes — every offset of the plan counts in ``base + feed``; empty for a plain repair."""
    restored: int = 0
    """A restore: the seq of the last event of ``base``."""
    erased: list[tuple[str, Any]] = attrs.field(factory=list, repr=False)
    """A restore: ``(event id, payload)`` of each event the file held whole and the ref's copy, kept,
    holds erased by a forget (a backup taken before the forget): the repair scrubs them as a forget does."""

    def to_json(self) -> dict[str, Any]:
        return {
            "feed": self.feed, "cut_at": self.cut, "bytes": self.length,
            "kept": {"seq": self.kept.seq, "hash": self.kept.hash, "offset": self.kept.offset},
            "set_aside": self.set_aside, "lost": self.lost, "reasons": self.reasons,
            "kept_after": self.kept_after,
            "restored_from_ref": {"seq": self.restored, "bytes": len(self.base)} if self.restored else None,
            "erased_by_forget": [ident for ident, _data in self.erased],
        }

    def draft(self, writer: str, quarantined: str | None) -> EventDraft:
        """The ``ledger.repaired`` event that records this repair, on ``writer``'s stream."""
        return EventDraft(REPAIRED_TYPE, ledger_stream(writer), {
            "feed": self.feed,
            "kept": {"seq": self.kept.seq, "hash": self.kept.hash, "offset": self.kept.offset},
            "set_aside": [recorded_line(item) for item in self.set_aside],
            "lost": [{"seq": h["seq"], "hash": h["hash"]} for h in self.lost],
            "bytes": self.length,
            "quarantine": quarantined,
            "reasons": self.reasons,
        })


def recorded_line(item: dict[str, Any]) -> dict[str, Any]:
    """A line set aside as its ``ledger.repaired`` event records it: an envelope by its
    ``seq``, ``id`` and ``hash``; a line that is none (torn, not JSON, bytes glued to an
    event) by where it was and what it held: ``offset``, ``bytes``, ``reason`` and the
    ``sha256`` of its bytes, as the quarantine manifest beside its copy has them."""
    named: dict[str, Any] = {k: item[k] for k in ("seq", "id", "hash") if k in item}
    return named or {k: item[k] for k in ("offset", "bytes", "reason", "sha256") if k in item}


def plan_repair(ledger_dir: Path, report: VerifyReport, feed: str | None = None,
                not_feeds: frozenset[str] = frozenset()) -> list[FeedRepair]:
    """One ``FeedRepair`` per feed (or just ``feed``) that a repair changes.
    ``not_feeds``: feeds whose file is a symbolic link or not a regular file,
    never read (the repair removes them): planned as missing."""
    line_problems: dict[str, list[FeedProblem]] = {}
    head_problems: dict[str, list[FeedProblem]] = {}
    for problem in report.all_problems():
        if feed is not None and problem.feed != feed:
            continue
        if problem.kind in LINE_PROBLEMS and problem.offset >= 0:
            line_problems.setdefault(problem.feed, []).append(problem)
        elif problem.kind in HEAD_PROBLEMS:
            head_problems.setdefault(problem.feed, []).append(problem)
    plans = []
    for name in sorted(set(line_problems) | set(head_problems)):
        path = Path(ledger_dir) / f"{name}.jsonl"
        try:
            raw = None if name in not_feeds else files.read_range(str(path), 0)
        except FileNotFoundError:
            raw = None
        except OSError as exc:
            raise StorageError(f"cannot read feed {path}: {exc}") from exc
        problems = sorted(line_problems.get(name, []), key=lambda p: p.offset)
        reasons = [f"{p.kind} at byte {p.offset}: {p.message}" for p in problems[:1]]
        reasons += [p.message for p in head_problems.get(name, [])]
        cut: int | None = None
        kept = FeedHead()
        aside: list[dict[str, Any]] = []
        after: list[list[int]] = []
        kept_bytes = b""
        if raw is not None:
            # ``erased_without_forget`` is the one line problem a chain walk does not
            # see (the line chains): from it on, every line is set aside, as ever.
            stop = min((p.offset for p in problems if p.kind == ERASED), default=len(raw))
            kept_lines, aside = _sound_lines(name, raw, stop)
            kept_bytes = b"".join(kept_piece(raw, o, n) for o, n in kept_lines)
            kept = scan_bytes(name, kept_bytes, FeedHead(), slim=True).head if kept_bytes else FeedHead()
            # the feed stays as it is up to the first piece not kept in place (a line set aside,
            # an event cut out of its line, an event kept in another order): the rest is rewritten
            whole, in_place = 0, 0
            for o, n in kept_lines:
                if o != whole or not raw[o:o + n].endswith(b"\n"):
                    break
                whole, in_place = o + n, in_place + 1
            if whole < len(raw):
                cut = whole
                after = [[o, n] for o, n in kept_lines[in_place:]]
        hashes = _kept_hashes(kept_bytes, name)
        gone = {item.get("hash") for item in aside}
        lost = [{"seq": h.seq, "hash": h.hash, "source": h.source} for h in report.recorded
                if h.feed == name and hashes.get(h.seq) != h.hash and h.hash not in gone]
        lost = [dict(t) for t in {tuple(sorted(h.items())) for h in lost}]
        lost.sort(key=lambda h: (h["seq"], h["source"]))
        if cut is None and not lost:
            continue
        plans.append(FeedRepair(name, cut, sum(item["bytes"] for item in aside), kept, aside, lost, reasons,
                                kept_after=after, size=len(raw) if raw is not None else 0,
                                digest=sha256(raw).hexdigest() if raw is not None else None))
    return plans


ERASED = "erased_without_forget"


def _sound_by_hash(feed: str, raw: bytes, shift: int) -> dict[str | None, tuple[int, int, Event]]:
    """Each sound whole line of ``raw`` by its event's hash: ``(offset + shift, bytes, event)``."""
    found: dict[str | None, tuple[int, int, Event]] = {}
    pos = 0
    while (nl := raw.find(b"\n", pos)) >= 0:
        event, kind, _ = check_line_after(feed, raw[pos:nl], 0, None, 0)
        if event is not None and kind in CHAIN_KINDS:
            found.setdefault(event.hash, (pos + shift, nl + 1 - pos, event))
        pos = nl + 1
    return found


def _piece_hash(raw: bytes, offset: int, length: int) -> str | None:
    try:
        parsed = orjson.loads(raw[offset:offset + length])
    except orjson.JSONDecodeError:
        return None
    value = parsed.get("hash") if isinstance(parsed, dict) else None
    return value if isinstance(value, str) else None


def plan_restore(feed: str, base: bytes, raw: bytes, report: VerifyReport) -> FeedRepair | None:
    """This clone's own feed put back as its ledger ref holds it (``base``: what the remote held
    at the last sync), when the file ``raw`` is damaged where a restore cannot mend it (an event
    replaced by garbage) or forked from it (a repair that recorded ``ledger.repaired`` where the
    remote holds another event): every event of ``base`` is kept, then the file's events that
    provably follow it (``_sound_lines`` over ``base + raw``); the file's lines that do not are
    set aside — not its sound copies of events ``base`` holds (same hash: they may differ only by a
    payload a forget erased in one copy), of which the erased copy is kept.
    None when there is nothing to restore (the file extends ``base``, or differs from it only by
    copies of its events) or ``base`` is not a whole, sound feed."""
    if not base or raw.startswith(base):
        return None
    scan = scan_bytes(feed, base, FeedHead(), collect=True)
    if scan.problems or scan.torn is not None or scan.head.offset != len(base):
        return None
    joined = base + raw
    kept_lines, aside = _sound_lines(feed, joined, len(joined))
    if any(item["offset"] < len(base) for item in aside) or len(kept_lines) < scan.head.seq:
        return None
    # of two sound copies of one event (same hash), the erased one is kept: the file's when a forget
    # erased its payload here since the last sync, the ref's when the file is a backup from before a
    # forget (the ref's copy erased by it) — a repair never brings a forgotten payload back
    own = _sound_by_hash(feed, raw, len(base))
    erased_here = {h: (o, n) for h, (o, n, event) in own.items() if event.erased}
    kept_lines = [erased_here.get(_piece_hash(joined, o, n), (o, n)) for o, n in kept_lines]
    erased = []  # the file's whole copies of events the kept (ref's) lines hold erased
    for o, n in kept_lines:
        if o < len(base):
            event, _kind, _ = check_line_after(feed, joined[o:o + n].rstrip(b"\n"), 0, None, 0)
            whole = own.get(event.hash) if event is not None and event.erased else None
            if whole is not None and not whole[2].erased:
                erased.append((whole[2].id, whole[2].data))
    kept_bytes = b"".join(kept_piece(joined, o, n) for o, n in kept_lines)
    hashes = _kept_hashes(kept_bytes, feed)
    held = set(hashes.values())
    aside = [item for item in aside  # a sound copy of an event the ref holds: kept (above), not set aside
             if not (item.get("hash") in held and str(item.get("reason", "")).startswith("fork: a copy of"))]
    if not aside and kept_bytes == raw:
        return None
    gone = {item.get("hash") for item in aside}
    lost = sorted({(h.seq, h.hash, h.source) for h in report.recorded
                   if h.feed == feed and hashes.get(h.seq) != h.hash and h.hash not in gone},
                  key=lambda h: (h[0], h[2], h[1] or ""))
    kept = scan_bytes(feed, kept_bytes, FeedHead()).head
    return FeedRepair(feed, 0, sum(item["bytes"] for item in aside), kept, aside,
                      [{"seq": seq, "hash": hash_, "source": source} for seq, hash_, source in lost],
                      [f"this clone's ledger ref holds feed {feed} up to seq {scan.head.seq} (the remote's copy at "
                       "the last sync), which the local file does not extend"],
                      kept_after=[[o, n] for o, n in kept_lines], size=len(raw), digest=sha256(raw).hexdigest(),
                      base=base, restored=scan.head.seq, erased=erased)


def _sound_lines(feed: str, raw: bytes, stop: int) -> tuple[list[tuple[int, int]], list[dict[str, Any]]]:
    """Which pieces of ``raw`` a repair keeps — ``(offset, bytes)`` each, in
    chain order — and which it sets aside (``_lines``' items, each with its
    ``reason``), sorted by offset.

    First every line is read for the sound events it holds: the whole line
    when it parses and its hash and digest hold (and it is this feed's), else
    every complete event inside it — a line that lost the newline between two
    events is split where one event's JSON ends and the next begins, and bytes
    glued before or after an event are set aside alone (``_events_in``). Then
    the chain is followed, not the physical order: from the last event kept,
    the next is the sound event whose seq, ``prev`` and hlc follow it, wherever
    it sits in the feed (of two, the first in file order; the other is set
    aside as a fork). So a line of garbage inserted between two events is set
    aside alone, two swapped lines are both kept (written back in chain
    order), and garbage that *replaced* an event breaks the chain for good:
    every event after it names a hash no kept event has (``gap``) — all set
    aside, none provable. A batch is all-or-nothing: kept events that leave a
    batch open or broken are set aside from the batch's start on. Lines from
    ``stop`` on are set aside whatever they hold, as are bytes after the last
    newline (a torn tail)."""
    aside: list[dict[str, Any]] = []
    kind: str | None
    message: str | None
    found: list[tuple[int, int, Event]] = []  # sound events in file order: offset, bytes, event
    pos = 0
    while pos < len(raw):
        nl = raw.find(b"\n", pos)
        end = len(raw) if nl < 0 else nl + 1
        if pos >= stop:
            kind, message = ERASED if pos == stop else "after_cut", None
        elif nl < 0:
            kind, message = "torn", "bytes after the last newline"
        else:
            event, kind, message = check_line_after(feed, raw[pos:nl], 0, None, 0)
            if event is not None and kind in CHAIN_KINDS:
                found.append((pos, end - pos, event._replace(data=None)))  # type: ignore[attr-defined]  # no payload read here
                pos = end
                continue
            pieces = _events_in(feed, raw[pos:nl]) if kind == "bad_json" else []
            if pieces:
                at = 0
                for start, stop_at, piece in pieces:
                    if start > at:
                        aside.append(dict(_bytes_item(raw, pos + at, pos + start),
                                          reason=GLUED_BEFORE if at == 0 else GLUED_BETWEEN))
                    ends_line = pos + stop_at == nl  # then its own newline is kept with it
                    found.append((pos + start, stop_at - start + (1 if ends_line else 0), piece))
                    at = stop_at + (1 if ends_line else 0)
                if pos + at < end:
                    aside.append(dict(_bytes_item(raw, pos + at, end), reason=GLUED_AFTER))
                pos = end
                continue
        aside.append(dict(_line_item(raw, pos, end), reason=_reason(kind, message, pos >= stop)))
        pos = end
    kept = _follow_chain(raw, found, aside)
    # Batches: the kept events, read as one feed, up to their first problem (an open batch
    # at the end is dropped with it); every kept event past that is set aside.
    joined = b"".join(kept_piece(raw, o, n) for o, n in kept)
    scan = scan_bytes(feed, joined, FeedHead(), collect=True, slim=True)
    good = min([p.offset for p in scan.problems] + [scan.head.offset])
    del scan
    good = scan_bytes(feed, joined[:good], FeedHead(), slim=True).head.offset if good < len(joined) else good
    at = 0
    for index, (offset, length) in enumerate(kept):
        if at >= good:
            aside.extend(dict(_line_item(raw, offset, offset + length),
                              reason="its batch is not whole among the lines kept (a batch is all-or-nothing)")
                         for offset, length in kept[index:])
            kept = kept[:index]
            break
        at += len(kept_piece(raw, offset, length))
    aside.sort(key=lambda item: item["offset"])
    return kept, aside


def _follow_chain(raw: bytes, found: list[tuple[int, int, Event]], aside: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """The chain through the sound events ``found`` (file order): from the last
    event kept, the first (in file order) whose seq, ``prev`` and hlc follow it.
    Returns the kept pieces in chain order; every other event goes to ``aside``."""
    following: dict[tuple[int, str | None], list[int]] = {}
    for index, (_, _, event) in enumerate(found):
        following.setdefault((event.seq, event.prev), []).append(index)
    chain: list[int] = []
    seq, hlc = 0, 0
    prev: str | None = None
    while True:
        nxt = next((i for i in following.get((seq + 1, prev), []) if found[i][2].hlc > hlc), None)
        if nxt is None:
            break
        chain.append(nxt)
        seq, prev, hlc = found[nxt][2].seq, found[nxt][2].hash, found[nxt][2].hlc
    kept = [(found[i][0], found[i][1]) for i in chain]
    kept_hashes = {found[i][2].hash: found[i][2].seq for i in chain}
    by_seq = {found[i][2].seq: found[i][2] for i in chain}
    chained = set(chain)
    for index, (offset, length, event) in enumerate(found):
        if index not in chained:
            aside.append(dict(_line_item(raw, offset, offset + length),
                              reason=_unchained(event, kept_hashes, by_seq)))
    return kept


CHAIN_KINDS = frozenset({None, "gap", "fork", "broken_chain", "hlc_regressed"})
"""What ``check_line_after`` says of a sound event (it parses, its hash and digest
hold, it is this feed's) measured against a chain it may not follow."""


def _unchained(event: Event, kept: dict[str, int], by_seq: dict[int, Event]) -> str:
    """Why the sound ``event`` is set aside: the chain kept does not reach it."""
    if event.hash in kept:
        return f"fork: a copy of seq {event.seq}, which is kept from another place in the feed"
    before = by_seq.get(event.seq - 1)
    if before is not None and event.prev == before.hash and event.seq in by_seq:
        return f"fork: another event at seq {event.seq} follows the same event; the first in the feed is kept"
    head = max(by_seq, default=0)
    if event.seq == head + 1:
        why = f"broken_chain: seq {event.seq} does not link to the hash of seq {head}"
    else:
        why = f"gap: expected seq {head + 1}, found {event.seq}"
    return f"{why} — it does not follow the lines kept, so it cannot be proven to belong after them"


GLUED_BEFORE = "bytes glued before a sound event on its line (no writer writes that)"
GLUED_AFTER = "bytes glued after a sound event where its newline should be (no writer writes that)"
GLUED_BETWEEN = "bytes between two sound events on one line (no writer writes that)"


def kept_piece(raw: bytes, offset: int, length: int) -> bytes:
    """The bytes a repair keeps of one kept line: the line itself, or a sound
    event cut out of a line with other bytes glued to it, given its newline."""
    piece = raw[offset:offset + length]
    return piece if piece.endswith(b"\n") else piece + b"\n"


def _events_in(feed: str, line: bytes) -> list[tuple[int, int, Event]]:
    """The sound events inside ``line`` (two events run together by a lost
    newline, bytes glued before or after one): the start and end in ``line``
    of each, and the event. Each ``{"`` is tried as a start (at most 64 that
    hold no sound event); a complete JSON value from there that parses as an
    event whose hash and digest hold, of this feed, is one, and the search
    goes on after its end."""
    text = line.decode("utf-8", "surrogateescape")
    decoder = json.JSONDecoder()
    found: list[tuple[int, int, Event]] = []
    misses = 0
    at = text.find('{"')
    while at >= 0 and misses < 64:
        try:
            _, stop = decoder.raw_decode(text, at)
        except ValueError:
            stop = -1
        if stop > 0:
            start = len(text[:at].encode("utf-8", "surrogateescape"))
            end = start + len(text[at:stop].encode("utf-8", "surrogateescape"))
            event, kind, _ = check_line_after(feed, line[start:end], 0, None, 0)
            if event is not None and kind in CHAIN_KINDS:
                found.append((start, end, event))
                at = text.find('{"', stop)
                continue
        misses += 1
        at = text.find('{"', at + 1)
    return found


def _reason(kind: str | None, message: str | None, after_stop: bool) -> str:
    if kind == ERASED:
        return "erased_without_forget: its payload was erased, and no recorded forget names it"
    if after_stop:
        return "it follows a line erased without a recorded forget"
    if kind in ("gap", "broken_chain", "fork") and message:
        return f"{kind}: {message} — it does not follow the lines kept, so it cannot be proven to belong after them"
    return f"{kind}: {message or kind}"


def _kept_hashes(raw: bytes, feed: str) -> dict[int, str]:
    return {e.seq: e.hash for e in scan_bytes(feed, raw, FeedHead(), slim=True).events}


def _bytes_item(raw: bytes, pos: int, end: int) -> dict[str, Any]:
    """``raw[pos:end]`` as a plan names bytes it sets aside: ``offset``, ``bytes`` and their ``sha256``."""
    return {"offset": pos, "bytes": end - pos, "sha256": sha256(raw[pos:end]).hexdigest()}


def _line_item(raw: bytes, pos: int, end: int) -> dict[str, Any]:
    """The line ``raw[pos:end]`` as a plan names it: ``offset``, ``bytes`` and ``sha256``
    (``_bytes_item``), and ``seq``, ``id``, ``hash``, ``type`` when it still parses as an envelope."""
    item = _bytes_item(raw, pos, end)
    try:
        parsed = orjson.loads(raw[pos:end])
    except orjson.JSONDecodeError:
        parsed = None
    if isinstance(parsed, dict):
        for key in ("seq", "id", "hash", "type"):
            if isinstance(parsed.get(key), (int, str)) and not isinstance(parsed.get(key), bool):
                item[key] = parsed[key]
    return item


def set_aside(baton_dir: Path, repair: FeedRepair, *, fsync: bool = True, reuse: str | None = None) -> str | None:
    """Move ``repair``'s lines into ``quarantine/`` (with a manifest) and take
    them out of the feed, under the project's write lock: the feed is cut at
    ``repair.cut`` or, when lines after the cut are kept, rewritten whole
    (a new file renamed over it) with only the kept lines. Returns the
    quarantine file's name (None when there was nothing to set aside).

    The manifest is written first: it records the plan, the feed's bytes before
    (``feed_sha256``) and the feed the repair leaves (``result_sha256``), so a
    ``baton repair`` run again after this process is killed at any point finds
    it (``unfinished_repairs``) and finishes this one repair rather than
    starting another. ``reuse``: the name (``<feed>.<cut>.<uuid>``) of such an
    unfinished repair whose feed was not changed yet: its manifest is kept, its
    copy completed if the kill cut it short, and no second copy is made.

    Raises:
        StorageError: the feed changed since the plan, or a file operation failed
            (the feed is changed only after its bytes are safely in quarantine).
    """
    if repair.cut is None:
        return None
    quarantine = Path(baton_dir) / "quarantine"
    with files.locked_whole_feed(baton_dir, repair.feed) as (path, raw):
        planned = repair.size or repair.cut + repair.length
        if len(raw) != planned or (repair.digest is not None and sha256(raw).hexdigest() != repair.digest):
            raise StorageError(f"feed {repair.feed} changed since the repair was planned; run `baton repair` again")
        feed_size, feed_digest = len(raw), sha256(raw).hexdigest()
        raw = repair.base + raw  # a restore: the ledger ref's copy first (``FeedRepair.base``)
        tail = b"".join(raw[item["offset"]:item["offset"] + item["bytes"]] for item in repair.set_aside)
        kept = raw[:repair.cut] + b"".join(kept_piece(raw, o, n) for o, n in repair.kept_after) \
            if repair.kept_after else None
        result = raw[:repair.cut] if kept is None else kept
        name = reuse or f"{repair.feed}.{repair.cut}.{uuid7()}"
        manifest = dict(repair.to_json(), sha256=sha256(tail).hexdigest(), file=f"{name}.repair",
                        feed_bytes=feed_size, feed_sha256=feed_digest,
                        result_bytes=len(result), result_sha256=sha256(result).hexdigest())
        written: list[Path] = []  # removed again unless the feed is cut: no empty or partial copy is kept
        try:
            if repair.set_aside:  # else nothing leaves the feed: its events are only put back in chain order
                quarantine.mkdir(parents=True, exist_ok=True)
                if reuse is None:  # the plan first: a re-run after a kill from here on finds it
                    _write_new(quarantine / f"{name}{MANIFEST_SUFFIX}",
                               orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n",
                               fsync, written)
                    _write_new(quarantine / f"{name}.repair", tail, fsync, written)
                elif _read_or_none(quarantine / f"{name}.repair") != tail:  # killed while it was written
                    _write_over(quarantine / f"{name}.repair", tail, fsync)
                if fsync:
                    files.fsync_dir(quarantine)
            if kept is None:
                files.cut(path, repair.cut, fsync=fsync)
            else:
                _rewrite(path, kept, fsync)
            written.clear()  # the feed is cut: the copies are the only ones, kept
        except files.CutNotDurable as exc:  # cut all the same: the copies are the only ones, kept
            raise StorageError(f"the damaged lines of {path} were set aside in {quarantine / name}.repair "
                               f"and the feed cut, not yet durable: {exc}; run `baton repair` again") from exc
        except (OSError, StorageError) as exc:
            for copy in reversed(written):  # the feed still holds them (the copy goes before its manifest)
                files.remove_if_there(copy)
            raise StorageError(f"could not set aside the damaged lines of {path}: {exc}") from exc
        return f"{name}.repair" if repair.set_aside else None


MANIFEST_SUFFIX = ".manifest.json"


@frozen
class Unfinished:
    """A repair a process killed mid-way left unrecorded: its manifest is in
    ``quarantine/`` and no ``ledger.repaired`` names its file."""

    repair: FeedRepair
    """The plan, as its manifest records it."""
    name: str
    """``<feed>.<cut>.<uuid>``: the manifest is ``<name>.manifest.json``, the copy ``<name>.repair``."""
    landed: bool
    """The feed was cut or rewritten (it starts with the bytes the repair leaves): only the
    record is missing. Else the feed is as it was planned, and the repair is done again with
    this ``name`` (``set_aside``'s ``reuse``)."""

    @property
    def file(self) -> str:
        return f"{self.name}.repair"


def unfinished_repairs(baton_dir: Path, recorded: set[str]) -> list[Unfinished]:
    """The repairs whose manifest is in ``quarantine/`` but whose file no ``ledger.repaired``
    names, in the ledger (``recorded``: ``VerifyReport.quarantined``) or set aside in
    ``quarantine/`` since (``recorded_aside``: a later repair that cut or restored the feed
    holding the record superseded it, so the repair was recorded and is never done again),
    and whose feed is either as the manifest planned it or as the repair leaves it. A manifest
    cut short by a kill (it does not parse) with no copy beside it is a plan that
    never began: it is removed. Manifests written before repairs recorded their
    result (no ``result_sha256``) are left alone.

    Raises:
        StorageError: a feed could not be read.
    """
    quarantine = Path(baton_dir) / "quarantine"
    try:
        names = sorted(entry.name for entry in os.scandir(quarantine)
                       if entry.name.endswith(MANIFEST_SUFFIX) and entry.is_file(follow_symlinks=False))
    except OSError:
        return []
    found = []
    aside: set[str] | None = None  # read only when a manifest is not named in the ledger
    for manifest_name in names:
        name = manifest_name[:-len(MANIFEST_SUFFIX)]
        if f"{name}.repair" in recorded:
            continue
        if aside is None:
            aside = recorded_aside(quarantine)
        if f"{name}.repair" in aside:
            continue
        try:
            manifest = orjson.loads((quarantine / manifest_name).read_bytes())
        except orjson.JSONDecodeError:
            if not os.path.lexists(quarantine / f"{name}.repair"):
                files.remove_if_there(quarantine / manifest_name)
            continue
        except OSError:
            continue
        repair = _from_manifest(manifest)
        if repair is None or manifest.get("file") != f"{name}.repair":
            continue
        feed = Path(baton_dir) / "ledger" / f"{repair.feed}.jsonl"
        try:
            raw = files.read_range(str(feed), 0)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise StorageError(f"cannot read feed {feed}: {exc}") from exc
        if len(raw) == repair.size and sha256(raw).hexdigest() == repair.digest:
            found.append(Unfinished(repair, name, landed=False))
        elif len(raw) >= manifest["result_bytes"] \
                and sha256(raw[:manifest["result_bytes"]]).hexdigest() == manifest["result_sha256"]:
            found.append(Unfinished(repair, name, landed=True))
    return found


def recorded_aside(quarantine: Path) -> set[str]:
    """The quarantine files that ``ledger.repaired`` events set aside in ``quarantine``'s
    copies name: repairs that were recorded, whose record a later repair (a cut with
    ``--despite-synced``, a restore from the ledger ref) took out of the feed.

    Raises:
        StorageError: a copy could not be read.
    """
    names = set()
    for copy in read_copies(quarantine):
        for event in copy.events():
            if event.type == REPAIRED_TYPE and isinstance(event.data, dict) \
                    and isinstance(event.data.get("quarantine"), str):
                names.add(event.data["quarantine"])
    return names


def _from_manifest(manifest: Any) -> FeedRepair | None:
    """The plan a manifest records, or None when it is not one (an older manifest, another file)."""
    try:
        kept = manifest["kept"]
        if not isinstance(manifest["result_sha256"], str) or not isinstance(manifest["result_bytes"], int):
            return None
        return FeedRepair(manifest["feed"], int(manifest["cut_at"]), int(manifest["bytes"]),
                          FeedHead(offset=int(kept["offset"]), seq=int(kept["seq"]), hash=kept["hash"]),
                          list(manifest["set_aside"]), list(manifest["lost"]), list(manifest["reasons"]),
                          kept_after=[[int(o), int(n)] for o, n in manifest["kept_after"]],
                          size=int(manifest["feed_bytes"]), digest=str(manifest["feed_sha256"]))
    except (KeyError, TypeError, ValueError):
        return None


def same_plan(a: FeedRepair, b: FeedRepair) -> bool:
    """True when ``a`` and ``b`` set aside and keep the same bytes of the same feed."""
    return (a.feed, a.cut, a.size, a.digest, a.kept_after) == (b.feed, b.cut, b.size, b.digest, b.kept_after) \
        and [(i["offset"], i["bytes"]) for i in a.set_aside] == [(i["offset"], i["bytes"]) for i in b.set_aside]


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _write_over(path: Path, data: bytes, fsync: bool) -> None:
    """``data`` as the whole of ``path`` (a copy a kill cut short: the feed still holds its bytes)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        files.write_all(fd, data)
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)


def _rewrite(path: Path, kept: bytes, fsync: bool) -> None:
    """The feed at ``path`` replaced by ``kept``: a new file (``.repair.*`` beside
    it, the feed's mode kept) renamed over it, never a write into the live file.

    Raises:
        OSError: the new file could not be written or renamed (the feed is as it was,
            the new file removed).
    """
    tmp = path.with_name(f"{REWRITE_PREFIX}{os.getpid()}.{os.urandom(4).hex()}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, os.stat(path).st_mode & 0o777)
        try:
            files.write_all(fd, kept)
            if fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        files.remove_if_there(tmp)
        raise
    if fsync:
        files.fsync_dir(path.parent)


REWRITE_PREFIX = ".repair."
"""The name a repair's new feed has until it is renamed over the feed."""


def _write_new(path: Path, data: bytes, fsync: bool, written: list[Path]) -> None:
    """``data`` in a new file ``path``, named in ``written`` once it exists (even empty)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    written.append(path)
    try:
        files.write_all(fd, data)
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)
