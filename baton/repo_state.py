"""The repository's state for a captured handoff's ``project.repository``.

Read through ``baton.gitinfo`` (dulwich) at a capture only: kept apart from
``gitinfo``, which every hook imports to locate the repository and read its
branch, so that no hook defines ``RepoState`` without capturing anything.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from baton.gitinfo import changed_files, current_branch, head_commit, open_repo, origin_url, remote_hint
from baton.model import frozen


@frozen
class RepoState:
    """A snapshot of the repository for a handoff's ``project.repository``."""

    vcs: str = "git"
    head: str | None = None
    branch: str | None = None
    dirty: bool | None = None
    changed_files: tuple[str, ...] = ()
    remote_hint: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "vcs": self.vcs, "head": self.head, "branch": self.branch, "dirty": self.dirty,
            "changed_files": list(self.changed_files), "remote_hint": self.remote_hint,
        }


def repo_state(start: Path) -> RepoState:
    repo = open_repo(start)
    if repo is None:
        return RepoState(vcs="none")
    try:
        url = origin_url(repo)
    finally:
        repo.close()
    dirty, files = changed_files(start)
    return RepoState(head=head_commit(start), branch=current_branch(start), dirty=dirty,
                     changed_files=files, remote_hint=remote_hint(url))
