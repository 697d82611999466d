"""The event catalogue: one class per event type.

Every fact Baton records is one of the frozen classes below. A class knows
its type name (``TYPE``), the schema version it writes (``SCHEMA``), the
stream family its events belong to (``STREAM``: ``handoff/<key>``,
``baton/<key>``, ``session/<key>``, ``objective/<key>``, ``detector/<key>``
or the singleton ``project``), and which payload members ``baton forget`` may erase later
(``ERASABLE``). Upcasters for old schemas are registered here too, next to
the class they upgrade, in the process-wide registry the runner applies on
read (``baton.ledger.upcast.UPCASTERS``).

An event's ``key`` is its aggregate's id inside the family (a handoff UUID,
an ``owner__branch`` baton key, a session id); it is carried by the envelope's
``stream``, never inside ``data``. Payload members this version does not know
(``_redacted`` records added by the last screen, fields from a newer Baton)
are kept in ``extra`` and written back unchanged.

``draft()`` turns a typed event into what the ledger appends; ``decode()``
turns a sealed envelope back into its typed event. Decoding never fails on a
malformed payload (hand-written lines, a future version): the members are
carried as they are, and the deciders' ``evolve`` decides what a malformed
event changes — usually nothing.

Type names and stream families are spelled in ``baton.event_names``, which
the read path imports without defining these classes (a command with nothing
new to fold never needs them). Adding an event type: name it there (and in its
family's tuple), write its class here with ``TYPE``, ``STREAM`` and its
payload fields, add it to its aggregate's decider (``decide`` emits it,
``evolve`` folds it), and, if a read model needs it, to one projection.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

import attrs

from baton import event_names as names
from baton.event_names import (  # re-exported: writers and deciders name them from here
    BATON, DETECTOR, FAMILIES, HANDOFF, OBJECTIVE, PROJECT, SESSION, split_stream, stream_of,
)
from baton.model import frozen
from baton.ledger.envelope import Event, EventDraft


# -- the base class ----------------------------------------------------------------

_event_class = frozen(kw_only=True, slots=False)
"""Every event class is made this way. No slots and a hand-written ``__repr__``:
attrs' generated ones cost more than half of this module's import time, and
every command (hooks included) imports the catalogue."""


@_event_class
class DomainEvent:
    """One recorded fact, typed. Subclasses add their payload members as fields."""

    TYPE: ClassVar[str] = ""
    SCHEMA: ClassVar[int] = 1
    STREAM: ClassVar[str] = ""
    ERASABLE: ClassVar[tuple[str, ...]] = ()
    KEY_IN_DATA: ClassVar[bool] = False
    """Baton events also spell their key inside ``data`` (as the spec's telemetry does)."""

    key: str = ""
    """The aggregate's id within ``STREAM`` (from the envelope's stream)."""
    extra: Mapping[str, Any] = attrs.field(factory=dict)
    """Payload members this version does not know; written back unchanged."""

    @property
    def stream(self) -> str:
        return stream_of(self.STREAM, self.key)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(key={self.key!r}, data={self.data()!r})"

    def data(self) -> dict[str, Any]:
        """The payload as stored: every known member (None included) plus ``extra``."""
        out: dict[str, Any] = {"key": self.key} if self.KEY_IN_DATA else {}
        out.update(self.extra)
        for field in _payload_fields(type(self)):
            out[field] = getattr(self, field)
        return out

    def draft(self, *, actor: str | None = None, session: str | None = None) -> EventDraft:
        return EventDraft(self.TYPE, self.stream, self.data(), actor=actor, session=session, schema=self.SCHEMA)


_FIELDS: dict[type, tuple[str, ...]] = {}


def _payload_fields(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in attrs.fields(cls) if f.name not in ("key", "extra"))
    return names


CATALOGUE: dict[str, type[DomainEvent]] = {}
"""Event type name → class: every event type Baton writes."""


def _register(cls: type[DomainEvent]) -> type[DomainEvent]:
    if not cls.TYPE or cls.STREAM not in FAMILIES:
        raise TypeError(f"{cls.__name__} needs a TYPE and a STREAM from {FAMILIES}")
    if cls.TYPE in CATALOGUE:
        raise TypeError(f"event type {cls.TYPE} is defined twice")
    CATALOGUE[cls.TYPE] = cls
    return cls


def decode(event: Event) -> DomainEvent | None:
    """The typed form of a sealed (and upcast) envelope.

    None for a type this version does not know, an erased payload, or an
    event on a stream of another family than its type's (hand-written lines).
    """
    cls = CATALOGUE.get(event.type)
    if cls is None or not isinstance(event.data, dict):
        return None
    family, key = split_stream(event.stream)
    if family != cls.STREAM:
        return None
    data = event.data
    names = _payload_fields(cls)
    known = {name: data[name] for name in names if name in data}
    extra = {k: v for k, v in data.items() if k not in known} if len(known) != len(data) else {}
    if cls.KEY_IN_DATA and extra.get("key") == key:
        del extra["key"]
    return cls(key=key, extra=extra, **known)


# -- project -----------------------------------------------------------------------

@_register
@_event_class
class ProjectInitialized(DomainEvent):
    TYPE = names.PROJECT_INITIALIZED
    STREAM = PROJECT

    project_id: Any = None
    root_hint: Any = "."


# -- handoffs ----------------------------------------------------------------------

@_register
@_event_class
class HandoffCaptured(DomainEvent):
    """A new record (capture, prepare, a session baton's draft, an amend's child)."""

    TYPE = names.HANDOFF_CAPTURED
    STREAM = HANDOFF
    ERASABLE = ("handoff",)

    handoff: Any = None
    redactions: Any = attrs.field(factory=list)


@_register
@_event_class
class HandoffRevised(DomainEvent):
    TYPE = names.HANDOFF_REVISED
    STREAM = HANDOFF
    ERASABLE = ("handoff",)

    handoff: Any = None
    redactions: Any = attrs.field(factory=list)


@_register
@_event_class
class HandoffValidated(DomainEvent):
    TYPE = names.HANDOFF_VALIDATED
    STREAM = HANDOFF

    report: Any = None


@_register
@_event_class
class HandoffPromoted(DomainEvent):
    TYPE = names.HANDOFF_PROMOTED
    STREAM = HANDOFF

    accepted_warnings: Any = None


@_register
@_event_class
class HandoffResumed(DomainEvent):
    TYPE = names.HANDOFF_RESUMED
    STREAM = HANDOFF

    session: Any = None
    harness: Any = None
    freshness_state: Any = None


@_register
@_event_class
class HandoffSuperseded(DomainEvent):
    TYPE = names.HANDOFF_SUPERSEDED
    STREAM = HANDOFF

    by: Any = None


@_register
@_event_class
class HandoffArchived(DomainEvent):
    TYPE = names.HANDOFF_ARCHIVED
    STREAM = HANDOFF
    ERASABLE = ("reason",)

    reason: Any = None


@_register
@_event_class
class HandoffFlagged(DomainEvent):
    TYPE = names.HANDOFF_FLAGGED
    STREAM = HANDOFF

    flag: Any = None


@_register
@_event_class
class HandoffForgotten(DomainEvent):
    """``baton forget``: the payloads (``data``) of ``events`` — this handoff's
    events and those of the batons that carried it — were erased, their
    ``digest`` kept so every chain still verifies. The record is gone from
    every projection; ``verify`` counts an erased line as legitimate only when
    an event of this type names it (a contract shared with ``verify``)."""

    TYPE = names.HANDOFF_FORGOTTEN
    STREAM = HANDOFF

    handoff: Any = None
    events: Any = attrs.field(factory=list)
    reason: Any = None


HANDOFF_EVENTS = tuple(cls for cls in CATALOGUE.values() if cls.STREAM == HANDOFF)


# -- session batons -----------------------------------------------------------------

@_event_class
class BatonEvent(DomainEvent):
    """The telemetry every baton event carries (the spec's sessionId, branch,
    owner, shared, handoffId), named as the spec's ``operation``."""

    STREAM = BATON
    ERASABLE = ("owner", "branch")
    KEY_IN_DATA = True

    operation: Any = None
    handoff_id: Any = None
    owner: Any = None
    branch: Any = None
    shared: Any = False
    session: Any = None


@_register
@_event_class
class BatonCreated(BatonEvent):
    TYPE = names.BATON_CREATED
    ERASABLE = ("owner", "branch", "payload")

    harness: Any = None
    supersedes: Any = None
    payload: Any = None
    """``{"nextSteps", "failedApproaches", "openQuestions"}`` as the baton carries them."""


@_register
@_event_class
class BatonClaimed(BatonEvent):
    TYPE = names.BATON_CLAIMED

    claimed_at: Any = None


@_register
@_event_class
class BatonCancelled(BatonEvent):
    TYPE = names.BATON_CANCELLED


@_register
@_event_class
class BatonDismissed(BatonEvent):
    TYPE = names.BATON_DISMISSED

    via: Any = None



# -- sessions and their objectives -------------------------------------------------------

@_register
@_event_class
class SessionBegun(DomainEvent):
    TYPE = names.SESSION_BEGUN
    STREAM = SESSION
    ERASABLE = ("objective",)

    session: Any = None
    harness: Any = None
    owner: Any = None
    branch: Any = None
    objective: Any = None
    received_baton: Any = None


@_register
@_event_class
class SessionEnded(DomainEvent):
    TYPE = names.SESSION_ENDED
    STREAM = SESSION

    session: Any = None
    owner: Any = None
    branch: Any = None
    harness: Any = None
    left_baton: Any = None


@_register
@_event_class
class ObjectiveSet(DomainEvent):
    TYPE = names.OBJECTIVE_SET
    STREAM = OBJECTIVE
    ERASABLE = ("objective",)

    owner: Any = None
    branch: Any = None
    objective: Any = None
    session: Any = None


@_register
@_event_class
class ObjectiveCleared(DomainEvent):
    TYPE = names.OBJECTIVE_CLEARED
    STREAM = OBJECTIVE

    owner: Any = None
    branch: Any = None
    session: Any = None
    reason: Any = None
    previous_session: Any = None


SESSION_EVENTS = (SessionBegun, SessionEnded)
OBJECTIVE_EVENTS = (ObjectiveSet, ObjectiveCleared)



# -- the detector (§9) -------------------------------------------------------------------
# Stream ``detector/<session id>`` (``detector/-`` when no session is named).

@_register
@_event_class
class DetectorRecommended(DomainEvent):
    """A recommendation shown, or a draft prepared: the score, the inputs used
    and the reasons, so every recommendation is auditable (§9.2)."""

    TYPE = names.DETECTOR_RECOMMENDED
    STREAM = DETECTOR

    session: Any = None
    harness: Any = None
    source: Any = None
    action: Any = None
    pressure: Any = None
    readiness: Any = None
    inputs: Any = None
    unavailable: Any = None
    reasons: Any = None
    head: Any = None
    draft_id: Any = None
    missing: Any = None


@_register
@_event_class
class DetectorSnoozed(DomainEvent):
    TYPE = names.DETECTOR_SNOOZED
    STREAM = DETECTOR

    session: Any = None
    until: Any = None


@_register
@_event_class
class DetectorDisabled(DomainEvent):
    """No more recommendations for this session."""

    TYPE = names.DETECTOR_DISABLED
    STREAM = DETECTOR

    session: Any = None


@_register
@_event_class
class DetectorEnabled(DomainEvent):
    TYPE = names.DETECTOR_ENABLED
    STREAM = DETECTOR

    session: Any = None


DETECTOR_EVENTS = (DetectorRecommended, DetectorSnoozed, DetectorDisabled, DetectorEnabled)
