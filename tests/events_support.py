"""Typed catalogue events as the ledger would record them, for decider tests."""

from __future__ import annotations

import itertools

from baton.events.catalogue import DomainEvent
from baton.ledger.envelope import Event, seal

_seq = itertools.count(1)


def recorded(event: DomainEvent, *, at: str = "2026-09-02T15:00:00.000000Z", version: int = 1,
             session: str | None = None, actor: str | None = None) -> Event:
    """``event`` sealed as one line of a test feed (its own envelope, no chain)."""
    n = next(_seq)
    return seal(event.draft(actor=actor, session=session), event_id=f"00000000-0000-7000-8000-{n:012d}",
                writer="test", seq=n, at=at, hlc=n, stream_version=version, prev=None)
