"""The detector's events (§9; stream ``detector/<session id>``)."""

from __future__ import annotations

from baton.events import names
from baton.events.base import DomainEvent, register
from baton.events.names import DETECTOR

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any

# -- the detector (§9) -------------------------------------------------------------------
# Stream ``detector/<session id>`` (``detector/-`` when no session is named).

@register
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


@register
class DetectorSnoozed(DomainEvent):
    TYPE = names.DETECTOR_SNOOZED
    STREAM = DETECTOR

    session: Any = None
    until: Any = None


@register
class DetectorDisabled(DomainEvent):
    """No more recommendations for this session."""

    TYPE = names.DETECTOR_DISABLED
    STREAM = DETECTOR

    session: Any = None


@register
class DetectorEnabled(DomainEvent):
    TYPE = names.DETECTOR_ENABLED
    STREAM = DETECTOR

    session: Any = None


DETECTOR_EVENTS = (DetectorRecommended, DetectorSnoozed, DetectorDisabled, DetectorEnabled)
