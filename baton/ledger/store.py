"""The ledger: a folder of single-writer feeds and the lock that orders writes.

Every write happens inside ``Ledger.locked()``: an exclusive ``flock`` on a
separate lock file (never a POSIX record lock on a feed, which any ``close``
of any descriptor to that file would silently drop). Under the lock the ledger
catches up with every feed, repairs its own feed's torn tail, checks the
stream versions the caller expects, and appends the whole batch with one
``write()`` on a descriptor opened ``O_APPEND``.

Catching up costs what the feeds gained, not what they hold. An instance
remembers every feed's cursor between locks; a new one with an index to start
from (``seed_from``) takes the index's cursors, once it has checked that the
line at each still hashes as recorded, and looks stream versions up in the
index when a caller first asks for them. What it reads or appends under the
lock stays in a ``ReadLog`` until the lock is released, so the lock holder's
catch-up (``changes_since``) folds exactly those events, without reading the
bytes again.
"""

from __future__ import annotations

import _thread  # threading's C module: its reentrant lock, without ``threading`` on the hook path
import fcntl
import os
import time
import weakref
from contextlib import contextmanager
from functools import partial

import baton.ledger.files as files
from baton.errors import LedgerBusy, LedgerCorrupt, StorageError, StreamVersionConflict, WriteFailed
from baton.ledger.changes import ChangeStream, ReadLog, Served, cursor_after, read_changes
from baton.ledger.clock import WallClock, next_hlc, rfc3339_micros, system_clock
from baton.ledger.envelope import Event, EventDraft, check_draft, seal_batch, seal_checked
from baton.ledger.feed import (
    FeedHead,
    FeedScan,
    collector_paused,
    holds_event_id,
    line_ending_at,
    line_hashes_to,
    merge_feeds,
    scan_bytes,
    scan_chunks,
)
from baton.ledger.ids import uuid7
from baton.ledger.integrity import REPAIRED_TYPE, heads_draft, heads_due
from baton.ledger.listing import FolderKey, FolderListing
from baton.ledger.protocol import Changes, Cursor, FeedInfo, FeedRewritten, IndexSeed
from baton.ledger.versions import StreamVersions

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a hook never needs it)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Iterable, Iterator, Mapping

    from _typeshed import StrPath

    from baton.ledger.tail import TailWant


def _path(text: str) -> Path:
    """``text`` as a ``pathlib.Path``, for a caller off the hook path (``Ledger.feed_paths``...)."""
    from pathlib import Path  # lazy: the hook path holds strings

    return Path(text)

FSYNC_POLICIES = ("always", "never")

__all__ = ["FSYNC_POLICIES", "Ledger", "LedgerTransaction", "merge_feeds"]

_forks = 0
"""How many times this process is a forked child: a lock file descriptor
opened under another count was opened by an ancestor (what ``os.getpid()``
told, without a system call on every lock)."""


def _count_fork() -> None:
    global _forks
    _forks += 1


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_count_fork)


