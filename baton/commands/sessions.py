"""``baton session begin`` and ``baton session end``: sessions, objectives and batons.

A session begins (``session.begun``), optionally records an objective bound to
its owner and branch, and claims the baton waiting for it. It ends
(``session.ended``), optionally leaving a baton for the next session, and its
objective is cleared.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from baton.model import frozen
from baton.commands.batons import (
    CreatedBaton, _as_payload, carried_lines, claim_in_scope, create_in_scope, peek_eligible, quiet_freshness,
)
from baton.commands.identity import SessionContext, context_of
from baton.domain.batons import (
    BatonRecord, context_key, objective_stream, render_baton_markdown, session_stream,
)
from baton.domain.limits import OBJECTIVE_MAX, SESSION_ID_MAX
from baton.errors import InputError
from baton.ledger.ids import uuid7

if TYPE_CHECKING:
    from baton.commands.context import Project

# The session aggregate and ``record`` (with the event classes) are imported
# by the functions that write: reading an objective never needs them.



def check_session_id(session_id: str | None, *, required: bool = False) -> str | None:
    """A session id is opaque, but it must be printable, one line and ≤ 200 characters.

    Raises:
        InputError: it is empty (when required), too long or holds control characters.
    """
    if session_id is None:
        if required:
            raise InputError("a session id is required (`session_id`)")
        return None
    value = session_id.strip()
    if not value:
        raise InputError("a session id must not be empty")
    if len(value) > SESSION_ID_MAX:
        raise InputError(f"a session id must be at most {SESSION_ID_MAX} characters")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise InputError("a session id must not contain control characters")
    return value


def check_objective(objective: str | None) -> str | None:
    if objective is None or not objective.strip():
        return None
    value = objective.strip()
    if len(value) > OBJECTIVE_MAX:
        raise InputError(f"an objective must be at most {OBJECTIVE_MAX} characters (got {len(value)})")
    return value


# -- objectives ----------------------------------------------------------------------

@frozen
class SessionObjective:
    owner: str
    branch: str
    objective: str
    session_id: str | None
    updated_at: str

    def to_json(self) -> dict[str, Any]:
        return {"owner": self.owner, "branch": self.branch, "objective": self.objective,
                "sessionId": self.session_id, "updatedAt": self.updated_at}


def get_session_objective(runner, ctx: SessionContext) -> SessionObjective | None:
    """The objective bound to this owner and branch, or None.

    None also when the session that recorded it no longer exists or has
    ended: an objective never outlives its session.
    """
    doc = runner.get("objectives", context_key(ctx.owner, ctx.branch))
    if not isinstance(doc, dict) or doc.get("owner") != ctx.owner or doc.get("branch") != ctx.branch:
        return None
    objective, session_id = doc.get("objective"), doc.get("sessionId")
    if not isinstance(objective, str) or not objective or not isinstance(session_id, str):
        return None
    session = runner.get("sessions", session_id)
    if not isinstance(session, dict) or session.get("status") != "open":
        return None
    return SessionObjective(ctx.owner, ctx.branch, objective, session_id, str(doc.get("updatedAt") or ""))


def _objective_events(scope, ctx: SessionContext, objective: str | None, session: str | None,
                      reason: str) -> bool:
    """Set, or clear, the objective of ``ctx``; True when anything changed."""
    from baton.commands.record import record
    from baton.domain.aggregates import session as aggregate

    key = context_key(ctx.owner, ctx.branch)
    version = scope.txn.stream_version(objective_stream(key))
    command = (aggregate.SetObjective(ctx.owner, ctx.branch, objective, session) if objective is not None
               else aggregate.ClearObjective(ctx.owner, ctx.branch, session, reason))
    decided = aggregate.decide_objective(scope.runner.get("objectives", key), command, key=key)
    record(scope, decided, version=version, actor=ctx.owner, session=session)
    return bool(decided)


# -- begin ----------------------------------------------------------------------------

@frozen
class SessionBeginResult:
    session_id: str
    context: SessionContext
    harness: str | None
    objective: str | None
    objective_cleared: bool
    record: BatonRecord | None
    freshness: str | None = None
    carried: tuple[str, ...] = ()
    exit_code: int = 0

    def markdown(self) -> str | None:
        if self.record is None:
            return None
        return render_baton_markdown(self.record, freshness=self.freshness, carried=self.carried)

    def to_json(self) -> dict[str, Any]:
        return {
            "sessionId": self.session_id,
            **self.context.to_json(),
            "harness": self.harness,
            "objective": self.objective,
            "objectiveCleared": self.objective_cleared,
            "handoff": self.record.to_json() if self.record else None,
            "handoffMarkdown": self.markdown(),
        }

    def render(self) -> str:
        lines = [f"Session {self.session_id} began for {self.context.owner} on {self.context.branch}."]
        if self.objective:
            lines.append(f"Objective: {self.objective}")
        elif self.objective_cleared:
            lines.append("The earlier session objective for this owner and branch was cleared "
                         "(give --objective to set this session's).")
        if self.record is not None:
            lines += ["", (self.markdown() or "").rstrip("\n")]
        else:
            lines.append("No session handoff was waiting.")
        return "\n".join(lines)


def begin_session(
    project: "Project",
    *,
    session_id: str | None = None,
    harness: str | None = None,
    objective: str | None = None,
    owner: str | None = None,
    branch: str | None = None,
    claim: bool = True,
    received_baton: str | None = None,
) -> SessionBeginResult:
    """Begin a session: record it, set (or clear a stale) objective, claim the eligible baton.

    ``received_baton``: with ``claim`` False, the baton the session already
    claimed (the bootstrap brief delivered it), recorded with its start.

    Raises:
        InputError: a malformed session id or an over-long objective.
    """
    session_id = check_session_id(session_id) or uuid7()
    objective = check_objective(objective)
    harness = harness.strip() if harness and harness.strip() else None
    opened = project
    ctx = context_of(opened, owner=owner, branch=branch)
    with opened.writing() as scope, scope.batch():  # the claim and the start: one append, all or nothing
        opened.check_streams(session_stream(session_id))  # before a claim: nothing appended if refused
        received = None
        if claim:
            peek = peek_eligible(scope.runner, ctx)
            if peek is not None:
                received = claim_in_scope(scope, peek, session=session_id, harness=harness)
        changed = record_begin(scope, ctx, session_id, harness=harness, objective=objective,
                               received_baton=received.id if received else received_baton)
    # Outside the lock: freshness reads git and hashes artifacts.
    freshness = quiet_freshness(opened, opened.runner, received)
    return SessionBeginResult(session_id, ctx, harness, objective, changed and objective is None, received,
                              freshness, carried_lines(opened.runner, received))


def record_begin(scope, ctx: SessionContext, session_id: str, *, harness: str | None, objective: str | None,
                 received_baton: str | None) -> bool:
    """Inside a write scope: record the session's start (and set or clear the
    objective). Returns whether the objective events changed anything."""
    from baton.commands.record import record
    from baton.domain.aggregates import session as aggregate

    stream = session_stream(session_id)
    decided = aggregate.decide_session(scope.runner.get("sessions", session_id), aggregate.BeginSession(
        session_id, ctx.owner, ctx.branch, harness=harness, objective=objective, received_baton=received_baton))
    record(scope, decided, version=scope.txn.stream_version(stream), actor=ctx.owner, session=session_id)
    return _objective_events(scope, ctx, objective, session_id, reason="session_begin_without_objective")


# -- end --------------------------------------------------------------------------------

@frozen
class SessionEndResult:
    session_id: str
    context: SessionContext
    created: CreatedBaton | None
    objective_cleared: bool
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "sessionId": self.session_id,
            "ended": True,
            **self.context.to_json(),
            "handoff": self.created.record.to_json() if self.created else None,
            "handoffId": self.created.record.id if self.created else None,
            "superseded": self.created.superseded if self.created else None,
            "redactions": self.created.redactions if self.created else [],
            "objectiveCleared": self.objective_cleared,
        }

    def render(self) -> str:
        lines = [f"Session {self.session_id} ended."]
        if self.created is None:
            lines.append("No baton left (empty handoff payload).")
        else:
            r = self.created.record
            scope = "a shared baton" if r.shared else f"a baton for {r.owner} on {r.branch}"
            line = f"Left {scope}: {r.id} ({len(r.next_steps)} next step{'s' if len(r.next_steps) != 1 else ''})"
            if self.created.superseded:
                line += f", superseding {self.created.superseded}"
            lines.append(line + ".")
            lines.extend(redaction_lines(self.created.redactions))
        if self.objective_cleared:
            lines.append("The session objective was cleared.")
        return "\n".join(lines)


def redaction_lines(redactions: Any) -> list[str]:
    """What was redacted before the baton was written (field and rule; never the value)."""
    items = [r for r in redactions or () if isinstance(r, dict)]
    if not items:
        return []
    listed = ", ".join(f"{r.get('field', '?')} ({r.get('rule') or r.get('reason', 'secret')})" for r in items[:5])
    more = f" and {len(items) - 5} more" if len(items) > 5 else ""
    return [f"Redacted before writing: {listed}{more}."]


def end_session(
    project: "Project",
    session_id: str | None = None,
    handoff: Any = None,
    *,
    harness: str | None = None,
    owner: str | None = None,
    branch: str | None = None,
    shared: bool | None = None,
) -> SessionEndResult:
    """End a session; leave a baton when ``handoff`` has content; clear the objective:
    one batch, all or nothing (``end_in_scope``).

    An empty payload (None, ``{}``, or no entries at all) leaves no baton and
    is not an error (the spec's writeHandoffOnSessionEnd).

    Raises:
        InputError: a malformed session id, or a payload with entries but no
            non-empty next step (exit 2; nothing is written).
    """
    session_id = check_session_id(session_id, required=True)
    assert session_id is not None
    payload = _as_payload(handoff, owner, branch, shared, allow_empty=True)
    with project.writing() as scope:
        with scope.batch():
            ended = end_in_scope(scope, session_id, payload, harness=harness, owner=owner, branch=branch)
        return settled(scope, ended)


def end_in_scope(scope, session_id: str, payload: Any = None, *, harness: str | None = None,
                 owner: str | None = None, branch: str | None = None,
                 left: CreatedBaton | None = None) -> SessionEndResult:
    """Inside a write scope (and its ``batch()``, so that everything a session's
    end records — ``handoff.captured``, ``baton.created``, the objective
    cleared, ``session.ended`` — lands in one write, all or nothing): end
    the session, leaving a baton for ``payload`` (a ``BatonPayload``) when
    given. ``left``: the baton already appended in this batch for the
    session (a handoff handed on), named by ``session.ended``.
    """
    from baton.commands.record import record
    from baton.domain.aggregates import session as aggregate

    opened = scope.project
    session = scope.runner.get("sessions", session_id) or {}
    opened.check_streams(session_stream(session_id))
    if harness is None:
        harness = session.get("harness")
    if session.get("owner") and session.get("branch"):
        here = SessionContext(session["owner"], session["branch"])
    else:
        here = context_of(opened, owner=owner, branch=branch)
    objective_doc = get_session_objective(scope.runner, here)
    if objective_doc is not None:  # it will be cleared: refuse now rather than after the baton
        opened.check_streams(objective_stream(context_key(here.owner, here.branch)))
    created = left
    if payload is not None:
        target = context_of(opened, owner=payload.owner, branch=payload.branch)
        created = create_in_scope(scope, payload, target, session=session_id, harness=harness,
                                  objective=objective_doc.objective if objective_doc else None)
    cleared = _objective_events(scope, here, None, session_id, reason="session_end")
    stream = session_stream(session_id)
    decided = aggregate.decide_session(session, aggregate.EndSession(
        session_id, here.owner, here.branch, harness=harness, left_baton=created.record.id if created else None))
    record(scope, decided, version=scope.txn.stream_version(stream), actor=here.owner, session=session_id,
           durable=True)
    return SessionEndResult(session_id, here, created, cleared)


def settled(scope, ended: SessionEndResult) -> SessionEndResult:
    """``ended`` once its batch is written: the baton as the index now holds it."""
    import attrs

    if ended.created is None:
        return ended
    from baton.commands.batons import stored_baton

    created = attrs.evolve(ended.created, record=stored_baton(scope.runner, ended.created.record))
    return attrs.evolve(ended, created=created)
