"""The names of the event catalogue: stream families and event type names.

The modules beside this one define one class per event type (a named
tuple, ``baton.values.Value``), one
module per aggregate (``baton.events.catalogue`` re-exports them all); they
are what every writer and decider uses. Reading needs only the names: the
projections route an event by its type and stream, and a command whose
feeds gained nothing never folds one. Keeping the names here lets the read
path (``bootstrap``, ``session handoff``, ``resume``) route without defining
the classes, which would cost a tenth of such a command (``docs/performance.md``).
Each type is spelled once, here; each class in ``baton.events`` takes its
``TYPE`` from this module, and a test holds the two to each other.

``DECODED`` is the one piece of state here: while the projection runner
folds a batch, the typed form of each event decoded so far (see
``baton.events.base.decode``), so that the runner, which imports only this
module, can scope it.
"""

from __future__ import annotations

from contextvars import ContextVar

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a hook never needs it)
if TYPE_CHECKING:
    from typing import Any

# -- stream families -------------------------------------------------------------

HANDOFF = "handoff"
BATON = "baton"
SESSION = "session"
OBJECTIVE = "objective"
PROJECT = "project"
DETECTOR = "detector"
FAMILIES = (HANDOFF, BATON, SESSION, OBJECTIVE, PROJECT, DETECTOR)


def stream_of(family: str, key: str = "") -> str:
    """The stream name of aggregate ``key`` in ``family`` (``project`` has no key)."""
    return family if family == PROJECT else f"{family}/{key}"


def split_stream(stream: str) -> tuple[str, str]:
    """``("handoff", "<id>")`` for ``"handoff/<id>"``; ``("project", "")`` for ``"project"``."""
    family, _, key = stream.partition("/")
    return family, key


def handoff_stream(handoff_id: str) -> str:
    return stream_of(HANDOFF, handoff_id)


# -- event types, by family ------------------------------------------------------

PROJECT_INITIALIZED = "project.initialized"

HANDOFF_CAPTURED = "handoff.captured"
HANDOFF_REVISED = "handoff.revised"
HANDOFF_VALIDATED = "handoff.validated"
HANDOFF_PROMOTED = "handoff.promoted"
HANDOFF_RESUMED = "handoff.resumed"
HANDOFF_SUPERSEDED = "handoff.superseded"
HANDOFF_ARCHIVED = "handoff.archived"
HANDOFF_FLAGGED = "handoff.flagged"
HANDOFF_FORGOTTEN = "handoff.forgotten"
HANDOFF_TYPES = (HANDOFF_CAPTURED, HANDOFF_REVISED, HANDOFF_VALIDATED, HANDOFF_PROMOTED, HANDOFF_RESUMED,
                 HANDOFF_SUPERSEDED, HANDOFF_ARCHIVED, HANDOFF_FLAGGED, HANDOFF_FORGOTTEN)

BATON_CREATED = "baton.created"
BATON_CLAIMED = "baton.claimed"
BATON_CANCELLED = "baton.cancelled"
BATON_DISMISSED = "baton.dismissed"
BATON_TYPES = (BATON_CREATED, BATON_CLAIMED, BATON_CANCELLED, BATON_DISMISSED)

SESSION_BEGUN = "session.begun"
SESSION_ENDED = "session.ended"
SESSION_RESUMED = "session.resumed"
SESSION_TYPES = (SESSION_BEGUN, SESSION_ENDED, SESSION_RESUMED)

OBJECTIVE_SET = "objective.set"
OBJECTIVE_CLEARED = "objective.cleared"
OBJECTIVE_TYPES = (OBJECTIVE_SET, OBJECTIVE_CLEARED)

DETECTOR_RECOMMENDED = "detector.recommended"
DETECTOR_SNOOZED = "detector.snoozed"
DETECTOR_DISABLED = "detector.disabled"
DETECTOR_ENABLED = "detector.enabled"
DETECTOR_TYPES = (DETECTOR_RECOMMENDED, DETECTOR_SNOOZED, DETECTOR_DISABLED, DETECTOR_ENABLED)

TYPES_OF_FAMILY: dict[str, tuple[str, ...]] = {
    PROJECT: (PROJECT_INITIALIZED,), HANDOFF: HANDOFF_TYPES, BATON: BATON_TYPES, SESSION: SESSION_TYPES,
    OBJECTIVE: OBJECTIVE_TYPES, DETECTOR: DETECTOR_TYPES,
}
"""Every event type Baton writes, by the family of the streams it is appended to."""


# -- where each family's classes are defined ----------------------------------------

FAMILY_MODULES: dict[str, str] = {SESSION: "baton.events.session", OBJECTIVE: "baton.events.session",
                                  BATON: "baton.events.baton", HANDOFF: "baton.events.handoff",
                                  PROJECT: "baton.events.project", DETECTOR: "baton.events.detector"}
"""The module that defines each family's classes (a type no family names: the whole ``baton.events.catalogue``)."""

MODULE_OF_TYPE: dict[str, str] = {event_type: FAMILY_MODULES.get(family, "baton.events.catalogue")
                                   for family, types in TYPES_OF_FAMILY.items() for event_type in types}


DECODED: ContextVar[dict[Any, tuple[Any, Any]] | None] = ContextVar("baton_decoded", default=None)
"""While the runner folds a batch (``ProjectionRunner.fold`` sets it to a
new dict and resets it after): ``id(envelope)`` -> (the envelope, its
typed form). A batch's folds visit an event at different times (those that
fold a key's events at once run after the others), so the one-entry memo
of ``decode`` alone would decode it again. Also (a name, ``id(typed form)``,
its arguments) -> (the typed form, a value derived from it) for
``baton.events.base.derived``."""


def load_family(event_type: str) -> None:
    """Import the module that defines ``event_type``'s class and registers its
    upcasters (the whole catalogue for a type no family names)."""
    __import__(MODULE_OF_TYPE.get(event_type, "baton.events.catalogue"))
