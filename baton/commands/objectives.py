"""Session ids and objectives, as every session start reads them.

A session id is opaque but checked (``check_session_id``); an objective is
bound to an owner and branch and never outlives the session that recorded
it (``get_session_objective``). Recording them is ``baton.commands.sessions``.
"""

from __future__ import annotations

from baton.commands.identity import SessionContext
from baton.domain.batons import objective_doc_key
from baton.domain.identifiers import session_id_refusal
from baton.domain.limits import OBJECTIVE_MAX
from baton.errors import InputError
from baton.projections.sessions import session_doc
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook path's modules need none)
if TYPE_CHECKING:
    from typing import Any


def check_session_id(session_id: str | None, *, required: bool = False) -> str | None:
    """A session id is opaque, but it must be one line of at most 200
    printable characters, without whitespace, ``/`` or ``\\``, and not ``.``
    or ``..`` (``session_id_problem``); surrounding whitespace is dropped.

    Raises:
        InputError: it is empty (when required) or malformed (exit 2).
    """
    if session_id is None:
        if required:
            raise InputError("a session id is required (`session_id`)")
        return None
    refusal = session_id_refusal(session_id)
    if refusal is not None:
        raise InputError(refusal, details={"field": "session_id"})
    return session_id.strip()


def required_session_id(session_id: str | None) -> str:
    """``check_session_id`` of an id that must be given (a harness's hooks always name one)."""
    checked = check_session_id(session_id, required=True)
    assert checked is not None
    return checked


def check_objective(objective: str | None) -> str | None:
    if objective is None or not objective.strip():
        return None
    value = objective.strip()
    if len(value) > OBJECTIVE_MAX:
        raise InputError(f"an objective must be at most {OBJECTIVE_MAX} characters (got {len(value)})")
    return value


class SessionObjective(Value):
    owner: str
    branch: str
    objective: str
    session_id: str | None
    updated_at: str
    harness: str | None = None
    """The harness of the session that set it, as its start recorded it."""

    def to_json(self) -> dict[str, Any]:
        return {"owner": self.owner, "branch": self.branch, "objective": self.objective,
                "sessionId": self.session_id, "updatedAt": self.updated_at, "harness": self.harness}

    def of_another(self, session_id: str | None) -> bool:
        """Whether it is another session's than ``session_id`` (a session starting without an
        objective beside one still open: it stands, ``aggregates.session.keeps_objective``)."""
        return session_id is not None and self.session_id is not None and self.session_id != session_id


def get_session_objective(runner, ctx: SessionContext) -> SessionObjective | None:
    """The objective bound to exactly this owner and branch, or None (never
    the objective of a name that shares their key: ``feature/x``'s for
    ``feature_x``).

    None also when the session that recorded it no longer exists or has
    ended: an objective never outlives its session.
    """
    doc = runner.get("objectives", objective_doc_key(ctx.owner, ctx.branch))
    if not isinstance(doc, dict) or doc.get("owner") != ctx.owner or doc.get("branch") != ctx.branch:
        return None
    objective, session_id = doc.get("objective"), doc.get("sessionId")
    if not isinstance(objective, str) or not objective or not isinstance(session_id, str):
        return None
    writer = doc.get("sessionWriter")
    session = session_doc(runner, writer, session_id) if isinstance(writer, str) else None
    if session is None or session.get("status") != "open":
        return None
    harness = session.get("harness")
    return SessionObjective(ctx.owner, ctx.branch, objective, session_id, str(doc.get("updatedAt") or ""),
                            harness if isinstance(harness, str) and harness else None)
