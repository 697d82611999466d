"""A copied project's first write takes a writer id of its own.

``Project.open`` compares the ``.baton`` folder's device and inode with the
place ``local.json`` records its writer id was minted in (one ``stat``);
only when they differ does a writing command load this module
(``Project.claim_writer``), which asks ``baton.domain.writer_place`` what
the difference means and acts on it, under the ledger lock: a copy mints a
new id (kept in ``local.json`` with every override, the old feed left as
history), a ``local.json`` that recorded no place, a folder whose device
number changed (a remount), or one moved across file systems (the recorded
root, on this host, holds no ``.baton/local.json`` any more: one ``stat``,
nothing read there), records this one and keeps its id.
"""

from __future__ import annotations

import os
from typing import Any

from baton.commands.context import Project, read_local
from baton.config import write_json_atomic
from baton.domain.writer_place import (
    COPIED,
    Place,
    PlaceCheck,
    check_place,
    claimed_local,
    copied_notice,
    recorded_local,
)
from baton.errors import ConfigError, StorageError
from baton.ledger.store import lock_held
from baton.model import frozen
from baton.project import ProjectPaths
from baton.sync.signing import committed_signers_path, require_signatures
from baton.writer_id import host_name, new_writer_id


@frozen
class WriterChange:
    """A copy's new writer id, taken at its first write."""

    old: str
    new: str
    copied_from: Place | None
    signing: bool = False
    """Feeds are signed in this project: the new id must be an allowed signer."""

    @property
    def message(self) -> str:
        return copied_notice(self.old, self.new, self.copied_from, signing=self.signing)

    def to_json(self) -> dict[str, Any]:
        return {"old": self.old, "new": self.new, "message": self.message,
                "copied_from": self.copied_from.to_json() if self.copied_from is not None else None}


def here_place(paths: ProjectPaths, st: os.stat_result | None = None) -> Place:
    """Where this ``.baton/`` folder is: the root (already its real path), the
    host, and the folder's device and inode (``st``, else one ``stat``).

    Raises:
        StorageError: the folder cannot be looked at.
    """
    if st is None:
        try:
            st = os.stat(paths.baton_folder)
        except OSError as exc:
            raise StorageError(f"cannot look at {paths.baton_folder}: {exc}") from exc
    return Place(paths.root_folder, host_name(), st.st_dev, st.st_ino)


def place_check(paths: ProjectPaths, local: dict[str, Any]) -> PlaceCheck:
    """What ``local.json`` and this folder say about its writer id (``baton doctor``)."""
    return checked(Place.from_json(local.get("minted_in")), here_place(paths))


def takes_new_writer(project: Project) -> bool:
    """This ``.baton/`` folder is a copy of the one its writer id was minted in: its next write
    (a sync) takes a new id (``status`` and ``doctor``: what the next sync does). False when
    ``local.json`` cannot be read or the folder cannot be looked at (nothing is promised)."""
    try:
        local = read_local(project.paths)
        return local.get("writer") == project.writer and not place_check(project.paths, local).keeps_writer
    except (ConfigError, StorageError):
        return False


def checked(recorded: Place | None, here: Place) -> PlaceCheck:
    """The verdict on ``here``, looking at the recorded root only when it could
    make a copy a move (another folder at another root on this host)."""
    check = check_place(recorded, here)
    if check.verdict == COPIED and recorded is not None and recorded.host == here.host and recorded.root != here.root:
        check = check_place(recorded, here, original_gone=original_gone(recorded))
    return check


def original_gone(recorded: Place) -> bool:
    """Nothing at ``recorded``'s root writes under its id any more: no
    ``.baton/local.json`` there (one ``stat``; nothing outside this project is
    read). A file that cannot be looked at counts as there: a copy."""
    try:
        os.stat(os.path.join(recorded.root, ".baton", "local.json"))
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:
        return False
    return False


def minted_here(paths: ProjectPaths, local: dict[str, Any]) -> dict[str, Any]:
    """``local.json`` with a writer id minted now, in this folder."""
    return recorded_local({**local, "writer": new_writer_id()}, here_place(paths))


def claim(project: Project, st: os.stat_result, wait: float | None) -> None:
    """Act on a ``.baton`` folder that is not the one ``local.json`` records
    (``st``: its ``stat`` when the project was opened). Under the ledger lock
    (waited for ``wait`` seconds at most; None: no limit),
    reading ``local.json`` again: of two processes of one copy, the second
    finds the id the first took and writes under it.

    Raises:
        ConfigError: ``local.json`` no longer reads as one.
        LedgerBusy: the lock stayed held past ``wait``.
        StorageError: ``local.json`` cannot be written.
    """
    if project.opened_ledger is not None and project.opened_ledger.held_here:
        # ``lock_held`` would wait on this process's own hold: a writing step
        # settles the writer before it takes the lock, never inside one.
        raise RuntimeError("the writer id is claimed before the ledger lock is taken, not under it")
    here = here_place(project.paths, st)
    with lock_held(project.paths.baton_folder, wait):
        local = read_local(project.paths)
        check = checked(Place.from_json(local.get("minted_in")), here)
        kept = local.get("writer")
        writer: str = kept if isinstance(kept, str) else project.writer
        if check.verdict == COPIED:
            writer = new_writer_id()
            write_json_atomic(project.paths.local_file, claimed_local(local, check, writer))
        elif check.records_place:
            write_json_atomic(project.paths.local_file, recorded_local({**local, "writer": writer}, here))
    if writer == project.writer:
        return
    old = project.writer
    project.adopt_writer(writer)
    if check.verdict == COPIED:  # this process took it (not another process of this copy before it)
        project.writer_change = WriterChange(old, writer, check.recorded, signing=signs_feeds(project))
        project.log("info", "writer_taken", id=writer)
        if project.on_writer_change is not None:
            project.on_writer_change(project.writer_change)


def signs_feeds(project: Project) -> bool:
    """Whether feeds are signed here: signatures required, or an allowed-signers file."""
    try:
        return require_signatures(project) or committed_signers_path(project).is_file()
    except (ConfigError, OSError):
        return False
