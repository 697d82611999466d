"""Keeping projections up to date in ``index.sqlite``.

The runner works over any ``LedgerProtocol`` (the JSONL ledger or the
in-memory one). It remembers, per feed, the cursor it has folded up to
(offset, seq, hash, hlc, inode, length of the last line). Documents and those
cursors are written in one SQLite transaction, so a crash never leaves state
and cursor apart. Catching up asks the ledger for the changes since the
cursors — only the bytes after them are read, and under the lock not even
those again: they are the ones the ledger read to catch up itself. Events
this process appends are folded as the append returns them, with the feed's
new cursor, without reading anything.

The runner is also the ledger's ``IndexSeed``: a ledger that has read nothing
yet starts from the cursors here and looks stream versions up in the
``streams`` projection, so a new process never reads what the index folded.
The runner rebuilds from scratch when:

- the index is new, or a projection's name or version changed;
- a feed changed other than by appending (replaced by another file, shorter,
  or the line at the cursor is no longer the one folded);
- new events sort before events already folded (a feed arrived late, e.g.
  through sync) AND one of them sorts before an event already folded from its
  own stream, or touches a projection that does not say how it folds late
  events (``Projection.order``).

A late event whose stream has folded nothing after it folds incrementally,
like any other: every document of a ``STREAM_ORDER`` projection folds the
events of one stream, so its fold in project order is the old document plus
this event; an ``ANY_ORDER`` projection's ``apply`` commutes. The cost of a
late event is then the cost of an event (``_late_foldable``).

Materialized files are written before the transaction commits; if the process
dies in between, the next catch-up folds the same events again and writes the
same bytes, because a file is a pure function of its document.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import itertools
import os
import sqlite3
import stat as _stat
import time
from collections.abc import Callable

import orjson

from baton.canonical import loads
from baton.config import TEMPORARY_PREFIX, write_bytes_atomic
from baton.errors import DiskFull, IndexBehind, IndexPinned, NotFound, StorageError
from baton.events.names import DECODED, load_family
from baton.gitinfo import inside, real_path
from baton.ledger.envelope import Event
from baton.ledger.feed import FeedHead, collector_paused
from baton.ledger.files import DISK_FULL_ADVICE, free_bytes, no_room
from baton.ledger.ids import uuid7
from baton.ledger.integrity import REPAIRED_TYPE
from baton.ledger.protocol import Cursor, EventStream, FeedRewritten, LedgerProtocol, Seed
from baton.ledger.upcast import UPCASTERS, UpcasterRegistry
from baton.process_end import keep_until_exit
from baton.projections.base import ANY_ORDER, STREAM_ORDER, Doc, Materializing, Projection
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Collection, Iterable, Iterator, Mapping, Sequence

    from _typeshed import StrPath

    from baton.projections.until import Until  # built by the commands that bound a replay, read here



def _path(text: str) -> Path:
    """``text`` as a ``pathlib.Path``, for a caller off the hook path (``ProjectionRunner.baton_dir``...)."""
    from pathlib import Path  # lazy: the hook path holds strings

    return Path(text)


VANISHED_RETRIES = 8
"""Attempts at an index deleted under a running command before giving up
(with ``_vanished_pause`` between them: at most about 0.8 s in all)."""
VANISHED_PAUSE = 0.01
"""Seconds before the second attempt; doubled before each next one, at most
``VANISHED_PAUSE_MAX``, and drawn at random in its upper half."""
VANISHED_PAUSE_MAX = 0.25
INDEX_SCHEMA = 5
"""3: ``feed_heads``, the highest head seen of every feed (kept across rebuilds);
4: the ``unwritten`` table (materialized files that could not be written);
5: both (the two were built apart)."""
KEPT = "kept"
BEFORE_LOSS = ".before-loss"
"""What names a handoff file a rebuild over lost events kept as it was, beside the one it rewrote
(``<name>.before-loss.json``: ``ProjectionRunner._keep_before``)."""
"""The ``materialized`` rows' projection for a file a rebuild kept although no
document shows it any more, because the ledger lost events it acknowledged: the
file may be the only whole copy of what they recorded (``kept_files``)."""
REPLAY_BATCH = 2_000
"""Events folded between writes of the changed documents during a replay."""
Progress = Callable[[int, int], None]
SQLITE_MAX_PATHNAME = 512
"""The longest file path, in bytes with its final NUL, SQLite opens on a POSIX
system (``MAX_PATHNAME`` in its ``os_unix.c``); its journal's is the index's
and ``-journal``."""


def index_path_too_long(baton_dir: StrPath, databases: tuple[str, ...] = ("index.sqlite",)) -> str | None:
    """Why SQLite cannot open the index in ``baton_dir`` when the project's
    folder is too deep for it (every open fails with "unable to open database
    file"), or None when the path fits. ``databases`` are the files in
    ``baton_dir`` SQLite must open (``init`` names every one Baton opens); each
    has a ``-journal`` beside it, the longest name SQLite opens. The caller
    adds what to do."""
    if os.name != "posix":
        return None
    name = max((f"{database}-journal" for database in databases), key=len)
    longest = len(os.fsencode(os.path.join(baton_dir, name))) + 1
    if longest <= SQLITE_MAX_PATHNAME:
        return None
    return (f"{os.path.dirname(baton_dir)} is too deep a folder for Baton's index: SQLite opens a path of at most "
            f"{SQLITE_MAX_PATHNAME - 1} bytes, and .baton/{name} would take {longest - 1}")


class CatchUp(Value):
    events: int
    rebuilt: bool
    reason: str | None = None

    def to_json(self) -> dict:
        return {"events": self.events, "rebuilt": self.rebuilt, "reason": self.reason}


_UNKNOWN = object()


class IndexDb:
    """The index's connection: the stdlib ``sqlite3`` connection (``conn``) and
    its ``execute``, all a command's hot path needs. sqlite-utils builds the
    tables (``_create``) when the index is new or its projections changed."""

    def __init__(self, conn: sqlite3.Connection, wal: str | None = None) -> None:
        self.conn = conn
        self.wal = wal
        """The WAL file beside the database (None in memory)."""

    def execute(self, sql: str, parameters: Sequence[Any] | dict = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, parameters)

    def close(self) -> None:
        """Close the connection, or, in a process that ends with ``os._exit``
        (a hook-path command), keep it open to the end: closing would
        checkpoint the WAL for nothing (``baton.process_end``). A WAL kept
        past ``WAL_KEPT_BYTES`` is checkpointed and truncated first (without
        waiting on another process: then the next one does it), so that the
        next process, which reads the whole WAL when it opens the index,
        reads little."""
        if not keep_until_exit(self.conn):
            self.conn.close()
            return
        if self.wal is not None and _size(self.wal) > WAL_KEPT_BYTES:
            try:
                self.conn.execute("PRAGMA busy_timeout=0")
                self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            except sqlite3.Error:
                pass  # busy, or a damaged index: the next process's check meets it


WAL_KEPT_BYTES = 1 << 20
"""How large a WAL a hook-path process leaves (1 MiB, about 25 hooks' writes):
the next process reads it whole when it opens the index (~0.35 ms a MiB), and
SQLite alone may leave it much larger (a rebuild's whole index)."""


def ledger_size(count: int) -> str:
    """``count`` bytes as a fold limit's message says them: megabytes to one
    decimal, and a size under a tenth of one in kB or bytes (never ``0.0 MB``,
    which reads as nothing: a ledger of 30 kB past a limit of 1 kB)."""
    if count >= 100_000:
        return f"{count / 1e6:.1f} MB"
    if count >= 1_000:
        return f"{count / 1e3:.1f} kB"
    return f"{count} bytes" if count != 1 else "1 byte"


def _size(path: StrPath) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


class _ManyLate(Exception):
    """More late events than a batch: checked in a pass of their own first."""


NEW_INDEX = "index is new or its projections changed"
"""Why a replay is needed when the index's signature is not this Baton's."""


def _told_why(display: Progress, reason: str | None) -> None:
    """A full replay's display told why first, when it asks (``rebuilding(reason)``: the command
    line's one-line note where no terminal shows progress)."""
    rebuilding = getattr(display, "rebuilding", None)
    if callable(rebuilding):
        rebuilding(reason)


class _Rebuild(Exception):
    def __init__(self, reason: str) -> None:
        self.reason = reason


class ProjectionRunner:
    def __init__(
        self,
        baton_dir: StrPath,
        ledger: LedgerProtocol,
        projections: Sequence[Projection],
        *,
        upcasters: UpcasterRegistry = UPCASTERS,
        in_memory: bool = False,
    ) -> None:
        self._baton = os.fspath(baton_dir)  # strings (``os.path``): the hook path holds no ``pathlib``
        self._index = os.path.join(self._baton, "index.sqlite")
        self.in_memory = in_memory
        """A read-only ``.baton/``: the index lives in memory (a replay per
        process) and no materialized file is written or removed."""
        self.ledger = ledger
        self.projections = list(projections)
        self.by_name = {p.name: p for p in self.projections}
        self._folders: dict[str, str] = {}
        self._held: _HeldFiles | None = None
        self._before: dict[str, str] | None = None
        """During a rebuild that is not pinned: each handoff file it rewrote with other bytes (relative
        to ``.baton/``), set aside first under a temporary name (``_set_before_aside``)."""
        """During a rebuild: the files of documents that change batch after
        batch, written once they stop changing (``_materialize``)."""
        self.upcasters = upcasters
        self._db = None
        self._db_ino: int | None = None
        self._generation: object = _UNKNOWN
        """The index's ``generation`` as last read or written here: a new one
        is written by every rebuild, which withdraws the seeds handed out."""
        self._connections = 0
        """How many connections this runner has opened (part of ``content_token``)."""
        self._memo: dict[str, tuple[tuple, Any]] = {}
        self._fold_limit: int | None = None
        """While a ``catch_up`` with a ``fold_limit`` runs: that limit."""
        self.copied = False
        """In memory: the index open now started as a copy of ``index.sqlite``
        (else empty, for a replay of the whole ledger)."""
        self._copy_refused = False
        """In memory: the copy of ``index.sqlite`` proved damaged; the next open
        starts empty, for a replay of the whole ledger (``discard_index``)."""

    @property
    def baton_dir(self) -> Path:
        return _path(self._baton)

    @property
    def index_path(self) -> Path:
        return _path(self._index)

    # -- storage -------------------------------------------------------------
    @property
    def db(self):
        if self._db is None:
            if not self.in_memory and os.path.exists(self._index) and not os.path.isfile(self._index):
                self.discard_index("index.sqlite is not a file")
            try:
                self._db = self._open_retrying()
            except sqlite3.Error as exc:
                if not _is_corruption(exc):
                    too_long = None if self.in_memory else index_path_too_long(self._baton)
                    if too_long is not None:
                        raise StorageError(f"{too_long}; move the project to a folder with a shorter path",
                                           details={"root": str(self.baton_dir.parent)}) from exc
                    raise StorageError(f"cannot open the index {self._index}: {exc}") from exc
                self.discard_index(str(exc))
                try:
                    self._db = self._open_retrying()
                except sqlite3.Error as again:
                    raise StorageError(f"cannot open the index {self._index}: {again}") from again
        return self._db

    def _open_retrying(self) -> "IndexDb":
        """``_open``, again on a fresh file when the index was deleted while
        it was being opened (``baton gc``, or a person, under a running writer)."""
        for attempt in range(VANISHED_RETRIES):
            try:
                return self._open()
            except sqlite3.OperationalError as exc:
                if attempt + 1 == VANISHED_RETRIES or not self._vanished(exc):
                    raise
                _vanished_pause(attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    def _vanished(self, exc: sqlite3.Error) -> bool:
        """The index file was deleted or replaced under this connection: SQLite
        then reports an I/O error (its WAL index went away, or the database
        file was unlinked between ``connect`` and the first statement that
        opens its journal or WAL: SQLite ``stat``s the database by name to give
        them its permissions, ``SQLITE_IOERR_FSTAT``), a read-only database
        (the file it wrote was unlinked) or a missing table. A real I/O error
        reads the same: the callers retry it a bounded number of times
        (``VANISHED_RETRIES``), then report it."""
        if not isinstance(exc, sqlite3.OperationalError) or self.in_memory:
            return False
        if self._db_ino is not None and _inode(self._index) != self._db_ino:
            return True
        text = str(exc).lower()
        return any(sign in text for sign in ("disk i/o error", "readonly database", "no such table"))

    def _open(self) -> "IndexDb":
        if self.in_memory:
            return self._memory_index()
        try:  # over a JSONL ledger the folder exists; over the in-memory one it may not
            os.makedirs(self._baton, exist_ok=True)
        except OSError as exc:
            raise StorageError(f"cannot create {self._baton}: {exc}") from exc
        self._seed_new_index()
        # check_same_thread off: a long-lived application object (the status
        # page) serves each request on its own thread, one at a time.
        db = IndexDb(sqlite3.connect(self._index, check_same_thread=False), wal=self._index + "-wal")
        self._connections += 1
        try:
            db.execute("PRAGMA busy_timeout=30000")  # first: the journal mode may wait on a lock
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            self._db_ino = _inode(self._index)
            if not self._schema_current(db):
                self._create(db)
        except sqlite3.Error:
            db.close()
            raise
        return db

    def _memory_index(self) -> "IndexDb":
        """A read-only ``.baton/`` or a full disk: the index in memory. It starts
        as a copy of ``index.sqlite`` (``Connection.backup``) when that one is of
        this Baton (its schema and projections: the check a normal open makes) and
        not pinned in the past, so the catch-up folds only what the feeds gained
        past its cursors — whose lines it checks as every catch-up does; otherwise,
        or when it cannot be read, it starts empty and the catch-up replays the
        whole ledger. Nothing under ``.baton/`` is written (``_read_disk_index``)."""
        self.copied = False
        if not self._copy_refused:
            db = self._read_disk_index()
            if db is not None:
                self.copied = True
                return db
        db = IndexDb(sqlite3.connect(":memory:", check_same_thread=False))
        self._create(db)
        return db

    def _read_disk_index(self) -> "IndexDb | None":
        """``index.sqlite`` copied into memory, or None when there is none that
        fits (``_memory_index``). Opened read-only: through its write-ahead log
        and shared-memory files when they are there (``mode=ro``: the commits the
        log holds), else ``immutable`` (no ``-wal``: nothing is missed, and no
        file is made beside it on a disk that cannot take one). An index that
        changed while it was copied (another user's writer, on a ``.baton/``
        read-only for this one) is not used."""
        path = self.index_path
        try:
            before = os.stat(path)
        except OSError:
            return None
        if not _stat.S_ISREG(before.st_mode):
            return None
        logged = _size(path.with_name(path.name + "-wal")) > 0
        uri = f"{path.absolute().as_uri()}?mode=ro" + ("" if logged else "&immutable=1")
        db = IndexDb(sqlite3.connect(":memory:", check_same_thread=False))
        try:
            source = sqlite3.connect(uri, uri=True)
            try:
                source.backup(db.conn)
            finally:
                source.close()
            after = os.stat(path)
            same = (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size,
                                                                        before.st_mtime_ns)
            wal_now = _size(path.with_name(path.name + "-wal")) > 0
            if same and wal_now == logged and self._schema_current(db) and self._pinned(db) is None:
                return db
        except (OSError, sqlite3.Error):
            pass
        db.conn.close()
        return None

    @staticmethod
    def _pinned(db: "IndexDb") -> str | None:
        row = db.execute("SELECT value FROM meta WHERE key = 'pinned_until'").fetchone()
        return row[0] if row else None

    def _seed_new_index(self) -> None:
        """When there is no index: put an empty one already in WAL mode in
        its place (made aside in ``cache/`` and linked in, never over an index
        another process made meanwhile). A connection to a new, empty file
        opens its WAL only at its first write, after waiting for the locks of
        every other process that opened the same file, and SQLite then
        ``stat``s the database by name: an index deleted in that wait fails
        the write with "disk I/O error" (SQLITE_IOERR_FSTAT), attempt after
        attempt while writers contend. A file already in WAL mode has its WAL
        opened by the first read, at once, after which a deletion costs the
        connection nothing (``_reopen_if_replaced`` sees the new inode)."""
        if os.path.lexists(self._index):
            return
        cache = os.path.join(self._baton, "cache")
        seed = os.path.join(cache, f"index.sqlite.new.{uuid7()}")
        try:
            os.makedirs(cache, exist_ok=True)
            conn = sqlite3.connect(seed)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA user_version=0")  # a write: the file's header now says WAL
                conn.commit()
            finally:
                conn.close()  # checkpoints and removes the seed's WAL: one self-contained file
            os.link(seed, self._index)
        except (OSError, sqlite3.Error):
            pass  # another process made the index first, or links are refused: SQLite makes it as before
        finally:
            for suffix in ("", "-wal", "-shm"):
                try:
                    os.unlink(f"{seed}{suffix}")
                except OSError:
                    pass

    def _reopen_if_replaced(self) -> None:
        """A long-lived process (the MCP server, the status page) keeps its
        connection between requests; if ``baton gc`` removed the index, or a
        rebuild replaced it, meanwhile, the connection would go on reading and
        writing a file no one else sees. One ``stat`` per catch-up tells."""
        if self._db is None or self.in_memory:
            return
        if _inode(self._index) != self._db_ino:
            self.close()
            self._generation = _UNKNOWN

    def content_token(self) -> tuple | None:
        """A value that stays the same exactly as long as the index's content
        does, read without the lock and without reading the index: which
        connection (a new one after a reopen), the file's inode (a rebuild or
        ``gc`` replaces it), SQLite's ``data_version`` (changes when another
        connection commits) and this connection's ``total_changes`` (its own
        writes). None for an in-memory index or before the index is open."""
        db = self._db
        if db is None or self.in_memory:
            return None
        try:
            version = db.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.Error:
            return None
        return (self._connections, _inode(self._index), version, db.conn.total_changes)

    def memo(self, name: str, compute: Callable[[], Any]) -> Any:
        """``compute()``, kept while ``content_token`` stays the same: a
        long-lived process asks the same question of an unchanged index once.
        The token is taken before computing, so a value computed from a newer
        state is recomputed at the next ask, never kept past a change."""
        token = self.content_token()
        if token is None:
            return compute()
        known = self._memo.get(name)
        if known is not None and known[0] == token:
            return known[1]
        value = compute()
        self._memo[name] = (token, value)
        return value

    def _schema_current(self, db: "IndexDb") -> bool:
        """The tables of this signature exist (every command after the first):
        then opening costs one query, and sqlite-utils is not even imported."""
        tables = [t for p in self.projections for t in getattr(p, "index_tables", ())]
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'signature'").fetchone()
            columns = {r[1] for r in db.execute("PRAGMA table_info(cursors)").fetchall()}
            # A query table a projection gained since this index was made is
            # created (and filled) by its ``setup_index``, without a replay.
            present = db.execute(f"SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                                 f"({','.join('?' * len(tables))})", tables).fetchone()[0] if tables else 0
        except sqlite3.OperationalError:
            return False
        return (row is not None and row[0] == self._signature() and {"ino", "line"} <= columns
                and present == len(tables))

    def no_room(self, exc: sqlite3.Error, *, whole: bool = False) -> DiskFull:
        """The refusal when the index cannot be written for want of space: its
        transaction rolled back, the connection closed (even on the hook path) so
        that its write-ahead log gives its room back, nothing recorded.
        ``whole``: a replay from the first event failed (a new index, a projection
        whose version moved, a rebuild): what it left is removed — the next
        command replays it whole anyway, and a log SQLite cannot fold into a full
        disk would keep its room. ``details["disk"]`` says the disk is full, without
        the advice; ``details["free"]``: the bytes free once that room is back."""
        db, self._db = self._db, None
        self._generation = _UNKNOWN
        if db is not None:
            with contextlib.suppress(sqlite3.Error):
                db.conn.rollback()
            with contextlib.suppress(sqlite3.Error):
                db.conn.close()
        if whole and not self.in_memory:
            for suffix in ("-wal", "-shm", ""):
                with contextlib.suppress(OSError):
                    os.unlink(self.index_path.with_name(self.index_path.name + suffix))
        disk = no_room(self.baton_dir, "a write of the index")
        return DiskFull(f"{disk}: {exc}; {DISK_FULL_ADVICE}", details={"disk": disk, "free": free_bytes(self.baton_dir),
                                                             "baton_dir": str(self.baton_dir)})

    def discard_index(self, why: str) -> Path:
        """Move a damaged index aside (into ``cache/``, which ``gc`` clears)
        so the next open starts empty and rebuilds from the ledger: the index
        is a cache, never a source of truth. In memory nothing on disk is
        moved: the copy is dropped and the next open starts empty."""
        self.close()
        self._generation = _UNKNOWN
        if self.in_memory:
            self._copy_refused = True
            return self.index_path
        aside = self.baton_dir / "cache" / f"index.sqlite.damaged.{uuid7()}"
        aside.parent.mkdir(parents=True, exist_ok=True)
        for suffix in ("", "-wal", "-shm"):
            source = self.index_path.with_name(self.index_path.name + suffix)
            try:
                os.replace(source, aside.with_name(aside.name + suffix))
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise StorageError(f"the index {self.index_path} is damaged ({why}) and cannot be moved "
                                   f"aside: {exc}; run `baton gc` then `baton rebuild`") from exc
        return aside

    def delete_index(self) -> list[str]:
        """Remove ``index.sqlite`` and its WAL files outright (not aside into
        ``cache/`` as ``discard_index`` does): after ``baton forget`` the old
        index's pages, free ones included, still hold the erased payloads.
        Returns the materialized files it listed, for the caller to prune
        after the next rebuild (the new index does not know them)."""
        try:
            shown = [path for (path,) in self.db.execute("SELECT path FROM materialized WHERE projection != ?",
                                                         [KEPT]).fetchall()]  # a kept file is never pruned
        except (sqlite3.Error, StorageError):
            shown = []
        self.close()
        self._generation = _UNKNOWN
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                os.unlink(self.index_path.with_name(self.index_path.name + suffix))
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise StorageError(f"cannot remove {self.index_path}{suffix}: {exc}") from exc
        return shown

    def prune_files(self, paths: Iterable[str]) -> list[str]:
        """Remove the materialized files among ``paths`` that no document shows now."""
        shown = {path for (path,) in self.db.execute("SELECT path FROM materialized").fetchall()}
        removed = []
        for rel in paths:
            if rel not in shown and (self.baton_dir / rel).exists():
                self._remove(rel, ("", ""))
                removed.append(rel)
        return removed

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _create(self, db: "IndexDb") -> None:
        """Make the index's tables (a new index, or a new projection set) with sqlite-utils."""
        import sqlite_utils  # lazy: builds tables only when the index is new or its projections changed

        tables = sqlite_utils.Database(db.conn)
        tables.table("meta").create({"key": str, "value": str}, pk="key", if_not_exists=True)
        tables.table("cursors").create({"feed": str, "offset": int, "seq": int, "hash": str, "hlc": int, "ino": int,
                                       "line": int}, pk="feed", if_not_exists=True)
        for column in ("ino", "line"):  # indexes made before these columns existed
            if column not in tables.table("cursors").columns_dict:
                tables.table("cursors").add_column(column, int)
        # The furthest head of each feed this index has ever folded: never
        # reset by a rebuild, so ``verify`` can tell a feed cut shorter since.
        tables.table("feed_heads").create({"feed": str, "seq": int, "hash": str, "offset": int}, pk="feed",
                                          if_not_exists=True)
        tables.table("docs").create({"projection": str, "key": str, "doc": str}, pk=("projection", "key"),
                                    if_not_exists=True)
        tables.table("materialized").create({"path": str, "projection": str, "key": str}, pk="path",
                                            if_not_exists=True)
        tables.table("materialized").create_index(["projection", "key"], index_name="materialized_by_key",
                                                  if_not_exists=True)
        tables.table("unwritten").create({"path": str, "projection": str, "key": str, "error": str}, pk="path",
                                         if_not_exists=True)
        with db.conn:
            for p in self.projections:
                if hasattr(p, "setup_index"):
                    p.setup_index(db)

    def _signature(self) -> str:
        return orjson.dumps([INDEX_SCHEMA] + [[p.name, p.version] for p in self.projections]).decode()

    def recorded_versions(self) -> dict[str, int] | None:
        """The version of each projection the index's documents were folded by,
        as its ``signature`` records them, when its tables are of this Baton's
        schema (``INDEX_SCHEMA``); None for an index that folded nothing yet,
        one of another schema, or one that cannot be read. What tells a
        reader, after an upgrade that changed some projections, which
        documents it can still read as they stand (``harness_start``)."""
        try:
            raw = self._meta("signature")
            recorded = orjson.loads(raw) if raw is not None else None
        except (sqlite3.Error, orjson.JSONDecodeError):
            return None
        if not isinstance(recorded, list) or not recorded or recorded[0] != INDEX_SCHEMA:
            return None
        return {item[0]: item[1] for item in recorded[1:]
                if isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)
                and type(item[1]) is int}

    def _meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return row[0] if row else None

    # -- reading state -------------------------------------------------------
    def get(self, projection: str, key: str) -> Doc | None:
        row = self.db.execute(
            "SELECT doc FROM docs WHERE projection = ? AND key = ?", [projection, key]
        ).fetchone()
        return loads(row[0]) if row else None

    def has(self, projection: str, key: str) -> bool:
        return self.db.execute("SELECT 1 FROM docs WHERE projection = ? AND key = ?", [projection, key]).fetchone() \
            is not None

    def keys_alike(self, projection: str, key: str) -> list[str]:
        """The keys of ``projection`` equal to ``key`` but for the letter case of ASCII letters
        (SQLite's ``LIKE``), ``key`` itself among them when it is there: one query."""
        pattern = key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return [row[0] for row in self.db.execute(
            "SELECT key FROM docs WHERE projection = ? AND key LIKE ? ESCAPE '\\'", [projection, pattern]
        ).fetchall()]

    def docs(self, projection: str) -> Iterator[tuple[str, Doc]]:
        for key, doc in self.db.execute(
            "SELECT key, doc FROM docs WHERE projection = ? ORDER BY key", [projection]
        ).fetchall():
            yield key, loads(doc)

    def snapshot(self) -> dict[str, dict[str, Doc]]:
        """Every document of every projection: what replay equivalence compares."""
        out: dict[str, dict[str, Doc]] = {p.name: {} for p in self.projections}
        for name, key, doc in self.db.execute("SELECT projection, key, doc FROM docs").fetchall():
            out.setdefault(name, {})[key] = loads(doc)
        return out

    def counts(self) -> dict[str, int]:
        """How many documents each projection holds (without reading them)."""
        out = {p.name: 0 for p in self.projections}
        for name, count in self.db.execute("SELECT projection, count(*) FROM docs GROUP BY projection"):
            out[name] = count
        return out

    def unwritten(self) -> list[dict[str, str]]:
        """Materialized files that could not be written (a name the file
        system refuses, a full disk, a read-only folder): the documents are
        in the index, the ledger is untouched, ``doctor`` reports them."""
        rows = self.db.execute("SELECT path, projection, key, error FROM unwritten ORDER BY path").fetchall()
        return [{"path": path, "projection": name, "key": key, "error": error} for path, name, key, error in rows]

    def missing_materialized(self) -> list[str]:
        """Materialized files (relative to ``.baton/``) the index says exist but the disk lacks."""
        rows = self.db.execute("SELECT path FROM materialized WHERE projection != ? ORDER BY path", [KEPT]).fetchall()
        return [path for (path,) in rows if not (self.baton_dir / path).is_file()]

    def feed_heads(self) -> dict[str, tuple[int, str | None, int]]:
        """The furthest ``(seq, hash, offset)`` of each feed this index has folded."""
        return {feed: (seq, hash_, offset) for feed, seq, hash_, offset in
                self.db.execute("SELECT feed, seq, hash, offset FROM feed_heads ORDER BY feed").fetchall()}

    def sealed_heads(self) -> dict[str, tuple[int, str | None, int]]:
        """``feed_heads`` for the ledger's append check (``IndexSeed.sealed_heads``):
        ``{}`` for an in-memory replay or an index that cannot be read (a
        damaged index is moved aside and rebuilt by the catch-up, not here)."""
        if self.in_memory:
            return {}
        try:
            return self.feed_heads()
        except sqlite3.Error:
            return {}

    @property
    def pinned_until(self) -> str | None:
        return self._meta("pinned_until")

    # -- folding -------------------------------------------------------------
    def fold(self, events: Iterable[Event], docs: dict[tuple[str, str], Doc | None],
             load: Callable[[Collection[tuple[str, str]]], Mapping[tuple[str, str], Doc | None]]) \
            -> set[tuple[str, str]]:
        """Fold ``events`` into ``docs`` (slot -> document, updated in place);
        returns the slots changed. Two passes: the first routes every event
        to its slots, then the documents of the slots ``docs`` lacks are read
        with ONE ``load`` call for the lot (a few queries, not one per slot),
        then the second applies the events in order (``_apply``)."""
        # Each family's module registers its upcasters when it is imported; the
        # read path imports only the names (``baton.events.names``), so an
        # event's family is loaded (``load_family``) before the first event of
        # its type is upcast. What an event of a type needs is planned once
        # per type and batch: whether it is upcast (a type without upcasters
        # never is), whether it is a repair to acknowledge, and which
        # projections may route it (``Projection.types``; ``keys`` is asked
        # of those only).
        plans: dict[str, tuple[bool, bool, list[tuple[str, Any, Any]]]] = {}
        routed: list[tuple[Event, list[tuple[Callable[[str, Doc | None, Event], Doc | None], tuple[str, str]]]]] = []
        runs: dict[tuple[str, str], list[Event]] = {}
        """Per slot of a projection that folds a document's events at once
        (``apply_all``): its events of the batch, in order, gathered while
        routing (not in a second walk over every event's slots)."""
        for event in events:
            plan = plans.get(event.type)
            if plan is None:
                plan = plans[event.type] = self._plan(event.type)
            upcasts, repair, routes = plan
            if repair:
                self._acknowledge_repair(event)
            if upcasts:
                event = self.upcasters.upcast(event)
            touched = []
            for name, keys, apply in routes:
                for key in keys(event):
                    if apply is None:  # folded below, with the slot's other events of the batch
                        run = runs.get((name, key))
                        if run is None:
                            runs[(name, key)] = [event]
                        else:
                            run.append(event)
                    else:
                        touched.append((apply, (name, key)))
            if touched:
                routed.append((event, touched))
        missing = {slot for _event, touched in routed for _apply, slot in touched if slot not in docs}
        missing.update(slot for slot in runs if slot not in docs)
        if missing:
            docs.update(load(missing))
        dirty: set[tuple[str, str]] = set()
        decoded = DECODED.set({})  # each event decoded once for the batch's folds (``baton.events.names``)
        try:
            self._apply(routed, runs, docs, dirty)
        finally:
            DECODED.reset(decoded)
        return dirty

    def _apply(self, routed: list[tuple[Event, list[tuple[Any, tuple[str, str]]]]],
               runs: dict[tuple[str, str], list[Event]], docs: dict[tuple[str, str], Doc | None],
               dirty: set[tuple[str, str]]) -> None:
        """``fold``'s second pass: each event to the projections that fold it
        alone (``apply``), in order, and then each run of one document's
        events to a projection that folds them at once (``apply_all``)."""
        for event, touched in routed:
            for apply, slot in touched:
                docs[slot] = apply(slot[1], docs[slot], event)
                dirty.add(slot)
        folders: dict[str, Any] = {}  # per projection: its ``apply_all``, bound once
        for slot, run in runs.items():
            fold_run = folders.get(slot[0])
            if fold_run is None:
                fold_run = folders[slot[0]] = self.by_name[slot[0]].apply_all  # type: ignore[attr-defined]
            docs[slot] = fold_run(slot[1], docs[slot], run)
            dirty.add(slot)

    def _plan(self, event_type: str) -> tuple[bool, bool, list[tuple[str, Any, Any]]]:
        """For ``fold``: whether an event of ``event_type`` is upcast, whether it
        is a repair record, and the (name, keys, apply) of every projection
        that may route it (bound now: ``apply`` once per batch, not per event)."""
        load_family(event_type)
        routes = [(p.name, p.keys, None if getattr(p, "folds_runs", False) else p.apply) for p in self.projections
                  if getattr(p, "types", None) is None or event_type in getattr(p, "types")]
        return self.upcasters.upgrades(event_type), event_type == REPAIRED_TYPE, routes

    def _acknowledge_repair(self, event: Event) -> None:
        """A ``ledger.repaired`` event records that a feed was cut back, on
        purpose, to its ``kept`` head: the head this index acknowledged of it
        goes down to ``kept`` when it is one the repair set aside or recorded
        as lost — the only way a recorded head ever goes down. A head
        acknowledged after the repair (a later loss) is not one of those, so a
        rebuild replaying an old repair never forgets a newer loss. Only a
        repair this clone's writer recorded counts: one imported from a
        teammate cut the teammate's copy of the feed, never this clone's."""
        if event.writer != self.ledger.writer:
            return
        data = event.data if isinstance(event.data, dict) else {}
        feed, kept = data.get("feed"), data.get("kept")
        if not isinstance(feed, str) or not isinstance(kept, dict) or type(kept.get("seq")) is not int:
            return
        gone = [item["hash"] for item in [*(data.get("set_aside") or ()), *(data.get("lost") or ())]
                if isinstance(item, dict) and isinstance(item.get("hash"), str)]
        if not gone:
            return
        marks = ", ".join("?" * len(gone))
        if kept["seq"] > 0:
            offset = kept.get("offset") if type(kept.get("offset")) is int else 0
            self.db.execute(f"UPDATE feed_heads SET seq = ?, hash = ?, offset = ? WHERE feed = ? AND hash IN ({marks})",
                            [kept["seq"], kept.get("hash"), offset, feed, *gone])
        else:
            self.db.execute(f"DELETE FROM feed_heads WHERE feed = ? AND hash IN ({marks})", [feed, *gone])

    def catch_up(self, *, progress: Progress | None = None, allow_pinned: bool = False,
                 fold_limit: int | None = None) -> CatchUp:
        """Fold whatever the feeds gained since the cursors; rebuild if needed.

        ``fold_limit``: the most bytes of ledger this call may fold (a hook,
        under its deadline); more to fold — the feeds past the cursors, or all
        of them for a rebuild — raises ``IndexBehind`` before anything is folded.

        Raises:
            IndexPinned: the index is pinned to the past and this is a write.
            IndexBehind: more than ``fold_limit`` bytes to fold.
            LedgerCorrupt: a feed is damaged before its tail.
        """
        self._reopen_if_replaced()

        def run() -> CatchUp:
            pinned = self.pinned_until
            if pinned is not None:
                if allow_pinned:
                    return CatchUp(0, False, f"index pinned at {pinned}")
                raise IndexPinned(
                    f"the index shows the project as of {pinned}; run `baton rebuild` to return to the present",
                    details={"pinned_until": pinned})
            try:
                return self._catch_up(progress)
            except _Rebuild as why:
                return self.rebuild(progress=progress, reason=why.reason)

        self._fold_limit = fold_limit
        try:
            return self._guarded(run, progress)
        finally:
            self._fold_limit = None

    def check_fold_limit(self, limit: int) -> None:
        """What ``catch_up(fold_limit=limit)`` checks first, without the ledger
        lock (a hook need not wait for a lock to learn it would hand the
        catch-up on): raise ``IndexBehind`` when a replay (a new index, or
        other projections) or the feeds past the cursors exceed ``limit``
        bytes. An index pinned in the past, or one that cannot be read, is
        left to the catch-up.

        Raises:
            IndexBehind: more than ``limit`` bytes to fold.
        """
        self._fold_limit = limit
        try:
            if self._meta("signature") != self._signature():
                self._within_limit(None, NEW_INDEX)
            elif self.pinned_until is None:
                self._within_limit(self.cursors(), None)
        except sqlite3.Error:
            pass
        finally:
            self._fold_limit = None

    def _within_limit(self, cursors: Mapping[str, Cursor] | None, reason: str | None) -> None:
        """For a catch-up with a ``fold_limit``: raise ``IndexBehind`` when what
        the feeds hold past ``cursors`` (all of it for a rebuild, ``cursors``
        None) is more bytes than the limit. One ``stat`` per feed."""
        limit = self._fold_limit
        stats = getattr(self.ledger, "feed_stats", None)
        if limit is None or stats is None:
            return
        pending = 0
        for name, _ino, size, _mtime in stats():
            done = cursors.get(name) if cursors is not None else None
            pending += max(0, size - (done.head.offset if done is not None else 0))
        if pending <= limit:
            return
        size = f"{ledger_size(pending)} of ledger"
        what = (f"the index needs a full replay ({reason}) of {size}" if cursors is None
                else f"the index is {size} behind the ledger")
        raise IndexBehind(f"{what}, more than this command folds in its time ({ledger_size(limit)})",
                          details={"bytes": pending, "limit": limit, "rebuild": cursors is None, "reason": reason})

    def _guarded(self, run: Callable[[], CatchUp], progress: Progress | None) -> CatchUp:
        """Run a catch-up; a damaged index is moved aside and rebuilt, and one
        deleted under this process is opened afresh (and so rebuilt from the
        ledger) and the catch-up run again."""
        for attempt in range(VANISHED_RETRIES):
            try:
                return run()
            except sqlite3.Error as exc:
                if attempt + 1 < VANISHED_RETRIES and self._vanished(exc):
                    self.close()
                    self._generation = _UNKNOWN
                    _vanished_pause(attempt)
                    continue
                return self._damaged(exc, progress)
        raise AssertionError("unreachable")  # pragma: no cover

    def _damaged(self, exc: sqlite3.Error, progress: Progress | None) -> CatchUp:
        if _is_full(exc):
            raise self.no_room(exc) from exc
        if not _is_corruption(exc):
            raise StorageError(f"the index {self.index_path} failed: {exc}") from exc
        self.discard_index(str(exc))
        return self.rebuild(progress=progress, reason=f"the index was damaged ({exc}) and was rebuilt")

    def cursors(self) -> dict[str, Cursor]:
        """Per feed, how far the index has folded."""
        return {
            feed: Cursor(FeedHead(offset, seq, hash_, hlc or 0), ino, line or 0)
            for feed, offset, seq, hash_, hlc, ino, line in self.db.execute(
                "SELECT feed, offset, seq, hash, hlc, ino, line FROM cursors"
            ).fetchall()
        }

    def _catch_up(self, progress: Progress | None) -> CatchUp:
        if self._meta("signature") != self._signature():
            raise _Rebuild(NEW_INDEX)
        cursors = self.cursors()
        try:
            stream = self.ledger.stream_since(cursors)
        except FeedRewritten as exc:
            raise _Rebuild(exc.message) from None
        events = iter(stream)
        first = next(events, None)
        if first is None:
            return CatchUp(0, False)
        self._within_limit(cursors, None)
        last = self._meta("last_key")
        floor = tuple(orjson.loads(last)) if last is not None else None
        folding: Iterable[Event] = itertools.chain([first], events)
        if floor is not None and floor > first.merge_key:
            try:
                count = self._replay(stream, self._checked_late(folding, floor, hold=True), reset=False,
                                     progress=progress, floor=floor)
                return CatchUp(count, False)
            except _ManyLate:
                pass
            # More late events than a batch: checked all first (keeping a key
            # per stream, not the events), then read again and folded.
            if not self._late_foldable(self.ledger.stream_since(self.cursors()), floor):
                raise _Rebuild("events arrived that sort before ones already folded from their stream")
            stream = self.ledger.stream_since(self.cursors())
            folding = self._checked_late(stream, floor, hold=False)
        count = self._replay(stream, folding, reset=False, progress=progress, floor=floor)
        return CatchUp(count, False)

    def _checked_late(self, events: Iterable[Event], floor: tuple, *, hold: bool) -> Iterator[Event]:
        """``events``, whose first ones sort before ``floor``: those late ones
        are checked (``_late_foldable``) before any is folded — held, up to a
        batch (more raise ``_ManyLate``, and nothing was folded) — or, without
        ``hold`` (after a check of them all), each as it folds: one appended
        since that check and refused stops the catch-up, whose transaction
        rolls back, for a rebuild."""
        events = iter(events)
        held: list[Event] = []
        latest: dict[str, tuple] = {}
        for event in events:
            if event.merge_key > floor:
                break
            if hold:
                held.append(event)
                if len(held) > REPLAY_BATCH:
                    raise _ManyLate()
            elif not self._late_foldable([event], floor, latest):
                raise _Rebuild("events arrived that sort before ones already folded from their stream")
            else:
                yield event
        else:
            event = None
        if hold and not self._late_foldable(held, floor):
            raise _Rebuild("events arrived that sort before ones already folded from their stream")
        yield from held
        if event is not None:
            yield event
            yield from events

    def _late_foldable(self, events: Iterable[Event], floor: tuple,
                       latest: dict[str, tuple] | None = None) -> bool:
        """Whether the new ``events`` (in project order) fold incrementally
        although some sort before ``floor``, the last event folded: every
        late one (those before the first that sorts after ``floor``) sorts
        after the last event folded from its stream (the ``streams``
        projection's ``last_key``, or an earlier late event of the same
        stream) and is no ``ledger.repaired`` record; and every projection
        says how it folds late events (``Projection.order``).
        Reads the late events once and keeps only a key per stream
        (``latest``, which a caller checking one event at a time passes again)."""
        if "streams" not in self.by_name:
            return False
        orders = {p.name: getattr(p, "order", None) for p in self.projections}
        if any(order not in (ANY_ORDER, STREAM_ORDER) for order in orders.values()):
            return False
        latest = {} if latest is None else latest
        for event in events:
            key = event.merge_key
            if key > floor:
                return True  # every event from here on sorts after everything folded
            if event.type == REPAIRED_TYPE:
                return False
            before = latest.get(event.stream)
            if before is None:
                doc = self.get("streams", event.stream)
                before = tuple(doc["last_key"]) if doc and isinstance(doc.get("last_key"), list) else None
                if doc is not None and before is None:
                    return False
            if before is not None and before >= key:
                return False
            latest[event.stream] = key
            if any(bound >= key for bound in self._late_bounds(event)):
                return False
        return True

    def _late_bounds(self, event: Event) -> Iterator[tuple]:
        """The merge keys ``event``, late, must sort after beyond its own stream's: a
        ``STREAM_ORDER`` projection whose document folds several streams (the baton index: a
        stream older Batons wrote per letter case of an e-mail owner) names them
        (``late_bounds``)."""
        for projection in self.projections:
            bounds = getattr(projection, "late_bounds", None)
            if bounds is not None:
                yield from bounds(event, self.get)

    def fold_appended(self, events: Sequence[Event]) -> CatchUp:
        """Fold what this process just appended, as the append returned it.

        Called under the lock right after ``append``: the events are written
        with the writer feed's new cursor in one transaction, and no byte is
        read back. If the index is not exactly where the ledger stood before
        the append (no catch-up under this lock, say), it catches up instead.
        """
        if not events:
            return CatchUp(0, False)

        def run() -> CatchUp:
            cursor = self._cursor_after_appending(events)
            if cursor is None:
                return self.catch_up()
            docs: dict[tuple[str, str], Doc | None] = {}
            dirty = self.fold(events, docs, self._load)
            self._commit(docs, dirty, {events[0].writer: cursor}, events[-1].merge_key)
            return CatchUp(len(events), False)

        return self._guarded(run, None)

    def _cursor_after_appending(self, events: Sequence[Event]) -> Cursor | None:
        """The ledger's cursor for the writer's feed, if ``events`` are exactly
        what the feeds gained past the index (else None)."""
        if self.pinned_until is not None or self._meta("signature") != self._signature():
            return None
        writer, first, last = events[0].writer, events[0], events[-1]
        known, folded = self.ledger.cursors(), self.cursors()
        after, before = known.get(writer), folded.get(writer)
        if after is None or (after.head.seq, after.head.hash) != (last.seq, last.hash):
            return None
        folded_head = before.head if before else FeedHead()
        if (folded_head.seq + 1, folded_head.hash) != (first.seq, first.prev):
            return None
        if not folded.keys() <= known.keys():
            return None
        if any(feed != writer and not cursor.at(folded.get(feed)) for feed, cursor in known.items()):
            return None
        last_key = self._meta("last_key")
        if last_key is not None and tuple(orjson.loads(last_key)) >= first.merge_key:
            return None
        return after

    # -- seeding the ledger --------------------------------------------------
    def ledger_seed(self) -> Seed | None:
        """What a ledger that has read nothing may start from (``IndexSeed``)."""
        if "streams" not in self.by_name:
            return None
        try:
            if self._meta("signature") != self._signature():
                return None
            cursors = self.cursors()
            token = self.seed_token()
        except sqlite3.Error:
            return None
        if not cursors:
            return None
        max_hlc = max(c.head.hlc for c in cursors.values())
        return Seed(token, cursors, max_hlc, functools.partial(self._folded_version, token))

    def seed_token(self) -> object:
        try:
            self._generation = self._meta("generation")
        except sqlite3.Error:
            self._generation = _UNKNOWN
            return object()  # equal to nothing: a seed taken before is dropped
        return self._generation

    def _folded_version(self, token: object, stream: str) -> int | None:
        """The version of ``stream`` the index folded, while it still holds
        what it held when ``token`` was handed out."""
        if token is _UNKNOWN or token != self._generation:
            return None
        try:
            doc = self.get("streams", stream)
        except sqlite3.Error:
            return None
        return doc["version"] if doc else 0

    def _load(self, slots: Collection[tuple[str, str]]) -> dict[tuple[str, str], Doc | None]:
        """The documents of ``slots`` (None for a slot with none), read with a
        query per projection and 500 keys."""
        out: dict[tuple[str, str], Doc | None] = dict.fromkeys(slots)
        by_projection: dict[str, list[str]] = {}
        for name, key in slots:
            by_projection.setdefault(name, []).append(key)
        for name, keys in by_projection.items():
            for at in range(0, len(keys), 500):
                part = keys[at:at + 500]
                for key, doc in self.db.execute(f"SELECT key, doc FROM docs WHERE projection = ? AND key IN "
                                                f"({', '.join('?' * len(part))})", [name, *part]).fetchall():
                    out[(name, key)] = loads(doc)
        return out

    def rebuild(
        self,
        *,
        until: Until | None = None,
        progress: Progress | None = None,
        reason: str | None = "requested",
    ) -> CatchUp:
        """Drop every projection and replay the ledger (up to ``until``).

        Raises:
            IndexBehind: inside a ``catch_up`` with a ``fold_limit`` the ledger passes.
        """
        self._within_limit(None, reason)
        discarded = False
        for attempt in range(VANISHED_RETRIES):
            try:
                with collector_paused():
                    return self._rebuild(until, progress, reason)
            except sqlite3.Error as exc:
                if attempt + 1 < VANISHED_RETRIES and self._vanished(exc):
                    self.close()  # deleted under this replay: replay into a fresh one
                    self._generation = _UNKNOWN
                    _vanished_pause(attempt)
                    continue
                if _is_full(exc):
                    raise self.no_room(exc, whole=True) from exc
                if discarded or attempt + 1 == VANISHED_RETRIES or not _is_corruption(exc):
                    raise StorageError(f"the index {self.index_path} failed: {exc}") from exc
                self.discard_index(str(exc))
                discarded = True
        raise AssertionError("unreachable")  # pragma: no cover

    def _rebuild(self, until: Until | None, progress: Progress | None, reason: str | None) -> CatchUp:
        if progress is not None and until is None:  # a replay ``until`` a point is a throwaway view (``as_of``)
            _told_why(progress, reason)
        stream = self.ledger.stream_since({})
        events: Iterable[Event] = iter(stream)
        if until is not None:
            events = _up_to(events, until)
        count = self._replay(stream, events, reset=True, progress=progress, pinned=until.label if until else None)
        return CatchUp(count, True, reason)

    def _replay(self, stream: EventStream, events: Iterable[Event], *, reset: bool,
                progress: Progress | None, pinned: str | None = None, floor: tuple | None = None) -> int:
        """Fold ``events`` (read from ``stream``) in batches of ``REPLAY_BATCH``,
        all in ONE transaction: each batch's changed documents are written (and
        their files materialized) and dropped from memory, later batches load
        them back from the uncommitted index. A replay of any length holds one
        batch of events and documents, never the ledger (``docs/performance.md``).
        ``reset``: start from empty projections (a rebuild). ``floor``: the
        merge key of the last event folded before (late events fold below
        it): the one kept unless these go past it."""
        db = self.db
        contradicted: dict[str, tuple[int, str | None]] = {}
        if reset:
            events = self._watch_recorded_heads(events, contradicted)
        self._held = _HeldFiles() if reset else None
        self._before = {} if reset and pinned is None and not self.in_memory else None
        try:
            with db.conn:
                count, last_key = self._replay_batches(stream, events, reset=reset, progress=progress, pinned=pinned,
                                                       floor=floor, contradicted=contradicted)
        finally:
            self._held = None
            self._put_back_before()
        if progress:
            progress(count, count)
        if reset:
            self._generation = self._pending_generation
        return count

    def _replay_batches(self, stream: EventStream, events: Iterable[Event], *, reset: bool,
                        progress: Progress | None, pinned: str | None, floor: tuple | None,
                        contradicted: dict[str, tuple[int, str | None]]) -> tuple[int, tuple | None]:
        """``_replay``'s transaction: the batches, the files still held, the position."""
        count, last_key = 0, None
        if reset:
            self._reset_tables()
        docs: dict[tuple[str, str], Doc | None] = {}
        batch: list[Event] = []
        for event in events:
            batch.append(event)
            if len(batch) >= REPLAY_BATCH:
                count, last_key = count + len(batch), batch[-1].merge_key
                self._write_docs(docs, self.fold(batch, docs, self._load), prune=not reset)
                docs.clear()
                batch.clear()
                if progress:  # never "done" here (a display ends its line then): the last call below says so
                    progress(count, max(count + 1, stream.estimated_total(count)))
        if batch:
            count, last_key = count + len(batch), batch[-1].merge_key
            self._write_docs(docs, self.fold(batch, docs, self._load), prune=not reset)
        if reset:
            self._write_docs({}, set(), prune=False)  # the files still held
            # a replay pinned in the past (``rebuild --until``) shows fewer events on purpose
            lost = pinned is None and self._lost_heads(stream.cursors, contradicted)
            self._remove_unshown_files(keep=lost)
            self._keep_before(lost)
        if floor is not None and (last_key is None or last_key < floor):
            last_key = floor
        self._write_position(stream.cursors, last_key, reset=reset, pinned=pinned, keep=contradicted)
        return count, last_key

    # -- writing -------------------------------------------------------------
    def _commit(
        self,
        docs: dict[tuple[str, str], Doc | None],
        dirty: set[tuple[str, str]],
        cursors: dict[str, Cursor],
        last_key: tuple | None,
    ) -> None:
        """Write folded documents (and their files) with the new cursors, in one transaction."""
        with self.db.conn:
            self._write_docs(docs, dirty, prune=True)
            self._write_position(cursors, last_key, reset=False, pinned=None)

    def _reset_tables(self) -> None:
        """Empty every projection (inside the replay's transaction); the files
        shown so far are remembered, to remove the ones no longer shown."""
        db = self.db
        db.execute("DROP TABLE IF EXISTS temp.shown_before")
        db.execute("CREATE TEMP TABLE shown_before AS SELECT path, projection FROM materialized")
        for table in ("docs", "cursors", "meta", "materialized", "unwritten"):
            db.execute(f"DELETE FROM {table}")
        for p in self.projections:
            if hasattr(p, "reset_index"):
                p.reset_index(db)

    def _write_docs(self, docs: dict[tuple[str, str], Doc | None], dirty: set[tuple[str, str]], *,
                    prune: bool) -> None:
        """Write the ``dirty`` documents, their query rows and their files.
        ``prune``: also remove files a document no longer shows (a rebuild
        removes them all at once at the end instead)."""
        db = self.db
        slots = sorted(dirty)
        files = self._materialize(docs, slots, prune)
        upserts = []
        deletes = []
        changed: dict[str, list[tuple[str, Doc | None]]] = {}
        dumps = orjson.dumps
        for slot in slots:
            doc = docs[slot]
            if doc is None:
                deletes.append(slot)
            else:
                upserts.append((slot[0], slot[1], dumps(doc).decode()))
            changed.setdefault(slot[0], []).append((slot[1], doc))
        db.conn.executemany(
            "INSERT INTO docs (projection, key, doc) VALUES (?, ?, ?) "
            "ON CONFLICT(projection, key) DO UPDATE SET doc = excluded.doc",
            upserts,
        )
        db.conn.executemany("DELETE FROM docs WHERE projection = ? AND key = ?", deletes)
        for name, items in changed.items():
            p = self.by_name[name]
            if hasattr(p, "index"):
                p.index(db, items)
        db.conn.executemany("DELETE FROM materialized WHERE projection = ? AND key = ?", list(files))
        db.conn.executemany(
            "INSERT OR REPLACE INTO materialized (path, projection, key) VALUES (?, ?, ?)",
            [(path, name, key) for (name, key), paths in files.items() for path in paths],
        )

    def _watch_recorded_heads(self, events: Iterable[Event],
                              contradicted: dict[str, tuple[int, str | None]]) -> Iterator[Event]:
        """``events``, noting in ``contradicted`` each feed that holds another
        event at the seq of its recorded head (``feed_heads``) than the one
        recorded: a feed rewritten under an acknowledged line."""
        recorded = {feed: (seq, hash_) for feed, (seq, hash_, _) in self.sealed_heads().items() if hash_}
        for event in events:
            head = recorded.get(event.writer)
            if head is not None and event.seq == head[0] and event.hash != head[1]:
                contradicted[event.writer] = head
            yield event

    def _write_position(self, cursors: dict[str, Cursor], last_key: tuple | None, *, reset: bool,
                        pinned: str | None, keep: Mapping[str, tuple[int, str | None]] | None = None) -> None:
        """The cursors and meta that say how far the documents folded.

        ``keep``: feeds a rebuild found rewritten under their recorded head
        (``_watch_recorded_heads``); that head stays recorded — unless a
        recorded repair lowered it meanwhile — so the loss is still seen
        (``verify``, and the ledger's refusal to append)."""
        db = self.db
        held: set[str] = set()
        if keep:
            rows = self.feed_heads()
            held = {feed for feed, head in keep.items() if feed in rows and rows[feed][:2] == head}
        db.conn.executemany(
            "INSERT OR REPLACE INTO cursors (feed, offset, seq, hash, hlc, ino, line) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(feed, c.head.offset, c.head.seq, c.head.hash, c.head.hlc, c.ident, c.line)
             for feed, c in cursors.items()],
        )
        db.conn.executemany(
            "INSERT INTO feed_heads (feed, seq, hash, offset) VALUES (?, ?, ?, ?) ON CONFLICT(feed) DO UPDATE SET "
            "seq = excluded.seq, hash = excluded.hash, offset = excluded.offset WHERE excluded.seq > feed_heads.seq "
            # the same line, moved by a recorded forget (which rewrites a feed shorter): its new offset
            "OR (excluded.seq = feed_heads.seq AND excluded.hash = feed_heads.hash)",
            [(feed, c.head.seq, c.head.hash, c.head.offset) for feed, c in cursors.items()
             if c.head.seq and feed not in held],
        )
        meta = {"signature": self._signature()}
        if reset:
            meta["generation"] = self._pending_generation = uuid7()
        if last_key is not None:
            meta["last_key"] = orjson.dumps(list(last_key)).decode()
        db.conn.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", list(meta.items()))
        if pinned is not None:
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('pinned_until', ?)", [pinned])
        elif reset:
            db.execute("DELETE FROM meta WHERE key = 'pinned_until'")

    def _materialize(
        self, docs: dict[tuple[str, str], Doc | None], slots: list[tuple[str, str]], prune: bool
    ) -> dict[tuple[str, str], list[str]]:
        """Write the files of every changed document (a file already holding
        the same bytes is left alone); with ``prune``, remove the files a
        changed document no longer shows. Returns the files each document
        shows, for the ``materialized`` rows. During a rebuild, files that
        may change again in the next batch are held and written once
        (``_HeldFiles``).

        A file is derived data: one that cannot be written (or removed) is
        recorded in ``unwritten`` and never fails the fold, so the ledger,
        the documents and replay go on (``doctor`` reports it)."""
        written: dict[tuple[str, str], list[str]] = {}
        if self.in_memory:
            return written
        shows: dict[str, bool] = {}  # per projection, not per slot (a deferred fold's miss raises inside)
        showing = [slot for slot in slots
                   if shows.setdefault(slot[0], hasattr(self.by_name[slot[0]], "materialize"))]
        ready = []
        for slot in showing:
            p: Materializing = self.by_name[slot[0]]  # type: ignore[assignment]  # it has ``materialize`` (``showing``)
            doc = docs[slot]
            ready.append((slot, p.materialize(slot[1], doc) if doc is not None else {}))
        there: list[tuple[tuple[str, str], dict[str, bytes]]] = []
        if self._held is not None:
            ready, there = self._held.step(ready, self._shows_already)
        self.db.conn.executemany("DELETE FROM unwritten WHERE projection = ? AND key = ?",
                                 [slot for slot, _files in ready + there])
        for slot, files in there:  # on disk as they are: nothing to write (and a rebuild prunes nothing)
            written[slot] = sorted(files)
        for slot, files in ready:
            shown = []
            for rel, data in files.items():
                try:
                    target = self._inside(rel, checked=bool(_NOFOLLOW))
                    if _holds(target, data, rel):
                        shown.append(rel)
                        continue
                    if self._before is not None and rel not in self._before and getattr(self.by_name[slot[0]], "keeps_before_loss", False):
                        self._set_before_aside(rel, target)
                    write_bytes_atomic(target, data)
                    shown.append(rel)
                except StorageError as exc:
                    self._note_unwritten(rel, slot, exc.message)
            if prune:
                for (rel,) in self.db.execute("SELECT path FROM materialized WHERE projection = ? AND key = ?",
                                              list(slot)).fetchall():
                    if rel not in files:
                        self._remove(rel, slot)
            written[slot] = sorted(shown)
        return written

    def _shows_already(self, files: dict[str, bytes]) -> bool:
        """Every one of ``files`` is on disk with these bytes (a link or an
        unreadable path is not: writing it reports the problem)."""
        try:
            return all(_holds(self._inside(rel, checked=bool(_NOFOLLOW)), data, rel) for rel, data in files.items())
        except StorageError:
            return False

    def _note_unwritten(self, rel: str, slot: tuple[str, str], error: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO unwritten (path, projection, key, error) VALUES (?, ?, ?, ?)",
                        [rel, slot[0], slot[1], error])

    def _remove_unshown_files(self, *, keep: bool = False) -> None:
        """After a rebuild: remove the files shown before that no document shows now.
        ``keep``: the ledger lost events the index acknowledged (``_lost_heads``), so
        those files are kept where they are, as ``KEPT`` rows (``kept_files``; a file
        kept once stays kept, through a replay pinned in the past too): a
        handoff whose last event was cut off the feed is whole only there. Restoring
        the feed shows them again; ``baton repair --yes`` moves them into quarantine
        before it records the loss."""
        if self.in_memory:
            self.db.execute("DROP TABLE temp.shown_before")
            return
        for rel, shown_by in self.db.execute("SELECT path, projection FROM temp.shown_before "
                                             "WHERE path NOT IN (SELECT path FROM materialized)").fetchall():
            if not keep and shown_by != KEPT:  # one kept before stays kept until a repair moves it
                self._remove(rel, ("", ""))
            elif os.path.isfile(os.path.join(self._baton, rel)):
                self.db.execute("INSERT OR REPLACE INTO materialized (path, projection, key) VALUES (?, ?, '')",
                                [rel, KEPT])
        self.db.execute("DROP TABLE temp.shown_before")

    def _set_before_aside(self, rel: str, target: str) -> None:
        """Before a rebuild rewrites the handoff file ``rel`` (at ``target``) with other bytes: move
        what it holds aside, under a temporary file's name (``.tmp.<pid>.<hex>``, which ``baton
        rebuild`` removes once its process is gone), for ``_keep_before``. Only then is it known
        whether the ledger lost events the index acknowledged: the file may be the only whole copy
        of the last state they recorded (a revision whose line was cut off the feed)."""
        try:
            if not _stat.S_ISREG(os.lstat(target).st_mode):
                return
            aside = os.path.join(os.path.dirname(target), f"{TEMPORARY_PREFIX}{os.getpid()}.{os.urandom(4).hex()}")
            os.rename(target, aside)
        except OSError:
            return  # none there, or not movable: rewritten as before
        assert self._before is not None  # the caller checked
        self._before[rel] = aside

    def _keep_before(self, lost: bool) -> None:
        """After a rebuild's fold: when the ledger lost events the index acknowledged (``lost``),
        each handoff file the rebuild rewrote is kept as it was, beside it, as ``<name>.before-loss.json``
        (a ``KEPT`` row: named with the loss, moved into quarantine by ``baton repair --yes``, reached
        by ``forget``); otherwise (a new index format, a forget) what was set aside is removed."""
        before, self._before = self._before or {}, None
        if not lost:
            self._drop_restored_before()
        for rel, aside in before.items():
            try:
                if not lost:
                    os.unlink(aside)
                    continue
                kept = _free_name(self._baton, rel.removesuffix(".json") + BEFORE_LOSS, ".json")
                os.rename(aside, os.path.join(self._baton, kept))
            except OSError as exc:
                self._note_unwritten(rel, (KEPT, ""), f"cannot keep the file a lost event showed: {exc}")
                continue
            self.db.execute("INSERT OR REPLACE INTO materialized (path, projection, key) VALUES (?, ?, '')",
                            [kept, KEPT])

    def _drop_restored_before(self) -> None:
        """A rebuild that lost nothing (the feed was restored from a copy): a kept ``.before-loss``
        file holding what the file beside it now shows again is removed, with its ``KEPT`` row."""
        rows = self.db.execute("SELECT path FROM materialized WHERE projection = ? AND path LIKE ?",
                               [KEPT, f"%{BEFORE_LOSS}%.json"]).fetchall()
        for (rel,) in rows:
            shown = rel[:rel.rindex(BEFORE_LOSS)] + ".json"
            try:
                with open(self._inside(rel), "rb") as kept, open(self._inside(shown), "rb") as now:
                    if kept.read() != now.read():
                        continue
            except (OSError, StorageError):
                continue
            self._remove(rel, (KEPT, ""))
            self.db.execute("DELETE FROM materialized WHERE projection = ? AND path = ?", [KEPT, rel])

    def _put_back_before(self) -> None:
        """A rebuild that failed midway: each handoff file it set aside goes back where it was."""
        before, self._before = self._before or {}, None
        for rel, aside in before.items():
            with contextlib.suppress(OSError):
                os.replace(aside, os.path.join(self._baton, rel))

    def _lost_heads(self, cursors: Mapping[str, Cursor], contradicted: Mapping[str, tuple[int, str | None]]) -> bool:
        """After a rebuild's fold: some feed ends before the head the index
        acknowledged of it (``feed_heads``: cut shorter, or gone) or holds another
        event at that seq (``contradicted``) — the loss reading commands warn of
        and writes refuse until the feed is restored or a repair records it."""
        if contradicted:
            return True
        for feed, (seq, _hash, _offset) in self.feed_heads().items():
            cursor = cursors.get(feed)
            if cursor is None or cursor.head.seq < seq:
                return True
        return False

    def kept_files(self) -> list[str]:
        """The files (relative to ``.baton/``) a rebuild kept although no document
        shows them, because the ledger lost the events that did (``KEPT``), and
        still on disk."""
        rows = self.db.execute("SELECT path FROM materialized WHERE projection = ? ORDER BY path", [KEPT]).fetchall()
        return [path for (path,) in rows if os.path.isfile(os.path.join(self._baton, path))]

    def release_kept(self, paths: Iterable[str]) -> None:
        """Remove the files of ``paths`` and their ``KEPT`` rows: a repair's own rebuild,
        between its cut and its record, kept them, but their events are in the copy the
        repair just set aside (``baton.commands.repair``)."""
        paths = list(paths)
        for rel in paths:
            self._remove(rel, (KEPT, ""))
        self.forget_kept(paths)

    def forget_kept(self, paths: Iterable[str]) -> None:
        """Drop the ``KEPT`` rows of ``paths`` (moved into quarantine by a repair)."""
        with self.db.conn:
            self.db.conn.executemany("DELETE FROM materialized WHERE projection = ? AND path = ?",
                                     [(KEPT, path) for path in paths])

    def _inside(self, rel: str, *, checked: bool = False) -> str:
        """``.baton/REL``, refused when it would land outside ``.baton/`` (``..``,
        an absolute name, or a folder that is a link out). Folders are resolved
        once per runner, not once per file (a replay writes thousands).
        ``checked``: the caller opens the file with ``O_NOFOLLOW`` (``_holds``),
        which refuses a symbolic link itself, so no ``lstat`` here."""
        folder, _, name = rel.rpartition("/")
        if not name or name in (".", "..") or "\\" in rel or rel.startswith("/"):
            raise StorageError(f"refusing to materialize {rel!r} outside .baton/")
        parent = self._folders.get(folder)
        if parent is None:
            base = real_path(self._baton)
            parent = real_path(os.path.join(self._baton, folder)) if folder else base
            if not inside(parent, base):
                raise StorageError(f"refusing to materialize {rel!r} outside .baton/")
            self._folders[folder] = parent
        target = os.path.join(parent, name)
        if not checked and os.path.islink(target):
            raise StorageError(f"refusing to materialize {rel!r}: it is a symbolic link")
        return target

    def _remove(self, rel: str, slot: tuple[str, str]) -> None:
        """Remove a file no document shows any more; one that cannot be
        removed is recorded in ``unwritten`` (it shows stale content)."""
        try:
            os.unlink(self._inside(rel))
        except FileNotFoundError:
            pass
        except StorageError as exc:
            self._note_unwritten(rel, slot, exc.message)
        except OSError as exc:
            self._note_unwritten(rel, slot, f"cannot remove {rel}: {exc}")


class _HeldFiles:
    """A rebuild's files that may change again in the next batch
    (``ProjectionRunner._materialize``): those of a document that changed in
    the batch before too (a baton key changes in every batch; each change
    replaces what was held), and new or changed files (a handoff's, folded
    in two batches, first half-way): written in the first batch that does
    not change their document — the final, empty one included — so each is
    written once. Files already on disk as they are never held, and at most
    ``HELD_BYTES`` are: past that, files are written at once, as before."""

    HELD_BYTES = 2 << 20

    def __init__(self) -> None:
        self.last: set[tuple[str, str]] = set()
        self.pending: dict[tuple[str, str], dict[str, bytes]] = {}
        self.size = 0

    def step(self, shown: list[tuple[tuple[str, str], dict[str, bytes]]],
             on_disk: Callable[[dict[str, bytes]], bool]) \
            -> tuple[list[tuple[tuple[str, str], dict[str, bytes]]], list[tuple[tuple[str, str], dict[str, bytes]]]]:
        """This batch's (slot, files): those to write now (earlier ones held
        among them), and the slots whose files are on disk as they are
        (``on_disk``: nothing to write); the others are held."""
        now = {slot for slot, _files in shown}
        ready = [(slot, files) for slot, files in self.pending.items() if slot not in now]
        for slot, files in ready:
            del self.pending[slot]
            self.size -= _bytes_of(files)
        there: list[tuple[tuple[str, str], dict[str, bytes]]] = []
        for slot, files in shown:
            before = self.pending.pop(slot, None)
            if before is not None:
                self.size -= _bytes_of(before)
            if not files or self.size + _bytes_of(files) > self.HELD_BYTES:
                ready.append((slot, files))
            elif slot in self.last:
                self.pending[slot] = files
                self.size += _bytes_of(files)
            elif on_disk(files):
                there.append((slot, files))
            else:
                self.pending[slot] = files
                self.size += _bytes_of(files)
        self.last = now
        return ready, there


def _free_name(folder: str, stem: str, suffix: str) -> str:
    """``stem + suffix``, or ``stem-2 + suffix``, … : the first name no file in ``folder`` (``.baton/``)
    holds (relative to it)."""
    name, n = stem + suffix, 1
    while os.path.lexists(os.path.join(folder, name)):
        n += 1
        name = f"{stem}-{n}{suffix}"
    return name


def _bytes_of(files: dict[str, bytes]) -> int:
    return sum(len(data) for data in files.values())


def _holds(target: str, data: bytes, rel: str) -> bool:
    """Whether the file ``target`` (``.baton/REL``) holds exactly ``data`` (then
    a replay leaves it alone). One ``open`` with ``O_NOFOLLOW`` and one read
    of at most one byte more than ``data``: a missing or unreadable file
    holds nothing.

    Raises:
        StorageError: ``target`` is a symbolic link (``_inside``'s refusal).
    """
    try:
        fd = os.open(target, os.O_RDONLY | _NOFOLLOW)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise StorageError(f"refusing to materialize {rel!r}: it is a symbolic link") from None
        return False
    try:
        held = os.read(fd, len(data) + 1)
        while len(held) < len(data) + 1:  # a short read (not at the end of the file): read on
            more = os.read(fd, len(data) + 1 - len(held))
            if not more:
                break
            held += more
        return held == data
    except OSError:
        return False
    finally:
        os.close(fd)


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _inode(path: StrPath) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def _vanished_pause(attempt: int) -> None:
    """Wait before attempt ``attempt + 2`` at an index deleted under this
    process: whoever deletes it removes three files one after the other
    (``index.sqlite``, ``-wal``, ``-shm``), so a fresh index created at once
    can lose its file to the same removal; the random share keeps writers
    that lost theirs together from trying again together (drawn from
    ``os.urandom``: ``random`` would cost every process ~0.5 ms to import
    for a pause almost none of them takes)."""
    ceiling = min(VANISHED_PAUSE * 2 ** attempt, VANISHED_PAUSE_MAX)
    time.sleep(ceiling / 2 * (1 + int.from_bytes(os.urandom(2), "big") / 0xFFFF))


def _is_full(exc: sqlite3.Error) -> bool:
    """The index could not be written for want of space (``SQLITE_FULL``)."""
    return getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "disk is full" in str(exc)


def _is_corruption(exc: sqlite3.Error) -> bool:
    """A damaged file (not a lock or a full disk): the index must be rebuilt."""
    if isinstance(exc, sqlite3.OperationalError):
        return False
    return isinstance(exc, sqlite3.DatabaseError)


def _up_to(events: Iterable[Event], until: Until) -> Iterator[Event]:
    """The events of a replay up to ``until``: through the event with its
    id, or every event at or before its time (project order is by hlc).

    Raises:
        NotFound: (at the end) no event has ``until.event_id``.
    """
    if until.event_id is not None:
        for event in events:
            yield event
            if event.id == until.event_id:
                return
        raise NotFound(f"no event with id {until.event_id} in the ledger")
    assert until.hlc is not None
    for event in events:
        if event.hlc > until.hlc:
            return
        yield event


def snapshot_equal(a: dict[str, dict[str, Any]], b: dict[str, dict[str, Any]]) -> bool:
    return orjson.dumps(a, option=orjson.OPT_SORT_KEYS) == orjson.dumps(b, option=orjson.OPT_SORT_KEYS)
