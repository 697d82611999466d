"""A feed whose lines end in CRLF: an editor on Windows or a line-ending
conversion (git's ``core.autocrlf``, ``unix2dos``) rewrote the file.

Baton writes every line ending in LF alone. A CR before it is JSON whitespace,
so every event still parses and verifies, but each line is a byte longer: the
index's cursors point between events, and a sync finds this clone's own feed no
longer extends what its ledger ref holds. ``baton repair --yes`` puts the line
endings back (``put_back_lf``); nothing else in the file changes (a JSON string
holds no raw CR or LF, so a CR before an LF is never part of an event). A line
converted twice (``\r\r\n``: a CRLF file run through a converter again) is put
back in the same repair: every CR right before an LF goes, as a JSONL line ends
in exactly one LF.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import baton.ledger.files as files
from baton.errors import StorageError

CRLF = b"\r\n"
CRS_BEFORE_LF = re.compile(rb"\r+\n")
"""A line's ending with every CR an editor or converter put before its LF (one per conversion)."""


COUNT_CHUNK_BYTES = 1 << 20
"""How much of a feed ``crlf_lines`` holds at a time: ``verify`` counts every
feed, and a whole 141 MB feed read at once was most of its peak memory."""


def crlf_lines(path: Path | str) -> int:
    """How many lines of the feed at ``path`` end in CRLF (0 when it cannot be
    read), read ``COUNT_CHUNK_BYTES`` at a time up to the size it had when
    opened: a CR ending one chunk and the LF starting the next count once."""
    try:
        fd = files.open_feed(str(path), os.O_RDONLY)
    except OSError:
        return 0
    try:
        left, at, count, cr = os.fstat(fd).st_size, 0, 0, False
        while left > 0:
            chunk = os.pread(fd, min(left, COUNT_CHUNK_BYTES), at)
            if not chunk:
                break
            count += chunk.count(CRLF) + (cr and chunk[:1] == b"\n")
            cr = chunk[-1:] == b"\r"
            at += len(chunk)
            left -= len(chunk)
        return count
    except OSError as exc:
        raise StorageError(f"cannot read feed {path}: {exc}") from exc
    finally:
        os.close(fd)


def crlf_feeds(ledger_dir: Path) -> dict[str, int]:
    """Each feed of ``ledger_dir`` with lines ending in CRLF: feed → how many
    (regular files only: a link or a FIFO is never read)."""
    found: dict[str, int] = {}
    try:
        names = sorted(os.listdir(ledger_dir))
    except OSError:
        return found
    for name in names:
        path = Path(ledger_dir) / name
        if not name.endswith(".jsonl") or path.is_symlink() or not path.is_file():
            continue
        n = crlf_lines(path)
        if n:
            found[name[: -len(".jsonl")]] = n
    return found


def put_back_lf(baton_dir: Path, feed: str, *, fsync: bool = True) -> int:
    """Rewrite feed ``feed`` with every CRLF line ending as LF (every CR before its LF
    gone, ``\r\r\n`` too: the file as Baton wrote it, byte for byte), under the ledger's
    write lock (a new file renamed over it, as a repair rewrites a feed); returns
    how many lines it changed.

    Raises:
        StorageError: the lock, the read or the write failed; the feed is as it was.
    """
    with files.locked_whole_feed(baton_dir, feed) as (path, raw):
        n = raw.count(CRLF)
        if n:
            # ``.repair.<pid>.<hex>``: a killed rewrite's file is a known leftover (``commands.leftovers``)
            files.replace_whole(path, CRS_BEFORE_LF.sub(b"\n", raw), tmp_prefix=".repair",
                                failure=f"could not put back the line endings of {path}")
            if fsync:
                files.fsync_dir(path.parent)
        return n
