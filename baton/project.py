"""Where a project lives and what its ``.baton/`` folder holds.

The root is ``--project DIR``, else ``$BATON_PROJECT``, else the top level of
the git work tree (read with dulwich, never by running ``git``), else the
current directory. Inside a work tree's git directory (``.git/``, where git
says "not a work tree") the root is that work tree's, as from any subfolder,
so ``baton init`` never makes a ``.baton/`` in ``.git/``. Linked worktrees share the main worktree's ``.baton/``,
found through git's common directory, so a baton left in one worktree reaches
the next session in another (``--project`` naming a linked worktree's top level
opens that shared project too).

Everything else git knows is per worktree: HEAD, the branch, the status and
the files on disk. ``ProjectPaths.worktree`` is the top level of the worktree
the command started in (the current directory, or ``--project`` /
``$BATON_PROJECT``); commands read git state and resolve artifact paths there,
never at ``root`` (which, for a linked worktree, is the main one).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from baton.errors import FolderGone, NotInitialized
from baton.gitinfo import locate
from baton.values import Value

BATON_DIR = ".baton"


class ProjectPaths(Value):
    root: Path
    worktree: Path = None  # type: ignore[assignment]  # None: ``root`` (``__new__``)
    """The current worktree's top level: where HEAD, branch, status and artifact
    paths are read. It is ``root`` except in a linked worktree of the project."""

    def __new__(cls, root: Path, worktree: Path | None = None) -> ProjectPaths:
        # tuple's own: a zero-argument super() names this class
        return tuple.__new__(cls, (root, root if worktree is None else worktree))  # type: ignore[type-var]

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

    @property
    def init_pending(self) -> Path:
        """``.baton/init.pending``: a ``baton init`` that made ``config.json`` has not yet
        recorded ``project.initialized`` (it was killed, or could not undo what it made):
        every other command refuses the project until ``baton init`` runs again."""
        return self.baton_dir / "init.pending"

    @property
    def deferred_dir(self) -> Path:
        """``.baton/deferred/``: the hooks kept for later (``baton.commands.deferred``)."""
        return self.baton_dir / KEPT_HOOKS_DIR

    def hooks_waiting(self) -> bool:
        """Whether a kept hook waits to run (a ``.json`` file of ``deferred_dir``; one ``listdir``).
        Every session start asks it; ``baton.commands.deferred``, which runs them, is loaded only
        when one does."""
        try:
            found = os.listdir(self.deferred_dir)
        except OSError:  # none kept (no folder), or none readable
            return False
        return any(name.endswith(KEPT_HOOK_SUFFIX) and not name.startswith(".") for name in found)


KEPT_HOOKS_DIR = "deferred"
KEPT_HOOK_SUFFIX = ".json"
"""Where a hook kept for later is (``ProjectPaths.deferred_dir``) and its file's suffix (``baton.commands.deferred``)."""
KEPT_SESSION_END = "session_end"
KEPT_PRE_COMPACT = "pre_compact"
"""What a kept hook is (``baton.commands.deferred.KINDS``), named here so that a hook that keeps
nothing (its lock and index were free) is run without loading the keeper (``Baton._kept_if_held_up``)."""


def git_toplevel(start: Path) -> Path | None:
    """The main worktree's top level for ``start``, or None outside git.

    For a linked worktree, ``.git`` is a file pointing into the main
    repository's ``worktrees/`` folder; the common directory's parent is the
    main worktree, whose ``.baton/`` every worktree shares.
    """
    where = locate(start)
    if where is None or where.worktree is None:
        return None
    try:
        common = where.common_dir.resolve()
        worktree = where.worktree.resolve()
    except (OSError, RuntimeError):
        return None
    if common.name == ".git" and common.parent != worktree:
        return common.parent
    return worktree


def resolve_root(explicit: str | os.PathLike | None = None, *, cwd: Path | None = None) -> Path:
    """The project's root (see the module's docstring).

    Raises:
        NotInitialized (exit 4): ``--project`` or ``$BATON_PROJECT`` names a path too long for
            the OS (``ENAMETOOLONG``), which no directory can have: the answer to a missing
            directory, not an internal error from the first look at it.
    """
    if explicit:
        return _shared_root(_named_folder(_absolute(explicit)))
    env = os.environ.get("BATON_PROJECT")
    if env:
        return _shared_root(_named_folder(_absolute(env)))
    here = (cwd or current_folder()).resolve()
    top = git_toplevel(here)
    return top if top is not None else here


