"""``baton metrics --local``: counts kept on this machine, read from the baton index.

Nothing is ever sent anywhere. The spec's telemetry operations are ledger
events: ``handoff_created`` is ``baton.created`` and ``handoff_claimed`` is
``baton.claimed``, each carrying sessionId, branch, owner, shared and
handoffId in its data.

Only events the baton index accepted count: a malformed ``baton.created``
(no handoff id, no step) or a claim of a baton that was not pending changes
no baton, so it is no telemetry either (the ``batons`` projection counts
them as it folds). The raw per-type counts of the ledger stay under
``events``. Sessions are counted as sessions, from the sessions index
(``baton.domain.session_counts``), never as their events: a ledger written
before an end was recorded once holds a ``session.ended`` for each later end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from baton.commands.batons import current_batons
from baton.domain.session_counts import session_counts
from baton.events.catalogue import HandoffCaptured, ObjectiveSet
from baton.model import frozen
from baton.projections.batons import OPERATIONS
from baton.projections.continuity_metrics import totals as continuity_totals

if TYPE_CHECKING:
    from baton.commands.context import Project

RECENT = 20


@frozen
class MetricsResult:
    counts: dict[str, int]
    events: dict[str, int]
    recent: list[dict[str, Any]]
    continuity: dict[str, Any] = attrs.field(factory=dict)
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"local": True, "metrics": self.counts, "events": self.events, "recent": self.recent,
                "continuity": self.continuity}

    def render(self) -> str:
        width = max(len(k) for k in self.counts)
        lines = ["Local metrics (never sent anywhere):"]
        lines += [f"  {k:<{width}}  {v}" for k, v in self.counts.items()]
        c = self.continuity
        if c:
            ready = c["time_to_ready"]
            outcomes = ", ".join(f"{k} {v}" for k, v in c["validation_outcomes"].items()) or "none"
            lines += ["Continuity (spec §17):",
                      f"  recommendations     {c['recommendations']}",
                      f"  preparations        {c['preparations']}",
                      f"  validation outcomes {outcomes}",
                      f"  time to ready       {ready['count']} promoted{_median(ready['median_seconds'])}",
                      f"  resumes             {c['resumes']}",
                      f"  stale on resume     {c['stale_on_resume']}"]
        return "\n".join(lines)


def _median(seconds: float | None) -> str:
    """``, median N s`` (None, with nothing promoted: nothing)."""
    return "" if seconds is None else f", median {seconds:g} s"


def local_metrics(project: "Project") -> MetricsResult:
    """Counts of the telemetry operations, sessions and events, plus the latest telemetry records."""
    opened = project
    runner = opened.reading()
    events = {key: int(doc.get("count", 0)) for key, doc in runner.docs("event_counts") if isinstance(doc, dict)}
    batons = [p.record for p in current_batons(runner)]
    sessions = [doc for _key, doc in runner.docs("sessions") if isinstance(doc, dict)]
    counts = dict.fromkeys(OPERATIONS.values(), 0)
    counts["handoff_superseded"] = 0
    recent: list[dict[str, Any]] = []
    for _key, doc in runner.docs("batons"):
        if not isinstance(doc, dict):
            continue
        for op, n in (doc.get("telemetry") or {}).items():
            counts[op] = counts.get(op, 0) + n
        recent.extend(doc.get("recent") or [])
    recent = sorted(recent, key=lambda r: r.get("hlc", 0))[-RECENT:]
    counts.update(
        batons_pending=sum(1 for r in batons if r.pending),
        **session_counts(sessions),
        objectives_set=events.get(ObjectiveSet.TYPE, 0),
        handoffs_captured=events.get(HandoffCaptured.TYPE, 0),
        events_total=sum(events.values()),
    )
    recent = [{k: v for k, v in r.items() if k not in ("hlc", "writer")} for r in recent]
    return MetricsResult(counts, dict(sorted(events.items())), recent, continuity_totals(runner.db))
