"""Appending what a decider decided.

Every writing use case ends the same way: the aggregate's ``decide`` returned
typed events for one stream, and they are appended expecting that stream at
the version the decision was made on (optimistic concurrency: if anything
landed on the stream since, the append fails with ``StreamVersionConflict``
and nothing is written). The write scope screens them for secrets and folds
the sealed events into the projections.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any, Sequence

    from baton.events.base import DomainEvent
    from baton.ledger.envelope import Event


def record(scope: Any, events: Sequence[DomainEvent], *, version: int, durable: bool = False,
           actor: str | None = None, session: str | None = None) -> list[Event]:
    """Append ``events`` (all of one stream) expecting the stream at ``version``.

    Raises:
        StreamVersionConflict: the stream moved on since the decision.
        PolicyBlock: the last screen refused a value.
    """
    if not events:
        return []
    streams = {event.stream for event in events}
    if len(streams) != 1:
        raise ValueError(f"one decision records events of one stream, not {sorted(streams)}")
    return scope.append([event.draft(actor=actor, session=session) for event in events],
                        expected={streams.pop(): version}, durable=durable)


def record_many(scope: Any, decisions: Sequence[tuple[Sequence[DomainEvent], int]], *, durable: bool = False,
                actor: str | None = None, session: str | None = None) -> list[Event]:
    """Append several decisions (each: the events of one stream and the version
    it was decided on) as one batch: one write, all or nothing."""
    drafts = []
    expected: dict[str, int] = {}
    for events, version in decisions:
        for event in events:
            expected[event.stream] = version
            drafts.append(event.draft(actor=actor, session=session))
    return scope.append(drafts, expected=expected, durable=durable) if drafts else []
