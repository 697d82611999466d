"""Stale pack index locks on a path remote: found, judged (``baton.domain.remote_locks``), removed.

A push that died (a full disk, a killed process) can leave ``*.idx.lock``
files behind on a path remote; one no process holds open and nobody has
written to for 10 minutes is removed, and the sync reports it. A lock that
is not provably stale is never removed: the message says how to remove it.
"""

from __future__ import annotations

import os
import shlex
import time
from pathlib import Path

from dulwich.client import LocalGitClient
from dulwich.repo import Repo

from baton.domain.remote_locks import may_remove
from baton.domain.wording import counted


def held_open(path: str) -> bool:
    """Does a process on this machine have ``path`` open? Without ``/proc``
    it cannot be told, and the answer is yes (nothing is removed)."""
    proc = Path("/proc")
    if not (proc / "self" / "fd").is_dir():
        return True
    try:
        target = os.path.realpath(path)
    except OSError:
        return True
    for pid in os.listdir(proc):
        if not pid.isdigit():
            continue
        try:
            fds = os.listdir(proc / pid / "fd")
        except OSError:
            continue  # gone, or another user's: its locks are its own
        for fd in fds:
            try:
                if os.readlink(proc / pid / "fd" / fd) == target:
                    return True
            except OSError:
                continue
    return False


def local_remote_dir(client, path: str) -> str | None:
    """The control directory of a path (or ``file://``) remote, else None."""
    if not isinstance(client, LocalGitClient):
        return None
    try:
        with Repo(path) as remote:
            return remote.controldir()
    except Exception:  # noqa: BLE001 - not a repository we can open: nothing to clean
        return None


def remove_stale_lock(controldir: str, lock: str, cleaned: list[str]) -> bool:
    """Remove ``lock`` when ``baton.domain.remote_locks`` says it may; True if it went."""
    try:
        rel = os.path.relpath(lock, controldir).replace(os.sep, "/")
        age = time.time() - os.stat(lock).st_mtime
    except (OSError, ValueError):
        return False
    if rel.startswith("../") or not may_remove(rel, age_seconds=age, held_open=held_open(lock)):
        return False
    try:
        os.unlink(lock)
    except FileNotFoundError:
        pass
    except OSError:
        return False
    cleaned.append(lock)
    return True


def clean_stale_pack_locks(client, path: str, cleaned: list[str]) -> None:
    """After a push to a path remote: remove the stale pack index locks it holds."""
    controldir = local_remote_dir(client, path)
    if controldir is None:
        return
    pack_dir = os.path.join(controldir, "objects", "pack")
    try:
        names = [n for n in os.listdir(pack_dir) if n.endswith(".idx.lock")]
    except OSError:
        return
    for name in sorted(names):
        remove_stale_lock(controldir, os.path.join(pack_dir, name), cleaned)



def held_lock_message(lock: str, ref: str, attempts: int) -> str:
    """The lock a push to a path remote kept finding, with the command that removes it."""
    try:
        minutes = f"{counted(int((time.time() - os.stat(lock).st_mtime) // 60), 'minute')} old"
    except OSError:  # another push held it at each attempt and let go since: nothing to remove
        return (f"the remote's {ref} could not be pushed: {lock} was held by another push through {attempts} "
                "attempts (it is gone now: that push finished); run `baton sync` again")
    return (f"the remote's {ref} could not be pushed: {lock} exists ({minutes}) through {attempts} attempts. "
            "If no `baton sync`, `git push` or other git process is writing to that repository, one died "
            f"holding it (a full disk, a killed push): remove it with `rm -- {shlex.quote(lock)}` and run "
            "`baton sync` again. Baton does not remove it itself, as git does not: a live lock guards an update")


def held_local_lock_message(lock: str) -> str:
    """A lock in this clone's own git repository that stopped the sync (a
    loose object's, the ledger ref's: dulwich writes each through a
    ``.lock``), with the command that removes it."""
    try:
        age = f"{counted(int((time.time() - os.stat(lock).st_mtime) // 60), 'minute')} old"
    except OSError:
        return (f"{lock} was held while this sync wrote to this clone's git repository (gone by now: another "
                "git process was writing there); run `baton sync` again")
    return (f"{lock} in this clone's git repository stopped the sync ({age}): nothing was pushed. If no "
            "`baton sync`, `git` or other git process is running in this repository, one died holding it (a "
            f"killed sync): remove it with `rm -- {shlex.quote(lock)}` and run `baton sync` again. Baton does "
            "not remove it itself, as git does not: a live lock guards an update")

