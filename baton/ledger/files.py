"""The few system calls the JSONL ledger makes on feed files, in one place."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from baton.errors import StorageError


def read_range(path: str, start: int, size: int | None = None) -> bytes:
    """The bytes of ``path`` from ``start`` to its end, or ``size`` of them
    (fewer at the end).

    Raises:
        FileNotFoundError: the file is gone (callers decide what that means).
        StorageError: any other failure to read.
    """
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise StorageError(f"cannot read feed {path}: {exc}") from exc
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


_DSYNC: int = getattr(os, "RWF_DSYNC", 0) if hasattr(os, "pwritev") else 0
"""``pwritev2``'s per-write ``O_DSYNC`` flag (Linux >= 4.7), or 0 where there is none."""

_UNSUPPORTED = (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS)
"""What ``pwritev2`` answers, before writing a byte, for a flag or a call this
kernel does not have (an unknown flag, a kernel older than 4.6)."""

dsync_writes = bool(_DSYNC)
"""Whether ``write_durably`` tries the one-call write first (off in this
process after the kernel once said it has no such write)."""


def write_durably(fd: int, data: bytes, end: int) -> None:
    """Append ``data`` on ``fd`` (opened ``O_APPEND``) and return only once
    it is on disk with what reading it back needs (the file's new size): one
    ``pwritev2(fd, [data], -1, RWF_DSYNC)``, the same as ``write`` then
    ``fdatasync`` of that range in one system call (the kernel marks the write
    ``IOCB_DSYNC``, the flag a descriptor opened ``O_DSYNC`` gives every
    write), or, where there is no such call or flag, ``write_all`` then
    ``os.fsync``. ``end``: the file's size before the write (the lock holder
    knows it), checked only when the one-call write is refused, so a
    refusal that came after the bytes landed can never make them land twice.

    Raises:
        OSError: the write or its sync failed (the bytes may be in the page
            cache and not on disk: the caller must trust nothing it wrote).
    """
    global dsync_writes
    if dsync_writes:
        try:
            n = os.pwritev(fd, (data,), -1, _DSYNC)
        except OSError as exc:
            if exc.errno not in _UNSUPPORTED:
                raise
            if os.lseek(fd, 0, os.SEEK_END) != end:
                raise  # something was written: not a refusal before the write
            dsync_writes = False
        else:
            if n == len(data):
                return
            if n <= 0:
                raise OSError("short write")
            data = data[n:]  # a full disk or a signal cut it: the rest as below
    write_all(fd, data)
    os.fsync(fd)


def fsync_dir(path: Path) -> None:
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
