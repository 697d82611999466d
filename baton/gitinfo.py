"""What git says about the work tree, read with dulwich (never a ``git`` process).

Every function degrades instead of failing: outside a repository, on an
unborn branch or with an unreadable config, the answer is ``None`` (or an
empty list) and callers fall back as the specification says. Nothing here
writes to a repository or to any git configuration.

Two reads do not need dulwich and are made without importing it, because
every hook pays for them (``docs/performance.md``): *locating* the repository
(walking up to a ``.git`` folder or ``gitdir:`` file, and a linked worktree's
``commondir``) and reading the branch ``HEAD`` names (``ref: refs/heads/…``
in one small file). Everything else — objects, refs, status, config — goes
through dulwich, opened once per question at the location found. With
``$GIT_DIR`` set, locating reads that git directory's ``core.worktree`` through
dulwich's config reader too (``named_by_environment``): git's own rule.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import orjson

from baton.config import write_json_atomic
from baton.domain.regexes import lazy
from baton.errors import StorageError
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any, Callable


class GitDirs(Value):
    """Where a repository lives, as ``git rev-parse`` would say it (a value class:
    ``collections.namedtuple`` would compile a ``__new__`` for it in every process)."""

    worktree: Path | None  # the work tree's top level (None for a bare repository)
    git_dir: Path  # this worktree's own git directory (``.git``, or ``.git/worktrees/NAME``)
    common_dir: Path  # the shared git directory (objects, refs, config)

    @property
    def bare(self) -> bool:
        return self.worktree is None


def _gitdir_of(candidate: Path) -> Path | None:
    """The git directory ``candidate/.git`` names: the folder itself, or a ``gitdir:`` file's target."""
    dot_git = candidate / ".git"
    try:
        if dot_git.is_dir():
            return dot_git if (dot_git / "HEAD").is_file() else None
        if dot_git.is_file():
            text = dot_git.read_text("utf-8", "replace").strip()
            if text.startswith("gitdir:"):
                target = Path(text[len("gitdir:"):].strip())
                target = target if target.is_absolute() else candidate / target
                return target if (target / "HEAD").is_file() else None
    except OSError:
        return None
    return None


def _work_tree_of(candidate: Path) -> Path | None:
    """The work tree whose git directory ``candidate`` is, or None: a ``.git``
    folder is its parent's; a linked worktree's ``.git/worktrees/NAME`` is the
    worktree its ``gitdir`` file names, when that worktree's ``.git`` file
    points back. Git calls a directory in there "not a work tree"; Baton takes
    it as part of the work tree it serves, as any subfolder is. Only a folder
    named ``.git``, or one under a ``worktrees`` folder, costs a look."""
    try:
        if candidate.name == ".git":
            return candidate.parent if _gitdir_of(candidate.parent) == candidate else None
        if candidate.parent.name != "worktrees" or not (candidate / "commondir").is_file():
            return None
        named = Path((candidate / "gitdir").read_text("utf-8", "replace").strip())
        owner = (named if named.is_absolute() else candidate / named).parent
        target = _gitdir_of(owner)
        return owner if target is not None and target.resolve() == candidate.resolve() else None
    except (OSError, RuntimeError):
        return None


def _looks_bare(candidate: Path) -> bool:
    try:
        return ((candidate / "HEAD").is_file() and (candidate / "objects").is_dir()
                and (candidate / "refs").is_dir())
    except OSError:
        return False


def _common_dir(git_dir: Path) -> Path:
    try:
        text = (git_dir / "commondir").read_text("utf-8", "replace").strip()
    except OSError:
        return git_dir
    common = Path(text)
    # ``../..`` from a linked worktree's ``.git/worktrees/NAME``: spelled as the folder it names
    # (what a message shows the user), without resolving symbolic links.
    if common.is_absolute():
        return common
    joined = git_dir / common
    spelled = Path(os.path.normpath(joined))
    try:
        return spelled if os.path.samefile(spelled, joined) else joined
    except OSError:
        return joined


_located: dict | None = None
"""Each start's ``locate`` answer while a ``located_once`` scope is open (None: none is)."""


class located_once:
    """``with located_once():`` — within it, ``locate`` walks the file system once per start and
    gives that answer again. A long-lived process (the MCP server) opens it around one call, in
    which the trust record's place and git's identity files both ask where the repository is:
    the answer cannot move within one call as it might between two."""

    __slots__ = ("_outer",)

    def __enter__(self) -> None:
        global _located
        self._outer = _located
        if _located is None:
            _located = {}

    def __exit__(self, *exc: object) -> None:
        global _located
        _located = self._outer


def locate(start: Path) -> GitDirs | None:
    """The repository holding ``start`` (walking up, like ``Repo.discover``), or None outside git.

    From inside a work tree's git directory (``.git/hooks``, a linked
    worktree's ``.git/worktrees/NAME``, a submodule's ``.git/modules/NAME``)
    it is that work tree's, not a bare repository's (``_work_tree_of``).

    Stdlib only: this runs in every command and must not import dulwich.
    """
    memo = _located
    if memo is None:
        return _locate(start)
    key = str(start)
    if key not in memo:
        memo[key] = _locate(start)
    return memo[key]


def _locate(start: Path) -> GitDirs | None:
    try:
        here = Path(start).resolve()
    except (OSError, RuntimeError):
        return None
    if os.environ.get("GIT_DIR"):
        named = named_by_environment()
        if named is not None and named.worktree is not None and here.is_relative_to(named.worktree):
            return named
    for candidate in (here, *here.parents):
        git_dir = _gitdir_of(candidate)
        if git_dir is not None:
            return GitDirs(candidate, git_dir, _common_dir(git_dir))
        owner = _work_tree_of(candidate)
        if owner is not None:
            return GitDirs(owner, candidate, _common_dir(candidate))
        if _looks_bare(candidate):
            if _in_work_tree_git_dir(candidate):
                continue  # a submodule's ``.git/modules/NAME``: the enclosing ``.git`` decides, further up
            return GitDirs(None, candidate, _common_dir(candidate))
    return None


