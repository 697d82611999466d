"""A baton as a session is shown it: the freshness of the handoff it carries,
that handoff's objective and state, and ``session handoff`` (the baton the
next session here would receive).

Reading the carried handoff needs the record model (``baton.domain.handoff``)
and the worktree's facts (``handoff_facts``): a session start imports this
only when a baton waits for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from baton.commands.batons import peek_eligible
from baton.commands.handoff_facts import live_freshness
from baton.commands.identity import SessionContext, context_of
from baton.domain.batons import BatonRecord, carried_handoff_lines, freshness_line, render_baton_markdown
from baton.domain.handoff import handoff_from_json
from baton.model import frozen

if TYPE_CHECKING:
    from baton.commands.context import Project


def baton_freshness(opened, runner, record: BatonRecord) -> str | None:
    """The one-line freshness of the handoff a baton carries (``domain.batons.freshness_line``).

    None when that handoff recorded no repository head. Reads git and the
    artifacts of the current worktree now, as ``baton resume`` does.
    """
    doc = runner.get("handoffs", record.id) if "handoffs" in runner.by_name else None
    if not isinstance(doc, dict):
        return None
    handoff = handoff_from_json(doc)
    repo = handoff.project.repository
    if repo is None or not repo.head:
        return None
    report = live_freshness(opened.paths.worktree, handoff, opened.policy.allowed_roots)
    return freshness_line(report, record.id)


def quiet_freshness(opened, runner, record: BatonRecord | None) -> str | None:
    """``baton_freshness`` for views that must never fail on it (session begin, show): None on any error."""
    if record is None:
        return None
    try:
        return baton_freshness(opened, runner, record)
    except Exception:  # noqa: BLE001 - a freshness we cannot compute is left out, never an error
        return None


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


# -- the active baton (``session handoff``) --------------------------------------------

@frozen
class ActiveBatonResult:
    context: SessionContext
    record: BatonRecord | None
    freshness: str | None = None
    carried: tuple[str, ...] = ()
    exit_code: int = 0

    def markdown(self) -> str | None:
        if self.record is None:
            return None
        return render_baton_markdown(self.record, freshness=self.freshness, carried=self.carried)

    def to_json(self) -> dict[str, Any]:
        return {
            **self.context.to_json(),
            "handoff": self.record.to_json() if self.record else None,
            "handoffMarkdown": self.markdown(),
        }

    def render(self) -> str:
        if self.record is None:
            return f"No active session handoff for {self.context.owner} on {self.context.branch}."
        return (self.markdown() or "").rstrip("\n")


def show_active_baton(project: "Project", *, owner: str | None = None, branch: str | None = None) -> ActiveBatonResult:
    """The baton the next session here would receive (not claimed by looking), with its freshness."""
    opened = project
    ctx = context_of(opened, owner=owner, branch=branch)
    runner = opened.reading()
    peek = peek_eligible(runner, ctx)
    record = peek.record if peek else None
    return ActiveBatonResult(ctx, record, quiet_freshness(opened, runner, record), carried_lines(runner, record))
