"""A harness's session starts (``baton hook HARNESS SessionStart``): its brief,
delivered once per session (see ``harness_sessions``).

The session's ``session.begun`` event is the record that it already received
its brief, so a repeated start delivers nothing and writes nothing; after a
compaction it points the agent at the draft saved before it
(``harness_compaction``), when that is still open.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from baton.commands.bootstrap import BootstrapResult, bootstrap
from baton.commands.identity import context_of
from baton.commands.objectives import required_session_id
from baton.commands.sessions import record_begin
from baton.domain.batons import DEFAULT_MAX_BYTES, session_stream
from baton.domain.limits import MIN_MAX_BYTES
from baton.domain.short_ids import short_id
from baton.model import frozen

if TYPE_CHECKING:
    from baton.commands.context import Project


@frozen
class SessionStartResult:
    session_id: str
    harness: str | None
    source: str | None
    repeated: bool
    """The session had started before: its brief was delivered then, nothing is delivered now."""
    delivered: "BootstrapResult | None" = None
    draft: str | None = None
    """A start after a compaction: the draft Baton saved for the session before it, still open."""
    missing: tuple[str, ...] = ()
    """The fields of ``draft`` still to complete."""
    exit_code: int = 0

    @property
    def context(self) -> str | None:
        """The text to put in front of the agent (the brief, or after a compaction
        the draft to complete; then the session's id for Baton's MCP tools), or None."""
        if self.delivered is not None:
            return self.delivered.brief.text.rstrip("\n") + "\n\n" + session_line(self.session_id, self.harness)
        return self.notice()

    def notice(self, complete_with: str = "") -> str | None:
        """After a compaction, what the agent is told of its open draft (then the
        session line), or None. ``complete_with`` is the adapter's way to complete
        the draft, in its own words, put right after "Complete it"."""
        if self.delivered is not None or self.draft is None:
            return None
        return compaction_notice(self.draft, self.missing, complete_with).rstrip("\n") + "\n\n" + session_line(
            self.session_id, self.harness)

    def to_json(self) -> dict[str, Any]:
        brief = self.delivered
        return {"sessionId": self.session_id, "harness": self.harness, "source": self.source,
                "repeated": self.repeated, "brief": brief.brief.text if brief else None,
                "claimed": bool(brief and brief.record is not None),
                "handoffId": brief.record.id if brief and brief.record else None,
                "notices": list(brief.notices) if brief else [],
                "draft": self.draft, "context": self.context}

    def render(self) -> str:
        return (self.context or "").rstrip("\n")


def session_line(session_id: str, harness: str | None) -> str:
    """The last lines of a session's brief: its id, for the MCP tools (the
    harness tells its hooks the id, never the model)."""
    quoted = orjson.dumps(session_id).decode()
    return (f"This is {harness or 'a'} session `{session_id}`. Pass `\"session_id\": {quoted}` to Baton's MCP "
            "tools (`handoff_capture`, `handoff_detect`, `baton_session`): the handoff you make ready is then handed on "
            "to the next session when this one ends.\n")


def start_session(project: "Project", session_id: str | None, *, harness: str | None = None,
                  source: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES) -> SessionStartResult:
    """Deliver the session-start brief once: claim the baton waiting for this
    owner and branch for ``session_id`` and record that the session began.

    Raises:
        InputError: no session id, or a malformed one.
    """
    sid = required_session_id(session_id)
    runner = project.reading()
    if _began(runner, sid):
        if source == COMPACT:
            return _after_compaction(runner, sid, harness, source)
        return SessionStartResult(sid, harness, source, repeated=True)
    gate = _StartOnce(project, sid, harness)
    # The session line comes after the brief, inside the same budget.
    room = max(MIN_MAX_BYTES, max_bytes - len(session_line(sid, harness).encode("utf-8")) - 2)
    brief = bootstrap(project, session_id=sid, max_bytes=room, gate=gate)
    if not gate.admitted:  # another hook of this session recorded its start first, and delivers the brief
        return SessionStartResult(sid, harness, source, repeated=True)
    return SessionStartResult(sid, harness, source, repeated=False, delivered=brief)


COMPACT = "compact"
"""The start ``source`` a harness reports when it starts the session again after compacting its context."""


def _after_compaction(runner: Any, sid: str, harness: str | None, source: str) -> SessionStartResult:
    """A start after a compaction delivers no brief again, but points the agent at
    the session's open draft (the one Baton saved before the compaction, or the
    draft continuing it), or says nothing."""
    from baton.commands.harness_compaction import draft_to_complete  # deferred: only a start after a compaction

    kept = draft_to_complete(runner, sid)
    if kept is None:
        return SessionStartResult(sid, harness, source, repeated=True)
    return SessionStartResult(sid, harness, source, repeated=True, draft=kept[0], missing=kept[1])


def compaction_notice(draft: str, missing: tuple[str, ...] = (), complete_with: str = "") -> str:
    """What the agent is told when its session starts again after a compaction:
    the draft Baton saved before it, and how to complete and hand it on."""
    short = short_id(draft)
    lines = ["## Baton", "",
             f"Baton saved this session's work before the compaction: draft handoff {short} ({draft}) is "
             "still open, so what the summary left out can still be handed on."]
    if missing:
        lines.append(f"Still to complete: {', '.join(missing)}.")
    lines.append(f"Complete it{complete_with or f' (a capture continuing {draft})'}; then validate and ready "
                 "it (`baton handoff validate`, `baton handoff ready`, or `handoff_validate`, `handoff_ready`): "
                 "the session's end hands it on to the next session.")
    return "\n".join(lines) + "\n"


def _began(runner: Any, sid: str) -> bool:
    known = runner.get("sessions", sid)
    return isinstance(known, dict) and bool(known.get("beganAt"))


class _StartOnce:
    """The gate of ``bootstrap``: the start is recorded once, in the lock hold
    that claims the baton, so two hooks of one session reporting its start at
    the same moment deliver one brief between them."""

    def __init__(self, project: "Project", sid: str, harness: str | None) -> None:
        self.project, self.sid, self.harness = project, sid, harness
        self.admitted = False

    def admit(self, scope: Any) -> bool:
        self.project.check_streams(session_stream(self.sid))
        self.admitted = not _began(scope.runner, self.sid)
        return self.admitted

    def record(self, scope: Any, claimed: Any) -> None:
        record_begin(scope, context_of(self.project), self.sid, harness=self.harness, objective=None,
                     received_baton=claimed.id if claimed is not None else None)
