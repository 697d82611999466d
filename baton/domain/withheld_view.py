"""What ``baton log`` shows of an event a forget could not name (docs/sync.md, "Forgetting across
replicas"): an event of a forgotten handoff's own stream that still holds a payload, made on another
clone before the forget reached it (``baton.domain.forgetting.WithheldEdit``). No projection folds
it; ``baton log`` withholds it the same way, until ``baton forget`` of the handoff runs again. Light:
``baton log`` reads it without the events catalogue.
"""

from __future__ import annotations

from typing import Mapping

from baton.events.names import HANDOFF_FORGOTTEN
from baton.ledger.envelope import Event
from baton.values import replace

WITHHELD = "withheld"
"""The member ``baton log`` puts on an event whose payload it leaves out (``withheld_from_log``)."""


def withheld_from_log(event: Event, forgotten: Mapping[str, str]) -> Event:
    """``event`` as ``baton log`` shows it: an event of a forgotten handoff's own stream that still
    holds a payload without it, as an erased line is, and marked ``WITHHELD`` with what erases it;
    any other event as it is. ``forgotten``: stream → handoff id, of the handoffs a forget left
    without a record."""
    handoff = forgotten.get(event.stream)
    if handoff is None or event.erased or event.type == HANDOFF_FORGOTTEN:
        return event
    why = (f"its handoff {handoff} was forgotten, and this event, made apart before the forget reached "
           f"its clone, still holds its content; `baton forget {handoff[-8:]}` erases it")
    return replace(event, data=None, extra={**event.extra, WITHHELD: why})
