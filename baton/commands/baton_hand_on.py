"""Handing on an existing handoff as a baton: ``baton.created`` scoping a
handoff already captured (``session handoff --from``, and a session's end
handing on the ready handoff it wrote).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from baton.commands.baton_claim import CreatedBaton, append_created
from baton.commands.batons import current_batons, stored_baton
from baton.commands.identity import SessionContext, recorded_owner
from baton.commands.ids import place_of, resolve_handoff_id
from baton.domain.batons import SCOPE_FIELD, STEPS_REQUIRED, BatonRecord, baton_content_of_handoff, baton_key
from baton.domain.lifecycle_table import allowed_for, hand_on_refusal
from baton.errors import Conflict, InputError, NotFound, TransitionError

if TYPE_CHECKING:
    from baton.commands.context import WriteScope


def hand_on_in_scope(scope: WriteScope, token: str, ctx: SessionContext, *, shared: bool = False, session: str | None = None,
                     harness: str | None = None, reason: str | None = None) -> CreatedBaton:
    """Inside a write scope: append ``baton.created`` scoping the handoff ``token``
    names to ``ctx`` (see ``baton_cases.scope_handoff_as_baton``). ``reason``: why it is
    handed on again, recorded with it (``baton.created``'s ``reason``: ``unprompted``). Inside a ``batch()`` the
    record returned is the one appended; the stored one (``stored_baton``) is
    read after the batch.

    Raises:
        NotFound, Conflict, InputError: as ``scope_handoff_as_baton``.
    """
    if "handoffs" not in scope.runner.by_name:
        raise NotFound("this Baton has no handoff records to scope")
    record = scope.runner.get("handoffs", resolve_handoff_id(scope.runner, token, here=place_of(scope.project)))
    assert record is not None  # the id was just resolved from the records
    if record.get("status") in ("archived", "superseded"):
        raise Conflict(f"handoff {record['id']} is {record['status']}; only a live handoff can be handed on",
                       details={"handoff_id": record["id"], "status": record["status"]})
    refusal = hand_on_refusal(record["status"], record.get("flags") or (), baton=SCOPE_FIELD in record)
    if refusal is not None:
        raise TransitionError(handoff_id=record["id"], status=record["status"], flags=tuple(record.get("flags") or ()),
                              action="hand on", allowed=allowed_for(record["status"], record.get("flags") or ()),
                              reason=refusal)
    content = baton_content_of_handoff(record)
    if not content["nextSteps"]:
        raise InputError(STEPS_REQUIRED + f" (handoff {record['id']} has no open item)")
    baton = BatonRecord(
        id=record["id"], key=baton_key(ctx.owner, ctx.branch, shared), owner=ctx.owner, branch=ctx.branch,
        shared=shared, next_steps=tuple(content["nextSteps"]),
        failed_approaches=tuple(content["failedApproaches"]), open_questions=tuple(content["openQuestions"]),
        harness=harness, session_id=session,
    )
    for peek in current_batons(scope.runner):
        if peek.record.id == baton.id and peek.record.pending:
            raise Conflict(f"handoff {baton.id} is already a pending baton ({peek.record.key})",
                           details={"handoff_id": baton.id, "key": peek.record.key})
    superseded, unread = append_created(scope, baton, session=session, harness=harness,
                                       actor=recorded_owner(scope.project), reason=reason)
    return CreatedBaton(stored_baton(scope.runner, baton), superseded, [], unread)
