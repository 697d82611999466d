"""One sync round's state: the three copies of every feed and what the round decided for each.

The steps that fill it are modules of their own: ``decide`` (each feed's
fast-forward and own-feed rules), ``importing`` (verifying and staging a
remote's bytes), ``publish`` (packing the local file onto the ref),
``erasures`` (copies that differ by erased payloads), ``ids`` (the
duplicate-id check).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from baton.ledger.feed import FeedHead
from baton.model import mutable
from baton.sync.ids import ID_CACHE, EventIds
from baton.sync.ledger_ref import feed_bytes
from baton.sync.local import INCOMING_DIR, LocalFeeds, ReadCount, unlink
from baton.sync.refusals import RefusedFeed

if TYPE_CHECKING:
    from baton.commands.context import Project
    from baton.sync.ledger_ref import RefFeed
    from baton.sync.signatures import FeedSignatures


@mutable
class Round:
    project: "Project"
    repo: Any
    local: LocalFeeds
    base: dict[str, "RefFeed"]
    """The local ledger ref's feeds (what the last sync published)."""
    remote: dict[str, "RefFeed"]
    """The remote's ledger ref's feeds."""
    state: dict[str, Any]
    """Each feed's inode, size and hash when last synced (``baton.sync.state``)."""
    ids: EventIds
    """The duplicate check's look-ups (the id cache, open until ``ids.close``)."""
    out: dict[str, "RefFeed"] = attrs.field(factory=dict)
    """Feed → what the ref holds after this round."""
    imported: dict[str, int] = attrs.field(factory=dict)
    published: dict[str, int] = attrs.field(factory=dict)
    refused: list[RefusedFeed] = attrs.field(factory=list)
    staged: list[tuple[str, Path, FeedHead, int]] = attrs.field(factory=list)
    """(feed, staging file, the local head it continues, the local file's size):
    written by ``importing.write_staged``."""
    new_state: dict[str, Any] = attrs.field(factory=dict)
    erased: dict[str, int] = attrs.field(factory=dict)
    ref_erased: dict[str, int] = attrs.field(factory=dict)
    rewrites: dict[str, bytes] = attrs.field(factory=dict)
    """Feed → the whole new file: its lines with payloads erased (written with the staged imports)."""
    erased_ids: dict[str, list[str]] = attrs.field(factory=dict)
    """Feed → the ids of the events whose payloads the local file erases this round."""
    erased_payloads: list[Any] = attrs.field(factory=list)
    forgotten: set[str] | None = None
    """Every event id a sound ``handoff.forgotten`` names, in the local feeds or
    the remote's (read once, when needed)."""
    signatures: "FeedSignatures | None" = None
    """Signed feeds: the round's ``baton.sync.signatures.FeedSignatures``."""
    dropped: list[str] = attrs.field(factory=list)
    """Remote feeds refused and not carried on the ref this clone pushes (the remote loses them)."""
    imported_ids: dict[str, list[tuple[str, int]]] = attrs.field(factory=dict)
    """Feed → the (id, seq) of every event staged for import."""
    kept_copies: dict[bytes, bytes] = attrs.field(factory=dict)
    """A ref's copy of a feed read whole (``ref_bytes`` given ``keep``), by its folder's tree
    id; cleared once that feed is decided."""
    local_trees: dict[str, "RefFeed"] = attrs.field(factory=dict)
    """Feed → its folder packed from the local file (what this clone publishes of it)."""
    keep_remote: set[str] = attrs.field(factory=set)
    """Feeds refused but kept as the remote holds them (two remote feeds repeating each other's ids)."""
    restore_own: bool = False
    """``sync --restore-own-feed``: the remote's copy may extend this clone's own feed (restored from a backup)."""
    remote_exists: bool = True
    """The remote has the ledger ref (a remote without it is not "behind")."""
    acked: dict[str, int] = attrs.field(factory=dict)
    """Feed → the highest seq this clone has seen the remote hold (fetched, or taken by a push of this clone)."""
    behind: dict[str, dict[str, int]] = attrs.field(factory=dict)
    """Feed → what the remote held of it and what this clone had published: the remote went back."""
    strays: dict[str, str | None] = attrs.field(factory=dict)
    """The ``*.jsonl`` files in the ledger folder that are no feed (``decide.find_strays``): file name →
    the writer whose events it holds (a copy under another writer's name), or None (named no writer id)."""
    moved: list[dict[str, Any]] = attrs.field(factory=list)
    """Stray copies moved into ``quarantine/`` to make room for the remote's real feed of that name
    (``importing.move_stray_aside``): the file, the writer it holds, where it went."""

    @classmethod
    def start(cls, project: "Project", repo: Any, count: ReadCount, base: dict[str, "RefFeed"],
              remote: dict[str, "RefFeed"], state: dict[str, Any], **rest: Any) -> "Round":
        """A round over the project's feed files (every read counted in ``count``)."""
        local = LocalFeeds(project, count)
        return cls(project, repo, local, base, remote, state, EventIds(local, project.paths.baton_dir / ID_CACHE),
                   **rest)

    def staging(self, feed: str) -> Path:
        """Where ``feed``'s imported bytes are staged."""
        return self.project.paths.baton_dir / INCOMING_DIR / f"{feed}.part"

    def drop_staged(self, feed: str) -> None:
        """Forget what this round staged or rewrote for ``feed`` (it is refused)."""
        self.rewrites.pop(feed, None)
        self.erased.pop(feed, None)
        self.erased_ids.pop(feed, None)
        self.ref_erased.pop(feed, None)
        for entry in [s for s in self.staged if s[0] == feed]:
            self.staged.remove(entry)
            self.imported.pop(feed, None)
            unlink(entry[1])
        unlink(self.staging(feed))

    def ref_bytes(self, copy: "RefFeed", keep: bool = False) -> bytes:
        """All of a ref's copy of a feed, every segment read counted; ``keep``: kept by its
        folder's tree id until the feed being decided is (``kept_copies``), so the same
        copy on both refs is read once."""
        kept = self.kept_copies.get(copy.tree)
        if kept is not None:
            return kept
        parts = []
        for _, data in feed_bytes(self.repo, copy):
            self.local.count.segments += 1
            parts.append(data)
        data = b"".join(parts)
        if keep:
            self.kept_copies[copy.tree] = data
        return data

    def synced(self, feed: str, ino: int, head: FeedHead) -> None:
        """Record ``feed`` as synced: the file (inode ``ino``) holds the ref's copy up to ``head``."""
        self.new_state[feed] = {"ino": ino, "size": head.offset, "hash": head.hash}
