"""``baton log``: the project's events in ledger order."""

from __future__ import annotations

import fnmatch
from typing import TYPE_CHECKING

import orjson

from baton.errors import InputError, NotFound
from baton.ledger.envelope import Event
from baton.model import frozen
from baton.projections.runner import Until

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


def _position(events: list[Event], bound: Until) -> int:
    """Index just past the bound (event id: inclusive; time: events at or before it)."""
    if bound.event_id is not None:
        for i, e in enumerate(events):
            if e.id == bound.event_id:
                return i + 1
        raise NotFound(f"no event with id {bound.event_id}")
    hlc = bound.hlc
    assert hlc is not None  # an Until names an event or a time
    return sum(1 for e in events if e.hlc <= hlc)


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
    opened = project
    events = opened.ledger.read_all()
    start, stop = 0, len(events)
    if until is not None:
        stop = _position(events, Until.parse(until, option="until"))
    if since is not None:
        start = _position(events, Until.parse(since, option="since"))
    chosen = [e for e in events[start:stop] if _matches(event_type, e.type) and _matches(stream, e.stream)]
    if limit is not None:
        chosen = chosen[-limit:]
    return LogResult(chosen)
