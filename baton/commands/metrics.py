"""``baton metrics --local``: counts kept on this machine, read from the ledger.

Nothing is ever sent anywhere. The spec's telemetry operations are ledger
events: ``handoff_created`` is ``baton.created`` and ``handoff_claimed`` is
``baton.claimed``, each carrying sessionId, branch, owner, shared and
handoffId in its data.

Only events the baton index accepted count: a malformed ``baton.created``
(no handoff id, no step) or a claim of a baton that was not pending changes
no baton, so it is no telemetry either. The raw per-type counts of the
ledger stay under ``events``.
"""

from __future__ import annotations

from typing import Any

import attrs

from baton.commands.batons import current_batons, uses_project

OPERATIONS = {
    "baton.created": "handoff_created",
    "baton.claimed": "handoff_claimed",
    "baton.cancelled": "handoff_cancelled",
    "baton.dismissed": "handoff_dismissed",
}
RECENT = 20


def _telemetry_record(event) -> dict[str, Any]:
    data = event.data if isinstance(event.data, dict) else {}
    return {
        "operation": OPERATIONS[event.type],
        "at": event.at,
        "sessionId": data.get("session"),
        "branch": data.get("branch"),
        "owner": data.get("owner"),
        "shared": data.get("shared"),
        "handoffId": data.get("handoff_id"),
    }


def _accepted_telemetry(events) -> tuple[list, int]:
    """The telemetry events the baton index accepted, in ledger order, and how many batons were superseded.

    Folds the ``baton/`` streams again with the index's own reducer, so
    "accepted" means exactly what the index did with each event.
    """
    from baton.projections.batons import Batons

    index = Batons()
    docs: dict[str, Any] = {}
    accepted = []
    superseded = 0
    for event in events:
        for key in index.keys(event):
            folded = index.fold(key, docs.get(key), event)
            docs[key] = folded.doc
            if folded.accepted and event.type in OPERATIONS:
                accepted.append(event)
                superseded += folded.superseded is not None
    return accepted, superseded


@attrs.frozen
class MetricsResult:
    counts: dict[str, int]
    events: dict[str, int]
    recent: list[dict[str, Any]]
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"local": True, "metrics": self.counts, "events": self.events, "recent": self.recent}

    def render(self) -> str:
        width = max(len(k) for k in self.counts)
        lines = ["Local metrics (never sent anywhere):"]
        lines += [f"  {k:<{width}}  {v}" for k, v in self.counts.items()]
        return "\n".join(lines)


@uses_project
def local_metrics(project: Any = None) -> MetricsResult:
    """Counts of the telemetry operations, sessions and events, plus the latest telemetry records."""
    opened = project
    runner = opened.reading()
    events = {key: int(doc.get("count", 0)) for key, doc in runner.docs("event_counts") if isinstance(doc, dict)}
    batons = [p.record for p in current_batons(runner)]
    sessions = [doc for _key, doc in runner.docs("sessions") if isinstance(doc, dict)]
    telemetry, superseded = _accepted_telemetry(opened.ledger.read_all())
    counts = {op: sum(1 for e in telemetry if e.type == t) for t, op in OPERATIONS.items()}
    counts.update(
        handoff_superseded=superseded,
        batons_pending=sum(1 for r in batons if r.pending),
        sessions_begun=events.get("session.begun", 0),
        sessions_ended=events.get("session.ended", 0),
        sessions_open=sum(1 for s in sessions if s.get("status") == "open"),
        objectives_set=events.get("objective.set", 0),
        handoffs_captured=events.get("handoff.captured", 0),
        events_total=sum(events.values()),
    )
    recent = [_telemetry_record(e) for e in telemetry[-RECENT:]]
    return MetricsResult(counts, dict(sorted(events.items())), recent)
