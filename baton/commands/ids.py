"""Naming a handoff on the command line: full id, short id, prefix or ``latest``.

- the full UUID, or the 8-character short id shown by ``handoff list`` and in
  file names, or a prefix of that short id of at least 4 characters;
- a prefix of the full id of at least 8 characters (``baton.domain.handoff.
  MIN_PREFIX``: shorter prefixes of a UUIDv7 only name a minute of time);
- ``latest``: the newest handoff that is ready to resume (status ``ready`` or
  ``resumed``; not superseded or archived), newest by ``created_at`` then id.

A token that names several handoffs is a conflict (exit 4) whose message and
details list the candidates; one that names none is not found (exit 4).
"""

from __future__ import annotations

from typing import Any

from baton.model import frozen
from baton.errors import AmbiguousId, InputError, NotFound

LATEST = "latest"
RESUMABLE = ("ready", "resumed")
_MAX_LISTED = 10


@frozen
class Candidate:
    id: str
    status: str
    created_at: str
    title: str

    def line(self) -> str:
        from baton.domain.short_ids import short_id

        return f"{short_id(self.id)}  {self.id}  {self.status:<10}  {self.created_at}  {self.title}"


def _candidate(row: Any) -> Candidate:
    return Candidate(id=row.id, status=row.status, created_at=row.created_at, title=row.title)


def place_of(project: Any) -> tuple[str | None, str]:
    """Where a command runs: the current branch and worktree label (what ``latest`` prefers)."""
    from baton import gitinfo
    from baton.commands.handoff_facts import worktree_label

    return gitinfo.current_branch(project.paths.worktree), worktree_label(project.paths)


def resolve_handoff_id(runner: Any, token: str, *, here: tuple[str | None, str | None] | None = None) -> str:
    """The full id ``token`` names among the project's handoffs; with ``here``
    (``place_of``), ``latest`` is that branch's (``resolve_latest``).

    Raises:
        InputError: the token is empty.
        NotFound: no handoff matches (or, for ``latest``, none is ready).
        AmbiguousId: several match; the message lists them (exit 4).
    """
    from baton.projections import handoffs

    token = (token or "").strip()
    if not token:
        raise InputError("a handoff id is required (a full id, a unique prefix, a short id, or 'latest')")

    if token.lower() == LATEST and here is not None:
        return resolve_latest(runner, branch=here[0], worktree=here[1]).id
    if token.lower() == LATEST:
        ready = handoffs.newest(runner.db, statuses=RESUMABLE, limit=1)
        if not ready:
            raise NotFound("no handoff is ready to resume yet ('latest' names the newest ready handoff)",
                           details={"token": token})
        return ready[0].id
    count, matches = handoffs.named_by(runner.db, token, limit=_MAX_LISTED)
    exact = [m for m in matches if m.id == token.lower()]
    if exact:
        return exact[0].id
    if count == 1:
        return matches[0].id
    if count == 0:
        hint = ""
        from baton.domain.handoff import MIN_SHORT_PREFIX

        if len(token) < MIN_SHORT_PREFIX:
            hint = (f" (a prefix of the short id needs at least {MIN_SHORT_PREFIX} characters; "
                    "the handoff list shows them)")
        raise NotFound(f"no handoff matches {token!r}{hint}", details={"token": token})
    listed = "\n".join("  " + _candidate(m).line() for m in matches)
    more = f"\n  ... and {count - _MAX_LISTED} more" if count > _MAX_LISTED else ""
    raise AmbiguousId(
        f"{token!r} matches {count} handoffs; give more of the id:\n{listed}{more}",
        details={"token": token, "candidates": [m.id for m in matches], "matches": count},
    )


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
    from baton.projections import handoffs

    if branch and not any_branch:
        mine = handoffs.newest(runner.db, statuses=RESUMABLE, branch=branch, limit=LATEST_WINDOW)
        if mine:
            here = next((r for r in mine if worktree and r.worktree == worktree), None)
            if here is not None:
                return LatestChoice(here.id, "worktree", branch)
            return LatestChoice(mine[0].id, "branch", branch)
    ready = handoffs.newest(runner.db, statuses=RESUMABLE, limit=1)
    if not ready:
        raise NotFound("no handoff is ready to resume yet ('latest' names the newest ready handoff)",
                       details={"token": LATEST})
    chosen = ready[0]
    notice = None
    if not any_branch:
        from baton.domain.short_ids import short_id

        where = (f"no ready handoff on branch {branch}" if branch
                 else "no current branch here (a detached HEAD, or no git repository)")
        notice = (f"{where}; using the project's latest, {short_id(chosen.id)}"
                  + (f" from branch {chosen.branch}" if chosen.branch else ""))
    return LatestChoice(chosen.id, "project", chosen.branch or None, notice)


LATEST_WINDOW = 50
"""How many of a branch's newest ready handoffs ``latest`` looks at (bounded whatever the project's age)."""


def refuse_latest(token: str | None, action: str, what: str) -> None:
    """``latest`` names the newest *ready* handoff: it can never be what ``action`` takes.

    Raises:
        InputError: the token is ``latest``.
    """
    if (token or "").strip().lower() == LATEST:
        raise InputError(f"'latest' names the newest ready handoff, which cannot be what {action} takes "
                         f"({what}): give its id (the handoff list shows them)", details={"token": token})


def load_handoff(runner: Any, token: str, *, here: tuple[str | None, str | None] | None = None):
    """Resolve ``token`` and read the record as a model (``Handoff``).

    Raises:
        NotFound, AmbiguousId, InputError: as ``resolve_handoff_id``.
    """
    from baton.domain.handoff import handoff_from_json

    handoff_id = resolve_handoff_id(runner, token, here=here)
    doc = runner.get("handoffs", handoff_id)
    if doc is None:  # pragma: no cover - resolve_handoff_id read the same docs
        raise NotFound(f"handoff {handoff_id} not found")
    return handoff_from_json(doc)
