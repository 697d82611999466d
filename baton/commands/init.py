"""``baton init``: make a directory a Baton project. Safe to run twice."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import orjson

from baton.commands.context import Project, check_baton_folder_inside, ensure_writer
from baton.commands.record import record
from baton.config import ProjectConfig, project_id_problem, read_config, write_json_atomic
from baton.domain.redaction import RedactionPolicy, redact_strings
from baton.errors import Conflict, InputError, PolicyBlock, ReadOnlyProject, StorageError
from baton.events.catalogue import ProjectInitialized
from baton.events.names import PROJECT_INITIALIZED
from baton.gitinfo import locate
from baton.ledger.ids import uuid7
from baton.model import frozen
from baton.project import ProjectPaths, resolve_root
from baton.projections.runner import Progress, index_path_too_long
from baton.sync.ids import ID_CACHE

GITIGNORE = """\
# Baton: only config.json, policy.json and allowed_signers are meant to be
# committed. The ledger, materialized files and index stay out of branches:
# the ledger belongs to the repository, not to a branch. Share the feeds with
# `baton sync`, which keeps them on a dedicated ref (refs/baton/ledger).
*
!.gitignore
!config.json
!policy.json
!allowed_signers
"""

DEFAULT_SETTINGS: dict[str, Any] = {
    "policy": {"recheck_allowlist": []},
}


@frozen
class InitResult:
    root: str
    project_id: str
    writer: str
    created: bool
    exit_code: int = 0
    adopted: bool = False
    """``.baton/config.json`` was missing over an existing ledger: it was written with the
    project id the ledger recorded (``project.initialized``), not a new one."""

    def to_json(self) -> dict:
        return {"root": self.root, "project_id": self.project_id, "writer": self.writer, "created": self.created,
                "adopted": self.adopted}

    def render(self) -> str:
        if self.adopted:
            return (f"Restored .baton/config.json in {self.root} for project {self.project_id}, the id its ledger "
                    f"recorded (project.initialized; writer {self.writer}): commit .baton/config.json on this "
                    "branch, or restore it from the branch that tracks it (`git checkout <branch> -- "
                    ".baton/config.json`)")
        if self.created:
            return f"Initialised Baton project {self.project_id} in {self.root}/.baton (writer {self.writer})"
        return f"Already a Baton project: {self.project_id} in {self.root}/.baton (nothing changed)"


def init_project(project: str | os.PathLike | None = None, *, project_id: str | None = None,
                 on_wait: Callable[..., None] | None = None,
             on_progress: Progress | None = None) -> InitResult:
    """Create ``.baton/`` (config, ledger, ignore file) and record ``project.initialized``;
    ``on_wait`` is the project's (``Project.on_wait``: told once when another
    process holds the ledger lock).

    Raises:
        InputError: ``project_id`` is empty, the root is not a directory or is a bare git repository.
        Conflict: the project already exists with a different id.
    """
    if project_id is not None and not project_id.strip():
        raise InputError("`project_id` must not be empty")
    if project_id is not None and project_id_problem(project_id):
        raise InputError(f"`project_id` {project_id_problem(project_id)}")
    if project_id is not None:
        if redact_strings(project_id, RedactionPolicy()).changed:
            raise PolicyBlock("refused by secret policy: `project_id` looks like a secret")
    paths = ProjectPaths(resolve_root(project))
    with _creating(paths):  # inside a folder this user cannot enter, is_dir() itself is refused
        is_dir = paths.root.is_dir()
    if not is_dir:
        raise InputError(f"{paths.root} is not a directory")
    _refuse_bare_repository(paths.root)
    check_baton_folder_inside(paths)
    _check_index_path_fits(paths)
    before = _entries(paths.baton_dir)
    try:
        return _init(paths, project_id, on_wait, on_progress)
    except BaseException:
        _undo(paths, before)
        raise


def _refuse_bare_repository(root: Path) -> None:
    """A bare git repository (or a folder inside one) has no work tree: a session works in none,
    git sees no branch checked out, and ``.baton/`` would sit among the repository's own files.

    Raises:
        InputError: ``root`` is, or is inside, a bare repository.
    """
    located = locate(root)
    if located is None or not located.bare:
        return
    where = "" if os.path.samefile(located.git_dir, root) else f"inside {located.git_dir}, "
    raise InputError(f"{root} is {where}a bare git repository (no work tree, nothing checked out): Baton "
                     f"belongs in a clone's work tree; run `baton init` in a clone of it "
                     f"(`git clone {located.git_dir} DIR`)", details={"git_dir": located.git_dir})


def _init(paths: ProjectPaths, project_id: str | None, on_wait: Callable[..., None] | None,
          on_progress: Progress | None) -> InitResult:
    """``init_project``'s work; what it makes is undone by the caller when it fails."""
    created = adopted = False
    if paths.config.is_file():
        config = read_config(paths.config)
        if project_id is not None and project_id != config.project_id:
            raise Conflict(
                f"{paths.root} is already project {config.project_id}; refusing to change its id to {project_id}"
            )
    else:
        recorded = recorded_project_id(paths.ledger_dir)  # a ledger whose config.json is on another branch
        if project_id is not None and recorded is not None and project_id != recorded:
            raise Conflict(f"{paths.root}/.baton/ledger was initialised as project {recorded}; refusing to "
                           f"give it the id {project_id} (given no project id, `baton init` adopts {recorded})")
        adopted = recorded is not None
        config = ProjectConfig(project_id=project_id or recorded or uuid7(), extra=dict(DEFAULT_SETTINGS))
        with _creating(paths):
            paths.ledger_dir.mkdir(parents=True, exist_ok=True)
            paths.init_pending.write_bytes(b"")  # before config.json: a kill from here on leaves it said
            write_json_atomic(paths.config, config.to_json())
        created = True
    with _creating(paths):
        if not paths.gitignore.exists():
            paths.gitignore.write_text(GITIGNORE)
        paths.ledger_dir.mkdir(parents=True, exist_ok=True)
        ensure_writer(paths)
    opened = Project.open(paths.root, initializing=True)
    opened.on_wait, opened.on_progress = on_wait, on_progress
    try:
        with opened.writing() as scope:
            if scope.txn.stream_version("project") == 0:
                record(scope, [ProjectInitialized(project_id=config.project_id, root_hint=".")], version=0,
                       durable=True)
                created = True
    finally:
        opened.close()
    with _creating(paths):
        if os.path.lexists(paths.init_pending):
            os.unlink(paths.init_pending)
    return InitResult(str(paths.root), config.project_id, opened.writer, created, adopted=adopted)


