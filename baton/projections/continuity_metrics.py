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

from typing import Any, Iterable

from baton.events.names import (
    HANDOFF_CAPTURED, HANDOFF_FORGOTTEN, HANDOFF_PROMOTED, HANDOFF_RESUMED, HANDOFF_VALIDATED,
)
from baton.ledger.envelope import Event
from baton.projections.base import STREAM_ORDER, Doc, handoff_key

AUTOMATIC_TRIGGERS = ("threshold", "hook")
_TYPES = frozenset({HANDOFF_CAPTURED, HANDOFF_VALIDATED, HANDOFF_PROMOTED, HANDOFF_RESUMED, HANDOFF_FORGOTTEN})


class ContinuityMetrics:
    name = "continuity_metrics"
    version = 1
    order = STREAM_ORDER

    def keys(self, event: Event) -> Iterable[str]:
        return handoff_key(event, _TYPES)

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        # The classes, only once there is an event to fold (``baton.events.names``).
        from baton.events.catalogue import (
            HandoffCaptured, HandoffForgotten, HandoffPromoted, HandoffResumed, HandoffValidated, decode,
        )

        typed = decode(event)
        if isinstance(typed, HandoffForgotten):
            return None
        if typed is None:
            return doc
        if isinstance(typed, HandoffCaptured):
            if doc is not None:
                return doc
            automation = typed.handoff.get("automation") if isinstance(typed.handoff, dict) else None
            automation = automation if isinstance(automation, dict) else {}
            trigger = automation.get("trigger") if isinstance(automation.get("trigger"), str) else "manual"
            reasons = automation.get("reasons")
            return {"trigger": trigger,
                    "recommended": trigger == "threshold" or (isinstance(reasons, list) and bool(reasons)),
                    "prepared": trigger in AUTOMATIC_TRIGGERS, "captured_at": event.at, "ready_at": None,
                    "ready_seconds": None, "validations": {}, "resumes": 0, "stale_resumes": 0}
        if doc is None:
            return None
        out = dict(doc)
        if isinstance(typed, HandoffValidated):
            status = typed.report.get("status") if isinstance(typed.report, dict) else None
            status = status if isinstance(status, str) else "unknown"
            out["validations"] = {**doc["validations"], status: doc["validations"].get(status, 0) + 1}
        elif isinstance(typed, HandoffPromoted) and doc.get("ready_at") is None:
            out["ready_at"] = event.at
            out["ready_seconds"] = _seconds_between(doc["captured_at"], event.at)
        elif isinstance(typed, HandoffResumed):
            out["resumes"] = doc["resumes"] + 1
            out["stale_resumes"] = doc["stale_resumes"] + (typed.freshness_state == "stale")
        return out


def _seconds_between(start: str, end: str) -> float | None:
    from baton.ledger.clock import parse_rfc3339

    try:
        return max(0.0, round((parse_rfc3339(end) - parse_rfc3339(start)).total_seconds(), 6))
    except (TypeError, ValueError):
        return None


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
