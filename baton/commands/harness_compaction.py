"""A harness is about to compact a session's context (``baton hook HARNESS
PreCompact``): Baton captures a draft handoff for the session, once, and
tells the detector what the compaction means (see ``harness_start``);
a start after the compaction points the agent at that draft
(``session_drafts.draft_to_complete``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from baton.commands.capture import capture_budget, capture_in_scope
from baton.commands.detect import assess, record_recommendation
from baton.commands.draft_fields import PLACEHOLDER
from baton.commands.feed_vouch import handoff_vouch
from baton.commands.identity import recorded_owner
from baton.commands.objectives import required_session_id
from baton.commands.prepare import prepare_handoff
from baton.commands.session_drafts import open_session_draft
from baton.domain.short_ids import short_id
from baton.model import frozen
from baton.projections.sessions import session_doc

if TYPE_CHECKING:
    from baton.commands.context import Deferral, Project

HOOK_TRIGGER = "hook"


@frozen
class CompactionDraftResult:
    session_id: str
    handoff_id: str
    created: bool
    """False: the session already had a draft prepared before an earlier compaction."""
    trigger: str | None
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"sessionId": self.session_id, "handoffId": self.handoff_id, "created": self.created,
                "trigger": self.trigger}

    def render(self) -> str:
        verb = "Prepared" if self.created else "Kept"
        return (f"{verb} draft handoff {short_id(self.handoff_id)} for session {self.session_id} before "
                f"compaction; complete it, then `baton handoff validate {short_id(self.handoff_id)}`.")


def detector_inputs(trigger: str | None) -> dict[str, Any]:
    """What the compaction tells the detector (spec §9): a manual compaction is
    an explicit request; an automatic one means the harness found the context
    full. Nothing else is known, so nothing else is claimed."""
    if trigger == "manual":
        return {"score": 1.0, "reasons": ["pre_compact: manual compaction (explicit request)"],
                "inputs": {"handoff_request": 1.0}}
    return {"score": 0.7, "reasons": ["pre_compact: automatic compaction (context full)"],
            "inputs": {"context_pressure": 1.0}}


def _objective_for(runner: Any, session: dict[str, Any] | None, observed: dict[str, Any] | None,
                   label: str) -> str:
    """The session's own objective, else the objective of the handoff it received
    at its start, else a placeholder that says it must be completed."""
    if observed and observed.get("objective"):
        return observed["objective"]
    received = (session or {}).get("receivedBaton")
    doc = runner.get("handoffs", received) if received and "handoffs" in runner.by_name else None
    work = doc.get("work") if isinstance(doc, dict) else None
    if isinstance(work, dict) and isinstance(work.get("objective"), str) and work["objective"].strip():
        return work["objective"]
    return f"{PLACEHOLDER} what {label} was working towards"


def prepare_before_compaction(project: "Project", session_id: str | None, *, harness: str | None = None,
                              trigger: str | None = None,
                              deferral: "Deferral | None" = None) -> CompactionDraftResult:
    """Capture the session's draft before its context is compacted (once per
    session), and tell the detector what the compaction means
    (``detector_inputs``): its ``detector.recommended`` names the draft and
    lands in the same append as the draft (one batch, all or nothing).
    ``deferral``: a hook's, kept should a catch-up be handed on (``Project.behind``).

    Raises:
        InputError: no session id, or a malformed one.
        PolicyBlock: a block rule of the policy matched the draft's text (a changed
            file the path policy refuses is left out of it, never a refusal).
    """
    sid = required_session_id(session_id)
    assessed = assess(project, detector_inputs(trigger)["inputs"], session=sid, harness=harness, source="hook",
                      deferral=deferral)
    runner = project.reading(deferral=deferral)
    kept = _compaction_draft(runner, project.writer, sid)
    template = None
    if kept is None:
        session = session_doc(runner, project.writer, sid)
        received = _received_handoff(runner, session)
        if received is not None and handoff_vouch(project, runner, received) is not None:
            # From a feed no trusted key vouches for: a continuation would copy its steps into this
            # clone's own feed, where no mark follows them (``feed_vouch.copy_rule``); the draft starts empty.
            received = None
        # reads git: outside the lock
        prepared = prepare_handoff(project, source=received, trigger=HOOK_TRIGGER, deferral=deferral)
        label = f"{harness or 'the'} session {sid}"
        template = dict(prepared.template)
        if received is not None:  # a continuation of it: its work and open items; the summary is this session's
            template["summary"] = {"current_state": "", "completed": [], "in_progress": [], "discoveries": []}
        template["work"] = {**template["work"], "title": f"Work of {label}, before compaction",
                            "objective": _objective_for(runner, session, prepared.objective, label)}
        template["automation"] = {"trigger": HOOK_TRIGGER, **detector_inputs(trigger)}
    elif not assessed.records:
        return CompactionDraftResult(sid, kept, False, trigger)
    actor = recorded_owner(project) if template is not None else ""  # read before the lock, only for a draft
    with project.writing(deferral=deferral) as scope, scope.batch():
        # Looked at again under the lock: two hooks of one session compacting
        # at the same moment leave one draft between them.
        now = _compaction_draft(scope.runner, project.writer, sid)
        created = now is None and template is not None
        draft = capture_in_scope(scope, template, trigger=HOOK_TRIGGER, origin={"harness": harness},
                                 session=sid, actor=actor, hash_budget=capture_budget()).handoff_id if created and template is not None else (now or kept)
        assert draft is not None  # no template: a draft was kept
        if assessed.records:
            record_recommendation(scope, assessed, draft)
    return CompactionDraftResult(sid, draft, created, trigger)


def _received_handoff(runner: Any, session: dict[str, Any] | None) -> str | None:
    """The handoff the session received as its baton at its start, when its record is
    here and may be continued (not archived): the draft saved before a compaction
    continues it (``lineage.parents``), carrying its open items, as ``handoff prepare
    --from`` would (not one from a feed no trusted key vouches for: ``compaction_draft``)."""
    received = (session or {}).get("receivedBaton")
    if not isinstance(received, str) or not received or "handoffs" not in runner.by_name:
        return None
    doc = runner.get("handoffs", received)
    if not isinstance(doc, dict) or doc.get("status") in ("archived", None):
        return None
    return received


def _compaction_draft(runner: Any, writer: str, sid: str) -> str | None:
    """The id of the draft Baton already prepared for this session (an earlier
    compaction, or a prompt asking for a handoff) and still a draft, or None."""
    kept = open_session_draft(runner, writer, sid)
    return kept["id"] if kept is not None else None