def named_by_environment() -> GitDirs | None:
    """The repository ``$GIT_DIR`` names, as git finds it (git(1), "GIT_DIR"; the "bare
    dotfiles repository" setup), or None when ``$GIT_DIR`` is unset, names no git directory,
    or names one with no work tree (``core.bare``). Its work tree is ``$GIT_WORK_TREE``
    (relative to the current folder), else the git directory's ``core.worktree``
    (relative to the git directory), else the
    current folder, as git takes them; a relative ``$GIT_DIR`` is from the current folder.
    ``locate`` takes it only for a start inside that work tree. Read with dulwich's config
    reader, imported only when ``$GIT_DIR`` is set."""
    named = os.environ.get("GIT_DIR")
    if not named:
        return None
    try:
        git_dir = Path(os.path.abspath(named))
        if not (git_dir / "HEAD").is_file():
            return None
        named_tree = os.environ.get("GIT_WORK_TREE")
        if named_tree:  # git(1): absolute, or relative to the current folder
            work_tree = Path(os.path.abspath(named_tree)).resolve()
        else:
            tree = _configured_work_tree(git_dir)
            if tree is None:
                return None
            work_tree = (git_dir / tree).resolve()  # core.worktree: relative to the git directory
        return GitDirs(work_tree, git_dir, _common_dir(git_dir)) if work_tree.is_dir() else None
    except (OSError, RuntimeError, ValueError):
        return None


def environment_problem(start: Path) -> str | None:
    """Why the repository ``$GIT_DIR`` names is not the one Baton reads for ``start``, and what
    Baton reads instead (one sentence, for ``doctor`` and the start's notices); None when
    ``$GIT_DIR`` is unset, or names the repository whose work tree holds ``start``."""
    named = os.environ.get("GIT_DIR")
    if not named:
        return None
    try:
        here = Path(start).resolve()
    except (OSError, RuntimeError):
        return None
    found = named_by_environment()
    if found is not None and found.worktree is not None and (here.is_relative_to(found.worktree)
                                                             or _linked_worktree_here(found, here)):
        return None
    why = (f"$GIT_DIR names {named}, which is no git repository with a work tree (none, or a bare one)"
           if found is None else f"$GIT_DIR names {named}, whose work tree ({found.worktree}) does not hold {here}")
    where = locate(here)
    if where is not None and where.worktree is not None:
        return f"{why}: Baton reads the repository found from the project's folder instead ({where.worktree})"
    return (f"{why}: Baton reads this project as outside git, so its batons are not branch-scoped (every "
            f"branch shares branch 'unknown') and freshness says 'unknown'; set $GIT_DIR (and $GIT_WORK_TREE "
            f"or core.worktree) to the repository whose work tree holds the project, or unset it")


def _linked_worktree_here(found: GitDirs, project: Path) -> bool:
    """Whether ``$GIT_DIR`` (``found``) names a worktree of the project's own repository (a
    linked worktree's ``.git/worktrees/NAME``, as ``git rev-parse --git-dir`` prints it there)
    and the current folder is inside its work tree: Baton reads that worktree, as git does, though
    the project's folder is the main work tree."""
    try:
        cwd = Path(os.getcwd()).resolve()
    except (OSError, RuntimeError):
        return False
    if found.worktree is None or not cwd.is_relative_to(found.worktree):
        return False
    where = locate(project)  # from the project's folder: outside ``found``'s work tree
    return where is not None and where.common_dir.resolve() == found.common_dir.resolve()


def _configured_work_tree(git_dir: Path) -> str | None:
    """``core.worktree`` of a git directory's config; the current folder when it names none
    (git's rule for ``$GIT_DIR`` without a work tree); None for a bare one (``core.bare``)."""
    from dulwich.config import ConfigFile  # lazy: only with $GIT_DIR set

    try:
        config = ConfigFile.from_path(str(git_dir / "config"))
    except FileNotFoundError:
        return os.getcwd()
    except (OSError, ValueError, KeyError, UnicodeDecodeError):
        return None
    try:
        return os.fsdecode(config.get((b"core",), b"worktree"))
    except KeyError:
        pass
    return None if config.get_boolean((b"core",), b"bare", False) else os.getcwd()


def work_trees(common_dir: Path) -> list[Path]:
    """Every work tree of the repository whose shared git directory is ``common_dir``: the
    main one (when it has one) and each linked worktree whose ``.git`` still points back
    (a pruned or moved-away one is left out), as ``git worktree list`` would name them."""
    found = []
    for git_dir in (common_dir, *_linked_git_dirs(common_dir)):
        tree = _work_tree_of(git_dir)
        if tree is not None:
            found.append(tree)
    return found


def _linked_git_dirs(common_dir: Path) -> list[Path]:
    try:
        return sorted(entry for entry in (common_dir / "worktrees").iterdir() if entry.is_dir())
    except OSError:
        return []


def _in_work_tree_git_dir(candidate: Path) -> bool:
    """Whether a repository that looks bare lies inside a work tree's ``.git``
    folder (a submodule's git directory, ``.git/modules/NAME``)."""
    return any(up.name == ".git" and _work_tree_of(up) is not None for up in candidate.parents)


