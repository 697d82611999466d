"""The ``continuity_metrics`` projection's fold (``baton.projections.continuity_metrics``:
routing, definitions and the SQL totals): each handoff's figures from its typed events."""

from __future__ import annotations

from baton.events.base import decode
from baton.events.handoff import HandoffCaptured, HandoffForgotten, HandoffPromoted, HandoffResumed, HandoffValidated
from baton.ledger.clock import parse_rfc3339
from baton.ledger.envelope import Event
from baton.projections.base import Doc
from baton.projections.continuity_metrics import AUTOMATIC_TRIGGERS, ContinuityMetricsBase


class ContinuityMetrics(ContinuityMetricsBase):
    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
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
    try:
        return max(0.0, round((parse_rfc3339(end) - parse_rfc3339(start)).total_seconds(), 6))
    except (TypeError, ValueError):
        return None
