"""What a record needs to be a draft and to be made ready (spec §7.2), and
the reading of a stored validation report into the record. Pure.

The decider and the fold need these (promoting, replaying ``handoff.validated``)
without the checks that produce a report (``baton.domain.validation``, which
re-exports them): a command that only folds and reads a record loads this
module, not the checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from baton.domain.freshness import not_hashed_yet
from baton.domain.handoff import (
    SUPPORTED_SCHEMA_VERSIONS,
    Check,
    Freshness,
    Handoff,
    Validation,
    handoff_to_json,
    is_handoff_id,
    is_timestamp,
)
from baton.domain.readiness_codes import (  # the codes, in a leaf that loads no record model
    FLAGGED,
    MALFORMED,
    MISSING,
    NOT_HASHED_YET,
    NOT_VALIDATED,
    POLICY_FAILED,
    RAW_TRANSCRIPT,
    VALIDATION_FAILED,
    VALIDATION_STALE,
    WARNINGS_NOT_ACCEPTED,
)
from baton.domain.short_ids import parse_timestamp

ADVISORY_CHECKS = frozenset({"quality"})
"""Checks reported but never part of the overall status: their warn alone never blocks."""

# Field names that would carry a raw conversation; none is accepted in v0.1 (§10 Policy).
TRANSCRIPT_KEYS = frozenset({
    "transcript", "raw_transcript", "full_transcript", "conversation", "conversation_log",
    "conversation_history", "chat_history", "chat_log", "messages", "raw_messages",
})


def stale_flag(state: str | None) -> bool | None:
    """§7.2's boolean beside the §10b state: unknown freshness is neither stale nor fresh."""
    if state in ("stale", "partially_stale"):
        return True
    return False if state == "fresh" else None


def validation_report_from_json(obj: Mapping[str, Any]) -> Validation:
    """Turn a stored report (``handoff.validated`` event data) into the record's validation."""
    checks = tuple(
        Check(name=c["name"], status=c["status"], detail=c.get("detail", ""), paths=tuple(c.get("paths", ())))
        for c in obj.get("checks", ())
    )
    fr = obj.get("freshness") or {}
    return Validation(
        status=obj["status"],
        validated_at=obj.get("validated_at"),
        checks=checks,
        freshness=Freshness(
            git_head_at_capture=fr.get("captured_head"),
            git_head_now=fr.get("head_now"),
            stale=stale_flag(fr.get("state")),
            state=fr.get("state"),
        ) if fr else None,
        quality=obj.get("quality"),
        extra={"ran_on": dict(obj["ran_on"])} if isinstance(obj.get("ran_on"), dict) else {},
    )


def ran_elsewhere(record_worktree: str | None, report: Mapping[str, Any]) -> bool:
    """Whether a validation report ran in another worktree than the one the
    record was captured in: its artifacts and HEAD were that worktree's, so
    its result belongs to that worktree, not to the record (for everyone)."""
    ran_on = report.get("ran_on")
    worktree = ran_on.get("worktree") if isinstance(ran_on, dict) else None
    return bool(record_worktree) and isinstance(worktree, str) and bool(worktree) and worktree != record_worktree


# --------------------------------------------------------------------------- requirements (§7.2)


def blank(value: str | None) -> bool:
    return value is None or not str(value).strip()


class Problem(str):
    """A readiness problem: its text (``field: what is wrong``) and a ``code`` naming it, so an
    adapter says it in its own words by field and code, never by matching the wording."""

    code: str

    def __new__(cls, text: str, code: str) -> Problem:
        made = super().__new__(cls, text)
        made.code = code
        return made


def draft_problems(h: Handoff) -> list[str]:
    """What a record lacks to be a draft: schema/id/kind/status/timestamps/project/work/summary/lineage.

    The reader already enforces presence and types; this adds what types cannot
    say (a supported version, a UUID, non-blank text, timestamps in order).
    """
    problems: list[str] = []
    if h.schema_version not in SUPPORTED_SCHEMA_VERSIONS:
        problems.append(Problem(f"schema_version: unsupported version {h.schema_version!r} "
                        f"(supported: {', '.join(SUPPORTED_SCHEMA_VERSIONS)})", MALFORMED))
    if not is_handoff_id(h.id):
        problems.append(Problem("id: must be a lowercase UUID", MALFORMED))
    for name in ("created_at", "updated_at"):
        if not is_timestamp(getattr(h, name)):
            problems.append(Problem(f"{name}: must be an RFC 3339 date-time with a zone", MALFORMED))
    if is_timestamp(h.created_at) and is_timestamp(h.updated_at):
        if parse_timestamp(h.updated_at) < parse_timestamp(h.created_at):
            problems.append(Problem("updated_at: is before created_at", MALFORMED))
    if blank(h.project.id):
        problems.append(Problem("project.id: required", MISSING))
    if blank(h.work.title):
        problems.append(Problem("work.title: required", MISSING))
    if blank(h.work.objective):
        problems.append(Problem("work.objective: required", MISSING))
    return problems


def is_explicitly_completed(h: Handoff) -> bool:
    return h.work.state == "completed"


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".")


