"""Copies of a feed that differ only by erased payloads (``baton forget`` here or on another replica).

A feed that is no fast-forward only because one copy has payloads erased
becomes, in every copy, the line-by-line union — a line erased where either
copy erased it — plus the longer copy's further lines. The local file is
rewritten (staged, like an import) and the ref gets the merged feed. A
difference that is not an erasure a ``handoff.forgotten`` names is refused.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Callable

from baton.errors import LedgerCorrupt, StorageError
from baton.ledger.erase import NotAnErasure, erase_lines, forgotten_ids, merge_erasures
from baton.ledger.feed import CHUNK_BYTES, FeedHead, FeedScan, scan_bytes
from baton.model import mutable
from baton.sync.ledger_ref import BadRefFeed, FeedTreeWriter
from baton.sync.refusals import Refuse, RefusedFeed, own_feed_refusal, problem_of
from baton.sync.work import Round

if TYPE_CHECKING:
    from baton.sync.ledger_ref import RefFeed


class Told:
    """``ReadCount.erasing`` told ``(events checked, of how many)`` as a feed whose copies
    differ by erased payloads is checked whole, one pass per copy (the local file, the
    local ref's copy, the remote's, the merged feed): only for a feed of more than one
    chunk (``CHUNK_BYTES``), as the first sync's publishing progress."""

    def __init__(self, show: "Callable[[int, int], None] | None", total: int) -> None:
        self.show, self.total, self.checked = show, max(total, 1), 0

    def passed(self, data: bytes, scan: FeedScan) -> FeedScan:
        self.checked += data.count(b"\n")
        if self.show is not None:
            self.show(min(self.checked, self.total - 1), self.total)
        return scan

    def done(self) -> None:
        if self.show is not None and self.checked:
            self.show(self.total, self.total)
            self.show = None


class LazyIds:
    """A set of ids computed the first time it is asked about."""

    def __init__(self, compute: Callable[[], set[str]]) -> None:
        self._compute = compute
        self._ids: set[str] | None = None

    def __contains__(self, item: object) -> bool:
        if self._ids is None:
            self._ids = self._compute()
        return item in self._ids


@mutable
class _Merged:
    """The union of the local file's sound lines and the ref's copies."""

    data: bytes
    erased_here: list[str]
    """Ids of the events whose payloads the local file must erase."""
    remote_bytes: bytes | None
    base_bytes: bytes | None
    ref_erased: int
    """Payloads erased on the ref's copy (the local file had them erased already)."""


def reconcile_erasures(work: Round, feed: str, refused: RefusedFeed) -> bool:
    """Reconcile ``feed``'s copies when they differ by erasures (see the module).

    Returns False when no copy differs by an erasure (the refusal stands).

    Raises:
        Refuse: a difference that is not an erasure a ``handoff.forgotten`` names.
    """
    base, remote = _sound(work.base.get(feed)), _sound(work.remote.get(feed))
    st = work.local.stat(feed)
    raw = work.local.read_whole(feed, st.st_size) if st is not None else b""
    if st is not None:  # ``forgotten_ids_of`` reads every feed: this one not again
        work.local.whole[feed] = raw
    told = Told(work.local.count.erasing if len(raw) > CHUNK_BYTES else None,
                raw.count(b"\n") * (2 + (base is not None) + (remote is not None)))
    try:
        return _reconcile(work, feed, refused, raw, st, told)
    finally:
        told.done()  # the progress line closed, whatever the outcome


def _reconcile(work: Round, feed: str, refused: RefusedFeed, raw: bytes, st, told: Told) -> bool:
    base, remote = _sound(work.base.get(feed)), _sound(work.remote.get(feed))
    try:
        local_head = told.passed(raw, scan_bytes(feed, raw, FeedHead())).head
    except LedgerCorrupt as exc:
        raise Refuse(problem_of(feed, "local", exc)) from None
    ours, torn = raw[:local_head.offset], raw[local_head.offset:]
    merged = _merge_copies(work, feed, ours, base, remote, told)
    if merged is None:
        return False
    try:
        head = told.passed(merged.data, scan_bytes(feed, merged.data, FeedHead(), at_end=False)).head
    except LedgerCorrupt as exc:  # the longer copy's further lines do not continue the other's
        raise Refuse(problem_of(feed, "remote", exc)) from None
    prefix, tail = _rewrite_local(work, feed, ours, torn, merged, refused)
    if tail and feed == work.project.writer and not work.restore_own:
        raise Refuse(own_feed_refusal(feed, work.remote[feed]))
    if tail:
        stage_tail(work, feed, tail, scan_bytes(feed, prefix, FeedHead()).head, len(prefix) + len(torn))
    _settle_ref(work, feed, merged, head, base, remote, bool(tail))
    if st is not None and feed not in work.rewrites and not tail:
        work.synced(feed, st.st_ino, head)
    return True


def _may_catch_up(work: Round, feed: str) -> bool:
    """The local file may be shorter than the local ref's copy: another writer's feed (a restored
    backup's copy of its former feed, caught up like any teammate's), or this clone's own given
    ``restore_own_feed``. Its own feed otherwise is refused (``own_feed_way_back`` names the way)."""
    return feed != work.project.writer or work.restore_own


def _sound(copy: "RefFeed | None") -> "RefFeed | None":
    return copy if copy is not None and copy.problem is None else None


