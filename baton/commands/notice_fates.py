"""What became of the handoffs waiting hook notices name (``Baton.notice_fates``):
each one's status now, and whether a baton carries it, read from the index and
judged by ``baton.domain.notice_fate``. A session start asks only when a notice
names a handoff, so a steady start never loads this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from baton.domain.notice_fate import DROP, MADE_READY, fate
from baton.model import frozen

if TYPE_CHECKING:
    from baton.commands.context import Project


@frozen
class NoticeFates:
    """Of the handoffs asked about, those whose notices are no longer so (``dropped``)
    and those whose unfinished draft was made ready since (``made_ready``); the
    notices about any other are said as they were left."""

    dropped: frozenset[str] = frozenset()
    made_ready: frozenset[str] = frozenset()


def notice_fates(project: "Project", was: Mapping[str, str | None]) -> NoticeFates:
    """The fate of the notice about each handoff (``notice_fate.fate``), given its
    status when the notice was left (``was``). A handoff the index does not
    hold keeps its notice as it was."""
    runner = project.reading()
    if "handoffs" not in runner.by_name:
        return NoticeFates()
    scoped = "baton_scopes" in runner.by_name
    fates: dict[str, set[str]] = {DROP: set(), MADE_READY: set()}
    for handoff_id, then in was.items():
        doc = runner.get("handoffs", handoff_id)
        if not isinstance(doc, dict):
            continue
        now = doc.get("status") if isinstance(doc.get("status"), str) else None
        carried = scoped and runner.get("baton_scopes", handoff_id) is not None
        fates.setdefault(fate(then, now, handed_on=carried), set()).add(handoff_id)
    return NoticeFates(frozenset(fates[DROP]), frozenset(fates[MADE_READY]))
