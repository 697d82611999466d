"""A handoff record's fields as the command line fills them: ``open_items``
is ``--open-item``, ``work.title`` is ``--title``. The application names the
record's fields (``PromotionRefused.fields``, a validation report's finding
paths, what redaction replaced; MCP callers pass those very names); a person
at a terminal is told the flag, and the command that takes it (``baton
handoff amend``). What a command redacted names the flag the person typed
beside the record path (``name_redactions``)."""

from __future__ import annotations

from typing import Any, Mapping

from baton.domain import readiness_codes as readiness
from baton.domain.redaction.as_given import field_of, named_as_given
from baton.domain.short_ids import short_id
from baton.errors import HandoffInputError, PromotionRefused

OPEN_ITEM = "--open-item '{\"description\": …, \"suggested_action\": …, \"acceptance_check\": …}'"
"""An open item a successor can act on (what validation asks of one), as ``--open-item`` takes it."""

FLAGS = {
    "work.title": "--title TEXT",
    "work.objective": "--objective TEXT",
    "work.state": "--work-state completed",
    "work.definition_of_done": "--done TEXT",
    "summary.current_state": "--current-state TEXT",
    "summary.completed": "--completed TEXT",
    "open_items": OPEN_ITEM,
    "decisions": "--decision TEXT",
    "evidence": "--evidence JSON",
    "failed_attempts": "--failed-attempt TEXT",
    "risks": "--risk TEXT",
    "artifacts": "--artifact PATH",
}
"""Each field a person fills, as the flag ``checkpoint create`` and ``handoff amend`` take."""

MISSING = {
    "open_items": "no open item: add one with `baton handoff amend {id} " + OPEN_ITEM.replace("{", "{{").replace(
        "}", "}}") + "`, or mark the work completed with `baton handoff amend {id} --work-state completed`",
    "work.title": "no title: give it one with `baton handoff amend {id} --title TEXT`",
    "work.objective": "no objective: give it one with `baton handoff amend {id} --objective TEXT`",
}
"""A required field the promotion found missing, in a person's words."""

REVISE = "amend it (`baton handoff amend {id} ...`), then validate it again (`baton handoff validate {id}`)"

_STATES = ("validation.status", "validation.checks", "validation", "flags")
"""Fields whose problem says what happened in plain words: said without the field's name."""


def name_fields(exc: PromotionRefused) -> None:
    """Say ``exc``'s problems as a person fixes them at the command line: a
    missing field as the flag that fills it, a failed validation as the
    commands to run (said once). ``--json`` keeps the record fields
    (``details["fields"]``) and the problems as the record names them."""
    token = short_id(str(exc.details.get("id", "")))
    codes = exc.codes if len(exc.codes) == len(exc.problems) else [""] * len(exc.problems)
    said = [_said(field, code, problem, token) for field, code, problem in zip(exc.fields, codes, exc.problems)]
    texts = list(dict.fromkeys(text for text, _ in said))
    revise = f": {REVISE.format(id=token)}" if any(again for _, again in said) else ""
    exc.message = f"handoff {token} cannot become ready: " + "; ".join(texts) + revise
    exc.args = (exc.message,)


def _said(field: str, code: str, problem: str, token: str) -> tuple[str, bool]:
    """One problem (its record field and ``domain.readiness`` code) in a person's words, and
    whether amending and validating again fixes it."""
    text = problem.partition(": ")[2]
    if field in MISSING and code == readiness.MISSING:
        return MISSING[field].format(id=token), False
    if field not in _STATES:
        return problem, False
    if code == readiness.NOT_VALIDATED:
        return f"it is not validated yet: `baton handoff validate {token}`", False
    if code in (readiness.VALIDATION_STALE, readiness.NOT_HASHED_YET):
        return f"{text} (`baton handoff validate {token}`)", False
    if code == readiness.WARNINGS_NOT_ACCEPTED:
        return text, False
    if code in (readiness.VALIDATION_FAILED, readiness.POLICY_FAILED, readiness.FLAGGED):
        return text.split(";")[0], True
    return problem, False


