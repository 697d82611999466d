"""What became of the handoffs waiting hook notices name (``Baton.notice_fates``):
each one's status now, and whether a baton carries it, read from the index and
judged by ``baton.domain.notice_fate``. A session start asks only when a notice
names a handoff, so a steady start never loads this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

import attrs

from baton.domain.notice_fate import CONTINUED, CONTINUING, DROP, MADE_READY, Successor, continued_by, fate
from baton.domain.short_ids import short_id
from baton.model import frozen
from baton.projections.lineage import descendant_ids

if TYPE_CHECKING:
    from baton.commands.context import Project


@frozen
class NoticeFates:
    """Of the handoffs asked about, those whose notices are no longer so (``dropped``),
    those whose unfinished draft was made ready since (``made_ready``), and those
    whose unfinished draft a ready handoff continues since (``continued``: the
    draft's id to that handoff's); the notices about any other are said as they
    were left."""

    dropped: frozenset[str] = frozenset()
    made_ready: frozenset[str] = frozenset()
    continued: Mapping[str, str] = attrs.field(factory=dict)


def notice_fates(project: "Project", was: Mapping[str, str | None]) -> NoticeFates:
    """The fate of the notice about each handoff (``notice_fate.fate``), given its
    status when the notice was left (``was``). A handoff the index does not
    hold keeps its notice as it was."""
    runner = project.reading()
    if "handoffs" not in runner.by_name:
        return NoticeFates()
    fates: dict[str, set[str]] = {DROP: set(), MADE_READY: set()}
    continued: dict[str, str] = {}
    for handoff_id, then in was.items():
        doc = runner.get("handoffs", handoff_id)
        if not isinstance(doc, dict):
            continue
        successors = _successors(runner, handoff_id)
        verdict = fate(then, _status(doc), handed_on=_carried(runner, handoff_id), successors=successors)
        if verdict == CONTINUED:
            continued[handoff_id] = continued_by(successors) or handoff_id
        fates.setdefault(verdict, set()).add(handoff_id)
    return NoticeFates(frozenset(fates[DROP]), frozenset(fates[MADE_READY]), continued)


def _status(doc: Mapping[str, Any]) -> str | None:
    return doc.get("status") if isinstance(doc.get("status"), str) else None


def _carried(runner: Any, handoff_id: str) -> bool:
    return "baton_scopes" in runner.by_name and runner.get("baton_scopes", handoff_id) is not None


def _successors(runner: Any, handoff_id: str) -> list[Successor]:
    """The handoffs carrying ``handoff_id``'s work on (``notice_fate.CONTINUING``
    relations, transitively), as the index holds them now."""
    if "lineage" not in runner.by_name:
        return []
    found = []
    for child in descendant_ids(runner.db, handoff_id, CONTINUING):
        doc = runner.get("handoffs", child)
        if isinstance(doc, dict):
            made = doc.get("created_at")
            found.append(Successor(child, _status(doc), _carried(runner, child), made if isinstance(made, str) else ""))
    return found


def as_now(waiting: list[dict[str, Any]], fates: NoticeFates, wording: Mapping[str, str]) -> list[dict[str, Any]]:
    """The notices failed hooks left (``baton.harnesses.notices``) that say a handoff was not
    handed on, as they are true now: the same, when nothing changed; none, when the handoff was
    handed on, resumed, superseded or archived since (or a handoff continuing the draft was
    handed on or resumed: ``fates.dropped``); and for the unfinished draft the person made ready
    since, or continued by a handoff made ready since, what is so now — ready, but no baton
    carries it, in the words of ``wording`` (the adapter's: ``made_ready`` with ``{short}``,
    ``continued`` with ``{short}`` and ``{by}``, the short ids)."""
    now = []
    for item in waiting:
        if item.get("handoff") in fates.dropped:
            continue
        if item.get("handoff") in fates.made_ready:
            item = {**item, "problem": wording["made_ready"].format(short=short_id(item["handoff"]))}
        elif item.get("handoff") in fates.continued:
            item = {**item, "problem": wording["continued"].format(
                short=short_id(item["handoff"]), by=short_id(fates.continued[item["handoff"]]))}
        now.append(item)
    return now

