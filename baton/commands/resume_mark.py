"""``resume --mark-resumed``: the brief (``baton.commands.resume``), then the
resume recorded (``handoff.resumed``, with the session, harness and freshness
state), and in the same batch every pending baton carrying the handoff settled
(dismissed ``via: "resumed"``: ``baton.domain.batons.settled_by_resume``). The application
loads this module only for ``--mark-resumed``: reading and rendering a record
never imports the event classes or the decider.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from baton.commands.baton_claim import settle_carrying
from baton.commands.handoff_facts import now_timestamp
from baton.commands.identity import recorded_owner
from baton.commands.ids import load_handoff
from baton.commands.record import record as record_events
from baton.commands.resume import ResumeResult, resume_handoff
from baton.domain.aggregates import handoff as aggregate
from baton.domain.batons import BatonRecord, left_pending_line
from baton.events.names import handoff_stream
from baton.values import replace

if TYPE_CHECKING:
    from baton.commands.context import Project


def resume_and_mark(project: "Project", token: str = "latest", *, session: str | None = None,
                    harness: str | None = None, **options: Any) -> ResumeResult:
    """``resume_handoff`` with ``mark_resumed``, then ``handoff.resumed`` appended
    (``mark_resumed``): the result carries the record as the index then holds it.

    Raises:
        as ``resume_handoff``, and as ``mark_resumed``.
    """
    read = resume_handoff(project, token, mark_resumed=True, session=session, harness=harness, **options)
    left: list[BatonRecord] = []
    record = mark_resumed(project, read.handoff_id, read.freshness_state, session=session, harness=harness,
                          left=left)
    record = record or read.record
    return replace(read, record=record, status=record.get("status", read.status), marked_resumed=True,
                   left_pending=tuple(left_pending_line(b) for b in left))


def mark_resumed(opened: "Project", handoff_id: str, freshness_state: str, *, session: str | None,
                 harness: str | None, left: list[BatonRecord] | None = None) -> dict[str, Any] | None:
    """Append ``handoff.resumed`` for ``handoff_id``, decided on the record as it
    is under the lock, and dismiss each pending baton carrying it that is the resumer's to end
    (``settle_carrying``) in the same batch — a teammate's stays pending, and goes to ``left``;
    returns the record as the index now holds it (or None).

    Raises:
        TransitionError: the record cannot be resumed any more.
        StreamVersionConflict: its stream moved on while deciding.
    """
    actor = recorded_owner(opened)
    with opened.writing() as scope:
        current = load_handoff(scope.runner, handoff_id)
        decided = aggregate.decide(current, aggregate.Resume(session, harness, freshness_state),
                                   now=now_timestamp(opened.clock()))
        with scope.batch():  # the resume and the batons it settles: one append, all or nothing
            record_events(scope, decided, version=scope.txn.stream_version(handoff_stream(handoff_id)),
                          session=session)
            settle_carrying(scope, handoff_id, session=session, actor=actor, resumer=actor, left=left)
        return scope.runner.get("handoffs", handoff_id)
