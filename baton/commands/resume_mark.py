"""``resume --mark-resumed``: record a resume (``handoff.resumed``, with the
session, harness and freshness state). Reading and rendering a record
(``baton.commands.resume``) never imports the event classes or the decider.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from baton.commands.handoff_facts import now_timestamp
from baton.commands.ids import load_handoff
from baton.commands.record import record as record_events
from baton.domain.aggregates import handoff as aggregate
from baton.events.names import handoff_stream

if TYPE_CHECKING:
    from baton.commands.context import Project


def mark_resumed(opened: "Project", handoff_id: str, freshness_state: str, *, session: str | None,
                 harness: str | None) -> dict[str, Any] | None:
    """Append ``handoff.resumed`` for ``handoff_id``, decided on the record as it
    is under the lock; returns the record as the index now holds it (or None).

    Raises:
        TransitionError: the record cannot be resumed any more.
        StreamVersionConflict: its stream moved on while deciding.
    """
    with opened.writing() as scope:
        current = load_handoff(scope.runner, handoff_id)
        decided = aggregate.decide(current, aggregate.Resume(session, harness, freshness_state),
                                   now=now_timestamp(opened.clock()))
        record_events(scope, decided, version=scope.txn.stream_version(handoff_stream(handoff_id)),
                      session=session)
        return scope.runner.get("handoffs", handoff_id)
