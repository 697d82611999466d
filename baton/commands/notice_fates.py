"""What became of the handoffs waiting hook notices name (``Baton.notice_fates``):
each one's status now, and whether a baton carries it, read from the index and
judged by ``baton.domain.notice_fate``. A session start asks only when a notice
names a handoff, so a steady start never loads this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from baton.domain.notice_fate import DROP, KEEP, MADE_READY, continued_fate, fate
from baton.model import frozen
from baton.projections.lineage import continuations

if TYPE_CHECKING:
    from baton.commands.context import Project


@frozen
class NoticeFates:
    """Of the handoffs asked about, those whose notices are no longer so (``dropped``)
    and those whose unfinished draft was made ready since (``made_ready``); the
    notices about any other are said as they were left."""

    dropped: frozenset[str] = frozenset()
    made_ready: frozenset[str] = frozenset()
    continued: tuple[tuple[str, str], ...] = ()
    """(draft, the capture continuing it made ready since, which no baton carries): the
    notice about the draft names that one."""


def notice_fates(project: "Project", was: Mapping[str, str | None]) -> NoticeFates:
    """The fate of the notice about each handoff (``notice_fate.fate``), given its
    status when the notice was left (``was``). A handoff the index does not
    hold keeps its notice as it was."""
    runner = project.reading()
    if "handoffs" not in runner.by_name:
        return NoticeFates()
    scoped = "baton_scopes" in runner.by_name
    fates: dict[str, set[str]] = {DROP: set(), MADE_READY: set()}
    continued: list[tuple[str, str]] = []

    def state(handoff_id: str) -> tuple[str | None, bool] | None:
        doc = runner.get("handoffs", handoff_id)
        if not isinstance(doc, dict):
            return None
        now = doc.get("status") if isinstance(doc.get("status"), str) else None
        return now, bool(scoped and runner.get("baton_scopes", handoff_id) is not None)

    for handoff_id, then in was.items():
        known = state(handoff_id)
        if known is None:
            continue
        judged = fate(then, known[0], handed_on=known[1])
        if judged == KEEP and "lineage" in runner.by_name:
            later = [(ident, *found) for ident in continuations(runner.db, handoff_id)
                     if (found := state(ident)) is not None]
            judged, ready = continued_fate(then, later)
            if ready is not None:
                continued.append((handoff_id, ready))
                continue
        fates.setdefault(judged, set()).add(handoff_id)
    return NoticeFates(frozenset(fates[DROP]), frozenset(fates[MADE_READY]), tuple(continued))

