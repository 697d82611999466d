"""Local metrics: how many events of each type, and when the first and last one were."""

from __future__ import annotations

from typing import Iterable

from baton.ledger.envelope import Event
from baton.projections.base import ANY_ORDER, STREAM_ORDER, Doc


class EventCounts:
    name = "event_counts"
    version = 2
    """2: the first and last events are kept by merge key (``first``, ``last``),
    so the document is the same whatever order events arrive in."""
    order = ANY_ORDER

    def keys(self, event: Event) -> Iterable[str]:
        return (event.type,)

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        merge_key = list(event.merge_key)
        if doc is None:
            return {"type": key, "count": 1, "first_at": event.at, "last_at": event.at,
                    "first": merge_key, "last": merge_key}
        out = {**doc, "count": doc.get("count", 0) + 1}
        if merge_key < (doc.get("first") or merge_key):
            out["first"], out["first_at"] = merge_key, event.at
        if merge_key > (doc.get("last") or merge_key):
            out["last"], out["last_at"] = merge_key, event.at
        return out


class Streams:
    """Each stream's version and last event: what optimistic concurrency
    reads, and what tells a late event (``STREAM_ORDER``) from one that folds
    straight into its stream's documents (``last_key``: the merge key of the
    last event folded, ``[hlc, writer, seq]``)."""

    name = "streams"
    version = 2
    """2: ``last_key``."""
    order = STREAM_ORDER

    def keys(self, event: Event) -> Iterable[str]:
        return (event.stream,)

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        return {
            "stream": key,
            "version": event.stream_version,
            "last_event": event.id,
            "last_type": event.type,
            "last_at": event.at,
            "last_key": list(event.merge_key),
        }