class Ledger:
    """One project's ledger directory (a ``LedgerProtocol``).

    An instance caches what it has read (feed cursors, stream versions, the
    highest hlc), so a long-lived writer reads only new bytes on each lock.
    """

    def __init__(
        self,
        baton_dir: StrPath,
        writer: str,
        *,
        fsync: str = "always",
        clock: WallClock = system_clock,
    ) -> None:
        if fsync not in FSYNC_POLICIES:
            raise ValueError(f"fsync must be one of {FSYNC_POLICIES}")
        self._baton = os.fspath(baton_dir)  # strings (``os.path``): the hook path holds no ``pathlib``
        self._folder = os.path.join(self._baton, "ledger")  # the paths every lock stats
        self._lock_file = os.path.join(self._baton, "ledger.lock")
        self._own_path = f"{self._folder}/{writer}.jsonl"
        self.writer = writer
        self.fsync = fsync
        self.clock = clock
        self._cursors: dict[str, Cursor] = {}
        self._versions = StreamVersions()
        self._max_hlc = 0
        self._source: IndexSeed | None = None
        self._read_log = ReadLog()
        self._held: set[tuple[str, int, int, str | None, int]] = set()
        """Cursors already checked against their feed during this lock hold
        (``_held_key``: where they point, which is all the check looks at)."""
        self._poisoned: str | None = None
        self._thread_lock = _thread.RLock()
        self._lock_depth = 0
        self._dir_made = False
        self._feed_fd: int | None = None
        self._feed_closer: weakref.finalize[..., Any] | None = None
        """Our own feed, kept open between appends (reopening it slowed fsync
        by 10-20% on ext4 here); checked against the path before every write."""
        self._feed_fd_ident: tuple[int, int] | None = None
        self._lock_fd: int | None = None
        self._lock_forks: int | None = None
        """``_forks`` when the lock file was opened (another: a forked child's copy)."""
        self._lock_ident: tuple[int, int] | None = None
        self._lock_closer: weakref.finalize[..., Any] | None = None
        self._held_fd = -1
        """The lock file's descriptor locked by the hold in progress."""
        self._own_mapped: tuple[FolderKey | None, tuple[int, int] | None] | None = None
        """``(folder key, identity)``: a ``stat`` under that settled listing found
        our feed's path naming the file of that identity (see ``_read_new``)."""
        self._own_seen: tuple[int, int] | None = None
        """Our feed's identity as this lock hold's catch-up found it at its
        path (None outside a hold, or after ``_forget``): the same ``stat``
        then also tells ``_own_feed`` that the path still names the kept file."""
        self._listing = FolderListing(self._folder)
        self._listing.set_own(writer)

    # -- paths ---------------------------------------------------------------
    @property
    def baton_dir(self) -> Path:
        return _path(self._baton)

    @property
    def ledger_dir(self) -> Path:
        return _path(self._folder)

    @property
    def quarantine_dir(self) -> Path:
        return _path(os.path.join(self._baton, "quarantine"))

    @property
    def lock_path(self) -> Path:
        return _path(self._lock_file)

    def feed_path(self, writer: str) -> Path:
        return _path(self._path(writer))

    def feed_paths(self) -> list[Path]:
        return [_path(self._path(name)) for name in self.feed_names()]

    def feed_names(self) -> list[str]:
        """The feeds in the ledger folder now, sorted (listed again only when
        an entry of the folder may have changed: ``listing.FolderListing``)."""
        return list(self._listing.names()[0])

    def feed_stats(self) -> tuple[tuple[str, int, int, int], ...]:
        """Each feed's ``(name, inode, size, mtime)``, from one directory
        listing and a ``stat`` per feed: what tells a long-lived reader,
        without the lock and without reading a byte, that no feed was appended
        to, replaced, cut, edited in place or added since it last looked.

        Raises:
            StorageError: the ledger folder cannot be listed.
        """
        out = []
        for name in self._listing.names()[0]:
            try:
                st = os.stat(self._path(name))
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise StorageError(f"cannot read feed {self._path(name)}: {exc}") from exc
            self._listing.saw(st)
            out.append((name, st.st_ino, st.st_size, st.st_mtime_ns))
        return tuple(out)

    def _path(self, feed: str) -> str:
        return f"{self._folder}/{feed}.jsonl"

    # -- locking -------------------------------------------------------------
    def locked(self, *, wait: float | None = None) -> "_Hold":
        """Hold the project's write lock; re-entrant within one thread.

        Threads of one process sharing an instance (a long-lived server)
        take turns: what the instance knows is rebuilt under the lock.
        ``wait``: give up after that many seconds (None: wait as long as it
        takes).

        Raises:
            LedgerBusy: the lock stayed held by another process (or thread) for ``wait`` seconds.
        """
        return _Hold(self, wait)

    def exclusive(self, *, wait: float | None = None) -> "_Exclusive":
        """The ledger lock and nothing else: no feed is read (``locked()``
        first reads what every feed gained — for an instance the index has
        not seeded, all of it: ~2 s at 100,000 events). For a step that must
        not run beside a writer and reads no event: ``baton gc``. Not
        reentrant with ``locked()``.

        Raises:
            LedgerBusy: as ``locked()``.
        """
        return _Exclusive(self, wait)

    def _enter_lock(self, wait: float | None, *, read: bool = True) -> None:
        if wait is not None and wait >= _thread.TIMEOUT_MAX:
            wait = None  # longer than a thread lock may be given (centuries): as long as it takes
        if wait is None:
            deadline = None
            self._thread_lock.acquire()
        else:
            deadline = time.monotonic() + max(0.0, wait)
            if not self._thread_lock.acquire(timeout=max(0.0, wait)):
                raise _busy(wait)
        try:
            if self._poisoned:
                raise StorageError(self._poisoned)
            if self._lock_depth:
                self._lock_depth += 1
                return
            fd = self._held_fd = self._take_lock_file(deadline, wait)
            self._lock_depth = 1
            try:
                if read:
                    self.refresh()
            except BaseException:
                self._release_lock_file(fd)
                raise
        except BaseException:
            self._thread_lock.release()
            raise

    def _exit_lock(self) -> None:
        try:
            if self._lock_depth > 1:
                self._lock_depth -= 1
            else:
                self._release_lock_file(self._held_fd)
        finally:
            self._thread_lock.release()

    def held_elsewhere(self) -> bool:
        """Whether another process holds the ledger lock right now (a probe:
        taken and let go at once, never waited on; False when this instance
        holds it, or when the lock file cannot be opened)."""
        if self._lock_depth:
            return False
        try:
            fd = os.open(self._lock_file, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return False
        finally:
            os.close(fd)  # lets go of the probe's lock with the descriptor
        return False

    def _release_lock_file(self, fd: int) -> None:
        self._lock_depth = 0
        self._own_seen = None
        self._held.clear()
        self._read_log.clear()
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        except OSError:
            self._drop_lock_file()
            raise

    def _take_lock_file(self, deadline: float | None, wait: float | None) -> int:
        """``flock`` the lock file through a descriptor kept open between
        locks (opening and closing it cost more than a ``stat``). A kept one
        is used only by the process that opened it (a forked child shares
        the open file, so its ``flock`` would not exclude the parent), and
        once locked only while the lock file's path still names its file: a
        lock file deleted, replaced or left behind by a moved project is
        opened again, so every writer locks the file the path names, as
        when each lock opened it.

        Raises:
            LedgerBusy: still held by another process at ``deadline``.
            StorageError: the lock file cannot be opened or keeps being replaced.
        """
        fd = self._lock_fd
        if fd is not None and deadline is None and self._lock_forks == _forks:
            # The kept descriptor, waiting as long as it takes (the loop below, spelled out for it).
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except BaseException:
                self._drop_lock_file()
                raise
            try:
                st = os.stat(self._lock_file)
                if (st.st_dev, st.st_ino) == self._lock_ident:
                    return fd
            except OSError:
                pass
            try:  # not the file the path names now: open that one (below)
                fcntl.flock(fd, fcntl.LOCK_UN)
            except OSError:
                pass
            self._drop_lock_file()
        for _ in range(3):
            if self._lock_fd is not None and self._lock_forks != _forks:
                self._drop_lock_file()  # the child's copy: closing it leaves the parent's lock alone
            fresh = self._lock_fd is None
            if self._lock_fd is None:
                opened = self._open_lock_file()
                try:
                    ident = files.file_ident(os.fstat(opened))
                except OSError as exc:
                    os.close(opened)
                    raise StorageError(f"cannot open the ledger lock {self._lock_file}: {exc}") from exc
                self._lock_fd, self._lock_forks, self._lock_ident = opened, _forks, ident
                self._lock_closer = weakref.finalize(self, files.close_quietly, opened)
                fd = opened
            else:
                fd = self._lock_fd
            try:
                if deadline is None:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                else:
                    _take_lock(fd, deadline, wait)
            except BaseException:
                self._drop_lock_file()
                raise
            if fresh:
                return fd
            try:
                same = files.file_ident(os.stat(self._lock_file)) == self._lock_ident
            except OSError:
                same = False
            if same:
                return fd
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            except OSError:
                pass
            self._drop_lock_file()
        raise StorageError(f"the ledger lock {self._lock_file} keeps being replaced; another tool is rewriting it")

    def _drop_lock_file(self) -> None:
        if self._lock_closer is not None:
            self._lock_closer()
        self._lock_fd = self._lock_forks = self._lock_ident = self._lock_closer = None

    def _open_lock_file(self) -> int:
        try:
            if not self._dir_made:
                os.makedirs(self._folder, exist_ok=True)
                self._dir_made = True
            try:
                return os.open(self._lock_file, os.O_RDWR | os.O_CREAT, 0o644)
            except FileNotFoundError:  # the folder went away since we made it
                os.makedirs(self._folder, exist_ok=True)
                return os.open(self._lock_file, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StorageError(f"cannot open the ledger lock {self._lock_file}: {exc}") from exc

    # -- knowing where the feeds stand ---------------------------------------
    def seed_from(self, source: IndexSeed) -> None:
        """Start from ``source``'s cursors whenever this instance knows nothing
        yet (what it already knows is kept: it is exact)."""
        self._source = source

    def _forget(self) -> None:
        self._own_seen = self._own_mapped = None
        self._cursors.clear()
        self._versions.reset()
        self._max_hlc = 0
        self._held.clear()
        self._read_log.clear()

    def _take_seed(self) -> None:
        """Adopt the index's cursors, if every one of them still holds."""
        if self._source is None:
            return
        seed = self._source.ledger_seed()
        if seed is None:
            return
        names = set(self.feed_names())
        for feed, cursor in seed.cursors.items():
            if feed not in names or not self.head_holds(feed, cursor):
                return  # the index will rebuild, reading everything: so does this instance
        self._cursors = dict(seed.cursors)
        self._versions.reset(seed)
        self._max_hlc = seed.max_hlc

    def refresh(self) -> None:
        """Read whatever the feeds gained since this instance last looked.

        A cold instance first takes its index's cursors (``seed_from``). A feed
        that shrank, was replaced or disappeared invalidates everything known,
        and the whole ledger is read again.
        """
        first = 0
        if self._cursors and self._versions.seed is None:
            # A long-lived writer's every lock: nothing to seed or re-seed (the loop's first pass).
            if self._read_new():
                return
            self._forget()
            first = 1
        for attempt in range(first, 3):
            seed = self._versions.seed
            if seed is not None and self._source is not None and self._source.seed_token() != seed.token:
                self._forget()  # the index was rebuilt since: what it told us may be gone
            if not self._cursors and attempt < 2:
                self._take_seed()
            if self._cursors:
                done = self._read_new()
            else:
                with collector_paused():  # a cold read may be the whole ledger
                    done = self._read_new()
            if done:
                return
            self._forget()
        raise StorageError("the ledger keeps changing under the lock; another tool is rewriting feeds")

    def _read_new(self) -> bool:
        """Read every feed after its cursor; False when a cursor no longer holds."""
        names, key, reused = self._listing.names()
        cursors = self._cursors
        if not cursors.keys() <= set(names):
            return False
        folder, writer, held = self._folder, self.writer, self._lock_depth
        own_fd, own_ident = self._feed_fd, self._feed_fd_ident
        # Our own feed's size from the descriptor kept on it (no stat) while
        # the path is known to name that file still: checked by a stat under
        # this same settled listing, and no entry of the folder changed since.
        by_fd = held and reused and own_fd is not None and self._own_mapped == (key, own_ident)
        for name in names:
            size: int
            if by_fd and name == writer:
                assert own_fd is not None and own_ident is not None  # by_fd says so (for type checkers)
                try:
                    size = os.lseek(own_fd, 0, os.SEEK_END)
                except OSError as exc:
                    raise StorageError(f"cannot read feed {self._path(name)}: {exc}") from exc
                ino = own_ident[1]
                self._own_seen = own_ident
                known = cursors.get(name)
            else:
                try:
                    st = os.stat(f"{folder}/{name}.jsonl")
                except FileNotFoundError:
                    st = None
                except OSError as exc:
                    raise StorageError(f"cannot read feed {self._path(name)}: {exc}") from exc
                if name == writer and held:
                    seen = self._own_seen = None if st is None else files.file_ident(st)
                    if reused and seen is not None and seen == own_ident:
                        self._own_mapped = (key, seen)
                known = cursors.get(name)
                if st is None:
                    if known is not None:
                        return False
                    continue
                self._listing.saw(st)
                size, ino = st.st_size, st.st_ino
            if known is not None:
                # Size only, as cheap as a stat: the line at the cursor is
                # checked where it was learnt from elsewhere (the index, when
                # seeding) and when a reader's cursor is checked, and every
                # line read after it must chain to its hash (``prev``), so a
                # feed replaced by another history fails that read instead.
                if size < known.head.offset:
                    return False
                if size == known.head.offset:
                    continue
            start = known or Cursor(FeedHead(), ino)
            scan = None
            try:
                for scan in self.read_feed_chunks(name, start.head, size):
                    note = self._versions.note
                    for event in scan.events:
                        note(event.stream, event.stream_version)
                    if scan.events:
                        self._max_hlc = max(self._max_hlc, scan.head.hlc)
                    end = cursor_after(scan, start, ino)
                    self._note_read(name, start, scan.events, scan.ends, end)
                    start = end
            except FileNotFoundError:
                return False
            except LedgerCorrupt:
                if known is not None and not self.head_holds(name, known):
                    return False  # rewritten in place under a cursor kept from an earlier lock: read it all again
                raise
            if name == self.writer and scan is not None and scan.torn is not None and self._lock_depth:
                # Only bytes past the last acknowledged line are a torn tail: a
                # cut inside a line the index holds is a loss, left as it is
                # for ``verify`` and ``repair`` (and refused by the next append).
                if self._lost_under(name, scan.head) is None:
                    self._quarantine_tail(self._path(name), scan)
        return True

    def _note_read(self, feed: str, start: Cursor, events: list[Event], ends: list[int], end: Cursor) -> None:
        self._cursors[feed] = end
        if self._lock_depth:
            self._held.add(_held_key(feed, end))
            self._read_log.add(feed, start, events, ends, end)

    def stream_version(self, stream: str) -> int:
        version = self._versions.get(stream)
        if version is None:  # seeded from an index that has been rebuilt since
            self._forget()
            if self._lock_depth:
                self.refresh()
            version = self._versions.get(stream)
        return version or 0

    def heads(self) -> dict[str, FeedHead]:
        return {name: cursor.head for name, cursor in self._cursors.items()}

    def cursors(self) -> dict[str, Cursor]:
        return dict(self._cursors)

    # -- reading -------------------------------------------------------------
    def feed_info(self, feed: str) -> FeedInfo | None:
        try:
            st = os.stat(self._path(feed))
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StorageError(f"cannot read feed {self._path(feed)}: {exc}") from exc
        return FeedInfo(st.st_size, st.st_ino)

    def head_holds(self, feed: str, cursor: Cursor) -> bool:
        if not cursor.head.offset:
            return True
        if self._lock_depth and _held_key(feed, cursor) in self._held:
            return True
        info = self.feed_info(feed)
        # By content, not by file identity (a copied, moved or restored project
        # has other inodes and the same feeds): the line at the head must still
        # be there and hash as recorded, and its hash chains every line before it.
        if info is None or info.size < cursor.head.offset:
            return False
        path = self._path(feed)
        try:
            line = line_ending_at(lambda at, size: self._read_range(path, at, size), cursor.head.offset, cursor.line)
        except FileNotFoundError:
            return False
        if not line_hashes_to(line, cursor.head.hash, seq=cursor.head.seq, hlc=cursor.head.hlc):
            return False
        if self._lock_depth:
            self._held.add(_held_key(feed, cursor))
        return True

    def changes_since(self, cursors: Mapping[str, Cursor]) -> Changes:
        if not self._lock_depth:
            return read_changes(self, cursors)
        try:
            return read_changes(self, cursors, self._serve)
        except FeedRewritten as exc:
            known = self._cursors.get(exc.feed)
            if known is not None and not self.head_holds(exc.feed, known):
                self._forget()  # what this instance read from the feed is as stale as the caller's
                self.refresh()
            raise

    def _serve(self, feed: str, start: Cursor) -> Served | None:
        """Under the lock this instance knows where every feed stands: what it
        read or appended since taking the lock comes from the read log, and a
        cursor at its own cursor has nothing after it."""
        known = self._cursors.get(feed)
        if known is not None and known.at(start):
            return FeedScan(feed=feed, events=[], ends=[], head=start.head), start
        return self._read_log.after(feed, start)

    def read_feed(self, writer: str, start: FeedHead = FeedHead()) -> FeedScan:
        try:
            raw = self._read_range(self._path(writer), start.offset)
        except FileNotFoundError:
            return FeedScan(feed=writer, events=[], ends=[], head=start)
        return scan_bytes(writer, raw, start)

    def read_feed_chunks(self, writer: str, start: FeedHead = FeedHead(),
                         size: int | None = None) -> Iterator[FeedScan]:
        """``read_feed``, a chunk of whole lines at a time, up to ``size`` bytes (default: its size now)."""
        path = self._path(writer)
        if size is None:
            info = self.feed_info(writer)
            if info is None:
                return iter(())
            size = info.size
        return scan_chunks(writer, lambda at, n: self._read_range(path, at, n), start, size)

    def stream_since(self, cursors: Mapping[str, Cursor]) -> ChangeStream:
        """``changes_since`` for any amount of change: events are read and
        handed out a chunk of each feed at a time (replay, a large catch-up)."""
        return ChangeStream(self, cursors, self._serve if self._lock_depth else None)

    def read_all(self) -> list[Event]:
        """Every sound event of every feed, in project order (torn tails ignored)."""
        scans = [self.read_feed(name) for name in self.feed_names()]
        return list(merge_feeds(s.events for s in scans))

    def iter_all(self) -> Iterator[Event]:
        """``read_all``, a chunk of each feed at a time (``read_feed_chunks``):
        the same events in the same order, the same errors, without holding them."""
        def events(feed: str) -> Iterator[Event]:
            for scan in self.read_feed_chunks(feed):
                yield from scan.events

        return merge_feeds(events(name) for name in self.feed_names())

    def iter_tail(self, want: "TailWant") -> Iterator[Event]:
        """``iter_all``'s events from each feed's tail on (``baton.ledger.tail``):
        with ``want.limit``, at least the last ``limit`` events of each feed
        that ``want.wanted`` accepts (all of them when it has fewer), and only
        those; with ``want.after_hlc`` alone, every event after it, in order,
        a chunk of each feed at a time. Damage before a feed's tail is not
        looked at (``verify`` finds it); in the tail, the same checks and
        errors as ``iter_all``."""
        return merge_feeds(self._feed_tail(name, want) for name in self.feed_names())

    def _feed_tail(self, feed: str, want: "TailWant") -> Iterable[Event]:
        info = self.feed_info(feed)
        if info is None:
            return ()

        def events(start: FeedHead) -> Iterator[Event]:
            for scan in self.read_feed_chunks(feed, start, info.size):
                yield from scan.events

        return want.kept(events, want.head(partial(self._read_range, self._path(feed)), info.size))

    def holds_event(self, event_id: str) -> bool:
        """Whether some feed holds an event with this id: its bytes searched a
        chunk at a time (``feed.holds_event_id``), not every event parsed."""
        for feed in self.feed_names():
            info = self.feed_info(feed)
            if info is not None and holds_event_id(partial(self._read_range, self._path(feed)), info.size, event_id):
                return True
        return False

    def _read_range(self, path: str, start: int, size: int | None = None) -> bytes:
        """Every byte this instance reads from a feed comes through here (the
        one place to count them)."""
        return files.read_range(path, start, size)

    # -- repairing -----------------------------------------------------------
    def _quarantine_tail(self, path: str, scan: FeedScan) -> None:
        torn = scan.torn
        assert torn is not None
        target: str | None = None
        quarantine = os.path.join(self._baton, "quarantine")
        try:
            tail = self._read_range(path, torn.offset)
            os.makedirs(quarantine, exist_ok=True)
            target = os.path.join(quarantine, f"{self.writer}.{torn.offset}.{uuid7()}.torn")
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                files.write_all(fd, tail)
                os.fsync(fd)
            finally:
                os.close(fd)
            files.fsync_dir(quarantine)
            files.cut(path, torn.offset)
            target = None  # the feed is cut: the copy is the only one, kept
        except files.CutNotDurable as exc:  # cut all the same: the copy is the only one, kept
            self._poisoned = (f"the torn tail of {path} was set aside in {target} and the feed cut, "
                              f"not yet durable: {exc}")
            raise StorageError(self._poisoned) from exc
        except (OSError, StorageError) as exc:
            if target is not None:  # the feed still holds the tail: no copy (empty, or cut short on a full disk) kept
                files.remove_if_there(target)
            self._poisoned = f"could not quarantine the torn tail of {path}: {exc}"
            if files.out_of_space(exc):
                self._poisoned = (f"the disk is full: could not set aside the torn tail of {path} ({exc}); "
                                  f"{files.DISK_FULL_ADVICE}")
            raise StorageError(self._poisoned) from exc

    # -- acknowledged heads ---------------------------------------------------
    def _sealed_heads(self) -> Mapping[str, tuple[int, str | None, int]]:
        if self._source is None:
            return {}
        source = getattr(self._source, "sealed_heads", None)
        return source() if source is not None else {}

    def _lost_under(self, feed: str, have: FeedHead, sealed: tuple[int, str | None, int] | None = None,
                    ) -> tuple[str, str] | None:
        """``(kind, message)`` when ``feed``, read up to ``have``, no longer
        holds the last line the index acknowledged of it; None when it does
        (or the index acknowledged nothing, or is behind what was read)."""
        if sealed is None:
            sealed = self._sealed_heads().get(feed)
        if sealed is None:
            return None
        seq, hash_, offset = sealed
        if have.seq < seq:
            if have.seq == 0 and self.feed_info(feed) is None:
                return "missing_feed", f"feed {feed!r} does not exist, but the index recorded it at seq {seq}"
            return "truncated", f"feed {feed!r} ends at seq {have.seq}, but the index recorded seq {seq}"
        if hash_ is None:
            return None
        if have.seq == seq:
            same = have.hash == hash_
        else:  # the index is behind what was read: the line it recorded must still be there
            same = self._holds_line(feed, seq, hash_, offset)
        return None if same else ("rewritten", f"feed {feed!r} holds another event at seq {seq} than the index "
                                               "recorded")

    def _holds_line(self, feed: str, seq: int, hash_: str, offset: int) -> bool:
        path = self._path(feed)
        try:
            line = line_ending_at(lambda at, size: self._read_range(path, at, size), offset)
        except (FileNotFoundError, StorageError):
            line = None
        if line_hashes_to(line, hash_):
            return True
        # A recorded forget rewrites a feed shorter (the offset moved): find the seq.
        for scan in self.read_feed_chunks(feed):
            for event in scan.events:
                if event.seq == seq:
                    return event.hash == hash_
        return False

    def _refuse_lost_heads(self, drafts: list[EventDraft]) -> None:
        """A writer never builds on a ledger that lost acknowledged bytes: every
        feed must still hold the last line the index acknowledged of it. A
        feed cut shorter (its last lines deleted, or a line the index holds
        cut in the middle) or rewritten under that line stops the append, so
        no seq is reused and nothing lost is quarantined as a torn tail.
        The one append allowed past a lost head is the ``ledger.repaired``
        event that records the loss of that feed (``baton repair``).

        Raises:
            LedgerCorrupt (exit 3): names the feed, the seqs and ``baton repair``.
        """
        heads = self._sealed_heads()
        if not heads:
            return
        recording = {d.data.get("feed") for d in drafts if d.type == REPAIRED_TYPE and isinstance(d.data, dict)}
        for feed, sealed in sorted(heads.items()):
            if feed in recording:
                continue
            cursor = self._cursors.get(feed)
            lost = self._lost_under(feed, cursor.head if cursor else FeedHead(), sealed)
            if lost is None:
                continue
            kind, message = lost
            raise LedgerCorrupt(
                f"{message}: events this project acknowledged are gone, so nothing was written (a write would "
                "build on the damaged feed). `baton verify` shows the damage; restore the feed from a copy, or "
                "a confirmed `baton repair` records the loss and lets writes go on (docs/ledger.md)",
                details={"feed": feed, "kind": kind, "recorded_seq": sealed[0],
                         "feed_seq": cursor.head.seq if cursor else 0, "repair": "baton repair"})

    def lost_acknowledged(self) -> str | None:
        """Why a write would stop (``_refuse_lost_heads``: the first feed that lost
        a line the index acknowledged), or None: for a
        reading command, which still answers from what the feeds hold, to say
        what it found. Call under the lock, after a catch-up."""
        for feed, sealed in sorted(self._sealed_heads().items()):
            cursor = self._cursors.get(feed)
            lost = self._lost_under(feed, cursor.head if cursor else FeedHead(), sealed)
            if lost is not None:
                return lost[1]
        return None

    # -- writing -------------------------------------------------------------
    def _append(
        self,
        drafts: list[EventDraft],
        expected: Mapping[str, int] | None,
        durable: bool,
    ) -> list[Event]:
        if expected:
            for stream, version in expected.items():
                actual = self.stream_version(stream)
                if actual != version:
                    raise StreamVersionConflict(stream, version, actual)
        if not drafts:
            return []
        if self._source is not None:
            self._refuse_lost_heads(drafts)
        asked = len(drafts)
        path = self._own_path
        writer = self.writer
        start = self._cursors.get(writer)
        head = start.head if start is not None else FeedHead()
        seq = head.seq
        if heads_due(seq, asked):
            vouch = heads_draft(writer, {
                feed: (c.head.seq, c.head.hash, c.head.offset) for feed, c in self._cursors.items()
            })
            if vouch is not None:
                drafts = [vouch, *drafts]  # first: the caller's events stay the feed's last lines
        lines: list[bytes] = []  # each event's ``encode_line``, made while sealing it
        sealed, versions = self._seal(drafts, head, lines)
        fd = self._feed_fd
        seen = self._own_seen  # what this hold's catch-up found at the path (``_own_feed``)
        if fd is None or seen is None or seen != self._feed_fd_ident:
            fd = self._own_feed(path)
        # One write() for the whole batch, as DESIGN.md says. A kill can still
        # cut a write at a page boundary: readers then see an incomplete batch
        # (its events carry ``batch``), which is a torn tail as a whole.
        try:
            files.write_all(fd, lines[0] if len(lines) == 1 else b"".join(lines))
        except OSError as exc:
            raise self._write_failed(path, exc) from exc
        # What this instance learns from the write is noted before the fsync,
        # while the caches are still warm from sealing (the same work costs
        # two to three times as much after the fsync's sleep). Nothing reads
        # it before ``append`` returns, and a failed fsync poisons the
        # instance, so a write that never became durable is never built on.
        written = sealed  # as readers will get them back (see ``seal``)
        self._note_written(start, head, written, versions, lines)
        if durable or self.fsync == "always":
            try:
                # fsync, not fdatasync: the same cost for a write that extends
                # the file (its new size must reach the disk either way), and
                # no reliance on how a file system treats a size change.
                os.fsync(fd)
                if start is None:  # a new feed: its name in the folder must be durable too
                    files.fsync_dir(self._folder)
            except OSError as exc:
                raise self._write_failed(path, exc, synced=True) from exc
        return written[len(written) - asked:]

    def _seal(self, drafts: list[EventDraft], head: FeedHead,
              lines: list[bytes]) -> tuple[list[Event], dict[str, int]]:
        """``_append``'s drafts sealed after ``head``, each line added to ``lines``;
        the events and each stream's new version."""
        if len(drafts) != 1:
            return seal_batch(
                drafts, writer=self.writer, seq=head.seq, prev=head.hash, max_hlc=self._max_hlc, clock=self.clock,
                version_of=self.stream_version, new_id=uuid7, timestamp=rfc3339_micros, lines=lines,
            )
        # What nearly every command appends: ``seal_batch`` of one draft, spelled out.
        draft = drafts[0]
        check_draft(draft)
        now = self.clock()
        hlc = next_hlc(now, self._max_hlc)
        stream = draft.stream
        known = self._versions
        # ``stream_version``: without a seed, what this instance read or appended is every version
        version = (known.seen.get(stream, 0) if known.seed is None else self.stream_version(stream)) + 1
        event = seal_checked(draft, uuid7(now), self.writer, head.seq + 1, rfc3339_micros(now), hlc, version,
                             head.hash, None, lines)
        return [event], {stream: version}

    def _note_written(self, start: Cursor | None, head: FeedHead, written: list[Event], versions: dict[str, int],
                      lines: list[bytes]) -> None:
        """What this instance learns from its own write (``_note_read``, spelled
        out: always under the lock here); the read log keeps ``written`` itself."""
        writer, last = self.writer, written[-1]
        offset = head.offset
        if len(lines) == 1:
            offset += len(lines[0])
            ends = [offset]
        else:
            ends = []
            for line in lines:
                offset += len(line)
                ends.append(offset)
        ident = self._feed_fd_ident
        inode = ident[1] if ident else None
        cursor = Cursor(FeedHead(offset, last.seq, last.hash, last.hlc), inode, len(lines[-1]))
        self._cursors[writer] = cursor
        self._held.add((writer, offset, last.seq, last.hash, last.hlc))  # _held_key(writer, cursor)
        self._read_log.add(writer, start or Cursor(FeedHead(), inode), written, ends, cursor, owned=True)
        highest = self._versions.seen  # ``StreamVersions.note`` of each
        for stream, version in versions.items():
            if version > highest.get(stream, 0):
                highest[stream] = version
        self._max_hlc = last.hlc

    def _write_failed(self, path: str, exc: OSError, *, synced: bool = False) -> WriteFailed:
        """After a failed write or fsync the page cache may hold bytes the
        disk does not: nothing this process believes can be trusted, so the
        instance refuses every later lock (a process that keeps the project
        open reopens it). The error says what became of the command's events
        and what to do: a failed write recorded nothing (run the command
        again: the next write sets aside a line it cut short); a failed sync
        (``synced``) wrote them, unconfirmed."""
        why, name = files.write_error(exc)
        if synced:
            message = (f"the events were written to {path} but the disk did not confirm them: {why} ({name}). "
                       f"They may not survive a crash: `baton log` shows whether they are there; run the command "
                       f"again only if they are not")
        elif files.out_of_space(exc):
            message = (f"the disk is full: writing to {path} failed ({why}, {name}), so nothing was recorded; "
                       f"a line cut short there is read around and set aside by the next write once there is room, "
                       f"and `baton verify` shows what the feed holds; {files.DISK_FULL_ADVICE}")
        else:
            message = (f"nothing was recorded: writing to {path} failed because {why} ({name}). Run the command "
                       f"again once that is fixed: the next write sets aside any line this one cut short")
        self._poisoned = f"{message} (this process's ledger must be reopened after a failed write)"
        self._close_own_feed()
        return WriteFailed(message, details={"path": path, "errno": name, "recorded": None if synced else False})

    def _own_feed(self, path: str) -> int:
        """A descriptor (``O_APPEND``) on the file at ``path`` *now*: the cached
        one only while the path still names the same file (not deleted, not
        replaced by a rewrite), so an append can never land in an orphan. The
        catch-up of this lock hold took a ``stat`` of the path already; a rewrite
        under the lock (``baton forget``) is followed by ``_forget`` and a
        catch-up, which takes another."""
        if self._feed_fd is not None:
            current = self._own_seen  # what this hold's catch-up found at the path: no second stat
            if current is None:
                try:
                    current = files.file_ident(os.stat(path))
                except OSError:
                    current = None
            if current == self._feed_fd_ident:
                return self._feed_fd
            self._close_own_feed()
        try:
            fd = files.open_feed(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, doing="open")
        except OSError as exc:
            raise StorageError(f"cannot open feed {path}: {exc}") from exc
        self._feed_fd = fd
        self._feed_closer = weakref.finalize(self, files.close_quietly, fd)
        try:
            self._feed_fd_ident = files.file_ident(os.fstat(fd))
        except OSError as exc:
            self._close_own_feed()
            raise StorageError(f"cannot open feed {path}: {exc}") from exc
        return fd

    def _close_own_feed(self) -> None:
        if self._feed_closer is not None:
            self._feed_closer()
        self._feed_fd = self._feed_closer = self._feed_fd_ident = None

    @property
    def held_here(self) -> bool:
        """Whether this instance holds the lock now."""
        return self._lock_depth > 0

    def become(self, writer: str) -> None:
        """Append from now on as ``writer``: the feed of the id this instance had
        is read from then on like any other writer's (a copied clone that took a
        new id, ``baton.domain.writer_place``). Only outside a lock hold, since a
        hold has looked at its own feed by name.

        Raises:
            RuntimeError: called while this instance holds the lock.
        """
        if self.held_here:
            raise RuntimeError("a ledger changes its writer only outside a lock hold")
        self._close_own_feed()
        self.writer = writer
        self._own_path = f"{self._folder}/{writer}.jsonl"
        self._own_seen = self._own_mapped = None
        self._listing.set_own(writer)

    @property
    def poisoned(self) -> str | None:
        """Why this instance refuses every later lock (a write, fsync or
        quarantine of it failed: ``_write_failed``), or None. A process that
        lives on (a server) opens a new instance to go on."""
        return self._poisoned

    def close(self) -> None:
        """Release the open feed and lock file (also done when the instance is collected)."""
        self._close_own_feed()
        if not self._lock_depth:
            self._drop_lock_file()


def _held_key(feed: str, cursor: Cursor) -> tuple[str, int, int, str | None, int]:
    """What a held cursor is remembered by: its feed and head (a tuple of
    plain values hashes in a fraction of the time the model classes take)."""
    head = cursor.head
    return (feed, head.offset, head.seq, head.hash, head.hlc)


def _busy(wait: float | None) -> LedgerBusy:
    return LedgerBusy(f"the ledger stayed locked by another process for {wait or 0:g} s", advice=LedgerBusy.TRY_AGAIN)


def _take_lock(fd: int, deadline: float | None, wait: float | None) -> None:
    """``flock`` ``fd`` exclusively: blocking, or polling until ``deadline``.

    Raises:
        LedgerBusy: still held by another process at ``deadline``.
    """
    if deadline is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _busy(wait) from None
            time.sleep(min(0.02, left))


@contextmanager
def lock_held(baton_dir: StrPath, wait: float | None = None) -> Iterator[None]:
    """The ledger's lock file held through a descriptor of its own, for a step
    that must exclude every writer but settles what a ``Ledger`` is built with
    (taking a new writer id: ``baton.commands.writer_claim``). Never taken
    while this process holds the lock through a ``Ledger``: ``flock`` on a
    second descriptor would wait for it.

    Raises:
        LedgerBusy: still held by another process after ``wait`` seconds.
        StorageError: the lock file cannot be opened.
    """
    path = os.path.join(baton_dir, "ledger.lock")
    try:
        os.makedirs(os.path.join(baton_dir, "ledger"), exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise StorageError(f"cannot open the ledger lock {path}: {exc}") from exc
    try:
        _take_lock(fd, None if wait is None else time.monotonic() + max(0.0, wait), wait)
        yield
    finally:
        os.close(fd)  # lets go of the lock with the descriptor


class LedgerTransaction:
    """What a caller may do while holding the lock."""

    __slots__ = ("ledger",)

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
        configured policy. Returns the events exactly as readers will read
        them back.

        Raises:
            StreamVersionConflict: a stream is not at the expected version.
            StorageError: the write or fsync failed.
        """
        if not self.ledger._lock_depth:
            raise RuntimeError("append called outside `with ledger.locked()`: the lock is what orders writes")
        return self.ledger._append(list(drafts), expected, durable)


class _Exclusive:
    """What ``Ledger.exclusive()`` returns: the lock held, no transaction."""

    __slots__ = ("ledger", "_wait")

    def __init__(self, ledger: Ledger, wait: float | None) -> None:
        self.ledger, self._wait = ledger, wait

    def __enter__(self) -> None:
        self.ledger._enter_lock(self._wait, read=False)

    def __exit__(self, *exc: object) -> None:
        self.ledger._exit_lock()


class _Hold(LedgerTransaction):
    """What ``Ledger.locked()`` returns: a plain context manager (a
    generator-based one cost a few microseconds per lock) that is itself the
    transaction it enters (one object per lock, not two)."""

    __slots__ = ("_wait",)

    def __init__(self, ledger: Ledger, wait: float | None) -> None:
        self.ledger, self._wait = ledger, wait

    def __enter__(self) -> LedgerTransaction:
        self.ledger._enter_lock(self._wait)
        return self

    def __exit__(self, *exc: object) -> None:
        self.ledger._exit_lock()
