"""The work tree's status as ``git status`` tells it, read with dulwich's lower-level APIs (never a ``git`` process).

dulwich's ``porcelain.status`` costs seconds on a large repository (an
untracked-directory check that scans the whole index for every folder, an
index read through a per-read checksum wrapper, the whole HEAD tree read to
find what is staged), so the walk here does what git does instead:

- **index**: dulwich's parser over the file's bytes, its trailing checksum
  checked once;
- **staged**: the index's trees are built in memory (dulwich ``Tree``
  objects, as git's cache-tree would name them); when the root equals HEAD's
  tree nothing is staged, otherwise ``diff_tree.tree_changes`` reads HEAD's
  trees only where they differ;
- **unstaged**: one ``lstat`` a tracked file, trusting the index's stat cache
  as git does (mtime, ctime unless ``core.trustctime`` is off, size, inode,
  owner); a file whose stat moved, or whose entry is *racy* (written in the
  same instant as the index, or later: the stat cannot tell), is hashed
  (with the repository's check-in filters) and compared; a change of the
  executable bit (``core.filemode``) or of kind (file, symlink) is a change;
- **submodules**: one is modified (`` M sub``) when its HEAD is not its
  gitlink, or its own work tree is dirty (edits, staged or untracked files,
  its own submodules: the same walk, run in it), as git's default
  ``--ignore-submodules=none``; ``submodule.<name>.ignore`` (the
  repository's config, then ``.gitmodules``) or ``diff.ignoreSubmodules``
  saying ``untracked``, ``dirty`` or ``all`` is read as git reads it. One not
  initialised (an empty folder, no HEAD to read) is clean, a missing folder
  deleted; its files are never walked as untracked;
- **untracked**: a walk that never enters ``.git``, ``.baton/`` at the top,
  or a folder an ignore rule excludes by name (dulwich's
  ``IgnoreFilterManager``: nested ``.gitignore`` files, negations,
  ``info/exclude``, the user's excludes file); the ignore rules are asked only
  about paths the index does not hold. An untracked folder is reported as
  ``dir/`` (git's ``--untracked-files=normal``) once one file in it is
  neither tracked nor ignored, or with each of its files
  (``--untracked-files=all``); a nested repository is always ``dir/``. Under
  ``core.ignorecase`` a name that matches a tracked path or folder but for
  ASCII case is tracked, as git's case-folded index lookup has it (a file
  renamed ``README.md`` → ``readme.md`` on a case-sensitive disk is `` D
  README.md`` and nothing untracked).

``is_dirty`` stops at the first change it finds (unstaged, then untracked,
then staged). Nothing here writes to the repository (no index refresh, no
lock): git's ``GIT_OPTIONAL_LOCKS=0``. Every answer leaves ``.baton/`` out.
"""

from __future__ import annotations

import io
import os
import stat
import struct
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, NamedTuple

from baton.gitinfo import _text, open_repo

if TYPE_CHECKING:
    from _typeshed import StrPath

BATON_DIR = b".baton"
GITLINK = 0o160000


class Crowded(NamedTuple):
    """An untracked folder listed once (``dir/``) because it holds more untracked files than a
    caller would read one by one: ``files`` of them, or at least that many (``at_least``: the
    count stopped there, so that a forgotten build folder costs no more than that to count)."""

    path: str
    files: int
    at_least: bool


class Status(NamedTuple):
    """Changed paths relative to HEAD (tree paths as text, ``.baton/`` left out)."""

    staged_add: tuple[str, ...]
    staged_delete: tuple[str, ...]
    staged_modify: tuple[str, ...]
    unstaged: tuple[str, ...]
    untracked: tuple[str, ...]  # untracked folders as ``dir/`` in ``normal`` mode
    crowded: tuple[Crowded, ...] = ()  # ``all`` mode with a ``folder_limit``: the folders listed as ``dir/``


