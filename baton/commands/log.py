"""``baton log``: the project's events in ledger order."""

from __future__ import annotations

import fnmatch
import sys
from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

import orjson

from baton.domain.close_names import closest
from baton.domain.withheld_view import WITHHELD, withheld_from_log
from baton.errors import InputError, NotFound
from baton.events.names import HANDOFF_FORGOTTEN
from baton.ledger.envelope import Event
from baton.ledger.tail import TailWant
from baton.model import frozen
from baton.projections.handoffs import HANDOFF_PREFIX, without_record
from baton.projections.until import Until

if TYPE_CHECKING:
    from baton.commands.context import Project


@frozen
class LogResult:
    events: list[Event]
    exit_code: int = 0

    def to_json(self) -> list[dict]:
        return [e.to_dict() for e in self.events]

    def json_lines(self) -> str:
        """``--json`` prints one event per line, so the output streams into jq -c."""
        return "\n".join(json_line(e) for e in self.events)

    def render(self) -> str:
        return "\n".join(text_lines(self.events))


DEFAULT_LIMIT = 50
"""How many events ``baton log`` shows unless told otherwise (the newest; ``limit`` 0: every one)."""


class LogTail:
    """What a limit left out of ``log_events``' events, known once they are read: whether any
    event matched before the ones shown (``truncated``) and how many (``more``: None when the
    index cannot count them without reading the ledger — a ``stream``, ``since`` or ``until``)."""

    def __init__(self) -> None:
        self.limit = 0
        self.truncated = False
        self.more: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"truncated": self.truncated, "limit": self.limit, "more": self.more}



class LogStream:
    """``baton log``'s events as they are read (``log_events``): its lines
    are printed one event at a time, so what a pass holds is a chunk of each
    feed, whatever the ledger's size. A damaged feed found midway raises
    there, after the lines before it were handed out (docs/cli.md).
    ``note()``: what to say instead of ``(no events)`` (None: nothing more).
    ``tail``: what the limit left out (with ``--json``, one last line
    ``{"truncated": true, "limit", "more"}``; in text the command line's ``after_note``)."""

    exit_code = 0

    def __init__(self, events: Iterable[Event], note: Callable[[], str | None] | None = None,
                 tail: LogTail | None = None) -> None:
        self.events = events
        self.note = note
        self.tail = tail

    after_note: Callable[[], str | None] | None = None
    """What the command line says on stderr once the text lines were printed (its words for ``tail``)."""

    def text_lines(self) -> Iterator[str]:
        """``render``'s lines, one at a time."""
        shown = False
        for line in text_lines(self.events):
            if line == NO_EVENTS and not shown and self.note is not None:
                line = self.note() or line
            shown = True
            yield line

    def json_line_iter(self) -> Iterator[str]:
        """``json_lines``' lines, one at a time; then, when the limit left events out, one line
        saying so (no event has ``truncated``: ``jq 'select(.id)'`` keeps the events alone)."""
        for e in self.events:
            yield json_line(e)
        if self.tail is not None and self.tail.truncated:
            yield orjson.dumps(self.tail.to_json(), option=orjson.OPT_SORT_KEYS).decode()


def json_line(event: Event) -> str:
    return orjson.dumps(event.to_dict(), option=orjson.OPT_SORT_KEYS).decode()


NO_EVENTS = "(no events)"


def text_lines(events: Iterable[Event]) -> Iterator[str]:
    """One line per event; ``(no events)`` for none."""
    shown = False
    for e in events:
        shown = True
        erased = f" [payload withheld: {e.extra[WITHHELD]}]" if WITHHELD in e.extra else \
            " [payload erased]" if e.erased else ""
        yield f"{e.at}  {e.type:<24} {e.stream:<48} {e.writer}#{e.seq}  {e.id}{erased}"
    if not shown:
        yield NO_EVENTS


def ledger_types(project: "Project") -> list[str] | None:
    """The event types the ledger holds, from the index (its ``event_counts``);
    None when it cannot say (a project without an index to read)."""
    reading = getattr(project, "reading", None)
    if reading is None:
        return None
    runner = reading()
    if "event_counts" not in runner.by_name:
        return None
    return sorted(key for key, _doc in runner.docs("event_counts"))


