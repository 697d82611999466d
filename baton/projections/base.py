"""The contract every projection meets."""

from __future__ import annotations

from typing import Any, Iterable, Protocol

from baton.ledger.envelope import Event

Doc = dict[str, Any]


class Projection(Protocol):
    name: str
    version: int
    """Bump when reducer logic changes: the runner then rebuilds from scratch."""

    def keys(self, event: Event) -> Iterable[str]:
        """The document keys ``event`` touches (often none)."""
        ...

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        """Pure: return the new document (never mutate ``doc``), or None to delete it."""
        ...


class Materializing(Protocol):
    def materialize(self, key: str, doc: Doc) -> dict[str, bytes]:
        """Files (paths relative to ``.baton/``) that show ``doc``; a pure function of it."""
        ...


class Indexing(Protocol):
    def setup_index(self, db: Any) -> None:
        """Create secondary tables (called inside the runner's transaction)."""
        ...

    def reset_index(self, db: Any) -> None:
        """Empty secondary tables before a rebuild."""
        ...

    def index(self, db: Any, changed: list[tuple[str, Doc | None]]) -> None:
        """Mirror the changed documents (``(key, doc)``, None for a deleted
        one, in key order, each key once) into secondary tables, in the
        runner's transaction: one call per batch of a replay, so the SQL runs
        once per batch (``executemany``), not once per document."""
        ...


def handoff_key(event: Event, types: frozenset[str]) -> tuple[str, ...]:
    """The handoff id an event of ``types`` on a ``handoff/<id>`` stream folds into
    (none for any other event): the keys of the projections kept per handoff."""
    if event.type in types:
        from baton.event_names import HANDOFF, split_stream

        family, key = split_stream(event.stream)
        if family == HANDOFF and key:
            return (key,)
    return ()