def open_repo(start: Path):
    """The repository holding ``start`` (dulwich ``Repo``; close it), or None outside git."""
    where = locate(start)
    if where is None:
        return None
    try:
        from dulwich.errors import NotGitRepository  # lazy: a command that opens no repository loads no dulwich
    except ImportError:  # pragma: no cover
        return None
    try:
        return repo_at(where)
    except (NotGitRepository, OSError, ValueError, KeyError):
        return None


def repo_at(where: GitDirs):
    """dulwich's ``Repo`` for a located repository (close it): opened at its work tree, or
    at its git directory with the work tree named (``$GIT_DIR``, whose work tree holds no
    ``.git``), or at the git directory of a bare one. Raises as ``Repo`` does."""
    from dulwich.repo import Repo  # lazy: a command that opens no repository loads no dulwich

    if where.worktree is None:
        return Repo(str(where.git_dir))
    own = _gitdir_of(where.worktree)
    if own is None or own.resolve() != where.git_dir.resolve():
        return Repo(controldir=str(where.git_dir), worktree=str(where.worktree))
    return Repo(str(where.worktree))


def config_problem(start: Path) -> str | None:
    """Why the repository's own config file (``<common git dir>/config``) cannot be read, or
    None (read, absent, or outside git). Git refuses such a repository outright; Baton reads it
    as unreadable and goes on with git's defaults and the user's config (``baton doctor`` says so)."""
    where = locate(start)
    if where is None:
        return None
    path = where.common_dir / "config"
    try:
        from dulwich.config import ConfigFile  # lazy: only doctor asks
    except ImportError:  # pragma: no cover
        return None
    try:
        ConfigFile.from_path(str(path))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, UnicodeDecodeError) as exc:
        return f"{path} cannot be read ({exc})"
    return None


def object_format_at(git_dir: Path) -> str:
    """The object format a git directory's ``config`` names (``extensions.objectFormat``):
    ``sha1`` when it names none, or cannot be read (``config_problem`` says why)."""
    try:
        from dulwich.config import ConfigFile  # lazy: only sync and doctor ask
    except ImportError:  # pragma: no cover
        return "sha1"
    try:
        value = ConfigFile.from_path(str(git_dir / "config")).get((b"extensions",), b"objectformat")
    except (OSError, ValueError, KeyError, UnicodeDecodeError):
        return "sha1"
    return _text(value).strip().lower() or "sha1"


def object_format(start: Path) -> str | None:
    """The object format of the repository holding ``start`` (None outside git)."""
    where = locate(start)
    return None if where is None else object_format_at(where.common_dir)


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


_HEX = frozenset(b"0123456789abcdef")
_REF_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+@.-")


def _is_sha(value: bytes) -> bool:
    """A full object name: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits."""
    return len(value) in (40, 64) and _HEX.issuperset(value)


def _safe_ref(ref: bytes) -> bool:
    """A ``refs/…`` name whose components can be read as file names as they are
    (no ``..``, no leading dot, no ``.lock``): anything else goes to dulwich."""
    parts = ref.split(b"/")
    return (len(parts) >= 2 and parts[0] == b"refs"
            and all(p and _REF_CHARS.issuperset(p) and not p.startswith((b".", b"-"))
                    and not p.endswith((b".lock", b".")) and b".." not in p for p in parts[1:]))


def _read_ref(where: GitDirs, ref: bytes) -> bytes | None:
    """The sha a branch ref names: its loose file (the worktree's own git
    directory for per-worktree refs, else the common one), else
    ``packed-refs``. None when it is not found that simply (unborn, symbolic,
    another ref storage): the caller asks dulwich then."""
    own = ref.startswith((b"refs/worktree/", b"refs/bisect/", b"refs/rewritten/"))
    try:
        value = ((where.git_dir if own else where.common_dir) / ref.decode()).read_bytes().strip()
    except (FileNotFoundError, NotADirectoryError):
        value = None
    except OSError:
        return None
    if value is not None:
        return value if _is_sha(value) else None
    try:
        packed = (where.common_dir / "packed-refs").read_bytes()
    except OSError:
        return None
    for line in packed.splitlines():
        sha, _, name = line.partition(b" ")
        if name == ref and _is_sha(sha):
            return sha
    return None


def _head_from_files(where: GitDirs) -> str | None:
    """HEAD's sha read as git stores it in plain files, or None to ask dulwich."""
    try:
        target = (where.git_dir / "HEAD").read_bytes().strip()
    except OSError:
        return None
    if _is_sha(target):
        return target.decode()
    if not target.startswith(b"ref: "):
        return None
    ref = target[5:].strip()
    if not _safe_ref(ref):
        return None
    sha = _read_ref(where, ref)
    return sha.decode() if sha is not None else None


def head_commit(start: Path) -> str | None:
    """The full sha of HEAD, or None (no repository, unborn branch).

    Read from ``HEAD`` and the branch's loose ref or ``packed-refs`` without
    importing dulwich (``resume`` and every freshness check ask this); only a
    HEAD those files do not answer (unborn, a symbolic ref to a symbolic ref,
    an unusual ref name) opens the repository with dulwich.
    """
    where = locate(start)
    if where is None:
        return None
    fast = _head_from_files(where)
    if fast is not None:
        return fast
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
    """The branch HEAD points to (``main``), or None when detached or unknown.

    Read from the ``HEAD`` file of the worktree's git directory: a symbolic
    ref is one line, ``ref: refs/heads/NAME`` (what dulwich's
    ``refs.read_ref(b"HEAD")`` returns), so no repository is opened.
    """
    where = locate(start)
    if where is None:
        return None
    try:
        target = (where.git_dir / "HEAD").read_bytes().strip()
    except OSError:
        return None
    if not target.startswith(b"ref: "):
        return None
    ref = _follow_symbolic(where, target[5:].strip())
    prefix = b"refs/heads/"
    return _text(ref[len(prefix):] if ref.startswith(prefix) else ref) or None


