"""The ``detector`` projection: each session's cooldown state (spec §9.2).

One document per ``detector/<session>`` stream, folded from the detector's
events (``baton.domain.detector.evolve_state``): when a recommendation was
last shown and at which repository head, a snooze, whether the detector is
disabled for the session. One more document, ``_material``, holds the time
of the project's last material event (a handoff validated or promoted), which
ends every cooldown. Replay reproduces the suppression exactly.
"""

from __future__ import annotations

from baton.events.names import DETECTOR, DETECTOR_TYPES, HANDOFF_PROMOTED, HANDOFF_VALIDATED, split_stream
from baton.ledger.envelope import Event
from baton.projections.base import STREAM_ORDER

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Iterable

MATERIAL = "_material"
_TYPES = frozenset(DETECTOR_TYPES)
_MATERIAL_TYPES = frozenset((HANDOFF_VALIDATED, HANDOFF_PROMOTED))


class DetectorBase:
    """What routes an event to the detector's documents; the fold
    (``baton.projections.folds.detector.Detector``) adds ``apply``."""

    name = "detector"
    version = 2
    """2: ``_material`` keeps the newest material event by merge key, whatever
    order events arrive in."""
    order = STREAM_ORDER
    """Each session's document folds its ``detector/<session>`` stream;
    ``_material`` (every stream's) keeps the event with the highest merge key,
    in any order."""

    types = _TYPES | _MATERIAL_TYPES

    def keys(self, event: Event) -> Iterable[str]:
        if event.type in _TYPES:
            family, key = split_stream(event.stream)
            return (key,) if family == DETECTOR and key else ()
        if event.type in _MATERIAL_TYPES:
            return (MATERIAL,)
        return ()
