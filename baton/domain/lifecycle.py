"""The handoff state machine (spec §5, §8), as pure functions of a record.

    draft ──validate(pass|warn)──▶ validated ──promote──▶ ready ──resume──▶ resumed
      ▲  ◀──validate(fail)───────────┘                      │                │
      └────────revise (from draft or validated)              └──supersede / archive──▶ superseded | archived

``invalid`` and ``conflicted`` are flags beside the status, not states: while
one is set the record cannot be promoted. A failed validation sets
``invalid``; a revision clears both flags, and a passing re-validation clears
``invalid`` (it is a conclusion of validation, so newer validation replaces
it). ``conflicted`` is cleared only by a revision: someone must write the
resolution.

A record is immutable once ready: after promotion only its status and the
lifecycle markers (``resumed_at``, ``superseded_by``, ``archived_reason``)
change, which ``immutable_body`` excludes. Corrections are new records: see
``amend``.

Every function takes ``now`` (the domain never reads the clock) and returns a
new record, or raises ``TransitionError`` naming the current state and the
actions it allows (commands map it to exit 4).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from baton.domain.handoff import (
    MANAGED_FIELDS,
    Handoff,
    HandoffId,
    Timestamp,
    Validation,
    blank_item_problems,
    blank_work_problems,
    duplicate_id_problems,
    handoff_to_json,
    is_handoff_id,
    new_draft,
)
from baton.domain.lifecycle_table import ALLOWED as ALLOWED  # the table, apart from the model: a claim reads it
from baton.domain.lifecycle_table import AMEND as AMEND
from baton.domain.lifecycle_table import ARCHIVE as ARCHIVE
from baton.domain.lifecycle_table import FLAG_CONFLICTED as FLAG_CONFLICTED
from baton.domain.lifecycle_table import PROMOTE as PROMOTE
from baton.domain.lifecycle_table import RESUME as RESUME
from baton.domain.lifecycle_table import REVISE as REVISE
from baton.domain.lifecycle_table import SUPERSEDE as SUPERSEDE
from baton.domain.lifecycle_table import VALIDATE as VALIDATE
from baton.domain.lifecycle_table import allowed_for
from baton.domain.lifecycle_table import transition_error as transition_error
from baton.domain.readiness import ready_problems
from baton.errors import HandoffInputError, PromotionRefused
from baton.errors import TransitionError as TransitionError  # what its transitions raise, named here as before
from baton.model import evolve

# Fields that may still change after a record is ready.
LIFECYCLE_FIELDS = ("status", "resumed_at", "superseded_by", "archived_reason")


def allowed_actions(h: Handoff) -> tuple[str, ...]:
    return allowed_for(h.status, h.flags)


def validated_elsewhere_reason(h: Handoff) -> str | None:
    """Why a draft validated only from other worktrees is not validated: each
    validation belongs to the worktree it ran in, so say where to run it."""
    runs = [r for r in h.validation.extra.get("elsewhere", ()) or () if isinstance(r, dict)]
    if not runs:
        return None
    where = sorted({str((r.get("ran_on") or {}).get("worktree") or "?") for r in runs})
    own = h.project.repository.extra.get("worktree") if h.project.repository else None
    own_name = "the main worktree (.)" if own in (None, ".") else f"its worktree {own}"
    return (f"it was validated only in another worktree ({', '.join(where)}), which is recorded for that "
            f"worktree alone; validate it in {own_name}, where it was captured")


def require(h: Handoff, action: str, reason: str | None = None) -> None:
    if action not in allowed_actions(h):
        if reason is None and action == PROMOTE and h.status == "validated" and h.flags:
            reason = f"revise it to clear the {', '.join(h.flags)} flag"
        elif reason is None and h.status in ("ready", "resumed", "superseded", "archived") and action == REVISE:
            reason = "a ready record never changes; amend creates a corrected child"
        elif reason is None and action == PROMOTE and h.status == "draft":
            reason = validated_elsewhere_reason(h)
        raise transition_error(h, action, reason)


def revise(h: Handoff, body: Handoff, *, now: str) -> Handoff:
    """Replace the content of a draft or validated record.

    The identity (``id``, ``created_at``) is kept from ``h``; the status goes
    back to draft, validation is reset to ``not_run`` and both flags clear.

    Raises:
        TransitionError: the record is not draft or validated.
        HandoffInputError: the revised title, objective or an item's text is blank, or two
            items of one list share an id that ``h`` did not already repeat.
    """
    require(h, REVISE)
    blank = blank_work_problems(body) + blank_item_problems(body) + duplicate_id_problems(body, already=h)
    if blank:
        raise HandoffInputError(blank, message="the revised handoff is not valid")
    return evolve(body, id=h.id, created_at=h.created_at, status="draft", updated_at=Timestamp(now),
                        validation=Validation(), flags=(), resumed_at=None, superseded_by=None,
                        archived_reason=None)


def record_validation(h: Handoff, validation: Validation, *, now: str) -> Handoff:
    """Store a validation result: pass/warn -> validated, fail -> draft flagged invalid."""
    require(h, VALIDATE)
    if validation.status not in ("pass", "warn", "fail"):
        raise ValueError(f"a validation result is pass, warn or fail, not {validation.status!r}")
    validation = evolve(validation, accepted_warnings=None)
    others = tuple(f for f in h.flags if f != "invalid")
    if validation.status == "fail":
        return evolve(h, status="draft", validation=validation, updated_at=Timestamp(now), flags=others + ("invalid",))
    return evolve(h, status="validated", validation=validation, updated_at=Timestamp(now), flags=others)


ELSEWHERE_KEPT = 10
"""How many other worktrees' validations a record remembers (the newest of each)."""