def _merge_copies(work: Round, feed: str, ours: bytes, base: "RefFeed | None",
                  remote: "RefFeed | None", told: Told) -> _Merged | None:
    """The local lines merged with the local ref's copy, then the remote's;
    None when a copy differs by something other than an erasure."""
    forgotten = LazyIds(lambda: forgotten_ids_of(work))  # read only if some line differs
    merged = _Merged(ours, [], None, None, 0)
    touched = False
    try:
        for side, copy in (("local", base), ("remote", remote)):
            if copy is None:
                continue
            data = work.ref_bytes(copy, keep=True)  # the remote's copy is often the local ref's: read once
            if side == "remote":
                merged.remote_bytes = data
            else:
                merged.base_bytes = data
            try:
                told.passed(data, scan_bytes(feed, data, FeedHead(), at_end=False))  # every line of the copy sound
            except LedgerCorrupt as exc:
                raise Refuse(problem_of(feed, side, exc)) from None
            try:
                merge = merge_erasures(merged.data, data, forgotten)
            except NotAnErasure as exc:
                if not exc.unnamed:
                    return None  # not an erasure at all: the fast-forward refusal stands
                blame = "local" if exc.side == "ours" or side == "local" else "remote"
                raise Refuse(RefusedFeed(feed, blame, "not_fast_forward", exc.seq,
                                         f"the {blame} feed {feed} differs from the other copy by an "
                                         f"erasure nobody recorded: {exc.message}")) from None
            if side == "local" and merge.theirs_lines > merge.ours_lines and not _may_catch_up(work, feed):
                return None  # this clone's own feed lost lines it had published: cut, not erased
            if merge.erased_in_ours or merge.erased_in_theirs:
                touched = True
            if side == "remote" or remote is None:
                merged.ref_erased = len(merge.erased_in_theirs)
            merged.erased_here.extend(merge.erased_in_ours)
            work.erased_payloads.extend(merge.erased_payloads)
            merged.data = merge.data
    except BadRefFeed as exc:
        raise Refuse(RefusedFeed(feed, "remote", "bad_ref", None, str(exc))) from None
    return merged if touched else None


def _rewrite_local(work: Round, feed: str, ours: bytes, torn: bytes, merged: _Merged,
                   refused: RefusedFeed) -> tuple[bytes, bytes]:
    """Stage the local file's rewrite (its lines with the payloads erased);
    returns the merged lines the local file has (``prefix``) and those beyond (``tail``)."""
    cut = 0
    for _ in range(ours.count(b"\n")):
        cut = merged.data.index(b"\n", cut) + 1
    prefix, tail = merged.data[:cut], merged.data[cut:]
    if merged.erased_here:
        rewritten, _count = erase_lines(ours, frozenset(merged.erased_here))
        if rewritten != prefix:  # the erased lines are not byte for byte what this version writes
            raise Refuse(RefusedFeed(feed, "remote", "not_fast_forward", refused.seq,
                                     f"the erased lines of feed {feed} are not written as this version "
                                     "writes them; upgrade Baton on every replica"))
        work.rewrites[feed] = prefix + torn
        work.erased[feed] = len(merged.erased_here)
        work.erased_ids[feed] = list(merged.erased_here)
    return prefix, tail


def _settle_ref(work: Round, feed: str, merged: _Merged, head: FeedHead, base: "RefFeed | None",
                remote: "RefFeed | None", tail: bool) -> None:
    """What the ref holds from now on: a copy that is the merged feed, else the merged feed packed anew."""
    if remote is not None and merged.data == merged.remote_bytes:
        work.out[feed] = remote
    elif base is not None and merged.data == merged.base_bytes and remote is None:
        work.out[feed] = base
    else:
        writer = FeedTreeWriter(work.repo, feed, None)
        writer.add(merged.data)
        work.out[feed] = writer.finish(head)
        if merged.ref_erased:
            work.ref_erased[feed] = merged.ref_erased
        shared = (merged.remote_bytes if remote is not None else merged.base_bytes) or b""
        beyond = merged.data.count(b"\n") - shared.count(b"\n")
        if beyond > 0 and not tail:
            work.published[feed] = beyond


def stage_tail(work: Round, feed: str, tail: bytes, after: FeedHead, size: int) -> None:
    """Stage the merged lines beyond the local file, as an import."""
    staging = work.staging(feed)
    try:
        staging.parent.mkdir(parents=True, exist_ok=True)
        with open(staging, "wb") as out:
            out.write(tail)
            out.flush()
            os.fsync(out.fileno())
    except OSError as exc:
        raise StorageError(f"cannot stage the remote's feed {feed}: {exc}") from exc
    work.staged.append((feed, staging, after, size))
    work.imported[feed] = tail.count(b"\n")
    work.imported_ids[feed] = [(e.id, e.seq) for e in scan_bytes(feed, tail, after).events]


def forgotten_ids_of(work: Round) -> set[str]:
    """Every id a sound ``handoff.forgotten`` names, in the local feeds and
    the remote's (a forget recorded on any replica); read once per round."""
    if work.forgotten is not None:
        return work.forgotten
    found: set[str] = set()
    for name in work.local.names():
        st = work.local.stat(name)
        if st is None:
            continue
        for line in work.local.read_whole(name, st.st_size).split(b"\n"):
            found.update(forgotten_ids(line))
    for copy in work.remote.values():
        if copy.problem is not None:
            continue
        try:
            data = work.ref_bytes(copy)
        except BadRefFeed:
            continue
        for line in data.split(b"\n"):
            found.update(forgotten_ids(line))
    work.forgotten = found
    return found
