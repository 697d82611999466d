"""Edits that take things out of a handoff: close an open item, drop an item
by id, replace a whole list.

``handoff amend``'s content flags only add (text replaces, lists gain
entries, records with an id replace theirs). Work moves on, though: an open
item gets done, a decision is reversed, a list is simply wrong. These are
the ways to say so; each is a pure function of the record's body (the JSON
of a handoff without the fields Baton manages), and ``Edit.to_json()`` is
what the ``handoff.revised`` (or, for a ready record, the amend child's
``handoff.captured``) event records under ``edits``.

- **close**: the open item leaves ``open_items`` and its description joins
  ``summary.completed`` (finished work stays visible to the next session).
- **drop**: any item with an id (decision ``D-``, evidence ``E-``, failed
  attempt ``F-``, open item ``O-``) is removed.
- **replace**: a list section (``open_items``, ``decisions``, ``evidence``,
  ``failed_attempts``, ``risks``, ``artifacts``) is replaced whole.

An id that leaves the record is retired (``retired_after``, kept in the
record's ``retired_ids``): no new item takes it, so a citation never moves to
an unrelated item; a drop of an item the amended record still cites is
refused, naming the citing items (``refuse_cited_drops``), and so is a replace that takes a cited
item away with its list (``refuse_cited_removals``).

Ids are matched as people type them: ``O-1`` names ``O-001``, case does not
matter. An id that names nothing is an input error listing the ids there are;
so is an id named twice in one amend (``named_once``).
"""

from __future__ import annotations

import copy
from typing import Any, Iterable, Mapping, Sequence

from baton.domain.handoff import json_type
from baton.domain.short_ids import id_key
from baton.errors import InputError
from baton.model import frozen

ID_SECTIONS = ("open_items", "decisions", "evidence", "failed_attempts")
"""The sections whose items carry an id (``drop`` looks in each)."""

REPLACEABLE = ("open_items", "decisions", "evidence", "failed_attempts", "risks", "artifacts")
"""The list sections ``replace`` may set whole."""

