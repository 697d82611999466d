"""Each feed of a round decided: a fast-forward taken, imported or published, or refused.

Every feed has one writer, so the union of the copies is a set of
fast-forwards. A feed that is not one (two machines writing under one writer
id, a rewritten history) is refused — unless its copies differ only by
erased payloads (``baton.sync.erasures``) — and the ref keeps what the remote
holds for it: nothing is merged by text, nothing a remote holds is dropped.
This clone's own feed is written here alone: a remote copy never extends it,
unless the clone was restored from a backup (``restore_own_feed``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import attrs

from baton.errors import LedgerCorrupt
from baton.ledger.feed import FeedHead, is_writer_id
from baton.sync.erasures import reconcile_erasures
from baton.sync.ids import repeated_ids
from baton.sync.importing import import_feed, write_staged
from baton.sync.local import last_bytes
from baton.sync.publish import REWRITTEN, own_feed_way_back, pack_local
from baton.sync.refusals import KEEP_REMOTE, Refuse, RefusedFeed, own_feed_refusal, problem_of
from baton.sync.work import Round

if TYPE_CHECKING:
    from baton.sync.ledger_ref import RefFeed


def run(work: Round) -> None:
    """Decide every feed, refuse the imports repeating an event id, then write
    what was staged (the id cache learns the imported ids)."""
    find_strays(work)
    names = sorted(set(work.local.names()) | set(work.local.strays) | set(work.base) | set(work.remote))
    for feed in names:
        try:
            decide_feed(work, feed)
        except Refuse as refusal:
            refuse(work, feed, refusal.refused)
        else:
            note_behind(work, feed)
        finally:  # what was kept to read this feed once is not held through the round
            work.local.whole.pop(feed, None)
            work.kept_copies.clear()
    try:
        torn = {feed: local.offset for feed, _staging, local, size in work.staged if size > local.offset}
        problems, keep = repeated_ids(work.imported_ids, work.ids, torn)
        work.keep_remote.update(keep)
        for feed, refused in problems:
            refuse(work, feed, refused)
        appended = {feed: (local.offset, last_bytes(staging)) for feed, staging, local, size in work.staged
                    if size == local.offset}
        write_staged(work)
        if appended and work.imported_ids:
            work.ids.record_imported(appended, work.imported_ids, work.out)
    finally:
        work.ids.close()


def find_strays(work: Round) -> None:
    """The ``*.jsonl`` files in the ledger folder that are no feed, as ``verify`` finds them
    (``feed.stray_files``): named no writer id, or named for writer B but holding another writer's
    events. Neither is published as a feed nor refused: the feed named B is decided as if this clone
    had no file for it (``fast_forward``), and a remote's real feed B takes its place once the copy is
    moved aside (``importing.move_stray_aside``). This clone's own feed is never judged so, and a
    file unchanged since the last sync (the feed it published) is not read again."""
    for name in work.local.unnamed():
        work.strays[name] = None
    for feed in work.local.names():
        if feed == work.project.writer:
            continue
        st = work.local.stat(feed)
        if st is None or unchanged(work, feed, st, work.base.get(feed)):
            continue
        writer = work.local.copy_of(feed)
        if writer is not None:
            work.strays[f"{feed}.jsonl"] = writer
            work.local.strays.add(feed)


def unchanged(work: Round, feed: str, st, base: "RefFeed | None") -> bool:
    """The file is as the last sync left it (its inode, size and head): the ref's copy ``base`` holds it."""
    return base is not None and base.problem is None and base.head.offset == st.st_size \
        and work.state.get(feed) == {"ino": st.st_ino, "size": st.st_size, "hash": base.head.hash}


def note_behind(work: Round, feed: str) -> None:
    """The remote holds less of ``feed`` than it held before, as this clone
    saw it (its ref was reset, or another clone dropped a copy it refused):
    the push puts it back, and the sync says so. What the remote *held*
    counts, not what this clone's ref holds: a commit whose push failed
    (a race, a refused push) was never the remote's."""
    remote, out, acked = work.remote.get(feed), work.out.get(feed), work.acked.get(feed)
    if not work.remote_exists or acked is None or out is None or out.problem is not None:
        return
    had = remote.head.seq if remote is not None and remote.problem is None else 0
    if had < acked <= out.head.seq:
        work.behind[feed] = {"remote_seq": had, "published_seq": acked}


