"""The event catalogue: one class per event type.

Every fact Baton records is one of the frozen classes of the catalogue: the
project's (``baton.events.project``), the handoffs' (``.handoff``), the
sessions' and objectives' (``.session``), the batons' (``.baton``) and the
detector's (``.detector``) — one module per aggregate, so a session start
defines 4 classes, not 24 — all importable from here; ``baton.events.base`` holds their base class and the
registry. A class knows
its type name (``TYPE``), the schema version it writes (``SCHEMA``), the
stream family its events belong to (``STREAM``: ``handoff/<key>``,
``baton/<key>``, ``session/<key>``, ``objective/<key>``, ``detector/<key>``
or the singleton ``project``), and which payload members ``baton forget`` may erase later
(``ERASABLE``). Upcasters for old schemas are registered next to the class
they upgrade, in the process-wide registry the runner applies on read
(``baton.ledger.upcast.UPCASTERS``); the runner loads an event's family
module before upcasting it (``baton.events.names.load_family``).

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

Type names and stream families are spelled in ``baton.events.names``, which
the read path imports without defining these classes (a command with nothing
new to fold never needs them). Adding an event type: name it there (and in its
family's tuple), write its class in its family's module with ``TYPE``, ``STREAM`` and its
payload fields, add it to its aggregate's decider (``decide`` emits it,
``evolve`` folds it), and, if a read model needs it, to one projection.
"""

from __future__ import annotations

from baton.events.base import (  # the whole catalogue is importable from here (``__all__``)
    CATALOGUE,
    DomainEvent,
    decode,
)
from baton.events.baton import (
    BatonCancelled,
    BatonClaimed,
    BatonCreated,
    BatonDismissed,
    BatonEvent,
)
from baton.events.detector import (
    DETECTOR_EVENTS,
    DetectorDisabled,
    DetectorEnabled,
    DetectorRecommended,
    DetectorSnoozed,
)
from baton.events.handoff import (
    HANDOFF_EVENTS,
    HandoffArchived,
    HandoffCaptured,
    HandoffFlagged,
    HandoffForgotten,
    HandoffPromoted,
    HandoffResumed,
    HandoffRevised,
    HandoffSuperseded,
    HandoffValidated,
)
from baton.events.names import (  # re-exported: writers and deciders name them from here
    BATON,
    DETECTOR,
    FAMILIES,
    HANDOFF,
    OBJECTIVE,
    PROJECT,
    SESSION,
    load_family,
    split_stream,
    stream_of,
)
from baton.events.project import ProjectInitialized
from baton.events.session import (
    OBJECTIVE_EVENTS,
    SESSION_EVENTS,
    ObjectiveCleared,
    ObjectiveSet,
    SessionBegun,
    SessionEnded,
)

__all__ = ["BATON", "DETECTOR", "FAMILIES", "HANDOFF", "OBJECTIVE", "PROJECT", "SESSION", "split_stream",
    "stream_of", "CATALOGUE", "DomainEvent", "decode", "load_family", "BatonCancelled", "BatonClaimed",
    "BatonCreated", "BatonDismissed", "BatonEvent", "OBJECTIVE_EVENTS", "SESSION_EVENTS", "ObjectiveCleared",
    "ObjectiveSet", "SessionBegun", "SessionEnded", "ProjectInitialized", "HandoffCaptured", "HandoffRevised",
    "HandoffValidated", "HandoffPromoted", "HandoffResumed", "HandoffSuperseded", "HandoffArchived",
    "HandoffFlagged", "HandoffForgotten", "DetectorRecommended", "DetectorSnoozed", "DetectorDisabled",
    "DetectorEnabled", "HANDOFF_EVENTS", "DETECTOR_EVENTS"]
