"""``baton log``: the project's events in ledger order."""

from __future__ import annotations

import fnmatch
from collections import deque
from typing import TYPE_CHECKING

import orjson

from baton.errors import InputError, NotFound
from baton.ledger.envelope import Event
from baton.model import frozen
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
        return "\n".join(orjson.dumps(e.to_dict(), option=orjson.OPT_SORT_KEYS).decode() for e in self.events)

    def render(self) -> str:
        if not self.events:
            return "(no events)"
        lines = []
        for e in self.events:
            erased = " [payload erased]" if e.erased else ""
            lines.append(f"{e.at}  {e.type:<24} {e.stream:<48} {e.writer}#{e.seq}  {e.id}{erased}")
        return "\n".join(lines)


def _matches(pattern: str | None, value: str) -> bool:
    if pattern is None:
        return True
    if any(ch in pattern for ch in "*?["):
        return fnmatch.fnmatchcase(value, pattern)
    return value == pattern


def ledger_log(
    project: "Project",
    *,
    event_type: str | None = None,
    stream: str | None = None,
    since: str | None = None,
    until: str | None = None,
    limit: int | None = None,
) -> LogResult:
    """Events of the project, merged across feeds, optionally filtered.

    ``since`` is exclusive (events after that id or time), ``until``
    inclusive; both take an event id or an RFC 3339 time. ``type`` and
    ``stream`` take an exact value or a glob (``handoff.*``).

    Raises:
        NotInitialized, NotFound (unknown event id), InputError (bad time, a limit below 1).
    """
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise InputError("`limit` must be a positive number")
    after = Until.parse(since, option="since") if since is not None else None
    upto = Until.parse(until, option="until") if until is not None else None
    chosen: deque[Event] | list[Event] = deque(maxlen=limit) if limit is not None else []
    started = after is None or after.event_id is None  # past ``since``'s event (an id), or no such bound
    past = False  # beyond ``until``
    found_until = False
    for e in project.ledger.iter_all():  # a chunk of each feed at a time: ``--limit`` holds N events, not the ledger
        if upto is not None and upto.event_id is None and e.hlc > _hlc(upto):
            past = True  # the ledger is in hlc order: every later event is beyond it too
        if (started and not past and (after is None or after.event_id is not None or e.hlc > _hlc(after))
                and _matches(event_type, e.type) and _matches(stream, e.stream)):
            chosen.append(e)
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
    return LogResult(list(chosen))


def _hlc(bound: Until) -> int:
    hlc = bound.hlc
    assert hlc is not None  # an Until names an event or a time
    return hlc
