"""A handoff's events (stream ``handoff/<id>``): captured, revised, validated, promoted,
resumed, superseded, archived, flagged, forgotten."""

from __future__ import annotations

from baton.events import names
from baton.events.base import CATALOGUE, EMPTY, FRESH_LIST, DomainEvent, register
from baton.events.names import HANDOFF

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any, Mapping, Self

# -- handoffs ----------------------------------------------------------------------

@register
class HandoffCaptured(DomainEvent):
    """A new record (capture, prepare, a session baton's draft, an amend's child)."""

    TYPE = names.HANDOFF_CAPTURED
    STREAM = HANDOFF
    ERASABLE = ("handoff",)

    handoff: Any = None
    redactions: Any = FRESH_LIST

    def __new__(cls, key: str = "", extra: Mapping[str, Any] = EMPTY, handoff: Any = None,
                redactions: Any = FRESH_LIST) -> Self:
        fresh = [] if redactions is FRESH_LIST else redactions
        return tuple.__new__(cls, (key, extra, handoff, fresh))  # type: ignore[type-var]  # a named tuple


@register
class HandoffRevised(DomainEvent):
    TYPE = names.HANDOFF_REVISED
    STREAM = HANDOFF
    ERASABLE = ("handoff",)

    handoff: Any = None
    redactions: Any = FRESH_LIST

    def __new__(cls, key: str = "", extra: Mapping[str, Any] = EMPTY, handoff: Any = None,
                redactions: Any = FRESH_LIST) -> Self:
        fresh = [] if redactions is FRESH_LIST else redactions
        return tuple.__new__(cls, (key, extra, handoff, fresh))  # type: ignore[type-var]  # a named tuple


@register
class HandoffValidated(DomainEvent):
    TYPE = names.HANDOFF_VALIDATED
    STREAM = HANDOFF

    report: Any = None


@register
class HandoffPromoted(DomainEvent):
    TYPE = names.HANDOFF_PROMOTED
    STREAM = HANDOFF

    accepted_warnings: Any = None


@register
class HandoffResumed(DomainEvent):
    TYPE = names.HANDOFF_RESUMED
    STREAM = HANDOFF

    session: Any = None
    harness: Any = None
    freshness_state: Any = None


@register
class HandoffSuperseded(DomainEvent):
    TYPE = names.HANDOFF_SUPERSEDED
    STREAM = HANDOFF

    by: Any = None


@register
class HandoffArchived(DomainEvent):
    TYPE = names.HANDOFF_ARCHIVED
    STREAM = HANDOFF
    ERASABLE = ("reason",)

    reason: Any = None


@register
class HandoffFlagged(DomainEvent):
    TYPE = names.HANDOFF_FLAGGED
    STREAM = HANDOFF

    flag: Any = None


@register
class HandoffForgotten(DomainEvent):
    """``baton forget``: the payloads (``data``) of ``events`` — this handoff's
    events and those of the batons that carried it — were erased, their
    ``digest`` kept so every chain still verifies. The record is gone from
    every projection; ``verify`` counts an erased line as legitimate only when
    an event of this type names it (a contract shared with ``verify``)."""

    TYPE = names.HANDOFF_FORGOTTEN
    STREAM = HANDOFF

    handoff: Any = None
    events: Any = FRESH_LIST
    reason: Any = None

    def __new__(cls, key: str = "", extra: Mapping[str, Any] = EMPTY, handoff: Any = None,
                events: Any = FRESH_LIST, reason: Any = None) -> Self:
        fresh = [] if events is FRESH_LIST else events
        return tuple.__new__(cls, (key, extra, handoff, fresh, reason))  # type: ignore[type-var]  # a named tuple


HANDOFF_EVENTS = tuple(cls for cls in CATALOGUE.values() if cls.STREAM == HANDOFF)