@frozen
class Edit:
    op: str  # "close", "drop" or "replace"
    target: str  # an item id, or a section name for "replace"
    section: str | None = None
    """Where a closed or dropped item was (``open_items``...)."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"op": self.op, "target": self.target}
        if self.section is not None:
            out["section"] = self.section
        return out


def same_id(given: str, stored: Any) -> bool:
    """``O-1`` and ``o-001`` name ``O-001`` (``handoff.id_key``, the duplicate check's too)."""
    return isinstance(stored, str) and id_key(given) == id_key(stored)


def _ids_in(body: Mapping[str, Any], sections: Iterable[str]) -> list[str]:
    return [item["id"] for key in sections for item in body.get(key) or ()
            if isinstance(item, dict) and isinstance(item.get("id"), str)]


def _unknown(kind: str, given: str, body: Mapping[str, Any], sections: Sequence[str]) -> InputError:
    known = _ids_in(body, sections)
    listed = ", ".join(known) if known else "none"
    return InputError(f"no {kind} {given!r} in this handoff (there are: {listed})",
                      details={"id": given, "known": known})


def close_items(body: Mapping[str, Any], ids: Sequence[str]) -> tuple[dict[str, Any], list[Edit]]:
    """Close open items: each leaves ``open_items``; its description joins ``summary.completed``.

    Raises:
        InputError: an id names no open item.
    """
    out = copy.deepcopy(dict(body))
    edits: list[Edit] = []
    for given in ids:
        items = list(out.get("open_items") or [])
        at = next((i for i, item in enumerate(items) if isinstance(item, dict) and same_id(given, item.get("id"))),
                  None)
        if at is None:
            raise _unknown("open item", given, out, ("open_items",))
        item = items.pop(at)
        out["open_items"] = items
        summary = dict(out.get("summary") or {})
        completed = list(summary.get("completed") or [])
        description = item.get("description")
        if isinstance(description, str) and description and description not in completed:
            completed.append(description)
        summary["completed"] = completed
        out["summary"] = summary
        edits.append(Edit("close", item["id"], "open_items"))
    return out, edits


def drop_items(body: Mapping[str, Any], ids: Sequence[str]) -> tuple[dict[str, Any], list[Edit]]:
    """Remove items by id from whichever section holds them.

    Raises:
        InputError: an id names no item.
    """
    out = copy.deepcopy(dict(body))
    edits: list[Edit] = []
    for given in ids:
        for key in ID_SECTIONS:
            items = list(out.get(key) or [])
            at = next((i for i, item in enumerate(items)
                       if isinstance(item, dict) and same_id(given, item.get("id"))), None)
            if at is not None:
                dropped = items.pop(at)
                out[key] = items
                edits.append(Edit("drop", dropped["id"], key))
                break
        else:
            raise _unknown("item", given, out, ID_SECTIONS)
    return out, edits


def replace_lists(body: Mapping[str, Any], lists: Mapping[str, Any]) -> tuple[dict[str, Any], list[Edit]]:
    """Replace whole list sections.

    Raises:
        InputError: an unknown section, or a value that is not a list.
    """
    out = copy.deepcopy(dict(body))
    edits: list[Edit] = []
    for key, value in lists.items():
        if key not in REPLACEABLE:
            raise InputError(f"{key!r} cannot be replaced as a list (one of {', '.join(REPLACEABLE)})")
        if not isinstance(value, list):
            raise InputError(f"the new {key} must be a JSON array, not {json_type(value)}",
                             details={"section": key})
        out[key] = copy.deepcopy(value)
        edits.append(Edit("replace", key))
    return out, edits


def named_once(close: Sequence[str], drop: Sequence[str]) -> None:
    """Each item is closed or dropped once: an id given twice (``O-001`` and
    ``O-1`` are one id), in one list or both, would find it gone the second
    time and be refused as an item that is not there.

    Raises:
        InputError: an id named twice.
    """
    seen: dict[str, str] = {}
    for given in (*drop, *close):
        if not isinstance(given, str):
            continue
        key = id_key(given)
        if key in seen:
            also = "" if seen[key].strip() == given.strip() else f" (as {seen[key]!r} too)"
            raise InputError(f"{given!r} is named twice{also}: name each item once, to close or to drop it",
                             details={"id": given, "named": [seen[key], given]})
        seen[key] = given


def _citers(body: Mapping[str, Any], dropped: Edit) -> list[str]:
    """Where the amended body still names a dropped item: ``D-001 (evidence_ids)``."""
    fields: tuple[tuple[str, str], ...]
    if dropped.section == "evidence":
        fields = (("decisions", "evidence_ids"), ("failed_attempts", "evidence_ids"))
    elif dropped.section == "open_items":
        fields = (("open_items", "blocked_by"),)
    else:
        return []
    return [f"{item.get('id')} ({field})" for key, field in fields for item in body.get(key) or ()
            if isinstance(item, dict) and isinstance(item.get(field), list)
            and any(same_id(dropped.target, ref) for ref in item[field])]


def refuse_cited_drops(body: Mapping[str, Any], edits: Sequence[Edit]) -> None:
    """A dropped item still cited by the amended record is refused, naming what
    cites it: the citation would dangle (and, before ids were retired, moved to
    the next item given that id). Drop or correct the citing item in the same amend.

    Raises:
        InputError: a dropped evidence item is still in a decision's or failed
            attempt's ``evidence_ids``, or a dropped open item in another's ``blocked_by``.
    """
    for edit in edits:
        if edit.op != "drop":
            continue
        citers = _citers(body, edit)
        if citers:
            raise InputError(
                f"{edit.target} is cited by {', '.join(citers)}: dropping it would leave the citation "
                f"pointing at nothing; drop the citing item too, or give it without {edit.target} "
                "in the same amend", details={"id": edit.target, "cited_by": citers})


def refuse_cited_removals(before: Mapping[str, Any], after: Mapping[str, Any], edits: Sequence[Edit]) -> None:
    """Any item the amendment takes away — dropped (``refuse_cited_drops``), or replaced away with its
    list (``--replace-evidence``, a section of ``--input``) — that the amended record still cites is
    refused the same way, naming what cites it. A closed open item is not: closing says it is done.

    Raises:
        InputError: the amended record still cites an item the amendment took away.
    """
    refuse_cited_drops(after, edits)
    closed = {id_key(e.target) for e in edits if e.op == "close"}
    kept = {id_key(i) for i in _ids_in(after, ID_SECTIONS)}
    for section in ID_SECTIONS:
        for item_id in _ids_in({section: before.get(section)}, (section,)):
            if id_key(item_id) in kept or id_key(item_id) in closed:
                continue
            citers = _citers(after, Edit("drop", item_id, section))
            if citers:
                raise InputError(
                    f"{item_id} is cited by {', '.join(citers)}: replacing {section} takes {item_id} away and "
                    f"would leave the citation pointing at nothing; keep it in the new list (with its id "
                    f"{item_id}), or give the citing item without {item_id} in the same amend",
                    details={"id": item_id, "cited_by": citers})


def retired_after(before: Mapping[str, Any], after: Mapping[str, Any], retired: Iterable[str] = ()) -> list[str]:
    """The record's retired ids after an amendment: those it had, plus every
    item id in ``before`` that ``after`` no longer holds (dropped, closed, or
    replaced away). ``assign_item_ids`` never gives a new item one of them."""
    kept = {id_key(i) for i in _ids_in(after, ID_SECTIONS)}
    out = list(dict.fromkeys(r for r in retired if isinstance(r, str)))
    known = {id_key(r) for r in out}
    for item_id in _ids_in(before, ID_SECTIONS):
        key = id_key(item_id)
        if key not in kept and key not in known:
            out.append(item_id)
            known.add(key)
    return sorted(out)


def apply_edits(body: Mapping[str, Any], *, close: Sequence[str] = (), drop: Sequence[str] = (),
                replace: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], list[Edit]]:
    """Replace, then drop, then close (so a replaced list can be pruned in the same amend).

    Raises:
        InputError: an id named twice (``named_once``), or one that names nothing.
    """
    named_once(close, drop)
    out, edits = replace_lists(body, replace or {})
    out, dropped = drop_items(out, drop)
    out, closed = close_items(out, close)
    return out, [*edits, *dropped, *closed]
