"""What git says about the work tree, read with dulwich (never a ``git`` process).

Every function degrades instead of failing: outside a repository, on an
unborn branch or with an unreadable config, the answer is ``None`` (or an
empty list) and callers fall back as the specification says. Nothing here
writes to a repository or to any git configuration.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple

import attrs


@attrs.frozen
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


def open_repo(start: Path):
    """The repository holding ``start`` (dulwich ``Repo``; close it), or None outside git."""
    try:
        from dulwich.errors import NotGitRepository
        from dulwich.repo import Repo
    except ImportError:  # pragma: no cover
        return None
    try:
        return Repo.discover(str(start))
    except (NotGitRepository, OSError, ValueError, KeyError):
        return None


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def head_commit(start: Path) -> str | None:
    """The full sha of HEAD, or None (no repository, unborn branch)."""
    repo = open_repo(start)
    if repo is None:
        return None
    try:
        return _text(repo.head())
    except (KeyError, OSError, ValueError):
        return None
    finally:
        repo.close()


def current_branch(start: Path) -> str | None:
    """The branch HEAD points to (``main``), or None when detached or unknown."""
    repo = open_repo(start)
    if repo is None:
        return None
    try:
        target = repo.refs.read_ref(b"HEAD")
        if target and target.startswith(b"ref: "):
            ref = target[5:].strip()
            prefix = b"refs/heads/"
            return _text(ref[len(prefix):] if ref.startswith(prefix) else ref)
        return None
    except (KeyError, OSError, ValueError):
        return None
    finally:
        repo.close()


def config_value(start: Path, section: str, name: str) -> str | None:
    """A value from the repository's config stack (repo, then user, then system)."""
    repo = open_repo(start)
    if repo is None:
        return _user_config_value(section, name)
    try:
        value = repo.get_config_stack().get((section.encode(),), name.encode())
        return _text(value).strip() or None
    except (KeyError, OSError, ValueError):
        return None
    finally:
        repo.close()


def _user_config_value(section: str, name: str) -> str | None:
    try:
        from dulwich.config import StackedConfig

        value = StackedConfig.default().get((section.encode(),), name.encode())
        return _text(value).strip() or None
    except (KeyError, OSError, ValueError, ImportError):
        return None


_CREDENTIALS = re.compile(r"^(?P<scheme>[a-z][a-z0-9+.-]*://)(?:[^@/]*@)?", re.IGNORECASE)


def remote_hint(url: str | None) -> str | None:
    """``github.com/org/repo`` from any remote URL, with credentials stripped."""
    if not url:
        return None
    text = _CREDENTIALS.sub("", url.strip())
    if "@" in text and ":" in text and "://" not in url:  # scp-like git@host:org/repo
        text = text.split("@", 1)[1].replace(":", "/", 1)
    if text.endswith(".git"):
        text = text[:-4]
    return text.rstrip("/") or None


def _origin_url(repo) -> str | None:
    try:
        return _text(repo.get_config().get((b"remote", b"origin"), b"url"))
    except (KeyError, OSError, ValueError):
        return None


def changed_files(start: Path) -> tuple[bool | None, tuple[str, ...]]:
    """(dirty, sorted changed paths) — staged, unstaged and untracked."""
    repo = open_repo(start)
    if repo is None:
        return None, ()
    try:
        from dulwich import porcelain

        status = porcelain.status(repo)
        paths: set[str] = set()
        for group in status.staged.values():
            paths.update(_text(p) for p in group)
        paths.update(_text(p) for p in status.unstaged)
        paths.update(_text(p) for p in status.untracked)
        paths = {p for p in paths if not p.startswith(".baton/")}
        return bool(paths), tuple(sorted(paths))
    except (KeyError, OSError, ValueError):
        return None, ()
    finally:
        repo.close()


class StatusGroups(NamedTuple):
    """Changed paths relative to HEAD, each sorted, ``.baton/`` left out."""

    added: tuple[str, ...]  # new in the index (staged), present in the work tree
    modified: tuple[str, ...]  # changed, staged or not
    deleted: tuple[str, ...]  # gone from the work tree or removed in the index
    untracked: tuple[str, ...]  # not in the index; the files of an untracked directory, never the directory


def status_groups(start: Path) -> StatusGroups:
    """What ``git status`` tells apart, so a caller can give each path a role.

    A path is in one group only: deleted (missing from the work tree) wins,
    then added (a staged new file, even if edited since), then modified.
    Reads without taking the index lock or refreshing its stat cache. Outside
    a repository, or when the status cannot be read, every group is empty.
    """
    empty = StatusGroups((), (), (), ())
    repo = open_repo(start)
    if repo is None:
        return empty
    try:
        from dulwich import porcelain

        status = porcelain.status(repo, untracked_files="all", optional_locks=False)
        work_tree = Path(repo.path)
    except (KeyError, OSError, ValueError):
        return empty
    finally:
        repo.close()

    def paths(items) -> set[str]:
        return {p for p in (_text(i) for i in items) if not p.startswith(".baton/")}

    staged_add = paths(status.staged.get("add", ()))
    staged_delete = paths(status.staged.get("delete", ()))
    staged_modify = paths(status.staged.get("modify", ()))
    unstaged = paths(status.unstaged)
    untracked = paths(status.untracked) - staged_add
    deleted = {p for p in staged_delete | staged_modify | staged_add | unstaged
               if not (work_tree / p).exists() and not (work_tree / p).is_symlink()}
    added = staged_add - deleted
    modified = (staged_modify | unstaged) - deleted - added
    return StatusGroups(*(tuple(sorted(g)) for g in (added, modified, deleted, untracked)))


def repo_state(start: Path) -> RepoState:
    repo = open_repo(start)
    if repo is None:
        return RepoState(vcs="none")
    try:
        url = _origin_url(repo)
    finally:
        repo.close()
    dirty, files = changed_files(start)
    return RepoState(head=head_commit(start), branch=current_branch(start), dirty=dirty,
                     changed_files=files, remote_hint=remote_hint(url))
