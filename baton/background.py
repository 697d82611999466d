"""The index brought up to date in a process of its own.

A hook has seconds (``BATON_HOOK_DEADLINE``); replaying a large ledger takes
longer (a full replay of 100,000 events is ~11 s here). Folding it in the hook
would be cut off by its deadline every time, and the replay's one
transaction would roll back with it, so the index would never catch up. A
catch-up the hook may not fold (``IndexBehind``) is handed here instead:
``baton rebuild --if-needed`` for the project, started in a session of its own
with none of the hook's streams (stdin and stdout on ``/dev/null``, stderr
to ``.baton/cache/catch-up.log``), so the harness, which waits for the
hook's output to close, is not kept waiting. It takes the ledger lock like any
writer, waiting for it at most ``LOCK_WAIT`` seconds. It runs the same
interpreter and package as the hook, never a shell.

A hook whose work must not be lost (a session's end, the draft before a
compaction) that finds the ledger lock held by another process past its
wait starts it too (``Project.busy``): kept, the work is done by this
process once the lock is let go.

One at a time: the process started holds ``.baton/cache/catch-up.lock``
(an ``flock`` it inherits as a descriptor of its own, released when it
ends) and its pid is written there. A hook that finds the lock held while
its catch-up runs starts nothing and names that process: until the replay
commits, every hook sees the index as far behind as the first one did, and
a start of its own at each would pile up processes that wait for the lock
and then find nothing to fold (and each would empty the log of the first).
"""

from __future__ import annotations

import fcntl
import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any

    from _typeshed import StrPath

LOG = "cache/catch-up.log"
"""Where the background catch-up's stderr goes, relative to ``.baton/``."""
LOCK = "cache/catch-up.lock"
"""Held by the background catch-up while it runs, with its pid; relative to ``.baton/``."""
_INHERITED_FD = 3
"""The descriptor the catch-up holds its lock on (closed when it ends)."""


LOCK_WAIT = 600.0
"""How long the background catch-up waits for the ledger lock (``rebuild
--lock-wait``), for its replay and for each hook kept for it, before it gives
up (``ledger_busy``, in its log): a long ``baton rebuild``, ``sync`` or ``gc``
is done well within it, and a holder stuck for good does not keep it (and
its own lock, which stops later hooks starting another) for ever. A holder
that dies lets go of the lock at once (``flock``). What it kept waits, for
the next catch-up or session start."""


FAILED_MAX = 300
"""The most characters of a failed catch-up's last error kept for a notice."""


def start_catch_up(root: StrPath, baton_dir: StrPath) -> tuple[int | None, str | None]:
    """Start ``baton rebuild --if-needed`` for the project at ``root``, unless
    one started here still runs. Its pid (the one running, or the one
    started; None when it could not be started, or started so recently its
    pid is not written yet), and, when one is started, what the last one
    said when it failed (``baton: …``, the last line of its log), else None:
    a catch-up that fails at every hook (a damaged feed) is then said, not
    promised again and again."""
    try:
        os.mkdir(os.path.dirname(os.path.join(baton_dir, LOG)))
    except OSError:
        pass
    lock = _take_lock(os.path.join(baton_dir, LOCK))
    if lock is False:  # a catch-up holds it: that one brings the index up to date
        return _running_pid(os.path.join(baton_dir, LOCK)), None
    try:
        # What the last one said when it failed, before the start empties the log;
        # not one started for the project where it was before a move (its error,
        # "… is not a Baton project", is not this one's).
        failed = _last_failure(os.path.join(baton_dir, LOG)) if _recorded_root(os.path.join(baton_dir, LOCK)) in (None, str(root)) else None
        pid = _spawn(root, baton_dir, lock)
        if pid is not None and lock is not None:
            try:
                os.ftruncate(lock, 0)
                os.pwrite(lock, f"{pid}\n{root}\n".encode(), 0)
            except OSError:
                pass
        return pid, failed
    finally:
        if lock is not None:
            os.close(lock)  # the lock stays held by the descriptor the catch-up inherited


def _take_lock(path: str) -> int | None | bool:
    """The lock file's descriptor, locked; False when another process holds
    it; None when it cannot be opened (then the catch-up runs without it)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return False
    except OSError:
        os.close(fd)
        return None
    if fd > _INHERITED_FD:
        return fd
    try:  # kept clear of the descriptors the catch-up is given
        high: int | None = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, _INHERITED_FD + 1)
    except OSError:
        high = None
    os.close(fd)  # the lock goes with the last descriptor of the open file: `high` holds it
    return high


def failed_for_room(baton_dir: StrPath) -> tuple[str, int] | None:
    """When the last catch-up failed for want of space on the disk (``DiskFull``,
    a write of the index refused): what it said the disk was, and the bytes free
    then; else None. Not while one runs (its log is being written)."""
    if running(baton_dir)[0]:
        return None
    failed = _last_failure(os.path.join(baton_dir, LOG))
    if failed is None or not failed.startswith("the disk holding ") or " bytes free, too few for " not in failed:
        return None
    head = failed.split(" bytes free, too few for ", 1)[0]
    count = head.rsplit("(", 1)[-1].replace(",", "")
    if not count.isdigit():
        return None
    end = failed.find(")", len(head))
    return (failed[:end + 1] if end != -1 else failed), int(count)


def _last_failure(log: str) -> str | None:
    """The error a finished catch-up ended with: its log's last line, when that
    is the CLI's ``baton: …`` (a catch-up that succeeded leaves the log empty)."""
    try:
        with open(log, "rb") as f:
            f.seek(max(0, os.fstat(f.fileno()).st_size - 4096))
            tail = f.read().decode("utf-8", "replace").strip()
    except OSError:
        return None
    last = tail.rsplit("\n", 1)[-1].strip()
    if not last.startswith("baton: "):
        return None
    last = last[len("baton: "):]
    return last if len(last) <= FAILED_MAX else last[:FAILED_MAX - 1] + "…"


def running(baton_dir: StrPath) -> tuple[bool, int | None]:
    """Whether a catch-up started here runs now (holds its lock: a probe,
    taken and let go at once, never waited on), and its pid (None when it
    is not written yet, or none runs)."""
    path = os.path.join(baton_dir, LOCK)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False, None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True, _running_pid(path)
    except OSError:
        return False, None
    finally:
        os.close(fd)  # lets go of the probe's lock with the descriptor
    return False, None


def _running_pid(path: str) -> int | None:
    """The pid a catch-up's lock file holds (its first line)."""
    try:
        with open(path, encoding="utf-8") as fh:
            return int(fh.read().split("\n", 1)[0].strip())
    except (OSError, ValueError):
        return None


def _recorded_root(path: str) -> str | None:
    """The project root the last catch-up started here was for (the lock
    file's second line; None when it names none)."""
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
    except OSError:
        return None
    return lines[1] if len(lines) > 1 and lines[1] else None


def _spawn(root: StrPath, baton_dir: StrPath, lock: int | None) -> int | None:
    argv = [sys.executable, "-P", "-m", "baton", "--project", str(root), "rebuild", "--if-needed",
            "--lock-wait", f"{LOCK_WAIT:g}"]
    for stderr in (os.path.join(baton_dir, LOG), os.devnull):
        actions: list[tuple[Any, ...]] = [
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, stderr, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
        ]
        if lock is not None:  # dup2 clears close-on-exec: the catch-up holds the lock until it ends
            actions.append((os.POSIX_SPAWN_DUP2, lock, _INHERITED_FD))
        try:
            return os.posix_spawn(sys.executable, argv, os.environ, file_actions=actions, setsid=True)
        except OSError:
            continue
    return None