def refuse(work: Round, feed: str, refused: RefusedFeed) -> None:
    work.refused.append(refused)
    work.out.pop(feed, None)
    work.published.pop(feed, None)
    kept = kept_copy(work, feed, refused)
    if kept is not None:
        work.out[feed] = kept
    elif feed in work.remote:
        work.dropped.append(feed)
    work.drop_staged(feed)
    work.imported_ids.pop(feed, None)


def kept_copy(work: Round, feed: str, refused: RefusedFeed) -> "RefFeed | None":
    """What the ref holds for a refused feed. Never a folder that could
    not be read (it would be written back in another shape), and never a
    remote copy that failed verification (the clone would spread it): then
    the copy this clone published before, if it differs, else nothing —
    the remote loses that copy, and its writer's next sync publishes the
    feed again. A copy that is sound but not taken (not a fast-forward,
    not signed as required) stays as the remote holds it."""
    remote, base = work.remote.get(feed), work.base.get(feed)
    remote = remote if remote is not None and remote.problem is None else None
    base = base if base is not None and base.problem is None else None
    if refused.side == "local":
        return remote or base
    if feed == work.project.writer:  # the local file is authoritative for this clone's own feed
        mine = work.local_trees.get(feed) or base
        if mine is not None:
            return mine
        return remote if refused.kind in KEEP_REMOTE or refused.kind == "own_feed" else None
    if (refused.kind in KEEP_REMOTE or feed in work.keep_remote) and remote is not None:
        return remote
    if base is not None and (remote is None or base.tree != remote.tree):
        return base
    return None


def decide_feed(work: Round, feed: str) -> None:
    # -- signed feeds (baton/sync/signatures.py): the remote's head checked before any of it is taken
    if work.signatures is not None:
        unsigned = work.signatures.check_remote(feed, work.remote.get(feed), work.base.get(feed))
        if unsigned is not None:
            raise Refuse(unsigned)
    try:
        fast_forward(work, feed)
    except Refuse as refusal:
        if refusal.refused.kind != "not_fast_forward":
            raise
        work.drop_staged(feed)
        work.published.pop(feed, None)
        if not reconcile_erasures(work, feed, refusal.refused):
            if feed == work.project.writer and refusal.refused.side == "remote":
                raise Refuse(own_feed_refusal(feed, work.remote[feed], feed in work.local_trees)) from None
            refused, base, st = refusal.refused, work.base.get(feed), work.local.stat(feed)
            if feed == work.project.writer and refused.side == "local" and refused.message.endswith(REWRITTEN) \
                    and base is not None and base.problem is None and st is not None:
                raise Refuse(attrs.evolve(refused, message=refused.message + own_feed_way_back(
                    work, feed, base, st.st_size))) from None  # the one remedy that works, named
            raise


