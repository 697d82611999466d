"""The ledger: a folder of single-writer feeds and the lock that orders writes.

Every write happens inside ``Ledger.locked()``: an exclusive ``flock`` on a
separate lock file (never a POSIX record lock on a feed, which any ``close``
of any descriptor to that file would silently drop). Under the lock the ledger
catches up with every feed, repairs its own feed's torn tail, checks the
stream versions the caller expects, and appends the whole batch with one
``write()`` on a descriptor opened ``O_APPEND``.
"""

from __future__ import annotations

import fcntl
import heapq
import os
import weakref
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator, Mapping

import attrs
import orjson

from baton.errors import StorageError, StreamVersionConflict
from baton.ledger.clock import WallClock, next_hlc, rfc3339_micros, system_clock
from baton.ledger.envelope import Event, EventDraft, seal
from baton.ledger.feed import FeedHead, FeedScan, feed_name, scan_file
from baton.ledger.ids import uuid7

FSYNC_POLICIES = ("always", "never")


def merge_feeds(feeds: Iterable[Iterable[Event]]) -> Iterator[Event]:
    """The project's one stream: every feed merged by ``(hlc, writer, seq)``.

    Each feed is already in that order (one writer, rising seq and hlc), so a
    k-way merge gives the same sequence whatever order the feeds come in.
    """
    feeds = [feed for feed in feeds]
    if len(feeds) == 1:
        return iter(feeds[0])
    return heapq.merge(*feeds, key=_merge_key)


def _merge_key(event: Event) -> tuple[int, str, int]:
    return (event.hlc, event.writer, event.seq)


@attrs.define
class _FeedState:
    head: FeedHead
    ident: tuple[int, int]


