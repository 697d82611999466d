"""Leaving a baton: capture its handoff record, then scope it (``baton.created``).

Used by ``session end`` with a payload and by ``baton_cases.create_baton``;
a session that ends without a baton never imports the capture.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from baton.commands.baton_claim import CreatedBaton, append_created, key_state
from baton.commands.batons import stored_baton
from baton.commands.capture import capture_in_scope
from baton.commands.identity import SessionContext
from baton.domain.aggregates.baton import check_key_free
from baton.domain.baton_payload import BatonPayload, handoff_payload_for_baton
from baton.domain.batons import BatonRecord, baton_content_of_handoff, baton_key, baton_stream

if TYPE_CHECKING:
    from baton.commands.context import WriteScope


def create_in_scope(
    scope: WriteScope,
    payload: BatonPayload,
    ctx: SessionContext,
    *,
    actor: str,
    session: str | None = None,
    harness: str | None = None,
    objective: str | None = None,
) -> CreatedBaton:
    """Capture the baton's handoff record and scope it (``baton.created``), in one locked scope.

    ``ctx`` is the resolved owner and branch (the payload's own owner/branch
    already applied): who the baton is for. ``actor``: who captures it
    (``identity.recorded_owner``), the handoff event's ``actor`` — so
    ``handoff list --by``/``--mine`` name the capturer, not the recipient
    (``session end --owner bob`` run by Alice is Alice's). The text stored in the baton is the handoff's after
    redaction, so a secret in a next step never reaches the ledger.

    Raises:
        BatonKeyHeld: the key holds another exact owner's or branch's pending baton
            (``check_key_free``); refused before the capture, so nothing is appended.
    """
    owner, branch = ctx.owner, ctx.branch
    key = baton_key(owner, branch, payload.shared)
    scope.project.check_streams(baton_stream(key))  # before the capture: nothing appended if refused
    check_key_free(key_state(scope, key), owner, branch, payload.shared)  # likewise
    body = handoff_payload_for_baton(payload, owner=owner, branch=branch, objective=objective, session_id=session)
    origin = {"harness": harness, "session_id": session} if (harness or session) else None
    captured = capture_in_scope(scope, body, trigger="manual", origin=origin, session=session, actor=actor)
    content = baton_content_of_handoff(captured.record)
    record = BatonRecord(
        id=captured.handoff_id, key=key, owner=owner, branch=branch, shared=payload.shared,
        next_steps=tuple(content["nextSteps"]) or payload.next_steps,
        failed_approaches=tuple(content["failedApproaches"]),
        open_questions=tuple(content["openQuestions"]),
        harness=harness, session_id=session,
    )
    superseded, unread = append_created(scope, record, session=session, harness=harness, actor=actor)
    return CreatedBaton(stored_baton(scope.runner, record), superseded,
                        list(getattr(captured, "redactions", []) or []), unread)
