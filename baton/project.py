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

from baton.errors import FolderGone, NotInitialized
from baton.gitinfo import inside, locate, plain_path, real_path
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from pathlib import Path

    from _typeshed import StrPath

BATON_DIR = ".baton"


class ProjectPaths(Value):
    """Where the project's files are. The fields and the ``*_folder`` / ``*_file`` properties
    are strings, read with ``os.path`` on the hook path, which holds no ``pathlib`` (its import
    with ``urllib.parse`` and ``ipaddress`` is ~16 M instructions: docs/performance.md); the
    same places as ``pathlib.Path`` (``root``, ``worktree``, ``baton_dir``, ``config``…) are
    for the commands off it, ``pathlib`` imported when one is first asked for."""

    root_folder: str
    worktree_folder: str = None  # type: ignore[assignment]  # None: ``root_folder`` (``__new__``)
    """The current worktree's top level: where HEAD, branch, status and artifact
    paths are read. It is the root except in a linked worktree of the project."""

    def __new__(cls, root: StrPath, worktree: StrPath | None = None) -> ProjectPaths:
        # tuple's own: a zero-argument super() names this class
        top = plain_path(os.fspath(root))
        return tuple.__new__(cls, (top, top if worktree is None else plain_path(os.fspath(worktree))))  # type: ignore[type-var]

    @property
    def baton_folder(self) -> str:
        return os.path.join(self.root_folder, BATON_DIR)

    @property
    def config_file(self) -> str:
        return os.path.join(self.root_folder, BATON_DIR, "config.json")

    @property
    def local_file(self) -> str:
        return os.path.join(self.root_folder, BATON_DIR, "local.json")

    @property
    def policy_file(self) -> str:
        return os.path.join(self.root_folder, BATON_DIR, "policy.json")

    @property
    def ledger_folder(self) -> str:
        return os.path.join(self.root_folder, BATON_DIR, "ledger")

    @property
    def handoffs_folder(self) -> str:
        return os.path.join(self.root_folder, BATON_DIR, "handoffs")

    @property
    def batons_folder(self) -> str:
        return os.path.join(self.root_folder, BATON_DIR, "batons")

    @property
    def index_file(self) -> str:
        return os.path.join(self.root_folder, BATON_DIR, "index.sqlite")

    @property
    def cache_folder(self) -> str:
        return os.path.join(self.root_folder, BATON_DIR, "cache")

    @property
    def deferred_folder(self) -> str:
        """``.baton/deferred/``: the hooks kept for later (``baton.commands.deferred``)."""
        return os.path.join(self.root_folder, BATON_DIR, KEPT_HOOKS_DIR)

    @property
    def root(self) -> Path:
        return _path(self.root_folder)

    @property
    def worktree(self) -> Path:
        return _path(self.worktree_folder)

    @property
    def baton_dir(self) -> Path:
        return _path(self.baton_folder)

    @property
    def config(self) -> Path:
        return _path(self.config_file)

    @property
    def local(self) -> Path:
        return _path(self.local_file)

    @property
    def policy(self) -> Path:
        return _path(self.policy_file)

    @property
    def ledger_dir(self) -> Path:
        return _path(self.ledger_folder)

    @property
    def handoffs_dir(self) -> Path:
        return _path(self.handoffs_folder)

    @property
    def batons_dir(self) -> Path:
        return _path(self.batons_folder)

    @property
    def index(self) -> Path:
        return _path(self.index_file)

    @property
    def quarantine_dir(self) -> Path:
        return _path(os.path.join(self.root_folder, BATON_DIR, "quarantine"))

    @property
    def cache_dir(self) -> Path:
        return _path(self.cache_folder)

    @property
    def gitignore(self) -> Path:
        return _path(os.path.join(self.root_folder, BATON_DIR, ".gitignore"))

    @property
    def init_pending_file(self) -> str:
        """``.baton/init.pending``: a ``baton init`` that made ``config.json`` has not yet
        recorded ``project.initialized`` (it was killed, or could not undo what it made):
        every other command refuses the project until ``baton init`` runs again."""
        return os.path.join(self.root_folder, BATON_DIR, "init.pending")

    @property
    def init_pending(self) -> Path:
        return _path(self.init_pending_file)

    @property
    def deferred_dir(self) -> Path:
        """``.baton/deferred/``: the hooks kept for later (``baton.commands.deferred``)."""
        return _path(self.deferred_folder)

    def hooks_waiting(self) -> bool:
        """Whether a kept hook waits to run (a ``.json`` file of ``deferred_folder``; one ``listdir``).
        Every session start asks it; ``baton.commands.deferred``, which runs them, is loaded only
        when one does."""
        try:
            found = os.listdir(self.deferred_folder)
        except OSError:  # none kept (no folder), or none readable
            return False
        return any(name.endswith(KEPT_HOOK_SUFFIX) and not name.startswith(".") for name in found)


def _path(text: str) -> Path:
    """``text`` as a ``pathlib.Path``: for a command off the hook path (``ProjectPaths``)."""
    from pathlib import Path  # lazy: the hook path holds strings

    return Path(text)


