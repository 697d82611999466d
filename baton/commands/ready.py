"""``baton handoff ready ID [--accept-warnings REASON]``: promote a validated record.

Promotion is decided by the state machine (``lifecycle.promote``): only a
validated, unflagged record whose validation passed — or warned, with a
reason given — becomes ready (exit 3 otherwise; exit 4 from the wrong state).
The promotion is fsynced (``durable=True``). When the record continues or
amends a ready parent, that parent is marked superseded in the same step: its
content never changes, only its status.
"""

from __future__ import annotations

import os
from typing import Any

import attrs

from baton.commands.transitions import command_hints


@attrs.frozen
class ReadyResult:
    handoff_id: str
    record: dict[str, Any]
    file: str
    superseded: tuple[str, ...] = ()
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        validation = self.record.get("validation") or {}
        return {"id": self.handoff_id, "status": self.record.get("status"), "file": self.file,
                "validation": validation.get("status"), "accepted_warnings": validation.get("accepted_warnings"),
                "superseded": list(self.superseded)}

    def render(self) -> str:
        from baton.domain.handoff import short_id

        validation = self.record.get("validation") or {}
        lines = [f"handoff {short_id(self.handoff_id)} is ready ({self.file})"]
        if validation.get("accepted_warnings"):
            lines.append(f"  warnings accepted: {validation['accepted_warnings']}")
        for parent in self.superseded:
            lines.append(f"  supersedes {parent}")
        lines.append(f"Resume it in any session: baton resume {short_id(self.handoff_id)}")
        return "\n".join(lines)


@command_hints()
def promote_handoff(
    project_option: str | os.PathLike | None = None,
    token: str = "",
    *,
    accept_warnings: str | None = None,
) -> ReadyResult:
    """Raises:
        TransitionError (exit 4): not validated (e.g. never validated, or already ready).
        PromotionRefused (exit 3): validation failed (the record is flagged
            invalid: amend it and validate again), or warned without a reason.
        NotFound / AmbiguousId (exit 4).
    """
    from baton.commands.capture import handoff_file
    from baton.commands.context import Project
    from baton.commands.handoff_facts import now_timestamp
    from baton.commands.ids import load_handoff
    from baton.domain import lifecycle
    from baton.domain.handoff import handoff_from_json
    from baton.errors import PromotionRefused
    from baton.domain.validation import ready_problems
    from baton.errors import InputError
    from baton.ledger.envelope import EventDraft
    from baton.projections.handoffs import PROMOTED, SUPERSEDED, stream_of

    if accept_warnings is not None and not accept_warnings.strip():
        raise InputError("--accept-warnings needs a reason: say why the warnings are acceptable")
    accept_warnings = accept_warnings.strip() if accept_warnings else None
    opened = Project.open(project_option)
    try:
        with opened.writing() as scope:
            handoff = load_handoff(scope.runner, token)
            if handoff.status in ("draft", "validated") and (
                    handoff.validation.status == "fail" or "invalid" in handoff.flags):
                # §10: "fail cannot be promoted without amendment" — a validation
                # failure (exit 3), not a wrong state.
                raise PromotionRefused(handoff.id, ready_problems(handoff))
            lifecycle.promote(handoff, now=now_timestamp(opened.clock()), accepted_warnings=accept_warnings)
            stream = stream_of(handoff.id)
            drafts = [EventDraft(PROMOTED, stream, {"accepted_warnings": accept_warnings})]
            expected = {stream: scope.txn.stream_version(stream)}
            superseded: list[str] = []
            if handoff.lineage.relation in ("continue", "amend"):
                for parent_id in handoff.lineage.parents:
                    doc = scope.runner.get("handoffs", parent_id)
                    if doc is None:
                        continue
                    parent = handoff_from_json(doc)
                    if lifecycle.SUPERSEDE in lifecycle.allowed_actions(parent):
                        parent_stream = stream_of(parent_id)
                        drafts.append(EventDraft(SUPERSEDED, parent_stream, {"by": handoff.id}))
                        expected[parent_stream] = scope.txn.stream_version(parent_stream)
                        superseded.append(parent_id)
            scope.append(drafts, expected=expected, durable=True)
            record = scope.runner.get("handoffs", handoff.id)
        return ReadyResult(handoff.id, record, handoff_file(record), tuple(superseded))
    finally:
        opened.close()
