"""What a draft Baton prepared still lacks: the fields a person or agent
completes (``TO_COMPLETE``), the placeholder Baton writes into a title or
objective it had to invent, and which of them are still empty.

Light on purpose: a session start after a compaction names the fields of its
draft still to complete, without the draft's preparation (``prepare``) or the
detector (``detect``).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any, Mapping

TO_COMPLETE = (
    ("work.title", "a short name for the work item"),
    ("work.objective", "the measurable outcome being pursued"),
    ("summary.current_state", "where the work stands right now, in a sentence or two"),
    ("summary.completed", "threads finished in this session"),
    ("summary.in_progress", "threads started but not finished"),
    ("open_items", "the next steps, each with suggested_action and acceptance_check "
                   "(or set work.state to \"completed\")"),
    ("artifacts", "keep the files that matter, set each role, drop the rest"),
    ("evidence", "commands/tests run and their results, so claims are supported"),
    ("decisions", "decisions made and why (cite evidence ids)"),
    ("failed_attempts", "approaches that failed and must not be retried"),
)
PLACEHOLDER = "To complete:"
"""How a title or objective Baton had to write into a draft it prepared begins: still to complete."""


def field_value(template: Any, dotted: str) -> Any:
    """The value at ``dotted`` (``work.title``) of a template or record, or None."""
    value: Any = template
    for part in dotted.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def field_missing(template: Any, dotted: str) -> bool:
    """Is the field at ``dotted`` (``work.title``) of a template or record empty?"""
    if dotted == "artifacts":
        return True  # changed files are candidates until someone confirms them
    return field_value(template, dotted) in (None, "", [], {})


def still_to_complete(doc: Mapping[str, Any]) -> tuple[str, ...]:
    """The fields of a prepared draft still empty, or still Baton's placeholder."""
    def placeholder(dotted: str) -> bool:
        value = field_value(doc, dotted)
        return isinstance(value, str) and value.startswith(PLACEHOLDER)

    return tuple(field for field, _ in TO_COMPLETE if field_missing(doc, field) or placeholder(field))