KEPT_HOOKS_DIR = "deferred"
KEPT_HOOK_SUFFIX = ".json"
"""Where a hook kept for later is (``ProjectPaths.deferred_dir``) and its file's suffix (``baton.commands.deferred``)."""
KEPT_SESSION_END = "session_end"
KEPT_PRE_COMPACT = "pre_compact"
"""What a kept hook is (``baton.commands.deferred.KINDS``), named here so that a hook that keeps
nothing (its lock and index were free) is run without loading the keeper (``Baton._kept_if_held_up``)."""


def git_toplevel(start: StrPath) -> str | None:
    """The main worktree's top level for ``start``, or None outside git.

    For a linked worktree, ``.git`` is a file pointing into the main
    repository's ``worktrees/`` folder; the common directory's parent is the
    main worktree, whose ``.baton/`` every worktree shares.
    """
    where = locate(start)
    if where is None or where.worktree is None:
        return None
    try:
        common = real_path(where.common_dir)
        worktree = real_path(where.worktree)
    except (OSError, RuntimeError):
        return None
    if os.path.basename(common) == ".git" and os.path.dirname(common) != worktree:
        return os.path.dirname(common)
    return worktree


def resolve_root(explicit: str | os.PathLike | None = None, *, cwd: StrPath | None = None) -> str:
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
    here = real_path(cwd or current_folder())
    top = git_toplevel(here)
    return top if top is not None else here


def _absolute(named: str | os.PathLike) -> str:
    """A named folder, resolved; a relative name from the current folder (``current_folder``)."""
    path = plain_path(os.path.expanduser(os.fspath(named)))
    return real_path(path if os.path.isabs(path) else os.path.join(current_folder(), path))


def current_folder() -> str:
    """This process's working folder.

    Raises:
        FolderGone (exit 4): it is gone — the folder was moved to another file system or
            deleted while this process (or the shell that started it) was in it."""
    try:
        return os.getcwd()
    except FileNotFoundError:
        raise FolderGone("the current folder is gone (moved or deleted while this shell was in it): "
                         "`cd` into the project's folder, or name it with `--project`") from None


def not_a_directory(root: StrPath) -> NotInitialized:
    """The error of a project root that is no directory: missing (or named too long for the
    OS to have one), or a file (exit 4, ``not_initialized``). `baton init` would refuse it too."""
    try:
        why = "it is not a directory" if _exists(root) else "no such directory"
    except OSError:  # ENAMETOOLONG: no directory has that name
        why = "no such directory"
    return NotInitialized(f"{root} is not a Baton project: {why}", details={"root": str(root)})


def _exists(path: StrPath) -> bool:
    """``Path.exists``: False when there is nothing there, OSError (``ENAMETOOLONG``) raised."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return False
        raise
    return True


def _named_folder(path: str) -> str:
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
                    cwd: StrPath | None = None) -> tuple[str, str, str] | None:
    """``(setting, named, own)`` when ``--project`` (``explicit``), else ``$BATON_PROJECT``,
    names a project other than the one ``cwd`` (else the current directory) is in — its
    git top level's (the main worktree's), else ``cwd`` itself when it is outside git and
    not inside the named folder; None when neither is set, or both are the same project.
    ``setting`` is how the person set it (``--project``, ``$BATON_PROJECT``)."""
    setting = "--project" if explicit else "$BATON_PROJECT" if os.environ.get("BATON_PROJECT") else None
    if setting is None:
        return None
    named = resolve_root(explicit)
    here = real_path(cwd or current_folder())
    top = git_toplevel(here)
    own = _shared_root(top) if top is not None else here
    if own == named or (top is None and inside(here, named)):
        return None
    return setting, named, own


def _shared_root(named: str) -> str:
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


def in_git_dir(path: StrPath) -> bool:
    """Whether ``path`` is inside the git directory of a work tree (``.git/``,
    or a linked worktree's ``.git/worktrees/NAME/``)."""
    where = locate(path)
    return where is not None and where.worktree is not None and inside(plain_path(os.fspath(path)), where.git_dir)


def worktree_toplevel(start: StrPath) -> str | None:
    """The top level of the worktree holding ``start`` (a linked worktree's own
    folder, not the main one), or None outside git."""
    where = locate(start)
    return where.worktree if where is not None else None


def resolve_worktree(root: StrPath, explicit: str | os.PathLike | None = None, *,
                     cwd: StrPath | None = None) -> str:
    """The current worktree of the project at ``root``: found from the same start
    directory as the root (``explicit``, else ``$BATON_PROJECT``, else ``cwd``).

    It differs from ``root`` only when the start directory is inside a linked
    worktree whose main worktree is ``root``; a project that is not a git top
    level (a plain folder, a subfolder of a repository) keeps ``root``.
    """
    start = explicit or os.environ.get("BATON_PROJECT") or None
    here = real_path(os.path.expanduser(os.fspath(start)) if start else cwd or current_folder())
    top = worktree_toplevel(here)
    root = os.fspath(root)
    if top is None or top == root or git_toplevel(here) != root:
        return root
    return top