class _Tree:
    """One repository's work tree, index and settings, opened for one status."""

    def __init__(self, repo: Any, top: bool = True) -> None:
        self.repo = repo
        self.root = os.fsencode(repo.path)
        self.baton_dir = BATON_DIR if top else None  # a submodule's own ``.baton/`` is its content
        self.entries, self.index_mtime_ns = _read_index(repo)
        config = repo.get_config_stack()
        self.filemode = config.get_boolean(b"core", b"filemode", os.name != "nt")
        self.trust_ctime = config.get_boolean(b"core", b"trustctime", True)
        try:
            self.check_stat = config.get(b"core", b"checkStat") != b"minimal"
        except KeyError:
            self.check_stat = True
        self.config = config
        # core.ignorecase (git sets it on macOS and Windows): a path in the work tree is tracked when
        # its name matches an index entry but for ASCII case, as git's case-folded index lookup
        self.fold = config.get_boolean(b"core", b"ignorecase", False)
        self._ignore: Any = None
        self._normalizer: Any = None
        self._tracked_dirs: set[bytes] | None = None
        self._submodule_ignores: dict[bytes, str] | None = None

    def submodule_ignore(self, path: bytes) -> str:
        """What git ignores of the submodule at ``path``: ``none``, ``untracked``, ``dirty`` or
        ``all`` (``submodule.<name>.ignore`` in the config, then ``.gitmodules``, then
        ``diff.ignoreSubmodules``)."""
        if self._submodule_ignores is None:
            self._submodule_ignores = _submodule_ignores(self.root, self.config)
        return self._submodule_ignores.get(path) or self._submodule_ignores.get(b"") or "none"

    @property
    def ignore(self) -> Any:
        if self._ignore is None:
            from dulwich.ignore import IgnoreFilterManager  # lazy: as the module docstring says

            self._ignore = IgnoreFilterManager.from_repo(self.repo, config=self.config)
        return self._ignore

    @property
    def normalizer(self) -> Any:
        if self._normalizer is None:
            self._normalizer = self.repo.get_blob_normalizer(config=self.config)
        return self._normalizer

    @property
    def tracked_dirs(self) -> set[bytes]:
        """Every folder that holds a tracked path, at any depth (``b""``: the top)."""
        if self._tracked_dirs is None:
            dirs = {b""}
            for path in self.entries:
                head = path.rpartition(b"/")[0]
                while head not in dirs:
                    dirs.add(head)
                    head = head.rpartition(b"/")[0]
            self._tracked_dirs = dirs
        return self._tracked_dirs

    def tracked_names(self) -> tuple[Any, set[bytes]]:
        """(tracked paths, tracked folders) as the walk looks them up: case-folded under
        ``core.ignorecase``, where the walk folds each name it asks about."""
        if not self.fold:
            return self.entries, self.tracked_dirs
        return {path.lower() for path in self.entries}, {path.lower() for path in self.tracked_dirs}


def _read_index(repo: Any) -> tuple[dict[bytes, Any], int]:
    """The index's entries (dulwich's parser over the bytes, the checksum checked once) and the
    file's mtime in ns (what makes an entry racy). No index: no entries."""
    from dulwich.index import read_index_dict_with_version  # lazy: as the module docstring says

    path = repo.index_path()
    try:
        with open(path, "rb") as fh:
            mtime_ns = os.fstat(fh.fileno()).st_mtime_ns
            data = fh.read()
    except FileNotFoundError:
        return {}, 0
    fmt = repo.object_format
    body, stored = data[:-fmt.oid_length], data[-fmt.oid_length:]
    digest = fmt.new_hash()
    digest.update(body)
    if stored != digest.digest() and stored != b"\0" * fmt.oid_length:  # all zeros: index.skipHash
        raise ValueError(f"{path}: index checksum mismatch")
    try:
        entries, _version, _extensions = read_index_dict_with_version(io.BytesIO(body), fmt)
    except (AssertionError, struct.error) as exc:
        raise ValueError(f"{path}: unreadable index ({exc})") from exc
    return entries, mtime_ns


# -- unstaged: the work tree against the index ---------------------------------

