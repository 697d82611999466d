"""Local metrics: how many events of each type, and when the last one was."""

from __future__ import annotations

from typing import Iterable

from baton.ledger.envelope import Event
from baton.projections.base import Doc


class EventCounts:
    name = "event_counts"
    version = 1

    def keys(self, event: Event) -> Iterable[str]:
        return (event.type,)

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        count = (doc or {}).get("count", 0) + 1
        return {"type": key, "count": count, "first_at": (doc or {}).get("first_at", event.at), "last_at": event.at}


class Streams:
    """Each stream's version and last event: what optimistic concurrency reads."""

    name = "streams"
    version = 1

    def keys(self, event: Event) -> Iterable[str]:
        return (event.stream,)

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        return {
            "stream": key,
            "version": event.stream_version,
            "last_event": event.id,
            "last_type": event.type,
            "last_at": event.at,
        }
