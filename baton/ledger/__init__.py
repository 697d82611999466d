"""The append-only event store: envelopes, feeds, locks, hashes and replay.

This package knows nothing about handoffs or batons and never imports from
any other part of Baton except ``baton.errors``, ``baton.canonical`` and
``baton.model`` (``tests/test_layers.py``).
Everything above it goes through ``LedgerProtocol`` (``protocol.py``), which
the JSONL ``Ledger`` and the in-memory ``MemoryLedger`` both implement.
"""

from baton.ledger.envelope import Event, EventDraft
from baton.ledger.feed import FeedHead
from baton.ledger.protocol import Changes, Cursor, FeedRewritten, LedgerProtocol
from baton.ledger.store import Ledger

__all__ = ["Changes", "Cursor", "Event", "EventDraft", "FeedHead", "FeedRewritten", "Ledger", "LedgerProtocol"]
