"""The contract every projection meets."""

from __future__ import annotations

from baton.events.names import HANDOFF, split_stream
from baton.ledger.envelope import Event

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any, Iterable, Protocol
else:
    Protocol = object  # an interface for type checkers; at run time a plain base (~0.07 ms less a class)

Doc = dict[str, "Any"]


class Projection(Protocol):
    name: str
    version: int
    """Bump when reducer logic changes: the runner then rebuilds from scratch."""
    order: str
    """What folding an event that arrives late (it sorts before events already
    folded, e.g. through ``baton sync``) takes — ``STREAM_ORDER`` or
    ``ANY_ORDER``; a projection without it makes the runner replay the
    ledger when a late event touches one of its documents."""

    def keys(self, event: Event) -> Iterable[str]:
        """The document keys ``event`` touches (often none)."""
        ...

    # Optional: ``folds_runs = True`` with ``apply_all(key, doc, events)``: the
    # runner hands the projection all of a batch's events of one document at
    # once (in project order, after the batch's other projections), and
    # ``apply_all`` returns what ``apply`` over them one by one would.
    #
    # Optional: ``types``, a frozenset of the event types ``keys`` may route
    # (for any other type it returns none). The runner then asks ``keys``
    # only of the projections that may route an event's type (a plan made
    # once per type and batch); without it, ``keys`` is asked of every event.

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        """Pure: return the new document (never mutate ``doc``), or None to delete it."""
        ...


STREAM_ORDER = "stream"
"""Every event a document folds is on one stream (the document's key is the
stream's, or begins with it: an objective's): a late event folds straight into it when it sorts after the last
event folded from its stream — the ``streams`` projection keeps that key."""
ANY_ORDER = "any"
"""``apply`` commutes: folding the same events in any order gives the same
document (counts, sets kept sorted, "latest" kept by merge key), so a late
event folds straight into it."""


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
        family, key = split_stream(event.stream)
        if family == HANDOFF and key:
            return (key,)
    return ()
