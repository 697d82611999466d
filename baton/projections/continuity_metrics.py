"""Local continuity metrics (spec §17), one document per handoff, never content.

Per handoff: how it was captured (``automation.trigger``, and whether the
detector gave reasons), its validation outcomes, when it was captured and
promoted (time-to-ready), its resumes and how many found it stale.
``baton metrics --local`` aggregates these documents in SQL (``totals``);
nothing here rereads the ledger.

Definitions (docs/cli.md, ``baton metrics``):

- a *recommendation* is a capture the detector recommended: trigger
  ``threshold``, or an ``automation.reasons`` list that is not empty;
- a *preparation* is a capture Baton prepared on its own, not by hand:
  trigger ``threshold`` or ``hook`` (a harness hook's draft);
- *validation outcomes* count each recorded report by its status;
- *time-to-ready* runs from the capture to the promotion, in seconds;
- a *stale resume* is a resume whose freshness state was ``stale``.

A forgotten handoff (``baton forget``) leaves no document.
"""

from __future__ import annotations

from baton.events.names import (
    HANDOFF_CAPTURED,
    HANDOFF_FORGOTTEN,
    HANDOFF_PROMOTED,
    HANDOFF_RESUMED,
    HANDOFF_VALIDATED,
)
from baton.ledger.envelope import Event
from baton.projections.base import STREAM_ORDER, handoff_key

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any, Iterable

AUTOMATIC_TRIGGERS = ("threshold", "hook")
_TYPES = frozenset({HANDOFF_CAPTURED, HANDOFF_VALIDATED, HANDOFF_PROMOTED, HANDOFF_RESUMED, HANDOFF_FORGOTTEN})


class ContinuityMetricsBase:
    """What routes an event to a handoff's metrics; the fold
    (``baton.projections.folds.continuity_metrics.ContinuityMetrics``) adds ``apply``."""

    name = "continuity_metrics"
    version = 1
    order = STREAM_ORDER

    types = _TYPES

    def keys(self, event: Event) -> Iterable[str]:
        return handoff_key(event, _TYPES)


def totals(db: Any) -> dict[str, Any]:
    """The §17 figures over every document, in SQL (one query per figure group)."""
    where = "FROM docs WHERE projection = 'continuity_metrics'"
    handoffs, recommended, prepared, resumes, stale = db.execute(
        "SELECT count(*), coalesce(sum(json_extract(doc, '$.recommended')), 0), "
        "coalesce(sum(json_extract(doc, '$.prepared')), 0), coalesce(sum(json_extract(doc, '$.resumes')), 0), "
        f"coalesce(sum(json_extract(doc, '$.stale_resumes')), 0) {where}").fetchone()
    outcomes: dict[str, int] = {}
    for status, count in db.execute(
            "SELECT v.key, sum(v.value) FROM docs, json_each(docs.doc, '$.validations') AS v "
            "WHERE docs.projection = 'continuity_metrics' GROUP BY v.key ORDER BY v.key").fetchall():
        outcomes[status] = int(count)
    seconds = [row[0] for row in db.execute(
        f"SELECT json_extract(doc, '$.ready_seconds') AS s {where} AND s IS NOT NULL ORDER BY s").fetchall()]
    ready = {"count": len(seconds), "median_seconds": _median(seconds),
             "mean_seconds": round(sum(seconds) / len(seconds), 3) if seconds else None,
             "max_seconds": seconds[-1] if seconds else None}
    return {"handoffs": handoffs, "recommendations": int(recommended), "preparations": int(prepared),
            "validation_outcomes": outcomes, "time_to_ready": ready, "resumes": int(resumes),
            "stale_on_resume": int(stale)}


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else round((values[mid - 1] + values[mid]) / 2, 6)