def record_validation_elsewhere(h: Handoff, report: dict[str, Any], *, now: str) -> Handoff:
    """Remember a validation run from another worktree without changing the
    record's status, flags or own validation: the result held for that
    worktree's files and HEAD, not for everyone's."""
    require(h, VALIDATE)
    if report.get("status") not in ("pass", "warn", "fail"):
        raise ValueError(f"a validation result is pass, warn or fail, not {report.get('status')!r}")
    run = {"status": report["status"], "validated_at": report.get("validated_at"),
           "ran_on": dict(report.get("ran_on") or {})}
    worktree = run["ran_on"].get("worktree")
    kept = [r for r in h.validation.extra.get("elsewhere", ()) or ()
            if isinstance(r, dict) and (r.get("ran_on") or {}).get("worktree") != worktree]
    validation = evolve(h.validation, extra={**h.validation.extra,
                                                   "elsewhere": [*kept, run][-ELSEWHERE_KEPT:]})
    return evolve(h, validation=validation, updated_at=Timestamp(now))


def promote(h: Handoff, *, now: str, accepted_warnings: str | None = None) -> Handoff:
    """validated -> ready, when §7.2's ready requirements hold.

    Raises:
        TransitionError: not validated, or flagged (exit 4).
        PromotionRefused: validated but not ready, e.g. a warn without an
            acknowledgement reason (exit 3).
    """
    require(h, PROMOTE)
    reason = accepted_warnings.strip() if accepted_warnings and accepted_warnings.strip() else None
    problems = ready_problems(h, accepted_warnings=reason or "")
    if problems:
        raise PromotionRefused(h.id, problems)
    return promoted(h, now=now, accepted_warnings=reason)


def promoted(h: Handoff, *, now: str, accepted_warnings: str | None = None) -> Handoff:
    """Apply a recorded promotion (the fact, for ``evolve``): the ready checks
    were the decider's when the event was written; replaying it does not run
    them again (they walk the whole record, and a fact is not re-decided).

    Raises:
        TransitionError: the record is not in a state a promotion leaves.
    """
    require(h, PROMOTE)
    reason = accepted_warnings.strip() if accepted_warnings and accepted_warnings.strip() else None
    kept = reason if h.validation.status == "warn" else None
    return evolve(h, status="ready", updated_at=Timestamp(now),
                        validation=evolve(h.validation, accepted_warnings=kept))


def resume(h: Handoff, *, now: str) -> Handoff:
    """ready|resumed -> resumed (resuming again is allowed: one record, many sessions)."""
    require(h, RESUME)
    return evolve(h, status="resumed", resumed_at=Timestamp(now))


def supersede(h: Handoff, *, by: str, now: str) -> Handoff:
    """ready|resumed -> superseded by a newer handoff (a continuation, §14)."""
    require(h, SUPERSEDE)
    if not is_handoff_id(by) or by == h.id:
        raise ValueError(f"a handoff is superseded by another handoff's UUID, not {by!r}")
    return evolve(h, status="superseded", superseded_by=HandoffId(by))


def archive(h: Handoff, *, now: str, reason: str | None = None) -> Handoff:
    """Any live state -> archived. Before ready, the record's ``updated_at`` moves too."""
    require(h, ARCHIVE)
    reason = reason.strip() if reason and reason.strip() else None
    if h.status in ("draft", "validated"):
        return evolve(h, status="archived", archived_reason=reason, updated_at=Timestamp(now))
    return evolve(h, status="archived", archived_reason=reason)


def flag_conflicted(h: Handoff, *, now: str) -> Handoff:
    """Mark a draft/validated record as carrying unresolved conflicting decisions."""
    require(h, FLAG_CONFLICTED)
    if "conflicted" in h.flags:
        return h
    return evolve(h, flags=h.flags + ("conflicted",), updated_at=Timestamp(now))


def amend(parent: Handoff, changes: Mapping[str, Any], *, id: str, now: str,
          project: Mapping[str, Any] | None = None) -> Handoff:
    """A corrected child of a ready (or later) record: a new draft whose body is
    the parent's with ``changes`` applied (top-level fields replaced), linked by
    lineage relation ``amend``. The parent is not touched.

    Raises:
        TransitionError: the parent is not ready/resumed/superseded (a draft is revised instead).
        HandoffInputError: the changed body is not a valid handoff.
    """
    require(parent, AMEND, "a draft or validated record is revised in place" if parent.status in
             ("draft", "validated") else None)
    body = {k: v for k, v in handoff_to_json(parent).items() if k not in MANAGED_FIELDS}
    body.update(changes)
    body["lineage"] = {"parents": [parent.id], "relation": "amend",
                       **({"branch_label": parent.lineage.branch_label} if parent.lineage.branch_label else {})}
    return new_draft(body, id=id, now=now, project=project if project is not None
                     else handoff_to_json(parent)["project"])


def immutable_body(h: Handoff) -> dict[str, Any]:
    """The part of a record that never changes once it is ready."""
    return {k: v for k, v in handoff_to_json(h).items() if k not in LIFECYCLE_FIELDS}
