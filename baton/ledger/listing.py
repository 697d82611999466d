"""Which feeds a ledger folder holds, without listing it on every lock.

A long-lived writer lists the folder again only when the folder's ``(dev,
inode, mtime, ctime)`` moved: one ``stat`` instead of an open, two reads and
a close. Any entry created, removed or renamed moves those times — but only
to the file system's clock tick, so a listing is reused only when it was
taken once that clock had passed the folder's last change (an entry made
after it then has a later time, as git does with its racily clean index
entries). Two ways to know it had:

- a feed of the same file system was seen, by a ``stat`` that returned
  before the listing, with a change time above the folder's: only the
  kernel's clock sets a change time (``utime`` cannot), so the clock had
  passed the folder's change by then. A writer's own appends give it one
  within a clock tick. A change time ahead of the wall clock (a file system
  that stores times from elsewhere) is no witness;
- or the folder had not changed for ``SETTLED_NS`` of wall time, far above
  any file system's timestamp granularity (2 s on FAT).
"""

from __future__ import annotations

import os
import time

from baton.errors import StorageError
from baton.ledger.feed import first_writer, is_feed_file_name

SETTLED_NS = 5_000_000_000
"""How long the folder must have been unchanged, in wall time, before a
listing of it is reused without a witness."""

FolderKey = tuple[int, int, int, int]
"""A folder's ``(dev, inode, mtime_ns, ctime_ns)``."""


class FolderListing:
    """The feed names of one ledger folder, and the listing kept between calls.

    Safe to share between threads: the kept listing and the witness are
    each replaced whole, and read once per call.
    """

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.kept: tuple[FolderKey, tuple[str, ...]] | None = None
        """The folder's key and the feeds it held, when that listing may be reused."""
        self._clock: tuple[int, int] = (-1, 0)
        """``(dev, ctime)``: the witness, the latest change time seen on a feed of that file system."""
        self.own: str | None = None
        """This clone's writer: its feed is never judged a copy of another's (``feed.holds_another_writer``)."""
        self._copies: dict[tuple[str, int], bool] = {}
        """``(file name, inode)`` → whether it holds another writer's events: its first line never changes."""

    def names(self) -> tuple[tuple[str, ...], FolderKey | None, bool]:
        """The feeds (sorted names), the folder's key (None: no folder) and
        whether a kept listing was reused (no entry of the folder changed
        since it was taken).

        Raises:
            StorageError: the folder cannot be read.
        """
        try:
            st = os.stat(self.folder)
        except FileNotFoundError:
            self.kept = None
            return (), None, False
        except OSError as exc:
            raise StorageError(f"cannot list the ledger at {self.folder}: {exc}") from exc
        key = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
        kept = self.kept  # once: a server's threads may list at the same time
        if kept is not None and kept[0] == key:
            return kept[1], key, True
        listed_at = time.time_ns()
        # os.scandir and plain strings: pathlib's glob costs more than an append's write.
        try:
            with os.scandir(self.folder) as entries:
                names = tuple(sorted(e.name[:-6] for e in entries if is_feed_file_name(e.name)
                                     and e.is_file(follow_symlinks=False) and not self._another_writers(e)))
        except FileNotFoundError:
            self.kept = None
            return (), None, False
        except OSError as exc:
            raise StorageError(f"cannot list the ledger at {self.folder}: {exc}") from exc
        changed = max(st.st_mtime_ns, st.st_ctime_ns)
        seen_dev, seen = self._clock
        settled = (seen_dev == st.st_dev and changed < seen) or changed < listed_at - SETTLED_NS
        self.kept = (key, names) if settled else None
        return names, key, False

    def set_own(self, writer: str) -> None:
        """This clone's writer (again, after it changed): the next call lists the folder afresh."""
        self.own, self.kept = writer, None

    def _another_writers(self, entry: "os.DirEntry[str]") -> bool:
        """Whether the feed-named file ``entry`` holds another writer's events (a stray copy: no
        feed). Its first line is read once per file: a file without a whole one yet is asked again."""
        if entry.name[:-6] == self.own:
            return False
        key = (entry.name, entry.inode())
        known = self._copies.get(key)
        if known is not None:
            return known
        found = first_writer(entry.path)
        if found is None:
            return False
        copy: bool = found != entry.name[:-6]
        self._copies[key] = copy
        return copy

    def saw(self, st: os.stat_result) -> None:
        """Note the change time of a feed just ``stat``-ed (a witness for later listings)."""
        dev, seen = self._clock
        if (st.st_ctime_ns > seen or st.st_dev != dev) and st.st_ctime_ns <= time.time_ns():
            self._clock = (st.st_dev, st.st_ctime_ns)
