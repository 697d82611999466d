"""``session handoff``: the baton the next session here would receive (not
claimed by looking). The freshness and summary of the handoff it carries
are ``baton_freshness.shown``'s, which the application loads only when there
is a baton.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from baton.commands.batons import peek_eligible
from baton.commands.identity import SessionContext, context_of
from baton.domain.batons import BatonRecord, render_baton_markdown
from baton.model import frozen

if TYPE_CHECKING:
    from baton.commands.context import Project


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
    """The baton the next session here would receive (not claimed by looking),
    without its freshness yet (``baton_freshness.shown`` adds it)."""
    ctx = context_of(project, owner=owner, branch=branch)
    peek = peek_eligible(project.reading(), ctx)
    return ActiveBatonResult(ctx, peek.record if peek is not None else None)