def _unstaged(tree: _Tree) -> Iterator[bytes]:
    """Tracked paths whose file differs from the index: one ``lstat`` each, content read only
    when the stat cannot tell (the loop is the hot path of a large tree: locals, no calls)."""
    from dulwich.index import FLAG_VALID, IndexEntry  # lazy: as the module docstring says

    root, lstat, racy_from = tree.root + b"/", os.lstat, tree.index_mtime_ns  # racy: mtime ≥ the index's
    trust_ctime, check_stat, filemode = tree.trust_ctime, tree.check_stat, tree.filemode
    baton = tree.baton_dir + b"/" if tree.baton_dir else None
    for path, entry in tree.entries.items():
        if baton and path.startswith(baton):
            continue
        if type(entry) is not IndexEntry:  # a conflict: unmerged, always listed
            yield path
            continue
        if entry.flags & FLAG_VALID or entry.skip_worktree:  # git trusts these without a look
            continue
        try:
            st = lstat(root + path)
        except (FileNotFoundError, NotADirectoryError):
            yield path
            continue
        mode = entry.mode
        if mode == GITLINK:
            if not stat.S_ISDIR(st.st_mode) or _submodule_changed(tree, path, entry):
                yield path
            continue
        if not _same_kind(st.st_mode, mode, filemode):
            yield path
            continue
        mtime: Any = entry.mtime  # (seconds, nanoseconds), as read from the index
        ctime: Any = entry.ctime
        mtime_ns = mtime[0] * 1_000_000_000 + mtime[1]
        if (st.st_mtime_ns == mtime_ns and st.st_size == entry.size
                and (not trust_ctime or st.st_ctime_ns == ctime[0] * 1_000_000_000 + ctime[1])
                and (not check_stat or ((st.st_ino & 0xFFFFFFFF) == entry.ino and st.st_uid == entry.uid
                                        and st.st_gid == entry.gid))
                and mtime_ns < racy_from):
            continue
        if _content_differs(tree, root + path, path, st, entry):
            yield path


def _same_kind(mode: int, indexed: int, filemode: bool) -> bool:
    if stat.S_ISLNK(indexed):
        return stat.S_ISLNK(mode)
    if not stat.S_ISREG(mode):
        return False
    return not filemode or bool(mode & stat.S_IXUSR) == bool(indexed & stat.S_IXUSR)


def _content_differs(tree: _Tree, full: bytes, path: bytes, st: os.stat_result, entry: Any) -> bool:
    from dulwich.index import blob_from_path_and_stat  # lazy: as the module docstring says

    try:
        blob = blob_from_path_and_stat(full, st)
    except OSError:
        return True
    if stat.S_ISREG(st.st_mode) and tree.normalizer is not None:
        blob = tree.normalizer.checkin_normalize(blob, path)
    return blob.id != entry.sha


def _submodule_changed(tree: _Tree, path: bytes, entry: Any) -> bool:
    """Whether git calls the submodule at ``path`` modified: its HEAD is not the gitlink, or
    (unless ignored) its own work tree is dirty. Not initialised (no repository, or no HEAD,
    in its folder): clean, as git finds no HEAD to compare. Unreadable: modified."""
    from dulwich.errors import NotGitRepository  # lazy: as the module docstring says
    from dulwich.repo import Repo  # lazy: as the module docstring says

    ignore = tree.submodule_ignore(path)
    if ignore == "all":
        return False
    try:
        sub = Repo(os.fsdecode(tree.root + b"/" + path))
    except NotGitRepository:
        return False
    except (OSError, ValueError):
        return True
    try:
        try:
            head = sub.head()
        except KeyError:
            return False
        if head != entry.sha:
            return True
        if ignore == "dirty":
            return False
        return _dirty(_Tree(sub, top=False), untracked=ignore != "untracked")
    except (KeyError, OSError, ValueError):
        return True
    finally:
        sub.close()