def no_type_note(project: "Project", event_type: str | None) -> str | None:
    """``(no events)`` said with why, when no event type of the ledger matches ``event_type`` (a typo:
    ``session.began`` for ``session.begun``); None when one does."""
    if event_type is None:
        return None
    kinds = ledger_types(project)
    if kinds is None or any(_matches(event_type, kind) for kind in kinds):
        return None
    return f"(no events: no event of this ledger has a type matching {event_type!r}; its types: {', '.join(kinds)})"


def _glob(pattern: str) -> bool:
    return any(ch in pattern for ch in "*?[")


def ledger_streams(project: "Project") -> list[str] | None:
    """The streams the ledger holds, from the index (its ``streams``); None
    when it cannot say (a project without an index to read)."""
    reading = getattr(project, "reading", None)
    if reading is None:
        return None
    runner = reading()
    if "streams" not in runner.by_name:
        return None
    return sorted(key for key, _doc in runner.docs("streams"))


def unknown_stream(project: "Project", stream: str | None) -> NotFound | None:
    """A ``stream`` named exactly (not a glob) that no event of the ledger is
    on (a typo: ``handof/…``): the refusal, naming the closest streams there
    are (``details["closest"]``); None when there is one, or when the index
    cannot say."""
    if stream is None or _glob(stream):
        return None
    reading = getattr(project, "reading", None)
    runner = reading() if reading is not None else None
    if (runner is None or "streams" not in runner.by_name or runner.pinned_until is not None
            or runner.get("streams", stream) is not None):
        return None  # an index pinned in the past (``rebuild --until``) lacks the streams begun since
    close = closest(stream, (key for key, _doc in runner.docs("streams")))
    guess = f"; the closest: {', '.join(close)}" if close else ""
    return NotFound(f"no stream named {stream!r} in this ledger{guess} (`stream` takes a stream as `baton log` "
                    "shows it, or a glob: `handoff/*`)", details={"stream": stream, "closest": close})


def no_stream_note(project: "Project", stream: str | None) -> str | None:
    """``(no events)`` said with why, when ``stream`` is a glob no stream of the ledger matches."""
    if stream is None or not _glob(stream):
        return None
    streams = ledger_streams(project)  # pinned in the past: a note at worst, never a refusal
    if streams is None or any(_matches(stream, name) for name in streams):
        return None
    return f"(no events: no stream of this ledger matches {stream!r})"


def _empty_window(after: Until | None, upto: Until | None) -> bool:
    """Whether ``since`` and ``until`` are both times and no time lies after the one and at or before the other."""
    return (after is not None and upto is not None and after.event_id is None and upto.event_id is None
            and _hlc(after) >= _hlc(upto))


def no_events_note(project: "Project", *, event_type: str | None = None, since: str | None = None,
                   until: str | None = None, **_filters: Any) -> str | None:
    """``(no events)`` said with why: no event type of the ledger matches
    ``event_type`` (``no_type_note``), or ``since`` is at or after ``until``;
    None when neither (the filters chose nothing)."""
    note = no_type_note(project, event_type) or no_stream_note(project, _filters.get("stream"))
    if note is None and since is not None and until is not None and _empty_window(
            Until.parse(since, option="since"), Until.parse(until, option="until")):
        note = f"(no events: `since` ({since}) is not before `until` ({until}), so no time is between them)"
    return note


def _matches(pattern: str | None, value: str) -> bool:
    if pattern is None:
        return True
    if _glob(pattern):
        return fnmatch.fnmatchcase(value, pattern)
    return value == pattern


def ledger_log(project: "Project", **filters: Any) -> LogResult:
    """``log_events``, every chosen event in a list.

    Raises:
        what ``log_events`` raises.
    """
    return LogResult(list(log_events(project, **filters)))


def log_events(project: "Project", **filters: Any) -> Iterator[Event]:
    """``chosen_events``, each as ``baton log`` shows it: an event of a forgotten handoff's stream that
    still holds a payload (made apart before the forget reached its clone) without it, marked
    ``withheld`` (``log_withholding``), as the projections withhold it.

    Raises:
        what ``chosen_events`` raises.
    """
    events = chosen_events(project, **filters)
    show = log_withholding(project)
    return events if show is as_it_is else map(show, events)


