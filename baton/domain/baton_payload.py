"""What a session hands on: a baton's payload, parsed and checked.

Read when a baton is left (``session end``, ``baton create``), never when
one is read or claimed: a session start defines no ``BatonPayload``. The
baton's record, keys, brief and the command line's list flags
(``split_flag_list``) are in ``baton.domain.batons``.
"""

from __future__ import annotations

from collections.abc import Mapping

from baton.domain.batons import OPEN_QUESTIONS_FIELD, SCOPE_FIELD, STEPS_REQUIRED
from baton.errors import InputError
from baton.values import Value, replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (baton/values.py)
if TYPE_CHECKING:
    from typing import Any

_LIST_FIELDS = (
    ("nextSteps", "next_steps"),
    ("failedApproaches", "failed_approaches"),
    ("openQuestions", "open_questions"),
)


class BatonPayload(Value):
    """What a session hands on, after empty entries are filtered out."""

    next_steps: tuple[str, ...]
    failed_approaches: tuple[str, ...] = ()
    open_questions: tuple[str, ...] = ()
    owner: str | None = None
    branch: str | None = None
    shared: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "nextSteps": list(self.next_steps),
            "failedApproaches": list(self.failed_approaches),
            "openQuestions": list(self.open_questions),
            "owner": self.owner,
            "branch": self.branch,
            "shared": self.shared,
        }


PAYLOAD_KEYS = ("nextSteps", "failedApproaches", "openQuestions", "owner", "branch", "shared")
"""A payload's members, as the spec writes them (the list fields' snake_case forms are accepted too)."""
_KNOWN_KEYS = frozenset(PAYLOAD_KEYS) | {snake for _camel, snake in _LIST_FIELDS}


def _field(raw: Mapping[str, Any], camel: str, snake: str) -> Any:
    return raw[camel] if camel in raw else raw.get(snake)


def parse_payload(raw: Any, *, allow_empty: bool = True) -> BatonPayload | None:
    """Parse a handoff payload (camelCase as the spec writes it; snake_case accepted).

    An *empty* payload — None, ``{}``, or one whose ``nextSteps``,
    ``failedApproaches`` and ``openQuestions`` hold no entries at all — is not
    a handoff: with ``allow_empty`` it yields None (ending a session without a
    baton is not an error). A payload that has entries but no non-empty step
    is an error, with the spec's exact message.

    Raises:
        InputError: the payload is malformed (every problem is listed: a
            member the payload does not have, such as a misspelled
            ``failedApproches``, is one, never silently dropped), or it has
            no non-empty next step.
    """
    if raw is None:
        if allow_empty:
            return None
        raise InputError(STEPS_REQUIRED)
    if not isinstance(raw, Mapping):
        raise InputError("a handoff payload must be a JSON object")
    problems: list[str] = [f"handoff.{key}: unknown field (the fields are {', '.join(PAYLOAD_KEYS)})"
                           for key in raw if key not in _KNOWN_KEYS]
    lists: dict[str, tuple[str, ...]] = {}
    given = 0
    for camel, snake in _LIST_FIELDS:
        value = _field(raw, camel, snake)
        if value is None:
            lists[camel] = ()
            continue
        if not isinstance(value, (list, tuple)):
            problems.append(f"handoff.{camel} must be an array of strings")
            lists[camel] = ()
            continue
        given += len(value)
        bad = [i for i, item in enumerate(value) if not isinstance(item, str)]
        if bad:
            problems.append(f"handoff.{camel}[{bad[0]}] must be a string")
        lists[camel] = tuple(item.strip() for item in value if isinstance(item, str) and item.strip())
    texts: dict[str, str | None] = {}
    for name in ("owner", "branch"):
        value = raw.get(name)
        if value is not None and not isinstance(value, str):
            problems.append(f"handoff.{name} must be a string")
            value = None
        texts[name] = value.strip() or None if isinstance(value, str) else None
    shared = raw.get("shared", False)
    if shared is None:
        shared = False
    if not isinstance(shared, bool):
        problems.append("handoff.shared must be true or false")
        shared = False
    if problems:
        raise InputError("; ".join(problems), details={"problems": problems})
    if given == 0 and allow_empty:
        return None
    if not lists["nextSteps"]:
        raise InputError(STEPS_REQUIRED)
    return BatonPayload(
        next_steps=lists["nextSteps"],
        failed_approaches=lists["failedApproaches"],
        open_questions=lists["openQuestions"],
        owner=texts["owner"],
        branch=texts["branch"],
        shared=shared,
    )


def as_payload(handoff: Any, owner: str | None, branch: str | None, shared: bool | None,
               *, allow_empty: bool) -> BatonPayload | None:
    """A baton's payload (``parse_payload``) with the owner, branch
    and sharing given beside it applied; None for an empty one when allowed."""
    payload: BatonPayload | None
    if isinstance(handoff, BatonPayload):
        payload = handoff
    else:
        payload = parse_payload(handoff, allow_empty=allow_empty)
    if payload is None:
        return None
    return replace(
        payload,
        owner=owner or payload.owner,
        branch=branch or payload.branch,
        shared=payload.shared if shared is None else (shared or payload.shared),
    )


def leaves_own_baton(handoff: Any) -> bool:
    """Whether a session's end leaves a baton of its own: its payload has entries
    (``parse_payload``). Else the end hands on the session's ready handoff, as its
    harness's end hook does. The owner, branch and sharing given beside the payload
    only scope whichever baton the end leaves; they never decide which one.

    Raises:
        InputError: as ``parse_payload``.
    """
    return as_payload(handoff, None, None, None, allow_empty=True) is not None


def handoff_payload_for_baton(
    payload: BatonPayload,
    *,
    owner: str,
    branch: str,
    objective: str | None = None,
    session_id: str | None = None,
) -> dict[str, Any]:
    """The capture payload (§7.2 fields) of the handoff record that carries a baton.

    Next steps become open items (the first one high priority, in order),
    failed approaches become failed attempts with ``avoid_repeating`` true,
    open questions are kept in the ``open_questions`` extension field, and the
    scope in the ``baton`` extension field. Nothing is invented: the title
    names the scope, the objective is the session's objective when one was
    recorded and otherwise the first next step.
    """
    where = f"shared, from branch {branch}" if payload.shared else f"{owner} on {branch}"
    work: dict[str, Any] = {
        "title": f"Session baton ({where})",
        "objective": objective.strip() if objective and objective.strip() else payload.next_steps[0],
    }
    ended = f"Session {session_id} ended" if session_id else "A session ended"
    return {
        "work": work,
        "summary": {"current_state": f"{ended} and handed these next steps to the next session."},
        "open_items": [
            {"id": f"O-{i:03d}", "description": step, "priority": "high" if i == 1 else "medium"}
            for i, step in enumerate(payload.next_steps, 1)
        ],
        "failed_attempts": [
            {"id": f"F-{i:03d}", "approach": approach, "outcome": "failed", "avoid_repeating": True}
            for i, approach in enumerate(payload.failed_approaches, 1)
        ],
        OPEN_QUESTIONS_FIELD: list(payload.open_questions),
        SCOPE_FIELD: {"owner": owner, "branch": branch, "shared": payload.shared},
    }
