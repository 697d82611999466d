"""The feeds a sync will not take, and why (docs/sync.md "Refused feeds")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from baton.errors import LedgerCorrupt
from baton.model import frozen

if TYPE_CHECKING:
    from baton.sync.ledger_ref import RefFeed

KEEP_REMOTE = frozenset({"not_fast_forward", "unsigned", "unknown_key", "wrong_signer", "bad_signature"})
"""Refusals of a remote copy that is well formed but not taken: the ref keeps it as the remote holds it."""


@frozen
class RefusedFeed:
    """A feed sync would not take: not a fast-forward, or failing verification."""

    feed: str
    side: str
    """``remote`` (the remote's copy was refused) or ``local`` (the local file was)."""
    kind: str
    """``not_fast_forward``, or a verification problem (``bad_hash``, ``broken_chain``…)."""
    seq: int | None
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"feed": self.feed, "side": self.side, "kind": self.kind, "seq": self.seq, "message": self.message}


class Refuse(Exception):
    """Raised while a feed is decided: the feed is refused (``refused`` says why)."""

    def __init__(self, refused: RefusedFeed) -> None:
        self.refused = refused


def problem_of(feed: str, side: str, exc: LedgerCorrupt) -> RefusedFeed:
    """A verification failure of one copy of ``feed`` as its refusal."""
    details = exc.details or {}
    return RefusedFeed(feed, side, str(details.get("kind") or "corrupt"), details.get("seq"), exc.message)


def own_feed_refusal(feed: str, remote: "RefFeed", publishes: bool = True) -> RefusedFeed:
    """This clone's own feed is written here alone: a remote copy that
    extends or rewrites it is refused, and the ref gets the local file's
    (``publishes``), or — when the local file no longer extends what this
    clone published (a restore that found its feed rewritten) — keeps the
    copy it held, and the message says so."""
    if publishes:
        then = ("this clone publishes its own copy in its place (a clone restored from a backup takes its "
                "published events back with `baton sync` given `restore_own_feed`)")
    else:
        then = ("the local file no longer extends what this clone published either — a backup restored in "
                "place and written to since, or a repair that cut the feed after it was synced, forked it — so "
                "nothing of it is published and the remote keeps its copy; a sync given `restore_own_feed` "
                "cannot mend it: `baton repair` given `yes` puts the feed back as this clone's ledger ref holds "
                "it and sets the local events that do not follow it aside into .baton/quarantine/ (docs/sync.md, "
                "\"A clone restored from a backup\")")
    return RefusedFeed(feed, "remote", "own_feed", remote.head.seq,
                       f"the remote's copy of this clone's own feed {feed} (seq {remote.head.seq}) is not a "
                       "prefix of the local file: events written elsewhere under this writer id (a copied "
                       f".baton/local.json) or forged; {then}")
