"""``session handoff``: the baton the next session here would receive (not
claimed by looking). The freshness and summary of the handoff it carries
are ``baton_freshness.shown``'s, which the application loads only when there
is a baton.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from baton.commands.batons import peek_eligible, pending_batons
from baton.commands.identity import SessionContext, context_of
from baton.domain.batons import BatonRecord, render_baton_markdown, unseen_lines
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
    elsewhere: int = 0
    """With none for this owner and branch: how many pending batons are for
    another owner or branch, which the text says (not in ``--json``), so that
    one left under a previous owner name is not taken for lost."""

    def markdown(self) -> str | None:
        if self.record is None:
            return None
        return render_baton_markdown(self.record, freshness=self.freshness, carried=self.carried,
                                     unseen=unseen_lines(self.record))

    def to_json(self) -> dict[str, Any]:
        return {
            **self.context.to_json(),
            "handoff": self.record.to_json() if self.record else None,
            "handoffMarkdown": self.markdown(),
        }

    def render(self) -> str:
        if self.record is None:
            said = f"No active session handoff for {self.context.owner} on {self.context.branch}"
            if not self.elsewhere:
                return said + "."
            others = "1 pending baton is" if self.elsewhere == 1 else f"{self.elsewhere} pending batons are"
            return f"{said}; {others} for another owner or branch: `baton session handoff --all`."
        return (self.markdown() or "").rstrip("\n")


def show_active_baton(project: "Project", *, owner: str | None = None, branch: str | None = None) -> ActiveBatonResult:
    """The baton the next session here would receive (not claimed by looking),
    without its freshness yet (``baton_freshness.shown`` adds it)."""
    ctx = context_of(project, owner=owner, branch=branch)
    runner = project.reading()
    peek = peek_eligible(runner, ctx)
    if peek is not None:
        return ActiveBatonResult(ctx, peek.record)
    return ActiveBatonResult(ctx, None, elsewhere=len(pending_batons(runner)))  # read only when none is here
