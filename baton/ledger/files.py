"""The few system calls the JSONL ledger makes on feed files, in one place."""

from __future__ import annotations

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


def remove_if_there(path: Path) -> None:
    """Remove ``path`` when it is there; never raises (a copy that could not be
    written, left on a full or read-only disk, is removed if it can be)."""
    try:
        os.unlink(path)
    except OSError:
        pass