def _absolute(named: str | os.PathLike) -> Path:
    """A named folder, resolved; a relative name from the current folder (``current_folder``)."""
    path = Path(named).expanduser()
    return (path if path.is_absolute() else current_folder() / path).resolve()


def current_folder() -> Path:
    """This process's working folder.

    Raises:
        FolderGone (exit 4): it is gone — the folder was moved to another file system or
            deleted while this process (or the shell that started it) was in it."""
    try:
        return Path.cwd()
    except FileNotFoundError:
        raise FolderGone("the current folder is gone (moved or deleted while this shell was in it): "
                         "`cd` into the project's folder, or name it with `--project`") from None


def not_a_directory(root: Path) -> NotInitialized:
    """The error of a project root that is no directory: missing (or named too long for the
    OS to have one), or a file (exit 4, ``not_initialized``). `baton init` would refuse it too."""
    try:
        why = "it is not a directory" if root.exists() else "no such directory"
    except OSError:  # ENAMETOOLONG: no directory has that name
        why = "no such directory"
    return NotInitialized(f"{root} is not a Baton project: {why}", details={"root": str(root)})


def _named_folder(path: Path) -> Path:
    """``path`` (a named root), once the OS could look at it at all.

    Raises:
        NotInitialized: the name is too long for the OS (``not_a_directory``)."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise not_a_directory(path) from None
    return path


def named_elsewhere(explicit: str | os.PathLike | None = None, *,
                    cwd: Path | None = None) -> tuple[str, Path, Path] | None:
    """``(setting, named, own)`` when ``--project`` (``explicit``), else ``$BATON_PROJECT``,
    names a project other than the one ``cwd`` (else the current directory) is in — its
    git top level's (the main worktree's), else ``cwd`` itself when it is outside git and
    not inside the named folder; None when neither is set, or both are the same project.
    ``setting`` is how the person set it (``--project``, ``$BATON_PROJECT``)."""
    setting = "--project" if explicit else "$BATON_PROJECT" if os.environ.get("BATON_PROJECT") else None
    if setting is None:
        return None
    named = resolve_root(explicit)
    here = (cwd or current_folder()).resolve()
    top = git_toplevel(here)
    own = _shared_root(top) if top is not None else here
    if own == named or (top is None and here.is_relative_to(named)):
        return None
    return setting, named, own


def _shared_root(named: Path) -> Path:
    """A named root that is the top of a linked worktree means the project of
    its main worktree, whose ``.baton/`` it shares, exactly as when a command
    runs from inside that worktree. A ``.baton/`` checked out in the linked
    worktree (``config.json`` committed) does not make it a project of its own.
    A named root inside a work tree's git directory (``repo/.git``) means that
    work tree's project, as a command run from there does: a project never
    lives inside ``.git/``."""
    if worktree_toplevel(named) != named and not in_git_dir(named):
        return named
    return git_toplevel(named) or named


def in_git_dir(path: Path) -> bool:
    """Whether ``path`` is inside the git directory of a work tree (``.git/``,
    or a linked worktree's ``.git/worktrees/NAME/``)."""
    where = locate(path)
    return where is not None and where.worktree is not None and path.is_relative_to(where.git_dir)


def worktree_toplevel(start: Path) -> Path | None:
    """The top level of the worktree holding ``start`` (a linked worktree's own
    folder, not the main one), or None outside git."""
    where = locate(start)
    return where.worktree if where is not None else None


def resolve_worktree(root: Path, explicit: str | os.PathLike | None = None, *, cwd: Path | None = None) -> Path:
    """The current worktree of the project at ``root``: found from the same start
    directory as the root (``explicit``, else ``$BATON_PROJECT``, else ``cwd``).

    It differs from ``root`` only when the start directory is inside a linked
    worktree whose main worktree is ``root``; a project that is not a git top
    level (a plain folder, a subfolder of a repository) keeps ``root``.
    """
    start = explicit or os.environ.get("BATON_PROJECT") or None
    here = Path(start).expanduser().resolve() if start else (cwd or current_folder()).resolve()
    top = worktree_toplevel(here)
    if top is None or top == root or git_toplevel(here) != root:
        return root
    return top
