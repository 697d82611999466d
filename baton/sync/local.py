"""The local side of a sync: the ledger's feed files as it reads them, the ledger lock, staging files.

Every read of a feed file is counted (``ReadCount``, reported by ``baton
sync --json``): a sync with nothing new opens no feed.
"""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import attrs

from baton.errors import StorageError
from baton.ledger import files
from baton.ledger.feed import (
    FIRST_LINE_LIMIT,
    FeedHead,
    FeedScan,
    first_line_writer,
    is_feed_file_name,
    line_ending_at,
    line_hashes_to,
    scan_chunks,
)
from baton.model import mutable

if TYPE_CHECKING:
    from baton.commands.context import Project

TAIL = 64
"""The bytes a staged import's or a cached feed's last line ends with, kept to recognise it."""
INCOMING_DIR = "sync-incoming"
"""Remote feed bytes staged while a sync verifies them (``.baton/sync-incoming/``)."""
ERASURE_PENDING = "sync-erasure.pending"
"""Written before a sync erases payloads in a local feed, removed once the
index, files and quarantine are scrubbed: a crash in between is finished by
the next sync."""


@mutable
class ReadCount:
    """What a sync read: local feed files opened and bytes read from them,
    segment blobs read from the object store."""

    feeds: set[str] = attrs.field(factory=set)
    feed_bytes: int = 0
    segments: int = 0
    publishing: Any = attrs.field(default=None, eq=False, repr=False)
    """Told ``(events packed, about how many)`` while this clone's feeds are
    packed onto the ref (a first sync of a large ledger); not part of ``to_json``."""
    erasing: Any = attrs.field(default=None, eq=False, repr=False)
    """Told ``(events checked, of how many)`` while a feed whose copies differ by erased
    payloads is read whole (``baton.sync.erasures``, ``decide.file_head``); not part of ``to_json``."""

    def to_json(self) -> dict[str, Any]:
        return {"feeds": sorted(self.feeds), "feed_bytes": self.feed_bytes, "segments": self.segments}

@contextmanager
def ledger_lock(project: "Project") -> Iterator[None]:
    """The ledger's write lock (the file ``Ledger.locked`` holds), without
    catching up: a sync with nothing new reads no feed."""
    path = project.paths.baton_dir / "ledger.lock"
    try:
        project.paths.ledger_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StorageError(f"cannot open the ledger lock {path}: {exc}") from exc
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # another process holds it: a command at a terminal says so, then waits
            project.said_waiting()
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


class LocalFeeds:
    """The ledger's feed files, every read counted."""

    def __init__(self, project: "Project", count: ReadCount) -> None:
        self.dir = project.paths.ledger_dir
        self.quarantine = project.paths.quarantine_dir
        self.count = count
        self.strays: set[str] = set()
        """Feed-named files found holding another writer's events (``copy_of``): no feed, left out of ``names``."""
        self.whole: dict[str, bytes] = {}
        """Feed → the whole file, as read while its feed is decided (``decide.file_head`` given
        ``keep``): what ``read_whole`` answers again, so a feed whose copies differ by erased
        payloads is read from disk once (``baton.sync.erasures``). Dropped once the feed is decided."""

    def path(self, feed: str) -> str:
        return f"{self.dir}/{feed}.jsonl"

    def names(self) -> list[str]:
        """The feeds: files named a writer id and ``.jsonl`` (``feed.is_feed_file_name``), but the ``strays``."""
        try:
            with os.scandir(self.dir) as entries:
                return sorted(e.name[:-6] for e in entries if is_feed_file_name(e.name) and e.is_file()
                              and e.name[:-6] not in self.strays)
        except FileNotFoundError:
            return []

    def unnamed(self) -> list[str]:
        """The ``*.jsonl`` files named no writer id (a cloud drive's conflicted copy, a backup): no feed."""
        try:
            with os.scandir(self.dir) as entries:
                return sorted(e.name for e in entries if e.name.endswith(".jsonl") and not is_feed_file_name(e.name))
        except FileNotFoundError:
            return []

    def copy_of(self, feed: str) -> str | None:
        """The writer whose events the file named for ``feed`` holds when its first line names another
        (a copy saved under another writer's name, ``feed.holds_another_writer``), else None. One read."""
        try:
            head = self.read(feed, 0, 4096)
            if b"\n" not in head and len(head) == 4096:
                head += self.read(feed, 4096, FIRST_LINE_LIMIT - 4096)
        except (OSError, StorageError):  # gone, or unreadable: decided as a feed (its refusal says why)
            return None
        writer = first_line_writer(head)
        return writer if writer is not None and writer != feed else None

    def stat(self, feed: str) -> os.stat_result | None:
        try:
            return os.stat(self.path(feed))
        except FileNotFoundError:
            return None

    def read(self, feed: str, at: int, size: int) -> bytes:
        data = files.read_range(self.path(feed), at, size)
        self.count.feeds.add(feed)
        self.count.feed_bytes += len(data)
        return data

    def read_whole(self, feed: str, size: int) -> bytes:
        """The file's first ``size`` bytes (all of it): kept ones (``whole``) when they are that long,
        else read."""
        kept = self.whole.get(feed)
        if kept is not None and len(kept) == size:
            return kept
        return self.read(feed, 0, size)

    def holds(self, feed: str, head: FeedHead) -> bool:
        """The file has the line ``head`` stopped after (one line read)."""
        if not head.offset:
            return True
        line = line_ending_at(lambda at, n: self.read(feed, at, n), head.offset)
        return line_hashes_to(line, head.hash)

    def sound_lines(self, feed: str, start: FeedHead, size: int) -> Iterator[tuple[bytes, FeedScan]]:
        """The feed's sound lines after ``start``, a chunk at a time, with their scans.

        Raises:
            LedgerCorrupt: a line before the tail fails its checks.
        """
        buf = bytearray()
        base = start.offset

        def read(at: int, n: int) -> bytes:
            data = self.read(feed, at, n)
            buf.extend(data)
            return data

        for scan in scan_chunks(feed, read, start, size):
            take = scan.head.offset - base
            yield bytes(buf[:take]), scan
            del buf[:take]
            base = scan.head.offset

def last_bytes(path: Path) -> bytes | None:
    """The last few bytes of a staged import (what the feed will end with), or None."""
    try:
        with open(path, "rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, size - TAIL))
            return fh.read()
    except OSError:
        return None

def touch(path: Path) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        files.fsync_dir(path.parent)
    except OSError as exc:
        raise StorageError(f"cannot write {path}: {exc}") from exc


def unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
