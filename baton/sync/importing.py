"""Importing a remote's feed: its bytes after the local head verified and staged.

Every line's hash and digest, the chain from the local head, seq and hlc are
checked before any byte is written; the staged bytes join the local feeds
only once every feed of the round is decided (``write_staged``), the
erasures first.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
import orjson

from baton.errors import DiskFull, LedgerCorrupt, StorageError
from baton.ledger import files
from baton.ledger.erase import replace_feed
from baton.ledger.feed import FeedHead, line_hashes_to, scan_bytes
from baton.ledger.ids import uuid7
from baton.sync.ledger_ref import BadRefFeed, feed_bytes
from baton.sync.local import ERASURE_PENDING, LocalFeeds, touch, unlink
from baton.sync.refusals import Refuse, RefusedFeed, problem_of
from baton.sync.segments import line_in_segment, segment_before
from baton.sync.work import Round

if TYPE_CHECKING:
    from baton.sync.ledger_ref import RefFeed


def import_feed(work: Round, feed: str, remote: "RefFeed", local: FeedHead, st: os.stat_result | None) -> None:
    """Verify the remote's bytes after ``local`` and stage them (written
    once every feed is verified)."""
    staging = work.staging(feed)
    staging.parent.mkdir(parents=True, exist_ok=True)
    head, events = local, 0
    # A batch a segment ends inside (the packer cuts at any line): its first
    # lines are carried and read whole with the next segment.
    carry = b""
    ids: list[tuple[str, int]] = []
    try:
        with open(staging, "wb") as out:
            for offset, data in feed_bytes(work.repo, remote, segment_before(remote, local.offset)):
                work.local.count.segments += 1
                if offset < head.offset:  # the segment holding the local head's line: check it, skip it
                    line = line_in_segment(data, head.offset - offset)
                    if not line_hashes_to(line, local.hash):
                        raise Refuse(RefusedFeed(
                            feed, "remote", "not_fast_forward", local.seq,
                            f"the remote's feed {feed} differs from the local one at or before seq "
                            f"{local.seq}: two writers share this id, or a history was rewritten"))
                    data, offset = data[head.offset - offset:], head.offset
                    if not data:
                        continue
                if offset != head.offset + len(carry):
                    raise Refuse(RefusedFeed(feed, "remote", "not_fast_forward", remote.head.seq,
                                             f"the remote's feed {feed} does not continue the local one "
                                             f"at byte {head.offset + len(carry)}"))
                if carry:
                    data, carry = carry + data, b""
                scan = scan_bytes(feed, data, head, at_end=False)
                if scan.torn is not None:
                    raise Refuse(RefusedFeed(feed, "remote", "torn", head.seq + 1,
                                             f"the remote's feed {feed} has a line cut short at byte "
                                             f"{scan.torn.offset}"))
                read = scan.head.offset - head.offset
                ids.extend((event.id, event.seq) for event in scan.events)
                out.write(data[:read] if read < len(data) else data)
                carry = data[read:] if read < len(data) else b""
                head, events = scan.head, events + len(scan.events)
            if carry:
                raise Refuse(RefusedFeed(feed, "remote", "torn", head.seq + 1,
                                         f"the remote's feed {feed} ends inside a batch begun at byte "
                                         f"{head.offset}"))
            # not fsynced here: the feed it is appended to is (once per import), and a
            # new feed's staged file just before it is renamed into place
    except LedgerCorrupt as exc:
        problem = problem_of(feed, "remote", exc)
        if problem.kind in ("fork", "broken_chain") and problem.seq == local.seq + 1:
            problem = attrs.evolve(problem, kind="not_fast_forward",
                                   message=f"the remote's feed {feed} does not continue the local one "
                                           f"after seq {local.seq}: {problem.message}")
        raise Refuse(problem) from None
    except BadRefFeed as exc:
        raise Refuse(RefusedFeed(feed, "remote", "bad_ref", None, str(exc))) from None
    except OSError as exc:
        unlink(staging)  # a staged file cut short is no use to the next sync, and holds room a full disk lacks
        raise no_room(work, f"the remote's feed {feed}", exc) or StorageError(
            f"cannot stage the remote's feed {feed}: {exc}") from exc
    except BaseException:
        unlink(staging)
        raise
    if (head.offset, head.seq, head.hash) != (remote.head.offset, remote.head.seq, remote.head.hash):
        raise Refuse(RefusedFeed(feed, "remote", "bad_head", remote.head.seq,
                                 f"the remote's feed {feed} ends at seq {head.seq}, its head.json says "
                                 f"seq {remote.head.seq}"))
    work.staged.append((feed, staging, local, st.st_size if st is not None else 0))
    work.imported[feed] = events
    work.imported_ids[feed] = ids

# -- copies that differ by erased payloads (``baton forget``) ---------------------


def write_staged(work: Round) -> None:
    """Every remote feed checked out: now the verified bytes join the local
    feeds (the erasures first: an import may append to an erased feed)."""
    if work.rewrites:
        touch(work.project.paths.baton_dir / ERASURE_PENDING)
    for feed, data in work.rewrites.items():
        replace_feed(Path(work.local.path(feed)), data)
        if not any(s[0] == feed for s in work.staged):
            st = os.stat(work.local.path(feed))
            tree = work.out[feed]
            work.synced(feed, st.st_ino, tree.head)
    renamed = bool(work.rewrites)  # a file renamed into (or created in) the feeds' folder: it is fsynced too
    for at, (feed, staging, local, size) in enumerate(work.staged):
        target = work.local.path(feed)
        before: int | None = None
        try:
            if size == 0 and local.offset == 0:
                fd = os.open(staging, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
                if feed in work.local.strays:  # a stray copy holds the name: kept whole, out of the way first
                    move_stray_aside(work, feed)
                os.replace(staging, target)
                renamed = True
            else:
                if size > local.offset:
                    quarantine_tail(work.local, feed, local.offset)
                    renamed = True
                with open(staging, "rb") as source:
                    fd = files.open_feed(target, os.O_WRONLY | os.O_APPEND)
                    try:
                        before = os.fstat(fd).st_size
                        while chunk := source.read(1 << 20):
                            files.write_all(fd, chunk)
                        os.fsync(fd)
                    finally:
                        os.close(fd)
                unlink(staging)
        except OSError as exc:
            _undo_append(target, before)
            for _feed, left, *_ in work.staged[at:]:  # none of them is imported now: no .part left behind
                unlink(left)
            raise no_room(work, f"the imported feed {target}", exc) or StorageError(
                f"cannot write the imported feed {target}: {exc}") from exc
        st = os.stat(target)
        remote = work.out[feed]
        work.synced(feed, st.st_ino, remote.head)
    if renamed:  # an append to a feed changes no entry of the folder: the feed's own fsync holds it
        files.fsync_dir(work.local.dir)


def _undo_append(target: str, before: int | None) -> None:
    """Cut ``target`` back to the ``before`` bytes it held before an append that
    failed part way (a full disk): no torn line is left in a teammate's feed.
    Cutting frees room, so it works on a full disk; if it cannot, the torn tail
    is set aside (``quarantine/``) by the next write, as any torn tail is."""
    if before is None:
        return
    try:
        fd = files.open_feed(target, os.O_WRONLY)
        try:
            if os.fstat(fd).st_size > before:
                os.ftruncate(fd, before)
                os.fsync(fd)
        finally:
            os.close(fd)
    except (OSError, StorageError):
        pass


def no_room(work: Round, what: str, exc: OSError) -> DiskFull | None:
    """The refusal when writing ``what`` failed for want of space (``files.out_of_space``),
    with what to do; None for any other failure."""
    if not files.out_of_space(exc):
        return None
    baton_dir = work.project.paths.baton_dir
    return DiskFull(f"the disk holding {baton_dir} is full: sync could not write {what} ({exc.strerror}) and "
                    f"imported nothing more; {files.DISK_FULL_ADVICE} (what it wrote of that feed was taken back)",
                    details={"baton_dir": str(baton_dir)})


STRAY_SUFFIX = ".stray"
"""A stray copy sync moved into ``quarantine/`` (``<feed>.<uuid>.stray``); its note is ``….stray.json``."""


def move_stray_aside(work: Round, feed: str) -> None:
    """Move the file named for ``feed`` — a copy of another writer's events, no feed (``decide.find_strays``) —
    into ``quarantine/`` whole (a rename: not a byte rewritten), a note beside it saying what it is, so the
    remote's real feed of that name can be imported in its place. The note is written first: a sync killed
    before the rename leaves the copy where it was, and the next sync moves it."""
    path = Path(work.local.path(feed))
    if not path.exists():
        return
    name = f"{feed}.{uuid7()}{STRAY_SUFFIX}"
    writer = work.strays.get(f"{feed}.jsonl")
    note = {"file": f"{feed}.jsonl", "writer": writer, "moved_to": name, "bytes": path.stat().st_size,
            "why": f"named for writer {feed} but holding writer {writer}'s events, so no feed; `baton sync` "
                   f"moved it here to import the remote's feed {feed} in its place (docs/sync.md, "
                   "\"A stray copy in the ledger folder\")"}
    quarantine = work.local.quarantine
    quarantine.mkdir(parents=True, exist_ok=True)
    fd = os.open(quarantine / f"{name}.json", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        files.write_all(fd, orjson.dumps(note, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    os.rename(path, quarantine / name)
    files.fsync_dir(quarantine)
    work.moved.append({"file": f"{feed}.jsonl", "writer": writer, "to": f".baton/quarantine/{name}"})


def quarantine_tail(local: LocalFeeds, feed: str, offset: int) -> None:
    """Bytes after the sound end of a feed sync appends to (an import cut
    short by a crash): kept in ``quarantine/``, then cut off."""
    path = local.path(feed)
    tail = files.read_range(path, offset)
    local.quarantine.mkdir(parents=True, exist_ok=True)
    (local.quarantine / f"{feed}.{offset}.{uuid7()}.torn").write_bytes(tail)
    files.cut(path, offset, fsync=False)
