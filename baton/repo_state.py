"""The repository's state for a captured handoff's ``project.repository``.

Read through ``baton.gitinfo`` (dulwich) at a capture only: kept apart from
``gitinfo``, which every hook imports to locate the repository and read its
branch, so that no hook defines ``RepoState`` without capturing anything.
The changed paths by kind (``status_groups``, for ``handoff prepare``) are
here for the same reason. Both read the work tree through ``baton.git_status``
(the lean walk; a capture asks only whether the tree is dirty, and stops at
the first change).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, NamedTuple

from baton.git_status import Crowded, is_dirty, status
from baton.gitinfo import current_branch, head_commit, locate, open_repo, origin_url, remote_hint
from baton.model import frozen

if TYPE_CHECKING:
    from _typeshed import StrPath


@frozen
class RepoState:
    """A snapshot of the repository for a handoff's ``project.repository``."""

    vcs: str = "git"
    head: str | None = None
    branch: str | None = None
    dirty: bool | None = None
    remote_hint: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "vcs": self.vcs, "head": self.head, "branch": self.branch, "dirty": self.dirty,
            "remote_hint": self.remote_hint,
        }


def repo_state(start: StrPath) -> RepoState:
    repo = open_repo(start)
    if repo is None:
        return RepoState(vcs="none")
    try:
        url = origin_url(repo)
    finally:
        repo.close()
    return RepoState(head=head_commit(start), branch=current_branch(start), dirty=is_dirty(start),
                     remote_hint=remote_hint(url))


class StatusGroups(NamedTuple):
    """Changed paths relative to HEAD, each sorted, ``.baton/`` left out."""

    added: tuple[str, ...]  # new in the index (staged), present in the work tree
    modified: tuple[str, ...]  # changed, staged or not
    deleted: tuple[str, ...]  # gone from the work tree or removed in the index
    untracked: tuple[str, ...]  # not in the index; the files of an untracked directory, never the directory
    crowded: tuple[Crowded, ...] = ()  # untracked folders with too many files to list, each with its count


def status_groups(start: StrPath, folder_limit: int | None = None, count_cap: int = 5000) -> StatusGroups:
    """What ``git status`` tells apart, so a caller can give each path a role.

    A path is in one group only: deleted (missing from the work tree) wins,
    then added (a staged new file, even if edited since), then modified.
    Reads without taking the index lock or refreshing its stat cache. Outside
    a repository, or when the status cannot be read, every group is empty.
    ``folder_limit``: an untracked folder holding more untracked files than
    this is not listed file by file but in ``crowded``, with its count
    (counted up to ``count_cap``), as ``git_status.status`` tells.
    """
    found = status(start, "all", folder_limit=folder_limit, count_cap=count_cap)
    where = locate(start)
    if found is None or where is None or where.worktree is None:
        return StatusGroups((), (), (), ())
    work_tree = where.worktree
    staged_add, staged_delete, staged_modify = set(found.staged_add), set(found.staged_delete), set(found.staged_modify)
    unstaged = set(found.unstaged)
    # files only: a nested repository is listed as its folder (``dir/``), which is no file
    untracked = {p for p in found.untracked if not p.endswith("/")} - staged_add
    deleted = {p for p in staged_delete | staged_modify | staged_add | unstaged
               if not os.path.lexists(os.path.join(work_tree, p))}
    added = staged_add - deleted
    modified = (staged_modify | unstaged) - deleted - added
    return StatusGroups(tuple(sorted(added)), tuple(sorted(modified)), tuple(sorted(deleted)), tuple(sorted(untracked)),
                        found.crowded)