def branch_in_progress(start: Path) -> str | None:
    """The branch a rebase or bisect in progress detached HEAD from, or None.

    What git's own prompt shows: ``rebase-merge/head-name`` or
    ``rebase-apply/head-name`` in the worktree's git directory
    (``refs/heads/NAME``; ``detached HEAD`` for a rebase begun detached), else
    ``BISECT_START`` (the branch a bisect began on; a commit id when begun
    detached). Read as ``current_branch`` reads ``HEAD``: no repository is opened.
    """
    where = locate(start)
    if where is None:
        return None
    for name in ("rebase-merge/head-name", "rebase-apply/head-name"):
        try:
            value = (where.git_dir / name).read_bytes().strip()
        except OSError:
            continue
        prefix = b"refs/heads/"
        return (_text(value[len(prefix):]) or None) if value.startswith(prefix) else None
    try:
        value = (where.git_dir / "BISECT_START").read_bytes().strip()
    except OSError:
        return None
    if not value or (len(value) in (40, 64) and set(value) <= _HEX):
        return None
    return _text(value[len(b"refs/heads/"):] if value.startswith(b"refs/heads/") else value)


def local_branches(start: Path) -> set[str] | None:
    """The names of the branches of the repository holding ``start`` (its
    ``refs/heads/``, loose and packed), or None outside git or when unreadable."""
    where = locate(start)
    if where is None:
        return None
    try:
        with repo_at(where) as repo:
            refs: Any = repo.refs  # keys(base=…) takes the prefix as bytes
            return {_text(name) for name in refs.keys(base=b"refs/heads/")}
    except Exception:  # noqa: BLE001 - an unreadable repository names no branch gone
        return None


def head_detached(start: Path) -> bool:
    """Whether ``start`` is in a git work tree whose ``HEAD`` names a commit, not a branch."""
    where = locate(start)
    if where is None:
        return False
    try:
        target = (where.git_dir / "HEAD").read_bytes().strip()
    except OSError:
        return False
    return bool(target) and not target.startswith(b"ref: ")


def _follow_symbolic(where: GitDirs, ref: bytes, hops: int = 5) -> bytes:
    """The ref a chain of symbolic refs ends at, as git follows it: a loose
    ref file that holds ``ref: refs/…`` names the next one (``HEAD`` →
    ``refs/heads/alias`` → ``refs/heads/main`` is branch ``main``). At most
    ``hops`` links are followed, as git bounds the depth too."""
    for _ in range(hops):
        if not _safe_ref(ref):
            break
        try:
            value = (where.common_dir / ref.decode()).read_bytes().strip()
        except OSError:
            break
        if not value.startswith(b"ref: "):
            break
        ref = value[5:].strip()
    return ref


def config_value(start: Path, section: str, name: str) -> str | None:
    """A value from the repository's config stack (repo, then user, then system)."""
    repo = open_repo(start)
    if repo is None:
        return _user_config_value(section, name)
    try:
        value = config_stack(repo).get((section.encode(),), name.encode())
        return _text(value).strip() or None
    except (KeyError, OSError, ValueError):
        return None
    finally:
        repo.close()


def config_stack(repo):
    """git's config stack for an opened repository, in git's order of precedence — this
    worktree's ``config.worktree`` (with ``extensions.worktreeConfig``), the repository's
    ``config``, the user's, the system's — with ``includeIf`` honoured in every file, as git
    does.

    dulwich's ``get_config_stack`` evaluates an ``includeIf`` condition only in the repository's
    own file: in the user's ``~/.gitconfig``, where people keep ``[includeIf "gitdir:~/work/"]``
    to work under a work email, every condition is false. The owner Baton read would then be
    the unconditional (personal) email, not the ``user.email`` git reports for the
    repository — and a baton left on a machine configured the plain way would never reach the
    same person on one configured through the include (docs/batons.md, "Who and where"). It
    also ranks the repository's file above the worktree's, and reads a linked worktree's
    ``config.worktree`` from the main one's folder."""
    from dulwich.config import ConfigFile, StackedConfig  # lazy: read only when git config is asked for

    local = repo.get_config()  # dulwich evaluates this one's conditions itself (and a sync keeps it read)
    backends = [local]
    if local.get_boolean((b"extensions",), b"worktreeconfig", False):
        backends.insert(0, _config_file(repo, Path(repo.controldir()) / "config.worktree") or ConfigFile())
    backends += [f for f in (_config_file(repo, Path(path)) for path in _config_paths(None)) if f is not None]
    return StackedConfig(backends, writable=local)


def _config_file(repo, path: Path):
    """One config file (dulwich ``ConfigFile``) with its conditional includes evaluated for
    ``repo``, or None when it does not exist."""
    from dulwich.config import ConfigFile  # lazy: as above

    try:
        return ConfigFile.from_path(str(path), condition_matchers=_include_conditions(repo, str(path)))
    except FileNotFoundError:
        return None
    except TypeError:  # a dulwich without conditional includes: the file as it reads it
        return ConfigFile.from_path(str(path))


