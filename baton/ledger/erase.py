"""Erasing payloads in place: the one deliberate rewrite of a feed (``baton forget``).

An event's chain hash covers its ``digest``, never its ``data`` (DESIGN.md),
so a line whose ``data`` member is removed still verifies: its hash, its
``prev`` link and every later line are unchanged. Erasing rewrites each feed
that holds such a line as a whole new file, renamed over the old one (never
a write into the middle of a live file), so a reader sees either the old feed
or the new one. The caller holds the ledger lock and has already recorded the
``handoff.forgotten`` event that names the erased ids: a crash between the
two leaves payloads that were to be erased, never an erasure nobody recorded.

Lines are re-encoded canonically (``encode_line``) only when they change; every
other byte of the feed, a torn tail included, is copied as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Container, Iterable

import orjson

import baton.ledger.files as files
from baton.errors import EnvelopeError, StorageError
from baton.ledger.envelope import Event
from baton.ledger.feed import encode_line, is_feed_file_name, line_hashes_to
from baton.model import frozen
from baton.values import replace

_ERASURE_NEEDLE = b'"handoff.forgotten"'
"""An erasure record's type as its line spells it: the ledger imports nothing
above it, so it spells ``baton.events.names.HANDOFF_FORGOTTEN`` here, once
(a test holds the two equal)."""
ERASURE_RECORD = _ERASURE_NEEDLE[1:-1].decode()
"""The type of the event that records an erasure: its payload's ``events``
names the ids whose payload was removed (``verify_ledger`` is told it: ``erasure_type``)."""


def erase_payloads(ledger_dir: Path, event_ids: Iterable[str]) -> dict[str, int]:
    """Remove the ``data`` member of every line whose event id is in
    ``event_ids``, in every feed of ``ledger_dir``. Returns, per feed
    rewritten, how many lines it erased (lines already erased are left alone).

    Raises:
        StorageError: a feed could not be read, written or renamed.
    """
    wanted = frozenset(event_ids)
    erased: dict[str, int] = {}
    if not wanted:
        return erased
    try:
        paths = sorted(p for p in Path(ledger_dir).glob("*.jsonl") if is_feed_file_name(p.name) and p.is_file()
                       and not p.is_symlink())
    except OSError as exc:
        raise StorageError(f"cannot list {ledger_dir}: {exc}") from exc
    for path in paths:
        count = _erase_in(path, wanted)
        if count:
            erased[path.stem] = count
    if erased:
        files.fsync_dir(Path(ledger_dir))
    return erased


def erase_lines(raw: bytes, wanted: frozenset[str]) -> tuple[bytes, int]:
    """``raw`` (a feed's bytes) with the payloads of ``wanted`` removed, and how many."""
    out: list[bytes] = []
    count = 0
    lines = raw.split(b"\n")
    tail = lines.pop()  # after the last newline: empty, or a torn tail kept as it is
    for line in lines:
        if line and any(w.encode() in line for w in wanted):
            try:
                event = Event.from_dict(orjson.loads(line))
            except (orjson.JSONDecodeError, ValueError):
                out.append(line + b"\n")
                continue
            if event.id in wanted and event.data is not None:
                out.append(encode_line(_without_data(event)))
                count += 1
                continue
        out.append(line + b"\n")
    out.append(tail)
    return b"".join(out), count


def _without_data(event: Event) -> Event:
    return replace(event, data=None)


def _erase_in(path: Path, wanted: frozenset[str]) -> int:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise StorageError(f"cannot read feed {path}: {exc}") from exc
    new, count = erase_lines(raw, wanted)
    if not count:
        return 0
    replace_feed(path, new)
    return count


def replace_feed(path: Path, data: bytes) -> None:
    """Write ``data`` as the feed at ``path``: a new file renamed over the old
    one (fsynced, the old file's mode kept), never a write into a live file.

    Raises:
        StorageError: the new file could not be written or renamed.
    """
    files.replace_whole(path, data, tmp_prefix=".erase", failure=f"cannot rewrite feed {path} to erase payloads")


# -- two copies of one feed that differ by erasures (``baton sync``) ------------------

class NotAnErasure(ValueError):
    """Two copies of a feed differ by more than payloads a ``handoff.forgotten`` names."""

    def __init__(self, seq: int | None, side: str, message: str, *, unnamed: bool = False) -> None:
        super().__init__(message)
        self.seq = seq
        self.side = side
        """``ours`` or ``theirs``: the copy that holds the change that is not allowed (``both``: no telling)."""
        self.message = message
        self.unnamed = unnamed
        """True: an erased payload no ``handoff.forgotten`` names; False: not an erasure at all."""


@frozen
class ErasureMerge:
    """The feed both copies become: every line erased where either copy erased it,
    then the longer copy's further lines."""

    data: bytes
    erased_in_ours: tuple[str, ...]
    """Ids whose payload ``ours`` still held and the merge has erased."""
    erased_in_theirs: tuple[str, ...]
    erased_payloads: tuple[Any, ...]
    """The payloads ``ours`` held that went (what a quarantine scrub looks for)."""
    common_lines: int
    ours_lines: int
    theirs_lines: int


def named_erasures(event: Event) -> list[str]:
    """The event ids an erasure record (``ERASURE_RECORD``) names: the strings
    in its payload's ``events`` (empty for any other event)."""
    if event.type != ERASURE_RECORD or not isinstance(event.data, dict):
        return []
    listed = event.data.get("events")
    return [i for i in listed if isinstance(i, str)] if isinstance(listed, list) else []


def forgotten_ids(line: bytes) -> list[str]:
    """The ids a sound ``handoff.forgotten`` line names (empty for any other line)."""
    if _ERASURE_NEEDLE not in line:
        return []
    try:
        event = Event.from_dict(orjson.loads(line))
    except (orjson.JSONDecodeError, EnvelopeError, ValueError, TypeError):
        return []
    if event.erased or not event.data_intact() or not line_hashes_to(line, event.hash):
        return []
    return named_erasures(event)


def unerased_named(feeds: Iterable[Path], handoff_id: str) -> int:
    """How many of the events a recorded forget of ``handoff_id`` names the
    feeds still hold whole (a ``baton forget`` interrupted between its
    ``handoff.forgotten`` append and its rewrite: 0 once it finished, or when
    none was recorded). Only lines holding the id's bytes are parsed: the
    erasure record's stream names it, and so does every payload it names
    while it is whole (its own stream's events, a carrying baton's
    ``handoff_id``); an erased line no longer does, and is not counted."""
    return unerased_by_handoff(feeds, [handoff_id]).get(handoff_id, 0)


def unerased_by_handoff(feeds: Iterable[Path], handoff_ids: Iterable[str]) -> dict[str, int]:
    """``unerased_named`` for several handoffs in one pass over the feeds: each of
    ``handoff_ids`` whose recorded forget left payloads whole → how many (the
    others are left out)."""
    wanted = {ident.encode(): ident for ident in handoff_ids}
    named: dict[str, set[str]] = {ident: set() for ident in wanted.values()}
    whole: dict[str, set[str]] = {ident: set() for ident in wanted.values()}
    for path in feeds if wanted else ():
        try:
            with open(path, "rb") as fh:
                for line in fh:
                    hits = [ident for needle, ident in wanted.items() if needle in line]
                    if not hits or not line.endswith(b"\n"):
                        continue
                    event = _event(line.rstrip(b"\n"))
                    if event is None or event.erased:
                        continue
                    for ident in hits:
                        if event.type == ERASURE_RECORD and event.stream.endswith("/" + ident):
                            named[ident].update(named_erasures(event))
                        else:
                            whole[ident].add(event.id)
        except OSError:
            continue  # a feed that cannot be read: verify reports it
    left = {ident: len(named[ident] & whole[ident]) for ident in named}
    return {ident: n for ident, n in left.items() if n}


def recorded_forgets(feeds: Iterable[Path]) -> set[str]:
    """The handoffs a sound ``handoff.forgotten`` line of ``feeds`` records a forget of (finished
    or not): each feed's bytes are searched for the record's type, and only the lines holding it
    are parsed. A line torn before its end is no record (its append never finished)."""
    found: set[str] = set()
    for path in feeds:
        try:
            raw = Path(path).read_bytes()
        except OSError:
            continue  # a feed that cannot be read: verify reports it
        at = raw.find(_ERASURE_NEEDLE)
        while at >= 0:
            start, end = raw.rfind(b"\n", 0, at) + 1, raw.find(b"\n", at)
            if end < 0:
                break
            line = raw[start:end]
            if forgotten_ids(line):
                event = _event(line)
                if event is not None:
                    found.add(event.stream.partition("/")[2])
            at = raw.find(_ERASURE_NEEDLE, end)
    return found


def unfinished_forgets(feeds: Iterable[Path]) -> dict[str, int]:
    """Every handoff whose recorded forget left payloads it names whole in ``feeds`` → how many:
    what the ledger alone shows of a ``baton forget`` interrupted before its rewrite, whichever
    version ran it (an older one kept no ``forget.pending``)."""
    paths = list(feeds)
    named = recorded_forgets(paths)
    return unerased_by_handoff(paths, sorted(named)) if named else {}


def _whole_lines(raw: bytes, side: str) -> list[bytes]:
    if raw and not raw.endswith(b"\n"):
        raise NotAnErasure(None, side, "the copy does not end with a whole line")
    return raw.split(b"\n")[:-1] if raw else []


def _event(line: bytes) -> Event | None:
    try:
        raw = orjson.loads(line)
        return Event.from_dict(raw) if type(raw) is dict else None
    except (orjson.JSONDecodeError, EnvelopeError, ValueError, TypeError):
        return None


def merge_erasures(ours: bytes, theirs: bytes, forgotten: Container[str]) -> ErasureMerge:
    """Two copies of one feed (whole lines each) whose common lines are equal
    except where one copy has a line's ``data`` removed — same event, same
    ``digest``, same ``hash``, both lines hashing to it — and a recorded
    ``handoff.forgotten`` (``forgotten``) names that event. Lines after the
    shorter copy ends are the longer copy's, as they are (the caller verifies them).

    Raises:
        NotAnErasure: any other difference (with the seq and the copy that holds it).
    """
    a_lines, b_lines = _whole_lines(ours, "ours"), _whole_lines(theirs, "theirs")
    common = min(len(a_lines), len(b_lines))
    out: list[bytes] = []
    erased_a: list[str] = []
    erased_b: list[str] = []
    payloads: list[Any] = []
    for i in range(common):
        a, b = a_lines[i], b_lines[i]
        if a == b:
            out.append(a)
            continue
        ea, eb = _event(a), _event(b)
        seq = ea.seq if ea is not None else (eb.seq if eb is not None else None)
        if ea is None or eb is None or ea.id != eb.id or ea.hash != eb.hash or ea.erased == eb.erased \
                or not line_hashes_to(a, ea.hash) or not line_hashes_to(b, eb.hash):
            raise NotAnErasure(seq, "both", f"line {i + 1} (seq {seq}) differs between the copies by more "
                                            "than an erased payload")
        erased, side = (ea, "ours") if ea.erased else (eb, "theirs")
        if erased.id not in forgotten:
            raise NotAnErasure(seq, side, f"the payload of event {erased.id} (seq {seq}) is erased, but no "
                                          "handoff.forgotten event names it", unnamed=True)
        if side == "ours":
            out.append(a)
            erased_b.append(eb.id)
        else:
            out.append(b)
            erased_a.append(ea.id)
            payloads.append(ea.data)
    tail = a_lines[common:] if len(a_lines) > common else b_lines[common:]
    data = b"".join(line + b"\n" for line in out + tail)
    return ErasureMerge(data, tuple(erased_a), tuple(erased_b), tuple(payloads), common, len(a_lines), len(b_lines))


def prefix_but_erased(ours: bytes, theirs: bytes, forgotten: Container[str]) -> bool:
    """``ours`` is the first lines of ``theirs`` but for payloads ``theirs`` has erased by a recorded
    ``handoff.forgotten`` (``forgotten``): a backup taken before a forget, restored, and nothing
    written to it since."""
    try:
        merge = merge_erasures(ours, theirs, forgotten)
    except NotAnErasure:
        return False
    return merge.ours_lines <= merge.theirs_lines and not merge.erased_in_theirs
