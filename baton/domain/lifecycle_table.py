"""The handoff lifecycle's table (spec §5, §8): which actions each status allows.

The rule of ``baton.domain.lifecycle``, apart from the record model, so that a
reader of a stored record's status and flags asks it without loading the
model: a baton's claim decides whether it is its handoff's resume from the
stored document (``resume_of_stored``), and ``lifecycle.allowed_actions`` asks
the same table for a record. It imports no event class: ``resume`` and the
other readers load ``lifecycle`` without them, and a claim loads the handoff
events' family (``baton.events.handoff``) only when it builds a resume: a claim
of a session's draft (the baton a session's end leaves) records none.
"""

from __future__ import annotations

from baton.errors import TransitionError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

    from baton.events.handoff import HandoffResumed

REVISE = "revise"
VALIDATE = "validate"
PROMOTE = "promote"
RESUME = "resume"
SUPERSEDE = "supersede"
ARCHIVE = "archive"
FLAG_CONFLICTED = "flag_conflicted"
AMEND = "amend"

# The table, by status. ``promote`` is further refused while a flag is set.
ALLOWED: dict[str, tuple[str, ...]] = {
    "draft": (REVISE, VALIDATE, FLAG_CONFLICTED, ARCHIVE),
    "validated": (REVISE, VALIDATE, PROMOTE, FLAG_CONFLICTED, ARCHIVE),
    "ready": (RESUME, SUPERSEDE, ARCHIVE, AMEND),
    "resumed": (RESUME, SUPERSEDE, ARCHIVE, AMEND),
    "superseded": (AMEND,),
    "archived": (),
}


def allowed_for(status: str, flags: Iterable[str]) -> tuple[str, ...]:
    """The actions a record of ``status`` with ``flags`` allows."""
    allowed = ALLOWED[status]
    if flags:
        allowed = tuple(a for a in allowed if a != PROMOTE)
    return allowed


def hand_on_refusal(status: str, flags: Iterable[str], *, baton: bool) -> str | None:
    """Why a handoff of ``status`` with ``flags`` cannot be handed on as a baton
    (``session handoff --from``), or None: only a record a receiver can resume is —
    a ready or resumed one, or a session baton's own record (``baton``: delivered
    unvalidated by design, and resumed as such). Handing on a draft or a validated
    record would point its receiver at a resume that is refused."""
    if baton or RESUME in allowed_for(status, flags):
        return None
    if status == "validated":
        return "only a ready handoff can be handed on: make it ready first"
    if status == "draft":
        return "only a ready handoff can be handed on: validate it, then make it ready"
    return None


def transition_error(h: Any, action: str, reason: str | None = None) -> TransitionError:
    """The error for ``action`` refused on ``h`` (a record, as the model or as values), naming its
    state and what it allows."""
    return TransitionError(handoff_id=h.id, status=h.status, flags=tuple(h.flags), action=action,
                           allowed=allowed_for(h.status, h.flags), reason=reason)


def resume_of_stored(doc: Mapping[str, Any], *, session: str | None,
                     harness: str | None) -> list[HandoffResumed]:
    """A baton's claim as its handoff's resume, decided from the record the index stores as ``doc``
    (``handoff_to_json``'s shape): ``handoff.resumed``, as the handoff aggregate decides it for a
    ``Resume`` naming no freshness state, when the table allows a resume from its status (a ready or
    resumed record); none otherwise (a session baton's draft, a superseded or archived record). It
    reads the status and flags only, so a claim loads neither the record model nor the aggregate."""
    if RESUME not in allowed_for(doc["status"], doc.get("flags") or ()):
        return []
    resumed = __import__("baton.events.handoff", fromlist=["HandoffResumed"]).HandoffResumed  # a resume's only
    return [resumed(key=doc["id"], session=session, harness=harness, freshness_state=None)]