def _entries(folder: Path) -> frozenset[str] | None:
    """The names in ``folder`` (``.baton/``) before ``init`` ran; None when there was no such folder."""
    try:
        return frozenset(os.listdir(folder))
    except FileNotFoundError:
        return None
    except OSError:
        return frozenset()  # unreadable: nothing of it is taken for this run's


def _undo(paths: ProjectPaths, before: frozenset[str] | None) -> None:
    """A ``baton init`` that failed (a full disk, a refused write, an interrupt) where there was no
    ``config.json`` removes what it made in ``.baton/`` — ``config.json`` first, so nothing looks initialised, ``init.pending`` last, so
    a removal that fails leaves it said — and ``.baton/`` itself when it made it: the folder is as
    before, and ``baton init`` is run again. What was there before (a committed ``config.json``, a
    ledger) is never touched. Never raises: the failure is what is reported."""
    if before is not None and paths.config.name in before:
        return  # a project already (or a clone's committed config): what it holds is not this run's to judge
    made = [name for name in _entries(paths.baton_dir) or () if before is None or name not in before]
    if not made:
        return
    last = paths.init_pending.name
    for name in sorted(made, key=lambda n: (n != paths.config.name, n == last)):
        path = paths.baton_dir / name
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                os.unlink(path)
        except OSError:
            return
    if before is None:
        with contextlib.suppress(OSError):
            os.rmdir(paths.baton_dir)


INIT_SCAN_LINES = 64
"""How many of a feed's first lines are read for its ``project.initialized`` (every clone records it first)."""


def recorded_project_id(ledger_dir: Path) -> str | None:
    """The project id the ledger in ``ledger_dir`` recorded (``project.initialized``;
    the earliest by hlc when clones recorded several), or None when it holds none."""
    found: list[tuple[int, str]] = []
    for feed in sorted(ledger_dir.glob("*.jsonl")) if ledger_dir.is_dir() else ():
        try:
            with feed.open("rb") as lines:
                for _, line in zip(range(INIT_SCAN_LINES), lines):
                    try:
                        event = orjson.loads(line)
                    except orjson.JSONDecodeError:
                        break  # a torn or damaged line: verify names it
                    data = event.get("data") if isinstance(event, dict) else None
                    if event.get("type") == PROJECT_INITIALIZED and isinstance(data, dict) \
                            and isinstance(data.get("project_id"), str) and data["project_id"]:
                        found.append((event.get("hlc") if isinstance(event.get("hlc"), int) else 0,
                                      data["project_id"]))
                        break
        except OSError:
            continue
    return min(found)[1] if found else None


SQLITE_FILES = ("index.sqlite", ID_CACHE)
"""The databases Baton opens with SQLite in ``.baton/``."""


def _check_index_path_fits(paths: ProjectPaths) -> None:
    """Refuse, before anything is written, a project whose index SQLite could
    not open: every command would fail with "unable to open database file"."""
    too_long = index_path_too_long(paths.baton_dir, SQLITE_FILES)
    if too_long is not None:
        raise InputError(f"{too_long}; make the project in a folder with a shorter path",
                         details={"root": str(paths.root)})


@contextmanager
def _creating(paths: ProjectPaths) -> Iterator[None]:
    """Creating ``.baton/``'s files: a place this process may not write (a
    read-only mount, another user's folder) is ``ReadOnlyProject``, any other
    failure of the disk a ``StorageError``, each naming the folder, never an
    internal error."""
    try:
        yield
    except PermissionError as exc:
        raise ReadOnlyProject(f"cannot create {paths.baton_dir}: {exc.strerror}; a project needs a folder this user "
                              "can write to", details={"baton_dir": str(paths.baton_dir)}) from None
    except OSError as exc:
        if exc.errno == errno.EROFS:
            raise ReadOnlyProject(f"cannot create {paths.baton_dir}: {exc.strerror}; a project needs a "
                                  "folder on a writable file system", details={"baton_dir": str(paths.baton_dir)}) from None
        raise StorageError(f"cannot create {paths.baton_dir}: {exc.strerror or exc}",
                           details={"baton_dir": str(paths.baton_dir)}) from None
