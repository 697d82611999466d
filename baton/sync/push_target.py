"""Where a path remote's ledger ref may be written (docs/sync.md "A remote given by its path or URL").

A path remote is a repository on this machine, and two kinds of them are never
a sync's remote: this clone's own repository (``--remote .``, its own path: a
sync with itself shares nothing, yet would mark the work as shared), and
another clone's *working* repository holding a Baton project. A working
clone reads its ``refs/baton/ledger`` as its own ledger ref ("what the last
sync saw"): written by another clone's push, that clone's next sync would
publish what it holds to its own team remote — another project's feeds, if
the path was a sibling project's. The team's bare repository is the remote.

Reading a working clone is this module's only read outside the project: the
repository's layout and its ``.baton/config.json``'s ``project_id``.
"""

from __future__ import annotations

from pathlib import Path

import orjson
from dulwich.client import LocalGitClient
from dulwich.errors import NotGitRepository
from dulwich.repo import Repo

from baton.errors import InputError, RemoteOtherProject, RemoteWorkingClone


def _open(path: str) -> Repo | None:
    try:
        return Repo(path)
    except (NotGitRepository, OSError, ValueError):
        return None  # no repository there: the transport names it (remote_unreachable)


def _same_dir(a: str | Path, b: str | Path) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except (OSError, RuntimeError):
        return False


def work_tree(remote: Repo) -> Path | None:
    """The work tree of ``remote`` (a working clone, opened at its top or at its ``.git``), or None when bare."""
    if not remote.bare:
        return Path(remote.path)
    config = remote.get_config()
    try:
        if config.get_boolean((b"core",), b"bare") is not False:
            return None
    except (KeyError, ValueError):
        return None
    try:
        tree = config.get((b"core",), b"worktree").decode("utf-8", "replace")
    except KeyError:
        return Path(remote.path).parent  # a `.git` folder given by its own path
    return Path(remote.path) / tree


def project_id_at(tree: Path) -> str | None:
    """The ``project_id`` of the Baton project in the work tree ``tree`` (its ``.baton/config.json``), or None."""
    try:
        raw = orjson.loads((tree / ".baton" / "config.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    found = raw.get("project_id") if isinstance(raw, dict) else None
    return found if isinstance(found, str) and found else None


def check_not_self(own: Repo, path: str, url: str) -> None:
    """Refuse a path remote that is this clone's own repository (its path, ``.``, a linked worktree of it).

    Raises:
        InputError (exit 2): nothing fetched, nothing written.
    """
    remote = _open(path)
    if remote is None:
        return
    try:
        same = _same_dir(remote.commondir(), own.commondir())
    finally:
        remote.close()
    if same:
        raise InputError(f"the remote {url} is this clone's own repository: a sync shares the ledger through "
                         "another one; give the team's repository's path or URL, or a configured remote "
                         "(`git remote -v`)", details={"url": url})


def check_push_target(path: str, url: str, project_id: str) -> None:
    """Refuse to push into a working clone that holds a Baton project (its own ledger ref).

    Raises:
        RemoteOtherProject (exit 4): that project's ``project_id`` is not this one's.
        RemoteWorkingClone (exit 4): it is this project's (or its id cannot be read).
    """
    remote = _open(path)
    if remote is None:
        return
    try:
        tree = work_tree(remote)
    finally:
        remote.close()
    if tree is None or not (tree / ".baton").is_dir():
        return
    theirs = project_id_at(tree)
    if theirs is not None and theirs != project_id:
        raise RemoteOtherProject(
            f"the remote {url} is the working clone of another Baton project (initialised as project {theirs!r}, "
            f"its .baton/config.json; this project is {project_id!r}): nothing was imported or pushed. Check the "
            "path: sync with this project's team repository (a bare one, `git remote -v`)",
            details={"url": url, "project_id": project_id, "remote_project_ids": [theirs], "working_clone": True})
    raise RemoteWorkingClone(
        f"the remote {url} is a working clone with a Baton project (.baton/): its ledger ref is that clone's "
        "own, so sync does not push into it; nothing was imported or pushed. Sync both clones with the team's "
        "bare repository (`git init --bare`, then `git remote add origin PATH` in each)",
        details={"url": url, "project_id": theirs})


def check_path_remotes(own: Repo, fetched: tuple[object, str, str], pushed: tuple[object, str, str],
                       project_id: str) -> None:
    """``check_not_self`` for the repository fetched from and the one pushed to (each a
    transport, its path and its shown URL), ``check_push_target`` for the one pushed to;
    a remote over the network is neither checked nor read."""
    for transport, path, url in (fetched, pushed):
        if isinstance(transport, LocalGitClient):
            check_not_self(own, path, url)
    if isinstance(pushed[0], LocalGitClient):
        check_push_target(pushed[1], pushed[2], project_id)
