"""``latest``: the newest handoff ready to resume, where the caller stands.

The newest ready (or resumed) handoff of the current branch, one captured in
this worktree first, else the project's newest with a notice saying so. A
session start names it in its brief (``bootstrap``) without reading any
record: the index's summaries are enough (``RESUMABLE`` and ``LATEST_WINDOW``
are kept with those queries, in ``baton.projections.handoffs``: a session
start reads them without defining ``LatestChoice``).

A handoff the reader may not resume — from a feed no trusted key vouches for
while signatures are required (``baton.domain.feed_vouch``) — is passed over
for the newest one the reader may, and one line says which was skipped and
why (``LatestChoice.skipped``); named by its id it is still refused.
"""

from __future__ import annotations

from baton.domain.short_ids import short_id
from baton.errors import NotFound
from baton.projections import handoffs
from baton.projections.handoffs import LATEST_WINDOW, RESUMABLE
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (resume loads this)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

    Withheld = Callable[[Sequence[str]], Mapping[str, Any]]
    """Of the handoff ids given, those the reader may not resume, each with why (a
    ``baton.domain.feed_vouch.FeedVouch`` that is ``withheld``): ``feed_vouch.withheld_among``."""

LATEST = "latest"

NONE_READY = ("no handoff is ready to resume yet ('latest' names the newest ready handoff): a captured "
              "handoff is validated, then made ready")
"""What ``latest`` says when nothing is ready, with how a handoff becomes ready (in no adapter's words)."""

def _archived_latest(doc: Mapping[str, Any] | None) -> str | None:
    """``teammate_archive.archived_latest``, loaded by name: only when nothing is ready and a handoff was
    archived, so that a ``resume latest`` that finds one loads neither it nor the authorship wording."""
    return __import__("baton.domain.teammate_archive", fromlist=["archived_latest"]).archived_latest(doc)


def _none_withheld(ids: Sequence[str]) -> Mapping[str, Any]:
    return {}


class LatestChoice(Value):
    """What ``latest`` named, and how far it had to look."""

    id: str
    scope: str  # "worktree", "branch" or "project"
    branch: str | None
    notice: str | None = None
    skipped: tuple[tuple[str, Any], ...] = ()
    """Newer handoffs passed over, newest first: (id, why: a withheld ``FeedVouch``)."""

    @property
    def skipped_line(self) -> str | None:
        """The one line that says which handoff ``latest`` skipped and why (the words of
        ``FeedVouch.withheld_notice``, which ``resume ID`` refuses with); None when none was."""
        if not self.skipped:
            return None
        ident, found = self.skipped[0]
        more = len(self.skipped) - 1
        also = f" ({more} more newer {'handoff was' if more == 1 else 'handoffs were'} skipped too, likewise.)" \
            if more else ""
        return f"Skipped the newest: {found.withheld_notice('handoff', ident)}{also}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"scope": self.scope, "branch": self.branch, "notice": self.notice}
        if self.skipped:  # only then, as ``feed`` beside a record: a newer handoff was passed over
            out["skipped"] = [{"id": ident, "feed": found.to_json()} for ident, found in self.skipped]
            out["skippedNotice"] = self.skipped_line
        return out


def is_latest(token: str | None) -> bool:
    return (token or LATEST).strip().lower() == LATEST


def resolve_latest(runner: Any, *, branch: str | None, worktree: str | None = None,
                   any_branch: bool = False, withheld: Withheld = _none_withheld) -> LatestChoice:
    """``latest`` where the caller stands: the newest ready handoff of ``branch``
    (one captured in ``worktree`` first), else the project's newest with a
    one-line notice saying so; ``any_branch`` asks for the project's newest.
    A handoff ``withheld`` names is passed over, and the choice says which
    newer ones were (``skipped``).

    Raises:
        NotFound: no handoff of the project is ready (or every one is withheld).
    """
    skipped: dict[str, Any] = {}

    def usable(rows: list[Any]) -> tuple[list[Any], dict[str, Any]]:
        held = withheld([r.id for r in rows]) if rows else {}
        return [r for r in rows if r.id not in held], {r.id: held[r.id] for r in rows if r.id in held}

    def passed_over(rows: list[Any], held: Mapping[str, Any], chosen: Any, *, only: Callable[[Any], bool]) -> None:
        for r in rows:
            if r is chosen:
                break
            if r.id in held and only(r):
                skipped.setdefault(r.id, held[r.id])

    def choice(chosen_id: str, scope: str, chosen_branch: str | None, notice: str | None = None) -> LatestChoice:
        return LatestChoice(chosen_id, scope, chosen_branch, notice, tuple(skipped.items()))

    if branch and not any_branch:
        mine = handoffs.newest(runner.db, statuses=RESUMABLE, branch=branch, limit=LATEST_WINDOW)
        open_rows, held = usable(mine)
        here = next((r for r in open_rows if worktree and r.worktree == worktree), None)
        if here is not None:
            passed_over(mine, held, here, only=lambda r: r.worktree == worktree)
            return choice(here.id, "worktree", branch)
        passed_over(mine, held, open_rows[0] if open_rows else None, only=lambda r: True)
        if open_rows:
            return choice(open_rows[0].id, "branch", branch)
    ready = handoffs.newest(runner.db, statuses=RESUMABLE, limit=LATEST_WINDOW)
    open_rows, held = usable(ready)
    passed_over(ready, held, open_rows[0] if open_rows else None, only=lambda r: True)
    if not open_rows:
        if skipped:
            first = choice("", "project", None)
            raise NotFound(f"no ready handoff may be resumed here: {first.skipped_line}",
                           details={"token": LATEST, "skipped": [ident for ident in skipped]})
        archived = handoffs.newest(runner.db, statuses=("archived",), limit=1)
        why = _archived_latest(runner.get("handoffs", archived[0].id)) if archived else None
        if why is not None:  # the newest one made ready was archived (by a teammate, often)
            raise NotFound(f"no handoff is ready to resume: {why}",
                           details={"token": LATEST, "archived": archived[0].id})
        raise NotFound(NONE_READY, details={"token": LATEST})
    chosen = open_rows[0]
    notice = None
    if not any_branch:
        may = " that may be resumed" if skipped else ""
        where = (f"no ready handoff{may} on branch {branch}" if branch
                 else "no current branch here (a detached HEAD, or no git repository)")
        notice = (f"{where}; using the project's latest, {short_id(chosen.id)}"
                  + (f" from branch {chosen.branch}" if chosen.branch else ""))
    return choice(chosen.id, "project", chosen.branch or None, notice)