def _submodule_ignores(root: bytes, config: Any) -> dict[bytes, str]:
    """Each submodule path's ``ignore`` setting, ``b""`` for ``diff.ignoreSubmodules``."""
    from dulwich.config import ConfigFile, parse_submodules  # lazy: as the module docstring says

    found: dict[bytes, str] = {}
    try:
        found[b""] = config.get(b"diff", b"ignoreSubmodules").decode("ascii", "replace").lower()
    except KeyError:
        pass
    try:
        modules = ConfigFile.from_path(os.fsdecode(root + b"/.gitmodules"))
    except (OSError, ValueError):
        return found
    for sub_path, _url, name in parse_submodules(modules):
        for settings in (config, modules):  # the repository's config wins over .gitmodules
            try:
                found[sub_path.rstrip(b"/")] = settings.get((b"submodule", name), b"ignore").decode(
                    "ascii", "replace").lower()
                break
            except KeyError:
                continue
    return found


# -- untracked: a walk of the work tree ------------------------------------------

def _untracked(tree: _Tree, every_file: bool, folder_limit: int | None = None, count_cap: int = 0,
               crowded: list[tuple[bytes, int, bool]] | None = None) -> Iterator[bytes]:
    """Untracked paths, not ignored: a folder nothing in the index holds is ``dir/`` unless
    ``every_file``; a nested repository is always ``dir/``. With ``every_file`` and a
    ``folder_limit``, such a folder holding more untracked files than that is ``dir/`` too,
    added to ``crowded`` with its count (which stops at ``count_cap``)."""
    tracked, tracked_dirs = tree.tracked_names()
    fold = tree.fold
    folders = [b""]
    while folders:
        rel = folders.pop()
        for name, is_dir in _listing(tree.root + b"/" + rel if rel else tree.root):
            path = rel + b"/" + name if rel else name
            key = path.lower() if fold else path
            if not is_dir:
                if key not in tracked and not _ignored(tree, path, False):
                    yield path
            elif key in tracked_dirs:
                folders.append(path)
            elif key in tracked or (not rel and name == tree.baton_dir) or _ignored(tree, path, True):
                continue  # a submodule (its gitlink), Baton's own folder, or an ignored folder
            elif _nested_repository(tree, path):
                yield path + b"/"
            elif every_file and folder_limit is None:
                folders.append(path)
            elif every_file and folder_limit is not None:
                files, more = _untracked_files(tree, path, max(count_cap, folder_limit + 1))
                if len(files) <= folder_limit:
                    yield from files
                else:
                    if crowded is not None:
                        crowded.append((path + b"/", len(files), more))
                    yield path + b"/"
            elif _holds_untracked(tree, path):
                yield path + b"/"


def _listing(folder: bytes) -> list[tuple[bytes, bool]]:
    """A folder's entries but ``.git`` (name, is a folder — a symlink is not followed)."""
    try:
        with os.scandir(folder) as found:
            return [(e.name, e.is_dir(follow_symlinks=False)) for e in found if e.name != b".git"]
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []


def _ignored(tree: _Tree, path: bytes, is_dir: bool) -> bool:
    text = os.fsdecode(path)
    if is_dir:  # entered unless a pattern excludes the folder by name (``dir/*`` + ``!dir/keep``)
        return tree.ignore.may_prune_directory(text + "/")
    return tree.ignore.is_ignored(text) is True


def _nested_repository(tree: _Tree, path: bytes) -> bool:
    return os.path.lexists(tree.root + b"/" + path + b"/.git")


def _untracked_files(tree: _Tree, folder: bytes, cap: int) -> tuple[list[bytes], bool]:
    """An untracked folder's files that are not ignored (a nested repository as ``dir/``), at
    most ``cap`` of them; and whether the walk stopped there with more to see."""
    found: list[bytes] = []
    folders = [folder]
    while folders:
        rel = folders.pop()
        for name, is_dir in _listing(tree.root + b"/" + rel):
            if len(found) >= cap:
                return found, True
            path = rel + b"/" + name
            if not is_dir:
                if not _ignored(tree, path, False):
                    found.append(path)
            elif not _ignored(tree, path, True):
                if _nested_repository(tree, path):
                    found.append(path + b"/")
                else:
                    folders.append(path)
    return found, False


