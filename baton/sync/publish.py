"""Publishing: the local feeds packed onto the ref, the commit the ref moves to, the push retried.

What the local file has beyond the longest copy it extends is packed onto
that copy (its segments kept, never re-hashed). The ref then moves to the
remote's commit when the union is what it holds, to the local ref's when
nothing changed, else to a new commit on both. A push that finds the remote
moved starts the round again, up to ``ATTEMPTS`` times, after a random pause
that doubles at each attempt (clones racing one remote spread out instead of
colliding again in step).
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING, Callable, TypeVar

from baton.domain.wording import counted
from baton.errors import LedgerCorrupt, RemoteUnreachable
from baton.ledger.erase import prefix_but_erased
from baton.ledger.feed import FeedHead
from baton.ledger.line_endings import crlf_lines
from baton.sync.erasures import LazyIds, forgotten_ids_of
from baton.sync.ledger_ref import FeedTreeWriter, write_commit
from baton.sync.refusals import Refuse, RefusedFeed, problem_of
from baton.sync.segments import batch_ends
from baton.sync.stale_locks import held_lock_message
from baton.sync.transport import RemoteMoved, transport_text
from baton.sync.work import Round

if TYPE_CHECKING:
    from baton.commands.context import Project
    from baton.sync.ledger_ref import RefFeed

ATTEMPTS = 5
"""Rounds a sync runs while the remote's ref keeps moving under its push."""
PAUSE = 0.1
"""Seconds: the most a sync waits before its second round; the bound doubles at each round after
(at most 1.5 s in all before the fifth). Each pause is drawn at random below its bound."""
T = TypeVar("T")


