"""Local metrics: how many events of each type, and when the first and last one were."""

from __future__ import annotations

from baton.ledger.envelope import Event
from baton.projections.base import ANY_ORDER, STREAM_ORDER, Doc

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Iterable, Sequence


class EventCounts:
    name = "event_counts"
    version = 2
    """2: the first and last events are kept by merge key (``first``, ``last``),
    so the document is the same whatever order events arrive in."""
    order = ANY_ORDER
    folds_runs = True
    """A batch's events of one type are counted in one pass (``apply_all``)."""

    def keys(self, event: Event) -> Iterable[str]:
        return (event.type,)

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        return self.apply_all(key, doc, (event,))

    def apply_all(self, key: str, doc: Doc | None, events: Sequence[Event]) -> Doc | None:
        """``apply`` over ``events`` in turn, one document built at the end."""
        if not events:
            return doc
        out: Doc
        if doc is None:
            head = events[0]
            merge_key = list(head.merge_key)
            out = {"type": key, "count": 1, "first_at": head.at, "last_at": head.at,
                   "first": merge_key, "last": merge_key}
            events = events[1:]
        else:
            out = dict(doc)
        count = out.get("count", 0)
        first, last = out.get("first"), out.get("last")
        for event in events:
            count += 1
            merge_key = list(event.merge_key)
            if merge_key < (first or merge_key):
                first = out["first"] = merge_key
                out["first_at"] = event.at
            if merge_key > (last or merge_key):
                last = out["last"] = merge_key
                out["last_at"] = event.at
        out["count"] = count
        return out


class Streams:
    """Each stream's version and last event: what optimistic concurrency
    reads, and what tells a late event (``STREAM_ORDER``) from one that folds
    straight into its stream's documents (``last_key``: the merge key of the
    last event folded, ``[hlc, writer, seq]``), and where it begins
    (``first_key``, the merge key of its first event: ``log --stream``
    reads no further back; absent from a stream an older Baton began, until
    a ``baton rebuild``)."""

    name = "streams"
    version = 3
    """2: ``last_key``. 3: ``version`` is the highest folded, not the last
    event's: replicas apart each write a stream's next version, and one
    imported by sync can sort after a higher one (docs/sync.md, "Concurrent
    stream versions")."""
    order = STREAM_ORDER
    folds_runs = True
    """A batch's events of one stream: the document is the last one's, with the highest version (``apply_all``)."""

    def keys(self, event: Event) -> Iterable[str]:
        return (event.stream,)

    def apply_all(self, key: str, doc: Doc | None, events: Sequence[Event]) -> Doc | None:
        """``apply`` over ``events`` in turn: the last one's document, with the highest version."""
        if not events:
            return doc
        highest = max(e.stream_version for e in events)
        out = _stream_doc(key, events[-1], max(highest, doc["version"]) if doc else highest)
        first = min(list(e.merge_key) for e in events)
        if doc is None:
            out["first_key"] = first
        elif isinstance(doc.get("first_key"), list):  # absent: folded by a Baton before it (not known)
            out["first_key"] = min(doc["first_key"], first)
        return out

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        return self.apply_all(key, doc, (event,))


def _stream_doc(key: str, event: Event, version: int) -> Doc:
    """The ``streams`` document of ``key`` after ``event``, the highest version folded being ``version``."""
    return {
        "stream": key,
        "version": version,
        "last_event": event.id,
        "last_type": event.type,
        "last_at": event.at,
        "last_key": list(event.merge_key),
    }
