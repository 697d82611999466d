"""The event catalogue: one class per event type.

Every fact Baton records is one of the frozen classes of the catalogue: the
project's, the handoffs' and the detector's below, the sessions' and
objectives' in ``baton.events_session`` and the batons' in
``baton.events_baton`` (so a session start defines 4 classes, not 24), all
importable from here; ``baton.events_base`` holds their base class and the
registry. A class knows
its type name (``TYPE``), the schema version it writes (``SCHEMA``), the
stream family its events belong to (``STREAM``: ``handoff/<key>``,
``baton/<key>``, ``session/<key>``, ``objective/<key>``, ``detector/<key>``
or the singleton ``project``), and which payload members ``baton forget`` may erase later
(``ERASABLE``). Upcasters for old schemas are registered next to the class
they upgrade, in the process-wide registry the runner applies on read
(``baton.ledger.upcast.UPCASTERS``); the runner loads an event's family
module before upcasting it (``baton.events_base.load_family``).

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
family's tuple), write its class in its family's module with ``TYPE``, ``STREAM`` and its
payload fields, add it to its aggregate's decider (``decide`` emits it,
``evolve`` folds it), and, if a read model needs it, to one projection.
"""

from __future__ import annotations

from typing import Any

import attrs

from baton import event_names as names
from baton.event_names import (  # re-exported: writers and deciders name them from here
    BATON, DETECTOR, FAMILIES, HANDOFF, OBJECTIVE, PROJECT, SESSION, split_stream, stream_of,
)
from baton.events_base import (  # the whole catalogue is importable from here (``__all__``)
    CATALOGUE, DomainEvent, _event_class, _register, decode, load_family,
)
from baton.events_baton import (
    BatonCancelled, BatonClaimed, BatonCreated, BatonDismissed, BatonEvent,
)
from baton.events_session import (
    OBJECTIVE_EVENTS, SESSION_EVENTS, ObjectiveCleared, ObjectiveSet, SessionBegun, SessionEnded,
)



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


__all__ = ["BATON", "DETECTOR", "FAMILIES", "HANDOFF", "OBJECTIVE", "PROJECT", "SESSION", "split_stream",
    "stream_of", "CATALOGUE", "DomainEvent", "decode", "load_family", "BatonCancelled", "BatonClaimed",
    "BatonCreated", "BatonDismissed", "BatonEvent", "OBJECTIVE_EVENTS", "SESSION_EVENTS", "ObjectiveCleared",
    "ObjectiveSet", "SessionBegun", "SessionEnded", "ProjectInitialized", "HandoffCaptured", "HandoffRevised",
    "HandoffValidated", "HandoffPromoted", "HandoffResumed", "HandoffSuperseded", "HandoffArchived",
    "HandoffFlagged", "HandoffForgotten", "DetectorRecommended", "DetectorSnoozed", "DetectorDisabled",
    "DetectorEnabled", "HANDOFF_EVENTS", "DETECTOR_EVENTS"]
