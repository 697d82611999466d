"""What a record's edits made apart say to a reader (``baton.domain.concurrent_edits`` folds them):
one line per edit, naming its writer, what became of it and how to take it. Light: the brief reads it."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any

CONFLICTS = "concurrent_edits"
"""The record member listing the edits made apart that are not (or no longer) its body."""
READIED = "readied"
"""The record member naming who made it ready (the ``handoff.promoted`` event's writing): an archive
its writer could not have read (made apart) lists that promotion (``archived_after_ready``)."""
ARCHIVED_BY = "archived_by"
"""The record member naming who archived it (the ``handoff.archived`` event's writing): ``resume
latest`` says so when the newest ready handoff was archived (``baton.domain.teammate_archive``)."""


def edits_of(handoff: Any) -> list[dict[str, Any]]:
    """The edits made apart a record lists, from the record or its JSON."""
    listed = handoff.get(CONFLICTS) if isinstance(handoff, dict) else getattr(handoff, "extra", {}).get(CONFLICTS)
    return [e for e in listed if isinstance(e, dict)] if isinstance(listed, list) else []


def _who(writing: Any) -> str:
    """Who wrote an event: the owner (git name or e-mail) its envelope carries, with its writer;
    else another clone, named by its writer id (an event recorded before Baton named who)."""
    if not isinstance(writing, dict):
        return "another clone"
    owner, writer = writing.get("owner"), writing.get("writer")
    if owner:
        return f"{owner} (writer {writer})"
    return f"another clone (writer {writer})" if writer else "another clone"


def edit_line(handoff_id: str, edit: dict[str, Any]) -> str:
    """One line saying what became of an edit made apart and how to take it (``handoff show``, the
    brief, ``status``, ``sync``)."""
    short = handoff_id[-8:]
    by: dict[str, Any] = edit["by"] if isinstance(edit.get("by"), dict) else {}
    if edit.get("action") in _ACTIONS and (edit.get("status") == "archived" or edit.get("action") == "superseded"):
        return _action_line(handoff_id, edit, by)
    if edit.get("action") in ("validated", "promoted"):
        return _unread_line(handoff_id, edit)
    revision = f"{_who(edit)}'s revision ({edit.get('at')}, event {edit.get('event')})"
    if edit.get("outcome") == "overwritten":
        return (f"CONFLICT handoff {short}: {revision} was overwritten by {_who(by)}'s revision, made apart "
                f"without reading it (the later one is kept); amend the handoff again to combine them "
                f"(the ledger keeps both: `baton log` of stream handoff/{handoff_id})")
    if by.get("action"):
        why = f"{_who(by)} {by['action']} the body it replaced, on another clone, and the record keeps that body"
    else:
        why = f"the handoff was already {edit.get('status') or 'past draft'} on another clone"
    if "archived" in (by.get("action"), edit.get("status")):
        return f"CONFLICT handoff {short}: {revision} was not applied: {why}; {_ARCHIVED_TAKE.format(short=short)}"
    return (f"CONFLICT handoff {short}: {revision} was not applied: {why}; to take the edit, "
            f"`baton handoff amend {short} …` again (a draft is revised; a ready one gets a corrected child) "
            f"or continue from it in a child (`baton fork {short}`)")


def _unread_line(handoff_id: str, edit: dict[str, Any]) -> str:
    """The line of a validation or promotion of a body the record no longer holds."""
    short = handoff_id[-8:]
    what = "validation" if edit["action"] == "validated" else "ready"
    status = edit.get("status")
    why = (f"the handoff was already {status} with another body, made so on another clone first"
           if status not in ("draft", "validated") else
           "revisions made apart on another clone replaced the body it read")
    return (f"CONFLICT handoff {short}: {_who(edit)}'s {what} ({edit.get('at')}, event {edit.get('event')}) "
            f"was not applied: {why}; to take the body it read, "
            f"`baton handoff amend {short} …` (a draft is revised; a ready one gets a corrected child) "
            f"(the ledger keeps both: `baton log` of stream handoff/{handoff_id})")


_ARCHIVED_TAKE = "to go on with that work, capture a checkpoint that continues {short} (`baton checkpoint create`)"
_ACTIONS = {"validated": "validation", "promoted": "promotion to ready", "superseded": "supersede",
            "resumed": "resume"}


def _action_line(handoff_id: str, edit: dict[str, Any], by: dict[str, Any]) -> str:
    """The line of a validation, promotion or supersede that an archive made apart left out."""
    short = handoff_id[-8:]
    successor = str(edit.get("superseded_by") or "")[-8:]
    if edit.get("action") == "superseded":
        what = (f"its continuation {successor}, made ready on another clone, did not supersede it"
                if not edit.get("event") else
                f"{_who(edit)}'s continuation {successor} ({edit.get('at')}, event {edit.get('event')}) did not "
                f"supersede it")
        take = (f"{successor} is ready on its own: `baton handoff archive {successor}` if that work is "
                f"dropped too, or keep it")
    else:
        done = ("was archived over: the archive, made apart without reading it, sorts after it"
                if edit.get("outcome") == "archived_over" else "was not applied")
        what = f"{_who(edit)}'s {_ACTIONS[str(edit['action'])]} ({edit.get('at')}, event {edit.get('event')}) {done}"
        take = _ARCHIVED_TAKE.format(short=short)
    who = f"{_who(by)} archived it" if by else "it was archived"
    return (f"CONFLICT handoff {short}: {what}: {who} on another clone, and the archive stands; {take} "
            f"(the ledger keeps both: `baton log` of stream handoff/{handoff_id})")


def edit_lines(handoff: Any) -> list[str]:
    """``edit_line`` of each edit made apart a record (or its JSON) lists."""
    ident = handoff.get("id") if isinstance(handoff, dict) else getattr(handoff, "id", "")
    return [edit_line(str(ident or ""), e) for e in edits_of(handoff)]