def _holds_untracked(tree: _Tree, folder: bytes) -> bool:
    """Whether an untracked folder holds a file that is not ignored (or a nested repository):
    git lists such a folder; one holding only ignored files, or nothing, it does not."""
    folders = [folder]
    while folders:
        rel = folders.pop()
        for name, is_dir in _listing(tree.root + b"/" + rel):
            path = rel + b"/" + name
            if not is_dir:
                if not _ignored(tree, path, False):
                    return True
            elif not _ignored(tree, path, True):
                if _nested_repository(tree, path):
                    return True
                folders.append(path)
    return False


# -- staged: the index against HEAD -------------------------------------------------

def _staged(tree: _Tree) -> Iterator[tuple[str, bytes]]:
    """``(add|delete|modify, path)`` for each path the index holds otherwise than HEAD."""
    from dulwich.diff_tree import tree_changes  # lazy: as the module docstring says
    from dulwich.index import ConflictedIndexEntry  # lazy: as the module docstring says
    from dulwich.object_store import MemoryObjectStore, OverlayObjectStore  # lazy: as the module docstring says

    head: Any = _head_tree(tree.repo)
    conflicted = [p for p, e in tree.entries.items() if isinstance(e, ConflictedIndexEntry)]
    index_root: Any
    index_root, trees = _index_trees(tree.entries)
    for unmerged in conflicted:
        yield "modify", unmerged
    if index_root == head:
        return  # nothing staged: the trees were never stored (a store copies each object it is given)
    built = MemoryObjectStore()
    for made in trees:
        built.add_object(made)
    for change in tree_changes(OverlayObjectStore([built, tree.repo.object_store]), head, index_root):
        side: Any = change.new if change.new is not None and change.new.path is not None else change.old
        changed = side.path if side is not None else None
        if changed is not None and changed not in conflicted:
            yield change.type, changed


def _head_tree(repo: Any) -> bytes | None:
    try:
        return repo[repo.head()].tree
    except (KeyError, AttributeError):
        return None  # an unborn branch: everything in the index is added


def _index_trees(entries: dict[bytes, Any]) -> tuple[bytes, list[Any]]:
    """The root tree's id of the index (stage 0 entries), and every tree built for it."""
    from dulwich.index import IndexEntry  # lazy: as the module docstring says
    from dulwich.objects import Tree  # lazy: as the module docstring says

    trees: dict[bytes, Any] = {b"": Tree()}
    for path, entry in entries.items():
        if not isinstance(entry, IndexEntry):
            continue
        folder, _, name = path.rpartition(b"/")
        found = trees.get(folder)
        if found is None:
            found = trees[folder] = Tree()
            parent = folder
            while True:  # make every folder up to one already known
                up, _, leaf = parent.rpartition(b"/")
                if up not in trees:
                    trees[up] = Tree()
                    trees[up].add(leaf, stat.S_IFDIR, b"0" * 40)
                    parent = up
                    continue
                trees[up].add(leaf, stat.S_IFDIR, b"0" * 40)
                break
        found.add(name, entry.mode, entry.sha)
    for folder in sorted(trees, key=lambda f: f.count(b"/") + (f != b""), reverse=True):
        if folder:
            up, _, leaf = folder.rpartition(b"/")
            trees[up][leaf] = (stat.S_IFDIR, trees[folder].id)
    return trees[b""].id, list(trees.values())


# -- what callers ask -------------------------------------------------------------------

def _object_format(repo: Any) -> bytes:
    """``extensions.objectFormat`` of ``repo``'s config, lower case (``sha1`` when it names none)."""
    try:
        return bytes(repo.get_config().get((b"extensions",), b"objectformat")).strip().lower() or b"sha1"
    except KeyError:
        return b"sha1"


def _opened(start: StrPath) -> tuple[Any, _Tree] | None:
    repo = open_repo(start)
    if repo is None:
        return None
    try:
        if repo.bare or _object_format(repo) != b"sha1":
            # dulwich reads SHA-1 objects only: a SHA-256 repository's trees do not parse
            repo.close()
            return None
        return repo, _Tree(repo)
    except (KeyError, OSError, ValueError):
        repo.close()
        return None


