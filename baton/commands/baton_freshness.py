"""The handoff a baton carries, as a session is shown it: its freshness line
and its objective and state.

Reading the carried handoff needs the worktree's facts (``handoff_facts``),
and the record only as far as its freshness reads it
(``domain.freshness.stored_record``: not the record model, nor attrs): the
application loads this only when there is a baton (a session start,
``session begin``, ``session handoff``).
"""

from __future__ import annotations

from baton.commands.handoff_facts import live_freshness
from baton.domain.batons import BatonRecord, carried_handoff_lines, freshness_line
from baton.domain.freshness import stored_record
from baton.values import replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a session start loads this)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    Shown = TypeVar("Shown")


def baton_freshness(opened, runner, record: BatonRecord) -> str | None:
    """The one-line freshness of the handoff a baton carries (``domain.batons.freshness_line``).

    None when that handoff recorded no repository head. Reads git and the
    artifacts of the current worktree now, as ``baton resume`` does.
    """
    doc = runner.get("handoffs", record.id) if "handoffs" in runner.by_name else None
    if not isinstance(doc, dict):
        return None
    handoff: Any = stored_record(doc)
    if handoff is None:  # not shaped as the fold writes a record: read by the model, which says why
        handoff = __import__("baton.domain.handoff", fromlist=["stored_handoff"]).stored_handoff(doc)
    repo = handoff.project.repository
    if repo is None or not repo.head:
        return None
    report = live_freshness(opened.paths.worktree_folder, handoff, opened.policy)
    return freshness_line(report, record.id)


def quiet_freshness(opened, runner, record: BatonRecord | None) -> str | None:
    """``baton_freshness`` for views that must never fail on it (session begin, show): None on any error."""
    if record is None:
        return None
    try:
        return baton_freshness(opened, runner, record)
    except Exception:  # noqa: BLE001 - a freshness we cannot compute is left out, never an error
        return None


def shown(opened, shown_baton: Shown) -> Shown:
    """A result showing a baton (``record``), with the freshness line and the
    carried handoff's lines it shows beside it (``freshness``, ``carried``):
    ``session handoff`` and ``session begin`` read them only when there is one."""
    view: Any = shown_baton
    runner, record = opened.runner, view.record
    return replace(view, freshness=quiet_freshness(opened, runner, record), carried=carried_lines(runner, record))


def carried_lines(runner, record: BatonRecord | None) -> tuple[str, ...]:
    """The objective and state of the rich handoff a baton hands on
    (``domain.batons.carried_handoff_lines``); nothing on any error: a view
    never fails on them."""
    if record is None or "handoffs" not in runner.by_name:
        return ()
    try:
        return carried_handoff_lines(runner.get("handoffs", record.id))
    except Exception:  # noqa: BLE001 - an unreadable record adds nothing to the section
        return ()
