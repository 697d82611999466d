"""A session's start and its objective, recorded inside a write scope.

The step ``baton session begin`` and a harness's session start
(``harness_start``) share, and the objective events a session's end shares
with them. Kept apart from ``baton.commands.sessions`` (the use cases
``session begin`` and ``session end``, their results and the baton a
session's end leaves), so that a hook's session start defines none of those.
"""

from __future__ import annotations

from baton.commands.identity import SessionContext
from baton.commands.record import record
from baton.domain.aggregates import session as aggregate
from baton.domain.batons import context_key, objective_doc_key, objective_stream, session_stream


def objective_events(scope, ctx: SessionContext, objective: str | None, session: str | None,
                     reason: str) -> bool:
    """Set, or clear, the objective of ``ctx``; True when anything changed."""
    key = context_key(ctx.owner, ctx.branch)
    version = scope.txn.stream_version(objective_stream(key))
    command = (aggregate.SetObjective(ctx.owner, ctx.branch, objective, session) if objective is not None
               else aggregate.ClearObjective(ctx.owner, ctx.branch, session, reason))
    state = scope.runner.get("objectives", objective_doc_key(ctx.owner, ctx.branch))
    decided = aggregate.decide_objective(state, command, key=key)
    record(scope, decided, version=version, actor=ctx.owner, session=session)
    return bool(decided)


def record_begin(scope, ctx: SessionContext, session_id: str, *, harness: str | None, objective: str | None,
                 received_baton: str | None) -> bool:
    """Inside a write scope: record the session's start (and set or clear the
    objective). Returns whether the objective events changed anything."""
    stream = session_stream(session_id)
    decided = aggregate.decide_session(scope.runner.get("sessions", session_id), aggregate.BeginSession(
        session_id, ctx.owner, ctx.branch, harness=harness, objective=objective, received_baton=received_baton))
    record(scope, decided, version=scope.txn.stream_version(stream), actor=ctx.owner, session=session_id)
    return objective_events(scope, ctx, objective, session_id, reason="session_begin_without_objective")
