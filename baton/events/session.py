"""The event classes of sessions and their objectives (streams ``session/<id>``
and ``objective/<owner__branch>``): what a session start records, defined
apart from the rest of the catalogue (``baton.events.base``)."""

from __future__ import annotations

from baton.events import names
from baton.events.base import ID, PROCESS, DomainEvent, register
from baton.events.names import OBJECTIVE, SESSION

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any

# -- sessions and their objectives -------------------------------------------------------

@register
class SessionBegun(DomainEvent):
    TYPE = names.SESSION_BEGUN
    STREAM = SESSION
    ERASABLE = ("objective",)
    MINTED = {"received_baton": ID, "harness_process": PROCESS}

    session: Any = None
    harness: Any = None
    owner: Any = None
    branch: Any = None
    objective: Any = None
    received_baton: Any = None
    harness_process: Any = None
    """The harness process the start ran for, on its machine (``launch.harness_process``:
    ``{"pid", "start", "boot", "pidns"}``); None when not read (no ``/proc``, or not a
    harness's start). Written from 2026-12; an older event has none."""
    kept_objective: Any = None
    """A start without an objective that left the objective of another session, open, standing: that
    session's id (``aggregate.keeps_objective``); None otherwise (and on an event written before)."""


@register
class SessionEnded(DomainEvent):
    TYPE = names.SESSION_ENDED
    STREAM = SESSION

    session: Any = None
    owner: Any = None
    branch: Any = None
    harness: Any = None
    left_baton: Any = None
    kept_objective: Any = None
    """An end that left the objective of another session, open, standing: that session's id; None
    otherwise (and on an event written before). Such an end retires no objective."""


@register
class SessionResumed(DomainEvent):
    """A started session's repeated start in another harness process (a conversation resumed,
    ``claude --resume``, ``codex exec resume``): the process it runs in now, in place of the one its
    start recorded (``harness_process``, None when not read here)."""

    TYPE = names.SESSION_RESUMED
    STREAM = SESSION

    session: Any = None
    harness: Any = None
    harness_process: Any = None


@register
class ObjectiveSet(DomainEvent):
    TYPE = names.OBJECTIVE_SET
    STREAM = OBJECTIVE
    ERASABLE = ("objective",)

    owner: Any = None
    branch: Any = None
    objective: Any = None
    session: Any = None


@register
class ObjectiveCleared(DomainEvent):
    TYPE = names.OBJECTIVE_CLEARED
    STREAM = OBJECTIVE

    owner: Any = None
    branch: Any = None
    session: Any = None
    reason: Any = None
    previous_session: Any = None


SESSION_EVENTS = (SessionBegun, SessionEnded, SessionResumed)
OBJECTIVE_EVENTS = (ObjectiveSet, ObjectiveCleared)
