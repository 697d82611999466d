"""``latest``: the newest handoff ready to resume, where the caller stands.

The newest ready (or resumed) handoff of the current branch, one captured in
this worktree first, else the project's newest with a notice saying so. A
session start names it in its brief (``bootstrap``) without reading any
record: the index's summaries are enough (``RESUMABLE`` and ``LATEST_WINDOW``
are kept with those queries, in ``baton.projections.handoffs``: a session
start reads them without defining ``LatestChoice``).
"""

from __future__ import annotations

from typing import Any

from baton.domain.short_ids import short_id
from baton.errors import NotFound
from baton.model import frozen
from baton.projections import handoffs
from baton.projections.handoffs import LATEST_WINDOW, RESUMABLE

LATEST = "latest"

NONE_READY = ("no handoff is ready to resume yet ('latest' names the newest ready handoff): a captured "
              "handoff is validated, then made ready")
"""What ``latest`` says when nothing is ready, with how a handoff becomes ready (in no adapter's words)."""


@frozen
class LatestChoice:
    """What ``latest`` named, and how far it had to look."""

    id: str
    scope: str  # "worktree", "branch" or "project"
    branch: str | None
    notice: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"scope": self.scope, "branch": self.branch, "notice": self.notice}


def is_latest(token: str | None) -> bool:
    return (token or LATEST).strip().lower() == LATEST


def resolve_latest(runner: Any, *, branch: str | None, worktree: str | None = None,
                   any_branch: bool = False) -> LatestChoice:
    """``latest`` where the caller stands: the newest ready handoff of ``branch``
    (one captured in ``worktree`` first), else the project's newest with a
    one-line notice saying so; ``any_branch`` asks for the project's newest.

    Raises:
        NotFound: no handoff of the project is ready.
    """
    if branch and not any_branch:
        mine = handoffs.newest(runner.db, statuses=RESUMABLE, branch=branch, limit=LATEST_WINDOW)
        if mine:
            here = next((r for r in mine if worktree and r.worktree == worktree), None)
            if here is not None:
                return LatestChoice(here.id, "worktree", branch)
            return LatestChoice(mine[0].id, "branch", branch)
    ready = handoffs.newest(runner.db, statuses=RESUMABLE, limit=1)
    if not ready:
        raise NotFound(NONE_READY, details={"token": LATEST})
    chosen = ready[0]
    notice = None
    if not any_branch:
        where = (f"no ready handoff on branch {branch}" if branch
                 else "no current branch here (a detached HEAD, or no git repository)")
        notice = (f"{where}; using the project's latest, {short_id(chosen.id)}"
                  + (f" from branch {chosen.branch}" if chosen.branch else ""))
    return LatestChoice(chosen.id, "project", chosen.branch or None, notice)