def failed_fields_note(result: Any) -> str | None:
    """For a failed validation (``handoff validate``): the flags that fill the
    fields it found missing or incomplete, or None (none a flag fills)."""
    report = getattr(result, "report", None) or {}
    if report.get("status") != "fail":
        return None
    paths = [finding.get("path", "") for check in report.get("checks", ()) if check.get("status") == "fail"
             for finding in check.get("findings", ()) if finding.get("status") == "fail"]
    return lacking_note(result, [field_of(path) for path in paths])


def lacking_note(result: Any, fields: Any) -> str | None:
    """The flags that fill ``fields`` (record fields; those no flag fills left out), as ``baton handoff
    amend`` takes them for the handoff ``result`` names, or None (none a flag fills): a failed validation
    (``failed_fields_note``), and a capture that validation will find lacking (``CaptureResult.lacking``)."""
    fields = list(dict.fromkeys(field for field in fields if field in FLAGS))
    if not fields:
        return None
    token = short_id(str(getattr(result, "handoff_id", "")))
    fills = " ".join(FLAGS[field] for field in fields)
    also = " (or --work-state completed)" if "open_items" in fields and "work.state" not in fields else ""
    return f"what it lacks, as `baton handoff amend` takes it: baton handoff amend {token} {fills}{also}"



ITEM_FLAGS = {"open_items": "open_item", "decisions": "decision", "evidence": "evidence",
              "failed_attempts": "failed_attempt", "risks": "risk", "artifacts": "artifact"}
"""Each list section, as the ``argparse`` destination of the flag that adds an item to it."""


def name_item_flags(exc: HandoffInputError, given: Mapping[str, Any]) -> HandoffInputError:
    """``exc`` (a payload refused, ``checkpoint create``/``handoff amend``),
    each problem about an item of a list the flags gave (``given``: the
    parsed arguments) followed by those flags (``open_items[0].description:
    required (from --open-item)``); ``--json``'s problems keep the record's
    paths alone."""
    said = [_with_flag(problem, given) for problem in exc.problems]
    if said == exc.problems:
        return exc
    joined = "; ".join(exc.problems)
    head = exc.message[:-len(joined) - 2] if exc.message.endswith(": " + joined) else None
    named = HandoffInputError(said, message=head)
    named.details = exc.details
    return named


def _with_flag(problem: str, given: Mapping[str, Any]) -> str:
    section = problem.partition(": ")[0].split("[", 1)[0].split(".", 1)[0]
    dest = ITEM_FLAGS.get(section)
    if dest is None:
        return problem
    flags = [f"--{dest.replace('_', '-')}" if given.get(dest) else None,
             f"--replace-{section.replace('_', '-')}" if given.get(f"replace_{section}") is not None else None]
    named = [flag for flag in flags if flag]
    return f"{problem} (from {' or '.join(named)})" if named else problem


CONTENT_DESTS = {**ITEM_FLAGS, "work.title": "title", "work.objective": "objective", "work.scope": "scope",
                 "work.constraints": "constraint", "work.definition_of_done": "done",
                 "summary.current_state": "current_state", "summary.completed": "completed",
                 "summary.in_progress": "in_progress", "summary.discoveries": "discovery",
                 "summary.why_it_matters": "why_it_matters", "origin.harness": "harness", "origin.model": "model"}
"""Each record field the content flags fill (``checkpoint create``, ``handoff amend``), as the
``argparse`` destination of its flag."""

SESSION_END_DESTS = {"open_items": "handoff_steps", "work.objective": "handoff_steps",
                     "failed_attempts": "handoff_failed", "open_questions": "handoff_questions"}
"""The same for ``session end``'s baton: its next steps become the handoff's open items (the first
one its objective), its failed approaches failed attempts, its questions open questions."""


def name_redactions(redactions: Any, given: Mapping[str, Any], dests: Mapping[str, str]) -> list[Any]:
    """``redactions`` (a command's, each naming the record ``field`` it replaced), each one whose
    field a flag the person gave fills (``given``: the parsed arguments; ``dests``: which flag fills
    which field) with that flag added as ``flag`` (``open_items[0].description`` → ``--open-item``);
    the record path stays in ``field``. Content from ``--input`` (the record's own names) gets none."""
    def flag_of(field: str) -> str | None:
        dest = dests.get(field_of(field))
        return f"--{dest.replace('_', '-')}" if dest and given.get(dest) else None

    return named_as_given(redactions, flag_of, "flag")