def _include_conditions(repo, config_file: str) -> dict:
    """``includeIf`` conditions as git evaluates them for ``repo`` in ``config_file``
    (git-config(1), "Conditional includes"): ``gitdir:`` / ``gitdir/i:`` (the repository's git
    directory; ``./`` is the config file's folder), ``onbranch:`` and
    ``hasconfig:remote.*.url:`` (a remote URL in any of git's config files)."""
    git_dir = Path(repo.controldir())

    def gitdir(pattern: str, fold: bool) -> bool:
        # git expands ``~`` to the real path of the home folder, and ``./`` to the real path of
        # the file's folder: a symlinked home (/home -> /data/home) still matches.
        if pattern.startswith("~/"):
            pattern = Path(os.path.expanduser("~")).resolve().as_posix() + pattern[1:]
        elif pattern.startswith("./"):
            pattern = Path(config_file).resolve().parent.as_posix() + pattern[1:]
        elif not pattern.startswith(("/", "**")):
            pattern = "**/" + pattern
        places = {git_dir.as_posix(), git_dir.resolve().as_posix()}
        return any(_wildmatch(place, pattern, fold) for place in places)

    def onbranch(pattern: str) -> bool:
        try:
            head = repo.refs.read_ref(b"HEAD") or b""
        except (OSError, KeyError, ValueError):
            return False
        prefix = b"ref: refs/heads/"
        return head.startswith(prefix) and _wildmatch(_text(head[len(prefix):]).strip(), pattern, False)

    read: dict[str, list[str]] = {}  # the remote URLs, read once, when a condition first asks

    def remote_url(pattern: str) -> bool:
        urls = read["urls"] if "urls" in read else read.setdefault("urls", _remote_urls(repo))
        return any(_wildmatch(url, pattern, False, directory=False) for url in urls)

    return {"gitdir:": lambda p: gitdir(p, False), "gitdir/i:": lambda p: gitdir(p, True), "onbranch:": onbranch,
            "hasconfig:remote.*.url:": remote_url}


def _remote_urls(repo) -> list[str]:
    """Every ``remote.*.url`` in git's config files for ``repo`` — the repository's (with its
    includes), its worktree's, the user's and the system's, each as written — which git scans
    for ``[includeIf "hasconfig:remote.*.url:PATTERN"]`` (a work identity chosen by the
    remote's organisation). dulwich looks only in the file that holds the condition: in
    ``~/.gitconfig``, which has no remote, it never matched."""
    from dulwich.config import ConfigFile  # lazy: as above

    files = [repo.get_config()]
    for path in [Path(repo.controldir()) / "config.worktree", *map(Path, _config_paths(None))]:
        try:
            files.append(ConfigFile.from_path(str(path), expand_includes=False))
        except (OSError, ValueError, TypeError):
            continue
    found = []
    for config in files:
        for section in config.sections():
            if len(section) == 2 and section[0] == b"remote":
                try:
                    found += [_text(url).strip() for url in config.get_multivar(section, b"url")]
                except KeyError:
                    continue
    return found


