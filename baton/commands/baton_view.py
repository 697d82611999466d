"""``session handoff``: the baton the next session here would receive (not
claimed by looking). The freshness and summary of the handoff it carries
are ``handoff_facts.shown``'s, which the application loads only when there
is a baton.
"""

from __future__ import annotations

from baton.commands.batons import as_taken_up, claim_told, peek_at_start, pending_batons, taken_up_in
from baton.commands.feed_vouch import baton_vouch
from baton.commands.identity import SessionContext, context_of
from baton.domain.batons import BatonRecord, render_baton_markdown, shown_name, taken_up_notices, unseen_lines
from baton.domain.claimed_elsewhere import ClaimedElsewhere, claimed_elsewhere_notice
from baton.domain.feed_vouch import FeedVouch
from baton.ledger.clock import rfc3339_micros
from baton.projections.batons import unseen_sources
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook path's modules need none)
if TYPE_CHECKING:
    from typing import Any

    from baton.commands.context import Project


# -- the active baton (``session handoff``) --------------------------------------------

class ActiveBatonResult(Value):
    context: SessionContext
    record: BatonRecord | None
    freshness: str | None = None
    carried: tuple[str, ...] = ()
    exit_code: int = 0
    elsewhere: int = 0
    """With none for this owner and branch: how many pending batons are for
    another owner or branch, which the text says (not in ``--json``), so that
    one left under a previous owner name is not taken for lost."""
    claimed_elsewhere: ClaimedElsewhere | None = None
    """With none for this owner and branch: their newest baton, claimed by a session recently
    (``domain.claimed_elsewhere``, as a session start that receives none is told) — a sibling
    session (a second fork of one conversation) has the context this one may lack."""
    unverified: FeedVouch | None = None
    """The baton comes from a feed no trusted key vouches for (``baton.domain.feed_vouch``)."""
    withheld: str = ""
    """A baton from such a feed was withheld (signatures are required): the notice that says so."""
    taken_up: str = ""
    """The baton here carries a handoff resumed after it was left (on another clone, come by
    ``baton sync``): a session start would dismiss it instead of receiving it, and this is the
    line it would be told (``baton.domain.batons.settled_by_resume``); nothing is dismissed by looking."""
    unseen: tuple[str, ...] = ()
    """The lines naming the batons this one replaced unseen or unread (``unseen_lines``, with who
    left each, its objective and its handoff's status now: ``unseen_sources``)."""

    def markdown(self) -> str | None:
        if self.record is None:
            return None
        claimed = self.record.owner if self.record.shared else None
        return render_baton_markdown(self.record, freshness=self.freshness, carried=self.carried,
                                     unseen=self.unseen,
                                     unverified=self.unverified.line(claimed) if self.unverified else "")

    def to_json(self) -> dict[str, Any]:
        out = {
            **self.context.to_json(),
            "handoff": self.record.to_json() if self.record else None,
            "handoffMarkdown": self.markdown(),
            "claimedElsewhere": self.claimed_elsewhere.to_json() if self.claimed_elsewhere else None,
        }
        if self.unverified is not None:  # only then: its feed is not vouched for
            out["feed"] = self.unverified.to_json()
        if self.withheld:
            out["withheld"] = self.withheld
        if self.taken_up:
            out["takenUp"] = self.taken_up
        return out

    def render(self) -> str:
        if self.record is None:
            said = f"No active session handoff for {shown_name(self.context.owner)} on {shown_name(self.context.branch)}"
            if self.withheld or self.taken_up:
                said = f"{self.withheld or self.taken_up}\n{said}"
            if not self.elsewhere:
                said += "."
            else:
                others = "1 pending baton is" if self.elsewhere == 1 else f"{self.elsewhere} pending batons are"
                said += f"; {others} for another owner or branch: `baton session handoff --all`."
            if self.claimed_elsewhere is not None:
                said += "\n" + claimed_elsewhere_notice(self.claimed_elsewhere)
            return said
        return (self.markdown() or "").rstrip("\n")


def show_active_baton(project: "Project", *, owner: str | None = None, branch: str | None = None) -> ActiveBatonResult:
    """The baton the next session here would receive (not claimed by looking),
    without its freshness yet (``handoff_facts.shown`` adds it)."""
    ctx = context_of(project, owner=owner, branch=branch)
    runner = project.reading()
    peek, own = peek_at_start(runner, ctx)
    withheld = ""
    if peek is not None and taken_up_in(runner, peek.record):  # a start would dismiss it, not receive it
        fresh = taken_up_notices([as_taken_up(project, peek.record)], owner=ctx.owner, told=(), writer=project.writer)
        return ActiveBatonResult(ctx, None, elsewhere=len(pending_batons(runner)) - 1,
                                 taken_up=fresh[0][1] if fresh else "")
    if peek is not None:
        unverified = baton_vouch(project, runner, peek.record)
        if unverified is None or not unverified.withheld:
            unseen = unseen_lines(peek.record, *unseen_sources(runner, peek.record)) \
                if peek.record.replaced_unseen else ()
            return ActiveBatonResult(ctx, peek.record, unverified=unverified, unseen=unseen)
        withheld = unverified.withheld_notice("baton", peek.record.id)
    # No session is named here: a claim by any session is told (the caller knows its own).
    told = claim_told(runner, ctx, own, session_id=None, now=rfc3339_micros(project.clock()))
    return ActiveBatonResult(ctx, None, elsewhere=len(pending_batons(runner)),  # read only when none is here
                             claimed_elsewhere=told, withheld=withheld)
