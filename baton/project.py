"""Where a project lives and what its ``.baton/`` folder holds.

The root is ``--project DIR``, else ``$BATON_PROJECT``, else the top level of
the git work tree (read with dulwich, never by running ``git``), else the
current directory. Linked worktrees share the main worktree's ``.baton/``,
found through git's common directory, so a baton left in one worktree reaches
the next session in another.
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs

BATON_DIR = ".baton"


@attrs.frozen
class ProjectPaths:
    root: Path

    @property
    def baton_dir(self) -> Path:
        return self.root / BATON_DIR

    @property
    def config(self) -> Path:
        return self.baton_dir / "config.json"

    @property
    def local(self) -> Path:
        return self.baton_dir / "local.json"

    @property
    def policy(self) -> Path:
        return self.baton_dir / "policy.json"

    @property
    def ledger_dir(self) -> Path:
        return self.baton_dir / "ledger"

    @property
    def handoffs_dir(self) -> Path:
        return self.baton_dir / "handoffs"

    @property
    def batons_dir(self) -> Path:
        return self.baton_dir / "batons"

    @property
    def index(self) -> Path:
        return self.baton_dir / "index.sqlite"

    @property
    def quarantine_dir(self) -> Path:
        return self.baton_dir / "quarantine"

    @property
    def cache_dir(self) -> Path:
        return self.baton_dir / "cache"

    @property
    def gitignore(self) -> Path:
        return self.baton_dir / ".gitignore"


def git_toplevel(start: Path) -> Path | None:
    """The main worktree's top level for ``start``, or None outside git.

    For a linked worktree, ``.git`` is a file pointing into the main
    repository's ``worktrees/`` folder; the common directory's parent is the
    main worktree, whose ``.baton/`` every worktree shares.
    """
    try:
        from dulwich.errors import NotGitRepository
        from dulwich.repo import Repo
    except ImportError:  # pragma: no cover - dulwich is a dependency
        return None
    try:
        repo = Repo.discover(str(start))
    except (NotGitRepository, OSError, ValueError, KeyError):
        return None
    try:
        common = Path(repo.commondir()).resolve()
        worktree = Path(repo.path).resolve()
        if repo.bare:
            return None
        if common.name == ".git" and common.parent != worktree:
            return common.parent
        return worktree
    except (OSError, ValueError):
        return None
    finally:
        repo.close()


def resolve_root(explicit: str | os.PathLike | None = None, *, cwd: Path | None = None) -> Path:
    if explicit:
        return Path(explicit).expanduser().resolve()
    env = os.environ.get("BATON_PROJECT")
    if env:
        return Path(env).expanduser().resolve()
    here = (cwd or Path.cwd()).resolve()
    top = git_toplevel(here)
    return top if top is not None else here