def _wildmatch(text: str, pattern: str, fold: bool, *, directory: bool = True) -> bool:
    """git's wildmatch with ``WM_PATHNAME``, as conditional includes use it: ``*`` and ``?`` stay
    inside one path component, ``**/`` spans any number of them, and (``directory``: a gitdir
    or branch pattern, not a remote URL's) a pattern ending in ``/`` matches that directory and
    everything inside it (``foo/`` is ``foo/**``)."""
    if directory and pattern.endswith("/"):
        pattern += "**"
    out = []
    for token in re.split(r"(\*\*/|/\*\*$|\*\*|\*|\?)", pattern):
        out.append({"**/": "(?:.*/)?", "/**": "(?:/.*)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}.get(token)
                   or re.escape(token))
    # ``gitdir/i:`` folds ASCII letters only, as git's wildmatch does (WM_CASEFOLD, its
    # ``tolower``): ``Ö`` and ``ö`` stay two letters, so the owner is what `git config` says
    return re.fullmatch("".join(out), text, re.IGNORECASE | re.ASCII if fold else 0) is not None


def _user_config_value(section: str, name: str) -> str | None:
    try:
        from dulwich.config import StackedConfig  # lazy: read only when the identity cache misses

        value = StackedConfig.default().get((section.encode(),), name.encode())
        return _text(value).strip() or None
    except (KeyError, OSError, ValueError, ImportError):
        return None


_CONFIG_PATHS_KEPT: list = [None, None]
"""The question ``_config_paths`` last answered (where, and the environment variables that name
the files) and its answer: a long-lived process asks it at every answer (``identity_stamp``)."""


def _config_paths(where: GitDirs | None) -> list[str]:
    """Every file git's config stack for ``where`` can read, in the order
    dulwich's ``get_config_stack`` reads them (repository, worktree, global,
    XDG, system) — the key of the identity cache below. Spelled again only
    when ``where`` or one of the environment variables that name them moved."""
    env = os.environ
    asked = (where, env.get("GIT_CONFIG_GLOBAL"), env.get("HOME"), env.get("XDG_CONFIG_HOME"),
             env.get("GIT_CONFIG_SYSTEM"), "GIT_CONFIG_NOSYSTEM" in env)
    kept = _CONFIG_PATHS_KEPT
    if kept[0] != asked:
        kept[:] = (asked, _spelled_config_paths(where))
    return list(kept[1])


def _spelled_config_paths(where: GitDirs | None) -> list[str]:
    paths = []
    if where is not None:
        paths += [str(where.common_dir / "config"), str(where.git_dir / "config.worktree")]
    if "GIT_CONFIG_GLOBAL" in os.environ:
        paths.append(os.environ["GIT_CONFIG_GLOBAL"])
    else:
        paths.append(os.path.expanduser("~/.gitconfig"))
        paths.append(os.path.join(os.environ.get("XDG_CONFIG_HOME", os.path.expanduser("~/.config/")), "git", "config"))
    if "GIT_CONFIG_SYSTEM" in os.environ:
        paths.append(os.environ["GIT_CONFIG_SYSTEM"])
    elif "GIT_CONFIG_NOSYSTEM" not in os.environ:
        paths.append("/etc/gitconfig")
    return paths


def _config_signature(where: GitDirs | None) -> str | None:
    """A digest of every config file's bytes, or None when one of them
    includes another file (whose changes the digest would not see)."""
    digest = hashlib.sha256()
    for path in _config_paths(where):
        try:
            with open(path, "rb") as fh:
                data = fh.read(1 << 20)
        except OSError:
            data = b"\0missing"
        if b"include" in data.lower():
            return None
        digest.update(path.encode("utf-8", "surrogateescape") + b"\0" + data + b"\0")
    return digest.hexdigest()


OS_USER_ENVIRONMENT = ("LOGNAME", "USER", "LNAME", "USERNAME")
"""What ``writer_id.user_name`` (as ``getpass.getuser``) reads, in its order: the owner when git's config names no one."""


def identity_stamp(start: Path, includes: dict[str, tuple[tuple[int, ...], bool]]) -> tuple | None:
    """A cheap signature of what the owner for ``start`` is read from: each file git's config
    stack can read (``_config_paths``: the repository's, the worktree's, the global or
    ``GIT_CONFIG_GLOBAL``, the XDG one, the system's — the environment variables that choose
    them make their paths) with its stat (inode, size, mtime and ctime in ns; a missing file
    too), and the environment the OS user fallback reads. While it is unchanged, so is the
    owner: a long-lived process re-reads git's identity only when it moves.

    None when one of the files includes another (``include``, ``includeIf``), whose changes no
    stat of these shows: the identity must then be read each time. ``includes`` remembers, per
    file, the stat it was last read at and whether it includes: its bytes are read again only
    when that stat moved."""
    parts: list[Any] = []
    for path in _config_paths(locate(start)):
        try:
            found = os.stat(path)
        except OSError:
            parts.append((path, None))
            continue
        stamp = (found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)
        known = includes.get(path)
        if known is None or known[0] != stamp:
            try:
                with open(path, "rb") as fh:
                    data = fh.read(1 << 20)
            except OSError:
                data = b""
            known = includes[path] = (stamp, b"include" in data.lower())
        if known[1]:
            return None
        parts.append((path, stamp))
    parts.append(tuple(os.environ.get(name) for name in OS_USER_ENVIRONMENT))
    return tuple(parts)


def user_identity(start: Path, cache: Path | None = None, *,
                  secret: Callable[[str], bool] | None = None) -> tuple[str | None, str | None]:
    """git's ``user.email`` and ``user.name`` for ``start``.

    With ``cache`` (a JSON file under ``.baton/cache/``), the answer is kept
    with a digest of the config files' bytes and reused while they are
    unchanged, so a command that only needs the owner (every session-start
    hook) reads a few small files instead of importing dulwich. A config that
    uses ``include`` is always read through dulwich. A value ``secret``
    judges to look like a secret is never written there (nor left there).
    """
    where = locate(start)
    signature = _config_signature(where) if cache is not None else None
    if signature is not None and cache is not None:
        try:
            kept = orjson.loads(cache.read_bytes())
            if kept.get("signature") == signature and not _secret_in(secret, kept.get("email"), kept.get("name")):
                return kept.get("email"), kept.get("name")
        except (OSError, ValueError, AttributeError):
            pass
    email, name = config_value(start, "user", "email"), config_value(start, "user", "name")
    if _secret_in(secret, email, name):
        if cache is not None:
            try:
                cache.unlink(missing_ok=True)
            except OSError:
                pass
        return email, name
    if signature is not None and cache is not None:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            write_json_atomic(cache, {"signature": signature, "email": email, "name": name})
        except (OSError, ValueError, TypeError, StorageError):
            pass  # a cache: a read-only checkout just reads git config each time
    return email, name


def _secret_in(secret: Callable[[str], bool] | None, *values: object) -> bool:
    return secret is not None and any(isinstance(v, str) and v and secret(v) for v in values)


_CREDENTIALS = lazy(r"^(?P<scheme>[a-z][a-z0-9+.-]*://)(?:[^@/]*@)?", re.IGNORECASE)  # capture only


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


def origin_url(repo) -> str | None:
    """The ``origin`` remote's URL in an opened repository's config, or None."""
    try:
        return _text(repo.get_config().get((b"remote", b"origin"), b"url"))
    except (KeyError, OSError, ValueError):
        return None


def file_versions(start: Path, path: str, *, limit: int = 500) -> list[bytes]:
    """Every distinct content the file ``path`` (relative to the work tree) had in the commits
    HEAD reaches (dulwich's walker, newest first, at most ``limit`` commits that touch it), the
    content at HEAD included; none outside git, on an unborn branch or when history cannot be read."""
    repo = open_repo(start)
    if repo is None:
        return []
    found: dict[bytes, bytes] = {}
    wanted = path.encode()
    try:
        head = repo.head()
        for entry in repo.get_walker(include=[head], paths=[wanted], max_entries=limit):
            tree = repo[entry.commit.tree]
            try:
                _, sha = tree.lookup_path(repo.object_store.__getitem__, wanted)
            except KeyError:
                continue
            if sha not in found:
                found[sha] = repo[sha].as_raw_string()
    except (KeyError, OSError, ValueError, AttributeError):
        pass
    finally:
        repo.close()
    return list(found.values())


ANCESTRY_WALK_LIMIT = 1000
"""At most this many commits are read walking back from HEAD to find a commit
(freshness, commit evidence): past it the answer is "could not tell", so a huge
history never makes a start slow."""


def reach_from_head(start: Path, commits: list[str], *, ahead_of: str | None = None,
                    limit: int = ANCESTRY_WALK_LIMIT, head: str | None = None) \
        -> tuple[dict[str, str], int | None] | None:
    """Whether each of ``commits`` (full or abbreviated ids) is in HEAD's history.

    Returns ``(reach, ahead)``: ``reach`` maps each id to ``reachable``,
    ``unreachable`` (the whole history was walked), ``missing`` (a full id no
    object of this repository has) or ``unknown`` (the walk stopped after
    ``limit`` commits, or at a shallow clone's edge); ``ahead`` counts the
    commits HEAD has that ``ahead_of`` (a reachable id) has not, None when not
    counted within ``limit``. None outside git or on an unborn branch.
    ``head``: HEAD's full sha when the caller read it (``head_commit``): a
    plain repository's history is then read from its object store alone
    (``_object_history``), without ``dulwich.repo``.
    """
    repo = _object_history(start, head) or open_repo(start)
    if repo is None:
        return None
    try:
        tip = repo.head()
        store = repo.object_store
        reach: dict[str, str] = {}
        wanted: dict[str, str] = {}
        for commit in commits:
            text = commit.strip().lower()
            if len(text) in (40, 64) and text.encode() not in store:
                reach[commit] = "missing"
            else:
                wanted[commit] = text
        complete = _walk_for(store, tip, wanted, reach, limit)
        for commit in wanted:
            reach[commit] = "unreachable" if complete else "unknown"
        ahead = None
        if ahead_of is not None and reach.get(ahead_of) == "reachable" and len(ahead_of.strip()) in (40, 64):
            base = ahead_of.strip().lower().encode()
            ahead = repo.ahead(tip, base, limit) if isinstance(repo, _ObjectHistory) \
                else _counted_ahead(repo, tip, base, limit)
        return reach, ahead
    except (KeyError, OSError, ValueError, AttributeError):
        return None
    finally:
        repo.close()


class _ObjectHistory:
    """What ``reach_from_head`` asks of a ``Repo`` (``head``, ``object_store``, the commits
    ahead, ``close``), answered from the objects alone: in a repository with no grafts, no
    shallow edge and no extension, a commit's parents are the ones it names, which is what
    ``Repo.get_parents`` returns and what its walker follows."""

    def __init__(self, objects: Path, head: bytes) -> None:
        self.object_store = _ObjectFiles(objects)
        self._head = head

    def head(self) -> bytes:
        return self._head

    def ahead(self, tip: bytes, base: bytes, limit: int) -> int | None:
        """The commits ``tip`` has that ``base`` (in its history) has not, None from ``limit``
        on: on a line of commits the steps from ``tip`` back to ``base`` (each has one parent,
        so every one of them is ahead and nothing else is); across a merge or a root, dulwich's
        walker counts them, as ``Repo.get_walker`` would."""
        steps, sha = 0, tip
        while sha != base and steps < limit:
            parents = self.object_store[sha].parents
            if len(parents) != 1:
                return _counted_ahead(self.object_store.store(), tip, base, limit)
            steps, sha = steps + 1, parents[0]
        return steps if steps < limit else None

    def close(self) -> None:
        self.object_store.close()


def _counted_ahead(repo_or_store: Any, tip: Any, base: Any, limit: int) -> int | None:
    """dulwich's walker's count of the commits ``tip`` has that ``base`` has not (``Repo``'s
    own walker for a repository, which follows its grafts and shallow edge)."""
    if hasattr(repo_or_store, "get_walker"):
        walker = repo_or_store.get_walker(include=[tip], exclude=[base], max_entries=limit)
    else:
        from dulwich.walk import Walker  # lazy: a walk across a merge only (it loads dulwich's object store)

        walker = Walker(repo_or_store, [tip], exclude=[base], max_entries=limit)
    entries = list(walker)
    return len(entries) if len(entries) < limit else None


class _ObjectFiles:
    """What the walk asks of an object store (``store[sha]``, ``sha in store``), answered from
    git's object files without dulwich's object store (whose import, with the walker's, is most
    of a moved head's cost): a loose commit read by ``baton.git_loose`` (zlib and its headers:
    no dulwich at all; any other loose object by ``dulwich.objects.ShaFile.from_path``), a packed
    one by ``dulwich.pack.Pack`` (imported only when an object is not loose). What neither finds plainly (an alternate's object, a pack
    that went away under a concurrent repack, an id no object has) is asked of dulwich's
    ``DiskObjectStore``, opened then."""

    def __init__(self, objects: Path) -> None:
        self._objects = objects
        self._packs: list[Any] | None = None
        self._store: Any = None
        self._read: dict[bytes, Any] = {}

    def _loose(self, sha: bytes) -> str:
        text = sha.decode("ascii")
        return os.path.join(self._objects, text[:2], text[2:])

    def _opened_packs(self) -> list[Any]:
        if self._packs is None:
            from dulwich.object_format import SHA1  # lazy: a packed object only
            from dulwich.pack import Pack  # lazy: as above

            folder = self._objects / "pack"
            try:
                names = set(os.listdir(folder))
            except FileNotFoundError:
                names = set()
            self._packs = [Pack(str(folder / name[:-5]), object_format=SHA1) for name in sorted(names)
                           if name.endswith(".pack") and name[:-5] + ".idx" in names]
        return self._packs

    def store(self) -> Any:
        """dulwich's object store for these objects, opened on first use."""
        if self._store is None:
            from dulwich.object_store import DiskObjectStore  # lazy: only what the files did not answer

            self._store = DiskObjectStore(str(self._objects))
        return self._store

    def _from_files(self, sha: Any) -> Any:
        try:
            with open(self._loose(sha), "rb") as file:
                data = file.read()
        except FileNotFoundError:
            pack = self._pack_of(sha)
            return None if pack is None else pack[sha]
        # ``__import__``: the loose commit reader (and zlib) load only when a walk reads a loose object
        read = __import__("baton.git_loose", fromlist=["loose_commit"]).loose_commit(data)
        return read or _dulwich_loose(self._loose(sha), sha)

    def _pack_of(self, sha: bytes) -> Any:
        """The pack holding ``sha``, or None: none does, or a pack went away or changed under a
        concurrent repack (dulwich's ``PackFileDisappeared``, a truncated file), which dulwich's
        object store answers by reading the folder again."""
        try:
            return next((pack for pack in self._opened_packs() if sha in pack), None)
        except Exception:  # noqa: BLE001 - whatever a changing pack raises, the store reads it again
            return None

    def __getitem__(self, sha: bytes) -> Any:
        found = self._read.get(sha)
        if found is None:
            if len(sha) != 40:
                return self.store()[sha]
            try:
                found = self._from_files(sha)
            except (OSError, KeyError):  # a pack gone between its index and its data: as above
                found = None
            if found is None:
                found = self.store()[sha]
            self._read[sha] = found
        return found

    def __contains__(self, sha: bytes) -> bool:
        if len(sha) == 40 and (sha in self._read or os.path.isfile(self._loose(sha)) or self._pack_of(sha) is not None):
            return True
        return sha in self.store()

    def close(self) -> None:
        for pack in self._packs or ():
            pack.close()
        if self._store is not None:
            self._store.close()


def _dulwich_loose(path: str, sha: bytes) -> Any:
    from dulwich.objects import ShaFile  # lazy: only an object ``git_loose.loose_commit`` does not read

    return ShaFile.from_path(path, sha)  # type: ignore[arg-type]


def _object_history(start: Path, head: str | None) -> _ObjectHistory | None:
    """The repository's objects with HEAD's ``head`` (``_ObjectFiles``: dulwich's readers of
    git's object files, without ``dulwich.repo``, its config, hooks and worktree machinery, nor
    its object store), or None for ``open_repo`` to read it as before: no head given, outside
    git, a shallow clone or grafts (parents ``Repo`` rewrites), or a config this does not read
    as ``Repo`` would (a format version other than 0 or 1, any ``extensions`` — the object
    format among them — or an ``include``)."""
    if head is None or len(head) != 40:
        return None
    where = locate(start)
    if where is None:
        return None
    common = where.common_dir
    try:
        config = (common / "config").read_bytes().lower()
    except OSError:
        return None
    if b"extensions" in config or b"include" in config or not (common / "objects").is_dir():
        return None
    for line in config.splitlines():
        name, _, value = line.partition(b"=")
        if name.strip() == b"repositoryformatversion" and value.split(b"#")[0].split(b";")[0].strip() not in (b"0", b"1"):
            return None
    if (common / "shallow").exists() or (common / "info" / "grafts").exists():
        return None
    return _ObjectHistory(common / "objects", head.encode())


_CLOCK_SLOP = 86400
"""A commit older than every wanted commit by more than this (seconds) has
none of them in its history, allowing for clocks a day off (git's own walks
trust commit dates with a similar slop)."""


def _walk_for(store: Any, head: bytes, wanted: dict[str, str], reach: dict[str, str], limit: int) -> bool:
    """Walk back from ``head``, newest commit first (at most ``limit`` commits),
    marking each ``wanted`` id found ``reachable`` (and dropping it from
    ``wanted``); True when the rest are known not to be in its history: the
    whole history was walked, or everything left to walk is older than every
    wanted commit (so an amend in a long history is told after reading only
    the commits made since)."""
    times = {commit: _commit_time(store, prefix) for commit, prefix in wanted.items()}

    def edge() -> int | None:  # older than this, no wanted commit can be in a commit's history
        left = [times[commit] for commit in wanted]
        return None if not left or None in left else min(t for t in left if t is not None) - _CLOCK_SLOP

    oldest = edge()
    seen: set[bytes] = set()
    read: dict[bytes, Any] = {}  # each commit read once: a queued commit's time, then its parents

    def commit_at(sha: bytes) -> Any:
        if sha not in read:
            read[sha] = store[sha]
        return read[sha]

    try:
        queue = [(-commit_at(head).commit_time, head)]
    except KeyError:
        return False
    while queue and wanted:
        newest, sha = queue.pop(min(range(len(queue)), key=queue.__getitem__))  # the frontier is small
        if sha in seen:
            continue
        if oldest is not None and -newest < oldest:
            return True
        if len(seen) >= limit:
            return False
        seen.add(sha)
        text = sha.decode()
        for commit, prefix in list(wanted.items()):
            if text.startswith(prefix):
                reach[commit] = "reachable"
                del wanted[commit]
                oldest = edge()
        try:
            for parent in read.pop(sha).parents:
                if parent not in seen:
                    queue.append((-commit_at(parent).commit_time, parent))
        except KeyError:  # a shallow clone's edge: what lies beyond cannot be told
            return False
    return True


def _commit_time(store: Any, commit: str) -> int | None:
    """A full commit id's commit time, or None (abbreviated, absent, not a commit)."""
    if len(commit) not in (40, 64):
        return None
    try:
        return store[commit.encode()].commit_time
    except (KeyError, AttributeError, ValueError):
        return None