def status(start: StrPath, untracked: str = "all", *, folder_limit: int | None = None,
           count_cap: int = 5000) -> Status | None:
    """The work tree's status (``untracked``: ``all`` or ``normal``), or None outside a
    repository (or a bare one) or when it cannot be read. ``folder_limit`` (``all`` only): an
    untracked folder with more untracked files than this is listed once, as ``dir/``, and in
    ``crowded`` with its count, counted up to ``count_cap`` files."""
    opened = _opened(start)
    if opened is None:
        return None
    repo, tree = opened
    try:
        groups: dict[str, set[bytes]] = {"add": set(), "delete": set(), "modify": set()}
        for kind, path in _staged(tree):
            groups.setdefault(kind, set()).add(path)
        unstaged = set(_unstaged(tree))
        crowded: list[tuple[bytes, int, bool]] = []
        found = set(_untracked(tree, untracked == "all", folder_limit, count_cap, crowded))
    except (KeyError, OSError, ValueError):
        return None
    finally:
        repo.close()

    def texts(paths: set[bytes]) -> tuple[str, ...]:
        return tuple(sorted(p for p in map(_text, paths) if not p.startswith(".baton/")))

    return Status(texts(groups["add"]), texts(groups["delete"]), texts(groups["modify"]), texts(unstaged),
                  texts(found), tuple(sorted(Crowded(_text(path), files, more) for path, files, more in crowded)))


def changed_files(start: StrPath) -> tuple[bool | None, tuple[str, ...]]:
    """(dirty, sorted changed paths) — staged, unstaged and untracked, an untracked folder
    as ``dir/`` (git's ``--untracked-files=normal``, which keeps the list to what a person
    would read); ``(None, ())`` outside a repository or when the status cannot be read."""
    found = status(start, "normal")
    if found is None:
        return None, ()
    paths = sorted(set(chain(found.staged_add, found.staged_delete, found.staged_modify, found.unstaged,
                             found.untracked)))
    return bool(paths), tuple(paths)


def is_dirty(start: StrPath) -> bool | None:
    """Whether anything is staged, unstaged or untracked (``.baton/`` aside), stopping at the
    first change found; None outside a repository or when the status cannot be read."""
    opened = _opened(start)
    if opened is None:
        return None
    repo, tree = opened
    try:
        return _dirty(tree)
    except (KeyError, OSError, ValueError):
        return None
    finally:
        repo.close()


def _dirty(tree: _Tree, untracked: bool = True) -> bool:
    """Whether anything is unstaged, untracked (unless not ``untracked``) or staged, in that
    order, stopping at the first change found."""
    baton = tree.baton_dir + b"/" if tree.baton_dir else None
    staged = (p for _kind, p in _staged(tree) if not (baton and p.startswith(baton)))
    loose = _untracked(tree, False) if untracked else iter(())
    return next(chain(_unstaged(tree), loose, staged), None) is not None


def ignore_filter(start: StrPath) -> Callable[[StrPath, bool], bool] | None:
    """A test of what the repository holding ``start`` ignores: ``(path, is_folder)`` → whether its ignore
    rules (dulwich's ``IgnoreFilterManager``: nested ``.gitignore`` files, negations, ``info/exclude``, the
    user's excludes file) leave that untracked path out, as ``git status`` does; a tracked path, or a folder
    holding one, is never ignored. None outside a repository or when it cannot be read."""
    opened = _opened(start)
    if opened is None:
        return None
    repo, tree = opened
    try:
        rules = tree.ignore
        root = Path(os.fsdecode(tree.root)).resolve()
    except (KeyError, OSError, ValueError):
        return None
    finally:
        repo.close()

    def ignored(path: StrPath, is_folder: bool) -> bool:
        try:
            text = Path(path).relative_to(root).as_posix()
        except ValueError:
            return False
        if is_folder:
            return os.fsencode(text) not in tree.tracked_dirs and bool(rules.may_prune_directory(text + "/"))
        return os.fsencode(text) not in tree.entries and rules.is_ignored(text) is True

    return ignored