def definition_of_done_satisfied(h: Handoff) -> bool:
    """Every definition-of-done item is listed (case/space-insensitively) as completed."""
    if not h.work.definition_of_done:
        return False
    done = {_norm(item) for item in h.summary.completed}
    return all(_norm(item) in done for item in h.work.definition_of_done)


def actionable_open_items(h: Handoff) -> list[int]:
    """Indexes of open items a successor can act on: a suggested action and an acceptance check."""
    return [i for i, o in enumerate(h.open_items) if not blank(o.suggested_action) and not blank(o.acceptance_check)]


def actionable(h: Handoff) -> bool:
    """Whether a successor has a next step or nothing left to do: the work done (explicitly, or every
    definition-of-done item completed) or an actionable open item (validation's actionability check)."""
    return is_explicitly_completed(h) or definition_of_done_satisfied(h) or bool(actionable_open_items(h))


def open_items_lacking(h: Handoff) -> bool:
    """Whether ``h`` has open items, none actionable, and validation will fail it for that (``actionable``):
    a capture of plain-text items (a description alone) is told so then, not only at validation."""
    return bool(h.open_items) and not actionable(h)


def moved_since_validation(h: Handoff, head_now: str | None, drifted: tuple[str, ...] = ()) -> str | None:
    """Why the validation report no longer describes the repository, or None:
    its head moved since the report was made, or an artifact the report found
    unchanged (its ``artifacts`` check passed) differs now from its recorded
    hash (``drifted``: their paths). Nothing is known to have moved when
    either head is unknown (no git repository, an unborn branch)."""
    freshness = h.validation.freshness
    validated_at = freshness.git_head_now if freshness is not None else None
    again = "validate it again so the report describes the repository now, then make it ready"
    if validated_at and head_now and validated_at != head_now:
        return Problem(f"validation: the repository head moved since this handoff was validated ({validated_at[:12]} → "
                       f"{head_now[:12]}); {again}", VALIDATION_STALE)
    artifacts_passed = any(c.name == "artifacts" and c.status == "pass" for c in h.validation.checks)
    if drifted and artifacts_passed:
        listed = ", ".join(drifted[:5]) + (f" and {len(drifted) - 5} more" if len(drifted) > 5 else "")
        return Problem(f"validation: artifacts changed since this handoff was validated ({listed}); {again}",
                       VALIDATION_STALE)
    return None


def ready_problems(h: Handoff, *, accepted_warnings: str | None = None) -> list[str]:
    """What stands between a record and ``ready`` (§7.2): the draft requirements,
    an open item or an explicit completed work state, validation pass or a
    user-acknowledged warn, no secret-policy violation, and no flag."""
    problems = draft_problems(h)
    if not h.open_items and not is_explicitly_completed(h):
        problems.append(Problem("open_items: add at least one open item, or set work.state to \"completed\"", MISSING))
    reason = accepted_warnings if accepted_warnings is not None else h.validation.accepted_warnings
    status = h.validation.status
    if status == "not_run":
        problems.append(Problem("validation.status: not validated yet; run validation first", NOT_VALIDATED))
    elif status == "fail":
        problems.append(Problem("validation.status: validation failed; revise the handoff and validate again",
                                VALIDATION_FAILED))
    elif status == "warn" and blank(reason):
        # Only the warnings that made the status warn are named: an advisory
        # check (quality) is reported by validate but does not block on its own.
        warned = [c for c in h.validation.checks if c.status == "warn" and c.name not in ADVISORY_CHECKS]
        why = "; ".join(f"{c.name}: {c.detail}" for c in warned)
        problems.append(Problem("validation.status: validation warned" + (f" ({why})" if why else "")
                                + "; promoting needs `accept_warnings` (a reason)", WARNINGS_NOT_ACCEPTED))
    if any(c.name == "policy" and c.status == "fail" for c in h.validation.checks):
        problems.append(Problem("validation.checks: the policy check failed (secret/path/privacy policy violation)",
                                POLICY_FAILED))
    for path in transcript_field_paths(h):
        problems.append(Problem(f"{path}: raw transcripts are not accepted in v0.1", RAW_TRANSCRIPT))
    unhashed = not_hashed_yet(h.artifacts)
    if unhashed:
        listed = ", ".join(unhashed[:5]) + (f" and {len(unhashed) - 5} more" if len(unhashed) > 5 else "")
        problems.append(Problem(f"validation: artifacts not hashed yet ({listed}): a handoff never becomes ready "
                                "with an artifact whose hash was never computed; validate it again in its worktree "
                                "(validation hashes them, and records one over the secret screen's limit without a "
                                "hash, as `baton handoff amend` does)", NOT_HASHED_YET))
    for flag in h.flags:
        problems.append(Problem(f"flags: the handoff is flagged {flag}; revise it first", FLAGGED))
    return problems


def transcript_field_paths(h: Handoff) -> list[str]:
    """Paths of any field that looks like a raw transcript, at any depth."""
    found: list[str] = []

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                sub = f"{path}.{key}" if path else str(key)
                if isinstance(key, str) and (key.lower() in TRANSCRIPT_KEYS or "transcript" in key.lower()):
                    found.append(sub)
                walk(item, sub)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, f"{path}[{i}]")

    walk(handoff_to_json(h), "")
    return found
