"""How far this clone's ledger ref holds a feed: what the last sync saw, read without a network.

``baton verify`` and ``baton repair`` ask it before a repair of this
clone's own feed: a repair records ``ledger.repaired`` at the seq it cut,
and when the ref (so the remote) holds that feed beyond the cut, the two
copies fork — the events are on the remote, and ``baton sync`` given
``restore_own_feed`` takes them back instead (docs/sync.md, "A repair of
a feed already synced").
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from dulwich.errors import NotGitRepository
from dulwich.repo import Repo

import baton.ledger.files as files
from baton.gitinfo import locate
from baton.ledger.feed import FeedHead, line_ending_at, line_hashes_to
from baton.sync.ledger_ref import DEFAULT_REF, BadRefFeed, feed_bytes, read_feeds

if TYPE_CHECKING:
    from baton.commands.context import Project


def synced_seq(project: "Project", feed: str) -> int:
    """The seq of ``feed``'s last event on this clone's ledger ref (0: none, no
    git repository, no ref, or a ref that cannot be read)."""
    where = locate(project.root)
    if where is None:
        return 0
    try:
        repo = Repo(str(where.common_dir))
    except (NotGitRepository, OSError, ValueError):
        return 0
    try:
        refs: dict[Any, bytes] = dict(repo.refs.as_dict())
        sha = refs.get(DEFAULT_REF.encode())
        if sha is None:
            return 0
        held = read_feeds(repo, sha).get(feed)
    except (BadRefFeed, KeyError, OSError, ValueError, AssertionError):
        return 0
    finally:
        repo.close()
    if held is None or held.problem is not None:
        return 0
    return held.head.seq


def synced_copy(project: "Project", feed: str, unless_held: bool = False) -> bytes | None:
    """The bytes of ``feed`` on this clone's ledger ref — the copy the remote held at the last
    sync — or None (no git repository, no ref, no such feed, a ref that cannot be read).
    ``unless_held``: None too when the local file holds the line the ref's copy ends with (it
    extends that copy, as a sync reads it: one line read, the ref's blobs never)."""
    where = locate(project.root)
    if where is None:
        return None
    try:
        repo = Repo(str(where.common_dir))
    except (NotGitRepository, OSError, ValueError):
        return None
    try:
        refs: dict[Any, bytes] = dict(repo.refs.as_dict())
        sha = refs.get(DEFAULT_REF.encode())
        held = read_feeds(repo, sha).get(feed) if sha is not None else None
        if held is None or held.problem is not None:
            return None
        if unless_held and _holds(project.paths.ledger_dir / f"{feed}.jsonl", held.head):
            return None
        return b"".join(data for _offset, data in feed_bytes(repo, held))
    except (BadRefFeed, KeyError, OSError, ValueError, AssertionError):
        return None
    finally:
        repo.close()


def synced_heads(project: "Project") -> dict[str, int]:
    """Feed → the seq of its last event on this clone's ledger ref, for every sound feed the ref
    holds (empty: no git repository, no ref, or a ref that cannot be read). Reads trees, never blobs."""
    where = locate(project.root)
    if where is None:
        return {}
    try:
        repo = Repo(str(where.common_dir))
    except (NotGitRepository, OSError, ValueError):
        return {}
    try:
        refs: dict[Any, bytes] = dict(repo.refs.as_dict())
        sha = refs.get(DEFAULT_REF.encode())
        feeds = read_feeds(repo, sha) if sha is not None else {}
    except (BadRefFeed, KeyError, OSError, ValueError, AssertionError):
        return {}
    finally:
        repo.close()
    return {name: feed.head.seq for name, feed in feeds.items() if feed.problem is None and feed.head is not None}


def _holds(path: Path, head: FeedHead) -> bool:
    """The file at ``path`` has the line ``head`` stopped after (``LocalFeeds.holds``)."""
    try:
        line = line_ending_at(lambda at, n: files.read_range(str(path), at, n), head.offset)
    except (OSError, ValueError):
        return False
    return line_hashes_to(line, head.hash)