class Ledger:
    """One project's ledger directory.

    An instance caches what it has read (feed heads, stream versions, the
    highest hlc), so a long-lived writer reads only new bytes on each append.
    """

    def __init__(
        self,
        baton_dir: Path,
        writer: str,
        *,
        fsync: str = "always",
        clock: WallClock = system_clock,
    ) -> None:
        if fsync not in FSYNC_POLICIES:
            raise ValueError(f"fsync must be one of {FSYNC_POLICIES}")
        self.baton_dir = Path(baton_dir)
        self.ledger_dir = self.baton_dir / "ledger"
        self.quarantine_dir = self.baton_dir / "quarantine"
        self.lock_path = self.baton_dir / "ledger.lock"
        self.writer = writer
        self.fsync = fsync
        self.clock = clock
        self._feeds: dict[str, _FeedState] = {}
        self._versions: dict[str, int] = {}
        self._max_hlc = 0
        self._poisoned: str | None = None
        self._lock_depth = 0
        self._dir_made = False
        self._feed_fd: int | None = None
        self._feed_closer: weakref.finalize | None = None
        """Our own feed, kept open between appends (reopening it slowed fsync
        by 10-20% on ext4 here); checked against the path before every write."""
        self._feed_fd_ident: tuple[int, int] | None = None

    # -- paths ---------------------------------------------------------------
    def feed_path(self, writer: str) -> Path:
        return self.ledger_dir / f"{writer}.jsonl"

    def feed_paths(self) -> list[Path]:
        return [self.ledger_dir / f"{name}.jsonl" for name in self._feed_names()]

    def _feed_names(self) -> list[str]:
        # os.scandir and plain strings: this runs on every append, and pathlib's
        # glob costs more than the write itself.
        try:
            with os.scandir(self.ledger_dir) as entries:
                return sorted(e.name[:-6] for e in entries if e.name.endswith(".jsonl") and e.is_file())
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise StorageError(f"cannot list the ledger at {self.ledger_dir}: {exc}") from exc

    # -- locking -------------------------------------------------------------
    @contextmanager
    def locked(self) -> Iterator["LedgerTransaction"]:
        """Hold the project's write lock; re-entrant within one instance."""
        if self._poisoned:
            raise StorageError(self._poisoned)
        if self._lock_depth:
            self._lock_depth += 1
            try:
                yield LedgerTransaction(self)
            finally:
                self._lock_depth -= 1
            return
        try:
            if not self._dir_made:
                self.ledger_dir.mkdir(parents=True, exist_ok=True)
                self._dir_made = True
            try:
                fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
            except FileNotFoundError:  # the folder went away since we made it
                self.ledger_dir.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StorageError(f"cannot open the ledger lock {self.lock_path}: {exc}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._lock_depth = 1
            txn = LedgerTransaction(self)
            txn.refresh()
            yield txn
        finally:
            self._lock_depth = 0
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)

    # -- reading -------------------------------------------------------------
    def _reset_cache(self) -> None:
        self._feeds.clear()
        self._versions.clear()
        self._max_hlc = 0

    def _absorb(self, scan: FeedScan) -> None:
        for event in scan.events:
            if event.stream_version > self._versions.get(event.stream, 0):
                self._versions[event.stream] = event.stream_version
            if event.hlc > self._max_hlc:
                self._max_hlc = event.hlc

    def refresh(self) -> None:
        """Read whatever the feeds gained since this instance last looked.

        A feed that shrank, was replaced or disappeared invalidates everything
        cached, and the whole ledger is read again.
        """
        folder = str(self.ledger_dir)
        for attempt in range(2):
            names = self._feed_names()
            stale = not self._feeds.keys() <= set(names)
            for name in names if not stale else ():
                path = f"{folder}/{name}.jsonl"
                try:
                    st = os.stat(path)
                except FileNotFoundError:
                    if name in self._feeds:
                        stale = True
                        break
                    continue
                except OSError as exc:
                    raise StorageError(f"cannot read feed {path}: {exc}") from exc
                ident = (st.st_dev, st.st_ino)
                known = self._feeds.get(name)
                if known is not None and (known.ident != ident or st.st_size < known.head.offset):
                    stale = True
                    break
                head = known.head if known else FeedHead()
                if known is not None and st.st_size == head.offset:
                    continue
                try:
                    scan = scan_file(Path(path), head)
                except OSError as exc:
                    raise StorageError(f"cannot read feed {path}: {exc}") from exc
                self._absorb(scan)
                self._feeds[name] = _FeedState(scan.head, ident)
                if name == self.writer and scan.torn is not None and self._lock_depth:
                    self._quarantine_tail(Path(path), scan)
                    self._feeds[name] = _FeedState(scan.head, ident)
            if not stale:
                return
            self._reset_cache()
        raise StorageError("the ledger keeps changing under the lock; another tool is rewriting feeds")

    def stream_version(self, stream: str) -> int:
        return self._versions.get(stream, 0)

    def stream_versions(self) -> dict[str, int]:
        return dict(self._versions)

    def heads(self) -> dict[str, FeedHead]:
        return {name: state.head for name, state in self._feeds.items()}

    def read_feed(self, writer: str, start: FeedHead = FeedHead()) -> FeedScan:
        path = self.feed_path(writer)
        try:
            return scan_file(path, start)
        except FileNotFoundError:
            return FeedScan(feed=writer, events=[], ends=[], head=start)
        except OSError as exc:
            raise StorageError(f"cannot read feed {path}: {exc}") from exc

    def read_all(self) -> list[Event]:
        """Every sound event of every feed, in project order (torn tails ignored)."""
        scans = [self.read_feed(feed_name(p)) for p in self.feed_paths()]
        return list(merge_feeds(s.events for s in scans))

    # -- repairing -----------------------------------------------------------
    def _quarantine_tail(self, path: Path, scan: FeedScan) -> None:
        torn = scan.torn
        assert torn is not None
        try:
            with open(path, "rb") as fh:
                fh.seek(torn.offset)
                tail = fh.read()
            self.quarantine_dir.mkdir(parents=True, exist_ok=True)
            target = self.quarantine_dir / f"{self.writer}.{torn.offset}.{uuid7()}.torn"
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                _write_all(fd, tail)
                os.fsync(fd)
            finally:
                os.close(fd)
            _fsync_dir(self.quarantine_dir)
            os.truncate(path, torn.offset)
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            self._poisoned = f"could not quarantine the torn tail of {path}: {exc}"
            raise StorageError(self._poisoned) from exc

    # -- writing -------------------------------------------------------------
    def _append(
        self,
        drafts: list[EventDraft],
        expected: Mapping[str, int] | None,
        durable: bool,
    ) -> list[Event]:
        for stream, version in (expected or {}).items():
            actual = self._versions.get(stream, 0)
            if actual != version:
                raise StreamVersionConflict(stream, version, actual)
        if not drafts:
            return []
        path = f"{self.ledger_dir}/{self.writer}.jsonl"
        state = self._feeds.get(self.writer)
        head = state.head if state else FeedHead()
        known = self._versions
        versions: dict[str, int] = {}  # this batch's streams only: copying every stream's version costs O(streams)
        sealed: list[Event] = []
        max_hlc = self._max_hlc
        for draft in drafts:
            now = self.clock()
            hlc = next_hlc(now, max_hlc)
            version = versions.get(draft.stream, known.get(draft.stream, 0)) + 1
            event = seal(
                draft, event_id=uuid7(now), writer=self.writer, seq=head.seq + 1 + len(sealed),
                at=rfc3339_micros(now), hlc=hlc, stream_version=version,
                prev=sealed[-1].hash if sealed else head.hash,
            )
            versions[draft.stream] = version
            max_hlc = hlc
            sealed.append(event)
        fd = self._own_feed(path)
        # One write() for the whole batch, as DESIGN.md says. A kill can still
        # cut a write at a page boundary: the cut line is then a torn tail.
        batch = b"".join([orjson.dumps(event.to_dict(), option=orjson.OPT_SORT_KEYS) + b"\n" for event in sealed])
        offset = head.offset + len(batch)
        written = sealed
        try:
            created = state is None
            _write_all(fd, batch)
            if durable or self.fsync == "always":
                os.fsync(fd)
                if created:
                    _fsync_dir(self.ledger_dir)
            ident = self._feed_fd_ident
        except OSError as exc:
            # After a failed write or fsync the page cache may hold bytes the
            # disk does not: nothing this process believes can be trusted.
            self._poisoned = f"writing to {path} failed: {exc}; the ledger must be reopened"
            self._close_own_feed()
            raise StorageError(self._poisoned) from exc
        last = written[-1]
        self._feeds[self.writer] = _FeedState(FeedHead(offset, last.seq, last.hash, last.hlc), ident)
        known.update(versions)
        self._max_hlc = max_hlc
        return written

    def _own_feed(self, path: str) -> int:
        """A descriptor (``O_APPEND``) on the file at ``path`` *now*: the cached
        one only while the path still names the same file (not deleted, not
        replaced by a rewrite), so an append can never land in an orphan."""
        if self._feed_fd is not None:
            try:
                current = _ident(os.stat(path))
            except OSError:
                current = None
            if current == self._feed_fd_ident:
                return self._feed_fd
            self._close_own_feed()
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StorageError(f"cannot open feed {path}: {exc}") from exc
        self._feed_fd = fd
        self._feed_closer = weakref.finalize(self, _close_quietly, fd)
        try:
            self._feed_fd_ident = _ident(os.fstat(fd))
        except OSError as exc:
            self._close_own_feed()
            raise StorageError(f"cannot open feed {path}: {exc}") from exc
        return fd

    def _close_own_feed(self) -> None:
        if self._feed_closer is not None:
            self._feed_closer()
        self._feed_fd = self._feed_closer = self._feed_fd_ident = None

    def close(self) -> None:
        """Release the open feed (also done when the instance is collected)."""
        self._close_own_feed()


class LedgerTransaction:
    """What a caller may do while holding the lock."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def refresh(self) -> None:
        self.ledger.refresh()

    def stream_version(self, stream: str) -> int:
        return self.ledger.stream_version(stream)

    def append(
        self,
        drafts: Iterable[EventDraft],
        *,
        expected: Mapping[str, int] | None = None,
        durable: bool = False,
    ) -> list[Event]:
        """Append ``drafts`` in order after checking every expected version.

        ``expected`` maps a stream to the version the caller read (0: the
        stream must not exist yet). ``durable`` forces an fsync whatever the
        configured policy.

        Raises:
            StreamVersionConflict: a stream is not at the expected version.
            StorageError: the write or fsync failed.
        """
        if not self.ledger._lock_depth:
            raise RuntimeError("append called outside `with ledger.locked()`: the lock is what orders writes")
        return self.ledger._append(list(drafts), expected, durable)


def _close_quietly(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


def _ident(st: os.stat_result) -> tuple[int, int]:
    return (st.st_dev, st.st_ino)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:
            raise OSError("short write")
        view = view[n:]


def _fsync_dir(path: Path) -> None:
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