def fast_forward(work: Round, feed: str) -> None:
    base, remote = work.base.get(feed), work.remote.get(feed)
    if not is_writer_id(feed):  # a name from a remote becomes a file name: never a path
        raise Refuse(RefusedFeed(feed, "remote", "bad_ref", None,
                                 f"{feed!r} is not a writer id ([a-z0-9-], at most 64)"))
    malformed = None
    if remote is not None and remote.problem is not None:
        malformed = RefusedFeed(feed, "remote", "bad_ref", None, remote.problem)
        if feed != work.project.writer:
            raise Refuse(malformed)
        remote = None  # this clone's own feed: refused once its own copy is packed (the ref gets that)
    if base is not None and base.problem is not None:
        base = None  # our own ref's copy is unreadable: rebuilt from the file
    # a stray copy under this feed's name is no file of it: decided as if there were none
    st = None if feed in work.local.strays else work.local.stat(feed)
    size = st.st_size if st is not None else 0
    if st is not None and base is not None and unchanged(work, feed, st, base):
        local = base.head  # unchanged since the last sync: not opened
        tree = base
    elif st is None:
        local, tree = FeedHead(), None
    elif work.restore_own and feed == work.project.writer and any(
            c is not None and c.head.offset > size for c in (base, remote)):
        local, tree = file_head(work, feed, size), None  # restored from a backup: the rest comes from the remote
    elif feed != work.project.writer and base is not None and base.head.offset > size:
        # another writer's feed the local ref holds more of than the file: a copy kept as the remote
        # held it and not taken (not signed as required, an id repeated); once the remote's copy is
        # taken, what it has beyond the file is imported, verified as any import (a copy that does
        # not continue the file is refused as before); a forget here makes the file shorter, so its
        # first sync reads it whole: told as the check of copies that differ by erased payloads
        local, tree = file_head(work, feed, size, work.local.count.erasing, keep=True), None
    else:
        local, tree = pack_local(work, feed, base, remote, size)
    if tree is not None:
        work.local_trees[feed] = tree
    if malformed is not None:
        raise Refuse(malformed)
    if remote is not None and remote.head.offset > local.offset:
        if feed == work.project.writer and not work.restore_own:  # nobody else appends to it
            raise Refuse(RefusedFeed(feed, "remote", "not_fast_forward", remote.head.seq,
                                     f"the remote's copy of feed {feed} is longer than the local file"))
        import_feed(work, feed, remote, local, st)
        work.out[feed] = remote
        return
    if remote is not None and not extends(work, feed, remote, local, tree, base):
        raise Refuse(RefusedFeed(feed, "remote", "not_fast_forward", remote.head.seq,
                                 f"the remote's feed {feed} (seq {remote.head.seq}) is not a prefix of the "
                                 f"local one (seq {local.seq}): two writers share this id, or a history "
                                 "was rewritten"))
    if tree is None:
        if base is not None and not dropped_untaken(work, feed, st, remote):
            work.out[feed] = base  # the local file is gone: the ref keeps what it had
        return
    work.out[feed] = tree
    if st is not None:
        work.synced(feed, st.st_ino, tree.head)


def dropped_untaken(work: Round, feed: str, st, remote: "RefFeed | None") -> bool:
    """Whether the remote no longer holds a copy of another writer's feed that
    this clone never took (kept on its ref as the remote held it: not signed
    as required, not a fast-forward, an id repeated), so its ref lets it go
    too: a clone never puts back what it refused to trust — a feed someone
    removed from the remote stays removed (the writer's own clone publishes
    its feed again, if it is the writer's). A feed whose file this clone held
    (synced, then deleted by hand) is still kept."""
    return remote is None and st is None and feed != work.project.writer and work.state.get(feed) is None


def file_head(work: Round, feed: str, size: int, show: "Callable[[int, int], None] | None" = None,
              keep: bool = False) -> FeedHead:
    """The local file's last sound event, read a chunk at a time (``show``: told
    ``(events read, about how many)``, the rate so far to the file's end, as ``pack_local`` tells);
    ``keep``: the bytes read are kept whole for the rest of this feed's decision
    (``LocalFeeds.whole``: a feed a forget here made shorter is read again whole to
    reconcile the erasures, and is then not read twice)."""
    head, events = FeedHead(), 0
    parts: list[bytes] = []
    try:
        for lines, scan in work.local.sound_lines(feed, head, size):
            head = scan.head
            events += len(scan.events)
            if keep:
                parts.append(lines)
            if show is not None and head.offset:
                show(events, max(events, events * size // head.offset))
    except LedgerCorrupt as exc:
        raise Refuse(problem_of(feed, "local", exc)) from None
    if keep:
        if head.offset < size:  # a torn tail: the lines after the last sound one, read once more
            parts.append(work.local.read(feed, head.offset, size - head.offset))
        work.local.whole[feed] = b"".join(parts)
    return head


def extends(work: Round, feed: str, remote: "RefFeed", local: FeedHead, tree: "RefFeed | None",
            base: "RefFeed | None") -> bool:
    """The remote's copy is a prefix of the local feed (it is not longer)."""
    if (remote.head.offset, remote.head.hash) == (local.offset, local.hash):
        return True
    for known in (base, tree):
        if known is not None and known.tree == remote.tree:
            return True
    if remote.head.offset == local.offset:
        return False
    return work.local.holds(feed, remote.head)
