"""What a record's edits made apart say to a reader (``baton.domain.concurrent_edits`` folds them):
one line per edit, naming its writer, what became of it and how to take it. Light: the brief reads it."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any

CONFLICTS = "concurrent_edits"
"""The record member listing the edits made apart that are not (or no longer) its body."""


def edits_of(handoff: Any) -> list[dict[str, Any]]:
    """The edits made apart a record lists, from the record or its JSON."""
    listed = handoff.get(CONFLICTS) if isinstance(handoff, dict) else getattr(handoff, "extra", {}).get(CONFLICTS)
    return [e for e in listed if isinstance(e, dict)] if isinstance(listed, list) else []


def _who(writing: Any) -> str:
    if not isinstance(writing, dict):
        return "another clone"
    owner, writer = writing.get("owner"), writing.get("writer")
    return f"{owner} (writer {writer})" if owner else f"writer {writer}"


def edit_line(handoff_id: str, edit: dict[str, Any]) -> str:
    """One line saying what became of an edit made apart and how to take it (``handoff show``, the
    brief, ``status``, ``sync``)."""
    short = handoff_id[-8:]
    revision = f"{_who(edit)}'s revision ({edit.get('at')}, event {edit.get('event')})"
    by: dict[str, Any] = edit["by"] if isinstance(edit.get("by"), dict) else {}
    if edit.get("outcome") == "overwritten":
        return (f"CONFLICT handoff {short}: {revision} was overwritten by {_who(by)}'s revision, made apart "
                f"without reading it (the later one is kept); amend the handoff again to combine them "
                f"(the ledger keeps both: `baton log` of stream handoff/{handoff_id})")
    if by.get("action"):
        why = f"{_who(by)} {by['action']} the body it replaced, on another clone, and the record keeps that body"
    else:
        why = f"the handoff was already {edit.get('status') or 'past draft'} on another clone"
    return (f"CONFLICT handoff {short}: {revision} was not applied: {why}; to take the edit, "
            f"`baton handoff amend {short} …` again (a draft is revised; a ready one gets a corrected child) "
            f"or continue from it in a child (`baton fork {short}`)")


def edit_lines(handoff: Any) -> list[str]:
    """``edit_line`` of each edit made apart a record (or its JSON) lists."""
    ident = handoff.get("id") if isinstance(handoff, dict) else getattr(handoff, "id", "")
    return [edit_line(str(ident or ""), e) for e in edits_of(handoff)]
