"""A test projection for the runner tests (the replay state machine folds the real ones)."""

from __future__ import annotations

from baton.canonical import pretty_bytes
from baton.projections.base import STREAM_ORDER
from baton.projections.event_counts import EventCounts, Streams

START_NS = 1_700_000_000_000_000_000


class StreamLog:
    """Order-sensitive and materializing: every event of a stream, in the order
    folded, so any fold out of project order changes the document and its file."""

    name = "stream_log"
    version = 1
    order = STREAM_ORDER

    def keys(self, event):
        return (event.stream,)

    def apply(self, key, doc, event):
        if event.type == "test.dropped":
            return None
        entries = (doc or {}).get("entries", []) + [{"id": event.id, "data": event.data, "schema": event.schema}]
        return {"stream": key, "entries": entries}

    def materialize(self, key, doc):
        return {f"logs/{key.replace('/', '__')}.json": pretty_bytes(doc)}


def projections():
    return [Streams(), EventCounts(), StreamLog()]
