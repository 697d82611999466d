"""The projections a project keeps. Order matters only for readability:
each projection folds every event independently of the others."""

from __future__ import annotations

from baton.projections.base import Projection


def default_projections() -> list[Projection]:
    from baton.projections.batons import Batons, BatonScopes
    from baton.projections.continuity_metrics import ContinuityMetrics
    from baton.projections.detector import Detector
    from baton.projections.event_counts import EventCounts, Streams
    from baton.projections.handoffs import Handoffs
    from baton.projections.lineage import Lineage
    from baton.projections.sessions import Objectives, Sessions

    return [Streams(), EventCounts(), Batons(), BatonScopes(), Sessions(), Objectives(), Handoffs(), Lineage(), Detector(),
            ContinuityMetrics()]
