"""The few system calls the JSONL ledger makes on feed files, in one place,
and how full the disk under them is (``disk_full``)."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat

from baton.errors import StorageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from _typeshed import StrPath

LOW_SPACE = 1 << 20
"""Below this many free bytes on the disk holding ``.baton/``, the disk is full for
Baton: a write could tear a feed's last line or leave the index half-written, and
SQLite cannot even open the index to read it (its shared-memory file needs room)."""

DISK_FULL_ADVICE = "free space on that disk (remove files you do not need there), then run the command again"


def disk_full(path: StrPath) -> str | None:
    """``the disk holding PATH is full (N bytes free)`` when the file system under
    ``path`` has less than ``LOW_SPACE`` bytes free for this user (root's reserve
    counted for root), else None (and None when it cannot be asked)."""
    free = free_bytes(path)
    if free is None:
        return None
    return f"the disk holding {path} is full ({free:,} bytes free)" if free < LOW_SPACE else None


def free_bytes(path: StrPath) -> int | None:
    """The bytes free for this user on the file system under ``path`` (root's
    reserve counted for root), or None when it cannot be asked."""
    try:
        st = os.statvfs(path)
    except (OSError, AttributeError):
        return None
    return (st.f_bfree if os.geteuid() == 0 else st.f_bavail) * st.f_frsize


def no_room(path: StrPath, what: str) -> str:
    """``the disk holding PATH is full (N bytes free, too few for WHAT)``: a write
    refused for want of space although more than ``LOW_SPACE`` was free when the
    command began (a replay of the index needs about the index's size again)."""
    free = free_bytes(path)
    said = f"{free:,} bytes free" if free is not None else "too little room"
    return f"the disk holding {path} is full ({said}, too few for {what})"


def out_of_space(exc: BaseException) -> bool:
    """``exc`` is a write refused for want of space (ENOSPC, or a quota's EDQUOT)."""
    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)


_WRITE_ERRORS = {
    errno.EFBIG: "the file would grow past the largest this process may write (a file-size limit such as "
                 "`ulimit -f`) or the file system allows",
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EIO: "the disk reported an input/output error",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "this user may not write the file",
    errno.EPERM: "the file may not be written (permissions, or an append-only or immutable file)",
}


def write_error(exc: OSError) -> tuple[str, str]:
    """Why a write failed, in words (``the disk is full``), and the name of its error
    (``ENOSPC``); the system's own words for an error not listed."""
    code = exc.errno if isinstance(exc.errno, int) else 0
    name = errno.errorcode.get(code, "EUNKNOWN")
    return _WRITE_ERRORS.get(code) or (exc.strerror or str(exc)).rstrip(".").lower(), name


def read_range(path: str, start: int, size: int | None = None) -> bytes:
    """The bytes of ``path`` from ``start`` to its end, or ``size`` of them
    (fewer at the end).

    Raises:
        FileNotFoundError: the file is gone (callers decide what that means).
        StorageError: any other failure to read.
    """
    fd = open_feed(path, os.O_RDONLY)
    try:
        if size is None:
            size = max(0, os.fstat(fd).st_size - start)
        parts = []
        while size > 0:
            chunk = os.pread(fd, size, start)
            if not chunk:
                break
            parts.append(chunk)
            start += len(chunk)
            size -= len(chunk)
        return b"".join(parts)
    except OSError as exc:
        raise StorageError(f"cannot read feed {path}: {exc}") from exc
    finally:
        os.close(fd)


NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def open_feed(path: StrPath, flags: int, mode: int = 0o644, *, doing: str = "read") -> int:
    """A descriptor on the feed (or other file of ``.baton/``) at ``path``
    itself: a symbolic link there is refused, never followed (``O_NOFOLLOW``),
    and so is anything but a regular file (a FIFO is opened without blocking,
    then refused) — Baton reads, cuts and appends to its own files only
    (``baton.commands.context.foreign_files`` refuses them on every open).
    ``doing``: what the message says could not be done (``cannot read feed …``).

    Raises:
        FileNotFoundError: the file is gone (callers decide what that means).
        StorageError: a link, not a regular file, or any other failure.
    """
    try:
        fd = os.open(path, flags | NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if os.path.islink(path):
            raise StorageError(f"refusing {path}: it is a symbolic link (remove the link)") from exc
        raise StorageError(f"cannot {doing} feed {path}: {exc}") from exc
    try:
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError as exc:
        os.close(fd)
        raise StorageError(f"cannot {doing} feed {path}: {exc}") from exc
    if not regular:
        os.close(fd)
        raise StorageError(f"refusing {path}: it is not a regular file")
    return fd  # O_NONBLOCK does nothing to a regular file's reads and writes


class CutNotDurable(StorageError):
    """The feed WAS cut (its ``ftruncate`` succeeded), but syncing the cut
    failed: the lines cut off are gone from the feed, so a caller keeps its
    copies of them (quarantine), never removes them as if nothing happened."""


def cut(path: StrPath, offset: int, *, fsync: bool = True) -> None:
    """Cut the feed at ``path`` to ``offset`` bytes (fsynced), through a
    descriptor on the file itself (``open_feed``): never a path's ``truncate``,
    which follows a symbolic link and empties the file it points to.

    Raises:
        FileNotFoundError, StorageError: as ``open_feed``; OSError: the cut failed
            (the feed is as it was). CutNotDurable: cut, but not yet durable.
    """
    fd = open_feed(path, os.O_WRONLY, doing="cut")
    try:
        os.ftruncate(fd, offset)
        if fsync:
            try:
                os.fsync(fd)
            except OSError as exc:
                raise CutNotDurable(f"{path} was cut to {offset} bytes, not yet durable "
                                    f"(syncing the cut failed: {exc})") from exc
    finally:
        os.close(fd)


def close_quietly(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


def file_ident(st: os.stat_result) -> tuple[int, int]:
    return (st.st_dev, st.st_ino)


def write_all(fd: int, data: bytes) -> None:
    n = os.write(fd, data)
    if n == len(data):  # what a regular file does, short of a full disk or a signal
        return
    if n <= 0:
        raise OSError("short write")
    view = memoryview(data)[n:]
    while view:
        n = os.write(fd, view)
        if n <= 0:
            raise OSError("short write")
        view = view[n:]


def fsync_dir(path: StrPath) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_if_there(path: StrPath) -> None:
    """Remove ``path`` when it is there; never raises (a copy that could not be
    written, left on a full or read-only disk, is removed if it can be)."""
    try:
        os.unlink(path)
    except OSError:
        pass


def replace_whole(path: StrPath, data: bytes, *, tmp_prefix: str, failure: str) -> None:
    """Write ``data`` as the whole of ``path``: a new file beside it (named ``tmp_prefix.<pid>.<hex>``,
    the old file's mode kept, fsynced) renamed over it, never a write into a live file.

    Raises:
        StorageError: ``failure: <the OS error>``, the new file removed again.
    """
    tmp = os.path.join(os.path.dirname(path), f"{tmp_prefix}.{os.getpid()}.{os.urandom(4).hex()}")
    try:
        try:
            mode = os.stat(path).st_mode & 0o777
        except FileNotFoundError:
            mode = 0o644
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        remove_if_there(tmp)
        raise StorageError(f"{failure}: {exc}") from exc


@contextlib.contextmanager
def locked_whole_feed(baton_dir: StrPath, feed: str) -> Iterator[tuple[Path, bytes]]:
    """Feed ``feed``'s path and whole bytes, read under the ledger's write lock
    (``ledger.lock``), which is held until the block ends: a whole-feed rewrite
    (a repair's cut, line endings put back) happens inside it.

    Raises:
        StorageError: the lock could not be opened or the feed read.
    """
    from pathlib import Path  # lazy: a repair's, off the hook path

    path = Path(baton_dir) / "ledger" / f"{feed}.jsonl"
    lock_path = Path(baton_dir) / "ledger.lock"
    try:
        lock = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StorageError(f"cannot open the ledger lock {lock_path}: {exc}") from exc
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            raw = read_range(str(path), 0)
        except OSError as exc:
            raise StorageError(f"cannot read feed {path}: {exc}") from exc
        yield path, raw
    finally:
        try:
            fcntl.flock(lock, fcntl.LOCK_UN)
        finally:
            os.close(lock)