def pack_local(work: Round, feed: str, base: "RefFeed | None", remote: "RefFeed | None",
               size: int) -> tuple[FeedHead, "RefFeed"]:
    """Read what the local file has beyond the longest copy it extends
    (the local ref's or the remote's) and pack it onto that copy."""
    start = None
    candidates = sorted((c for c in (base, remote) if c is not None and c.head.offset <= size),
                        key=lambda c: -c.head.offset)
    for candidate in candidates:
        if work.local.holds(feed, candidate.head):
            start = candidate
            break
    if start is None and base is not None:
        crlf = crlf_lines(work.project.paths.ledger_dir / f"{feed}.jsonl")
        if crlf:  # not rewritten in substance: its line endings were converted (docs/ledger.md, "Line endings")
            raise Refuse(RefusedFeed(feed, "local", "not_fast_forward", base.head.seq,
                                     f"the local feed {feed} no longer extends what was synced before (seq "
                                     f"{base.head.seq}): {counted(crlf, 'line')} of it end in CRLF (\\r\\n), not LF "
                                     "(an editor or a line-ending conversion rewrote the file; every event is "
                                     "intact): `baton repair` given `yes` puts the line endings back, then `baton sync`"))
        raise Refuse(RefusedFeed(feed, "local", "not_fast_forward", base.head.seq,
                                 f"the local feed {feed} no longer extends what was synced before "
                                 f"(seq {base.head.seq}): {REWRITTEN}"))
    head = start.head if start is not None else FeedHead()
    writer = FeedTreeWriter(work.repo, feed, start)
    events, first, show = 0, head.offset, work.local.count.publishing
    try:
        for lines, scan in work.local.sound_lines(feed, head, size):
            writer.add(lines, batch_ends(scan, head.offset))
            events += len(scan.events)
            head = scan.head
            if show is not None and head.offset > first:  # about how many: the rate so far, to the file's end
                show(events, max(events, events * (size - first) // (head.offset - first)))
    except LedgerCorrupt as exc:
        raise Refuse(problem_of(feed, "local", exc)) from None
    if start is not None and not events:
        return head, start
    if events and (remote is None or head.offset > remote.head.offset):
        work.published[feed] = events
    return head, writer.finish(head)


REWRITTEN = "it was rewritten or cut"
"""How a local feed that no longer extends the ref's copy is refused (not a CRLF conversion): this
clone's own gets ``own_feed_way_back`` after it, once the refusal stands."""

RESTORE_WAY = "`baton sync` given `restore_own_feed` takes its published events back"
"""What mends this clone's own feed restored from a backup and not written to since (the file is a
prefix of what it published): the remote's longer copy imported, verified as any import."""

REPAIR_WAY = ("`baton repair` given `yes` puts it back as this clone's ledger ref holds it and sets the local "
              "events that do not follow it aside into .baton/quarantine/")
"""What mends this clone's own feed forked from what it published (``REPAIR_WAY``'s repair restores it)."""


def own_feed_way_back(work: Round, feed: str, base: "RefFeed", size: int) -> str:
    """The refusal's hint for this clone's own feed no longer extending what it published: the one
    remedy that works (asked only once the refusal stands: not for a feed a forget made shorter). A file
    that is a prefix of the ref's copy (a backup restored, nothing written since — payloads a forget
    erased after the backup left as the backup has them: ``erase.prefix_but_erased``) takes the rest
    back from the remote; one that forked from it (written to after a restore
    in place, or cut by a repair) can only be put back by ``baton repair`` — a sync given
    ``restore_own_feed`` is refused too (``own_feed``). Both copies are read whole: a refusal only."""
    ref, local = work.ref_bytes(base), work.local.read_whole(feed, size)
    if ref.startswith(local) or prefix_but_erased(local, ref, LazyIds(lambda: forgotten_ids_of(work))):
        return f" (a clone restored from a backup, nothing written since: {RESTORE_WAY})"
    return (" (it forked from that copy — a backup restored in place and written to since, or a repair that "
            f"cut the feed after it was synced — so a sync given `restore_own_feed` cannot mend it: {REPAIR_WAY})")


def commit_for(repo, work: Round, local_sha: bytes | None, remote_sha: bytes | None,
               project: "Project") -> bytes | None:
    """The commit the ref moves to: the remote's when the union is what it
    holds, the local ref's when nothing changed, else a new one on both."""
    if not work.out:
        return remote_sha or local_sha
    ours = {feed: f.tree for feed, f in work.out.items()}
    if remote_sha is not None and ours == {feed: f.tree for feed, f in work.remote.items()}:
        return remote_sha
    if local_sha is not None and ours == {feed: f.tree for feed, f in work.base.items()} and remote_sha is None:
        return local_sha
    parents = [sha for sha in dict.fromkeys((local_sha, remote_sha)) if sha is not None]
    writer = project.writer
    message = f"baton sync: {counted(len(work.out), 'feed')}\n"
    return write_commit(repo, work.out, parents, message, f"baton {writer} <{writer}@baton.invalid>".encode(),
                        project.clock() // 1_000_000_000)


def retrying(attempt: Callable[[int], T], ref: str, url: str, pause: Callable[[float], None] = time.sleep) -> T:
    """``attempt(n)`` for n = 1, 2, … until one is not raced by another push (``RemoteMoved``),
    ``pause``-ing a random moment below ``PAUSE * 2 ** (n - 1)`` seconds before attempt n + 1.

    Raises:
        RemoteUnreachable (exit 4): the ref moved during every attempt, or a lock kept blocking the push.
    """
    n = 1
    while True:
        try:
            return attempt(n)
        except RemoteMoved as moved:
            if n < ATTEMPTS:
                pause(random.uniform(0, PAUSE * 2 ** (n - 1)))  # clones racing spread out
                n += 1
                continue
            if moved.lock is not None:
                raise RemoteUnreachable(held_lock_message(moved.lock, ref, ATTEMPTS),
                                        details={"url": url, "lock": moved.lock}) from None
            why = f" (last: {transport_text(moved)})" if str(moved) else ""
            raise RemoteUnreachable(f"the remote's {ref} kept moving during {ATTEMPTS} attempts{why}; "
                                    "run `baton sync` again", details={"url": url}) from None