def log_withholding(project: "Project") -> Callable[[Event], Event]:
    """What ``baton log`` shows of each event (``withheld_view.withheld_from_log``): when the index counts
    some ``handoff.forgotten`` (one lookup), one query of it for the handoff streams without a record;
    none, and each event is shown as it is."""
    runner = getattr(project, "runner", None)  # a bare ledger: none
    if runner is None or ("event_counts" in runner.by_name and not runner.has("event_counts", HANDOFF_FORGOTTEN)):
        return as_it_is
    forgotten = {HANDOFF_PREFIX + h: h for h in without_record(runner)}
    if not forgotten:
        return as_it_is
    return lambda event: withheld_from_log(event, forgotten)


def as_it_is(event: Event) -> Event:
    """Each event as it is (``log_withholding`` when no handoff was forgotten)."""
    return event


def chosen_events(
    project: "Project",
    *,
    event_type: str | None = None,
    stream: str | None = None,
    since: str | None = None,
    until: str | None = None,
    limit: int | None = None,
    tail: LogTail | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[Event]:
    """Events of the project, merged across feeds, optionally filtered, read
    a chunk of each feed at a time: without ``limit`` (None or 0) every one, handed
    out as they are read; with it the newest ``limit`` are held and handed out at
    the end (``baton log`` gives ``DEFAULT_LIMIT`` unless told: ``Baton.log_stream``).
    ``tail``, when given, learns what the limit left out. ``progress(done, about)``: with a
    limit (whose events are held until the reading ends, so nothing is printed meanwhile), the
    events read so far of the ledger's (the index's count), every ``PROGRESS_EVERY`` and once
    at the end; a reading of fewer says nothing.

    ``since`` is exclusive (events after that id or time), ``until``
    inclusive; both take an event id or an RFC 3339 time. ``type`` and
    ``stream`` take an exact value or a glob (``handoff.*``). An id no feed
    holds is refused here, before any event is read (its bytes are looked
    for: ``Ledger.holds_event``), not after the whole ledger was.

    Raises:
        NotInitialized, NotFound (unknown event id; a stream, named exactly, no event is on), InputError (bad time, a negative limit);
        while iterating, LedgerCorrupt (a damaged feed) and, should a feed
        change under the reading, NotFound.
    """
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise InputError("`limit` must be a positive number, or 0 for every event")
    if limit == 0:
        limit = None  # every event, as `handoff list --limit 0` lists every match
    if limit is not None:
        # a limit past any count is every event's (the reader's queue takes at most sys.maxsize - 1)
        limit = min(limit, sys.maxsize - 1)
    after = Until.parse(since, option="since") if since is not None else None
    upto = Until.parse(until, option="until") if until is not None else None
    for option, bound in (("until", upto), ("since", after)):
        if bound is not None and bound.event_id is not None and not project.ledger.holds_event(bound.event_id):
            raise NotFound(f"no event with id {bound.event_id}; `{option}` takes an event's id (the last column "
                           "of `baton log`; a handoff's id is not one) or an RFC 3339 time")
    if (refused := unknown_stream(project, stream)) is not None:
        raise refused
    if event_type is not None and (kinds := ledger_types(project)) is not None and not any(
            _matches(event_type, kind) for kind in kinds):
        return iter(())  # no event has such a type: nothing to read
    if _empty_window(after, upto):
        return iter(())  # no time is after ``since`` and at or before ``until``: nothing to read
    if limit is None:
        return _chosen(_read(project, after, upto, event_type, stream, None), after, upto, event_type, stream)
    # one more than shown: whether any matching event came before them
    reading = Reading(progress, _ledger_size(project) if progress is not None else 0)
    source = None
    if event_type is not None and stream is None and after is None and upto is None:
        source = _type_span(project, event_type, limit, reading)
    elif stream is not None and not _glob(stream) and after is None and upto is None:
        source = _stream_span(project, stream, event_type, limit, reading)
    if source is None:
        source = _read(project, after, upto, event_type, stream, limit + 1, reading)
    held = deque(_chosen(source, after, upto, event_type, stream), maxlen=limit + 1)
    reading.done()
    if len(held) > limit:
        held.popleft()
        if tail is not None:
            tail.limit, tail.truncated = limit, True
            countable = stream is None and after is None and upto is None
            tail.more = _more(project, event_type, limit) if countable else None
    return iter(held)


PROGRESS_EVERY = 2000
"""How often a limited ``log_events`` tells its ``progress``: a reading this short says nothing."""


class Reading:
    """The events a limited ``log_events`` read, told to ``progress`` (of ``about``: the
    ledger's count) every ``PROGRESS_EVERY``; ``done()`` ends the line, as ``audit`` does."""

    def __init__(self, progress: Callable[[int, int], None] | None, about: int) -> None:
        self.progress, self.about, self.count = progress, about, 0
        self.seen: Callable[[], None] | None = self._seen if progress is not None else None

    def _seen(self) -> None:
        self.count += 1
        if self.progress is not None and not self.count % PROGRESS_EVERY:
            self.progress(self.count, max(self.count + 1, self.about))  # never "done" here: ``done`` says so

    def counted(self, events: Iterator[Event]) -> Iterator[Event]:
        """``events``, each one counted."""
        if self.seen is None:
            return events
        return self._each(events)

    def _each(self, events: Iterator[Event]) -> Iterator[Event]:
        for e in events:
            self._seen()
            yield e

    def done(self) -> None:
        if self.progress is not None and self.count >= PROGRESS_EVERY:
            self.progress(self.count, self.count)


def _ledger_size(project: "Project") -> int:
    """How many events the ledger holds, by the index's ``event_counts`` (0 when it cannot say)."""
    reading = getattr(project, "reading", None)
    runner = reading() if reading is not None else None
    if runner is None or "event_counts" not in runner.by_name:
        return 0
    return sum(int(doc.get("count") or 0) for _key, doc in runner.docs("event_counts"))


def _type_span(project: "Project", event_type: str, limit: int, reading: Reading) -> Iterator[Event] | None:
    """The events of a ``--type`` whose every match the ``limit`` shows, read only across the
    span the index (its ``event_counts``: how many of each type, its first and last events)
    says they lie in: forward from the ledger's start up to the last match, or back from its
    end to the first, whichever is nearer (``log --type project.initialized`` reads the first
    events, not 100,000). None when the index cannot say (none, pinned in the past) or more
    match than are shown (the tail read finds the newest). As of the index the command read:
    an event of the type written after that, by another process, is not looked for."""
    runner = getattr(project, "reading", lambda: None)()
    if runner is None or "event_counts" not in runner.by_name or runner.pinned_until is not None:
        return None
    docs = [doc for _key, doc in runner.docs("event_counts")]
    matching = [doc for doc in docs if _matches(event_type, str(doc.get("type")))]
    try:
        count = sum(int(doc["count"]) for doc in matching)
        first, last = min(int(doc["first"][0]) for doc in matching), max(int(doc["last"][0]) for doc in matching)
        start, end = min(int(doc["first"][0]) for doc in docs), max(int(doc["last"][0]) for doc in docs)
    except (KeyError, TypeError, ValueError, IndexError):
        return None  # an index older than these fields, or nothing matches: read as before
    if count > limit:
        return None
    if last - start <= end - first:
        return _up_to(reading.counted(project.ledger.iter_all()), last)

    def wanted(kind: str, _name: str, _hlc: int) -> bool:
        return _matches(event_type, kind)

    return project.ledger.iter_tail(TailWant(wanted, after_hlc=first - 1, seen=reading.seen))


def _stream_span(project: "Project", stream: str, event_type: str | None, limit: int,
                 reading: Reading) -> Iterator[Event] | None:
    """A ``--stream``'s events, read only across the span the index's ``streams`` says they lie
    in: forward from the ledger's start up to the stream's last event (``last_key``) when that
    lies in the older half of the ledger (an old handoff's history is not looked for in the
    100,000 events after it), else back from the ledger's end to the stream's first event
    (``first_key``), the newest ``limit`` + 1 of them of ``event_type`` when given (a recent handoff's history is not looked
    for in the 100,000 events before it). None when the index cannot say (none, pinned in the
    past, or a recent stream an older Baton began: no ``first_key``): the tail read to the
    start, as before. As of the index the command read, like ``_type_span``."""
    runner = getattr(project, "reading", lambda: None)()
    if (runner is None or "streams" not in runner.by_name or "event_counts" not in runner.by_name
            or runner.pinned_until is not None):
        return None
    doc = runner.get("streams", stream)
    docs = [d for _key, d in runner.docs("event_counts")]
    try:
        last = int(doc["last_key"][0]) if doc is not None else None
        start, end = min(int(d["first"][0]) for d in docs), max(int(d["last"][0]) for d in docs)
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    if last is None:
        return None
    if last - start <= end - last:
        return _up_to(reading.counted(project.ledger.iter_all()), last)
    try:
        first = int(doc["first_key"][0])
    except (KeyError, TypeError, ValueError, IndexError):
        return None  # begun by a Baton that kept no first_key: read back to the start

    def wanted(kind: str, name: str, _hlc: int) -> bool:  # both filters: the newest ``limit`` + 1 shown
        return name == stream and _matches(event_type, kind)

    return project.ledger.iter_tail(TailWant(wanted, limit=limit + 1, after_hlc=first - 1, seen=reading.seen))


def _up_to(events: Iterator[Event], hlc: int) -> Iterator[Event]:
    """``events`` (in ledger order) up to the first one after ``hlc``: the reading stops there."""
    for e in events:
        if e.hlc > hlc:
            return
        yield e


def _more(project: "Project", event_type: str | None, shown: int) -> int | None:
    """How many events of ``event_type`` (None: any) matched beyond the ``shown`` newest, counted
    by the index (its ``event_counts``), not by reading the ledger; None when it cannot say."""
    reading = getattr(project, "reading", None)
    runner = reading() if reading is not None else None
    if runner is None or "event_counts" not in runner.by_name or runner.pinned_until is not None:
        return None
    total = sum(int(doc.get("count") or 0) for key, doc in runner.docs("event_counts") if _matches(event_type, key))
    return max(total - shown, 0) or None


def _read(project: "Project", after: Until | None, upto: Until | None, event_type: str | None,
          stream: str | None, limit: int | None, reading: Reading | None = None) -> Iterator[Event]:
    """The events ``_chosen`` picks from: every one, a chunk of each feed at
    a time (``iter_all``), or — when the last ``limit`` are shown or those
    after a time, with no ``until`` (whose reading stops there) and no
    ``since`` id (found by reading up to it) — only each feed's tail
    (``iter_tail``): ``log --limit 20`` of a year of events reads the last
    few of them, not the year. ``reading`` counts the events read (its ``progress``)."""
    if (upto is not None or (after is not None and after.event_id is not None)
            or (limit is None and after is None)):
        return reading.counted(project.ledger.iter_all()) if reading is not None else project.ledger.iter_all()
    after_hlc = after.hlc if after is not None else None

    def wanted(kind: str, name: str, hlc: int) -> bool:
        return (after_hlc is None or hlc > after_hlc) and _matches(event_type, kind) and _matches(stream, name)

    seen = reading.seen if reading is not None else None
    return project.ledger.iter_tail(TailWant(wanted, limit=limit, after_hlc=after_hlc, seen=seen))


def _chosen(events: Iterable[Event], after: Until | None, upto: Until | None,
            event_type: str | None, stream: str | None) -> Iterator[Event]:
    started = after is None or after.event_id is None  # past ``since``'s event (an id), or no such bound
    past = False  # beyond ``until``
    found_until = False
    for e in events:  # a chunk of each feed at a time: ``--limit`` holds N events, not the ledger
        if upto is not None and upto.event_id is None and e.hlc > _hlc(upto):
            past = True  # the ledger is in hlc order: every later event is beyond it too
        if (started and not past and (after is None or after.event_id is not None or e.hlc > _hlc(after))
                and _matches(event_type, e.type) and _matches(stream, e.stream)):
            yield e
        if after is not None and e.id == after.event_id:
            started = True
        if upto is not None and e.id == upto.event_id:
            past = found_until = True
        if past and started:
            break  # nothing later is shown, and every id named was found
    if upto is not None and upto.event_id is not None and not found_until:
        raise NotFound(f"no event with id {upto.event_id}")
    if not started:
        assert after is not None
        raise NotFound(f"no event with id {after.event_id}")


def _hlc(bound: Until) -> int:
    hlc = bound.hlc
    assert hlc is not None  # an Until names an event or a time
    return hlc
