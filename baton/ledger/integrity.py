"""What the ledger itself records about its feeds, so damage cannot hide.

Two housekeeping event types live on a writer's own stream ``ledger/<writer>``
(they belong to no aggregate, and the event catalogue above the ledger
leaves them alone):

- ``ledger.heads``: every ``HEADS_EVERY`` events of its own feed, a writer
  appends, in the same batch, the heads ``(seq, hash, offset)`` of the *other*
  feeds it has read. One feed vouches for another: a feed later found shorter
  than a head recorded elsewhere, missing, or holding another line at that
  seq is reported by ``verify``.
- ``ledger.repaired``: ``baton repair`` set events of a feed aside into
  ``quarantine/``. It names the head kept and every event set aside, so the
  heads recorded before the repair are not reported against it.
"""

from __future__ import annotations

from baton.ledger.envelope import EventDraft

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a hook never needs it)
if TYPE_CHECKING:
    from typing import Mapping

HEADS_TYPE = "ledger.heads"
REPAIRED_TYPE = "ledger.repaired"
HEADS_EVERY = 64
"""A writer records the other feeds' heads each time its own seq crosses a multiple of this."""


def ledger_stream(writer: str) -> str:
    return f"ledger/{writer}"


def heads_due(seq_before: int, appended: int) -> bool:
    """True when an append of ``appended`` events after ``seq_before`` (plus
    the heads event itself) crosses a multiple of ``HEADS_EVERY``."""
    return (seq_before + appended + 1) // HEADS_EVERY > seq_before // HEADS_EVERY


def heads_draft(writer: str, heads: Mapping[str, tuple[int, str | None, int]]) -> EventDraft | None:
    """The ``ledger.heads`` event for the other feeds' ``(seq, hash, offset)``, or None with none to record."""
    others = {
        feed: {"seq": seq, "hash": hash_, "offset": offset}
        for feed, (seq, hash_, offset) in sorted(heads.items())
        if feed != writer and seq > 0
    }
    if not others:
        return None
    return EventDraft(HEADS_TYPE, ledger_stream(writer), {"heads": others})
