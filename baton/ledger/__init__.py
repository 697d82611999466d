"""The append-only event store: envelopes, feeds, locks, hashes and replay.

This package knows nothing about handoffs or batons and never imports from
any other part of Baton except ``baton.errors`` and ``baton.canonical``.
"""

from baton.ledger.envelope import Event, EventDraft
from baton.ledger.feed import FeedHead
from baton.ledger.store import Ledger

__all__ = ["Event", "EventDraft", "FeedHead", "Ledger"]
