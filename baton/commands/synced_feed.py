"""How far this clone's ledger ref holds a feed, for ``baton verify`` and
``baton repair``, without loading dulwich where there is nothing to read.

``baton.sync.synced`` reads the ref with dulwich (about 140 ms of imports).
Both commands ask it only when this clone's own feed is damaged; even then,
a project outside git, or a repository whose ledger ref was never written
(no loose ``refs/baton/ledger`` and no line of ``packed-refs`` naming it: sync
never ran), holds nothing, and this module says 0 from the file system alone.
Only a ref that may be there loads the reader (``__import__``: the one place
these commands load it by name).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

import orjson

from baton.domain.ledger_refs import DEFAULT_REF
from baton.gitinfo import locate

STATE_FILE = "sync-state.json"
"""``baton.sync.state.STATE_FILE``, read here without loading dulwich."""

if TYPE_CHECKING:
    from baton.commands.context import Project


def synced_seq(project: "Project", feed: str) -> int:
    """``baton.sync.synced.synced_seq``: the seq of ``feed``'s last event on this clone's
    ledger ref (0: none, no git repository, no ref, or a ref that cannot be read)."""
    where = locate(project.root)
    if where is None or not _may_hold(Path(where.common_dir), DEFAULT_REF):
        return 0
    synced = __import__("baton.sync.synced", fromlist=["synced_seq"])
    seq: int = synced.synced_seq(project, feed)
    return seq


def synced_copy(project: "Project", feed: str, unless_held: bool = False) -> bytes | None:
    """``baton.sync.synced.synced_copy``: ``feed``'s bytes on this clone's ledger ref (None: none,
    or, ``unless_held``, the local file extends them)."""
    where = locate(project.root)
    if where is None or not _may_hold(Path(where.common_dir), DEFAULT_REF):
        return None
    synced = __import__("baton.sync.synced", fromlist=["synced_copy"])
    copy: bytes | None = synced.synced_copy(project, feed, unless_held)
    return copy


def synced_heads(project: "Project") -> dict[str, int]:
    """``baton.sync.synced.synced_heads``: feed → the seq this clone's ledger ref holds it to
    (empty: no git repository, no ref, or a ref that cannot be read)."""
    where = locate(project.root)
    if where is None or not _may_hold(Path(where.common_dir), DEFAULT_REF):
        return {}
    synced = __import__("baton.sync.synced", fromlist=["synced_heads"])
    heads: dict[str, int] = synced.synced_heads(project)
    return heads


def behind_ref(project: "Project", heads: dict[str, int], local: dict[str, int],
               damaged: Iterable[str] = ()) -> list[dict[str, Any]]:
    """The feeds this clone's ledger ref holds (``heads``: ``synced_heads``) beyond the seq its files
    hold (``local``; a feed absent there has no file): ``{"feed", "seq", "local_seq", "own"}``, in name
    order, leaving out the ``damaged`` ones (said by their problem and a repair's plan) and those no
    sync took into a file here (``taken_feeds``: a feed refused and kept on the ref as the remote held
    it, one a plain ``git fetch`` put there), unless the sync state is gone too (git deleted it with
    the feeds: then the ref is all there is to go by)."""
    skip = set(damaged)
    taken = taken_feeds(project)
    return [{"feed": feed, "seq": seq, "local_seq": local.get(feed, 0), "own": feed == project.writer}
            for feed, seq in sorted(heads.items()) if seq > local.get(feed, 0) and feed not in skip
            and (taken is None or feed in taken or feed == project.writer)]


def taken_feeds(project: "Project") -> set[str] | None:
    """The feeds a sync recorded a file of here (``.baton/sync-state.json``, the default ref's
    section: ``baton.sync.state``), or None when that file or section is missing or unreadable."""
    try:
        raw = orjson.loads((project.paths.baton_dir / STATE_FILE).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    feeds = raw.get(DEFAULT_REF) if isinstance(raw, dict) else None
    return set(feeds) if isinstance(feeds, dict) and feeds else None


def behind_ref_advice(behind: dict[str, Any]) -> str:
    """What ``verify``, ``doctor`` and ``status`` say of a feed the ledger ref holds beyond its file."""
    feed, seq, local = behind["feed"], behind["seq"], behind["local_seq"]
    where = f".baton/ledger/{feed}.jsonl"
    has = f"{where} is gone" if not local else f"{where} holds seq {local}"
    if behind["own"]:
        return (f"this clone's own feed {feed}: {has}, but this clone's ledger ref (what its syncs published) "
                f"holds it to seq {seq}: the file was cut, replaced or deleted (by git, when .baton/ was committed: "
                "`baton doctor`; or a backup restored). `baton sync` given `restore_own_feed` takes the missing events "
                "back from the remote (docs/sync.md)")
    return (f"feed {feed}: {has}, but this clone's ledger ref holds it to seq {seq}: the file was deleted or "
            "replaced (by git, when .baton/ was committed: `baton doctor`; or by hand), or the ref was fetched "
            "with git. `baton sync` takes it back from the remote (docs/sync.md)")


def _may_hold(common_dir: Path, ref: str) -> bool:
    """Whether the repository may have ``ref``: a loose ref file, or a line of
    ``packed-refs`` naming it (anything unreadable may: the reader decides)."""
    if (common_dir / ref).exists():
        return True
    try:
        packed = (common_dir / "packed-refs").read_bytes()
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return b" " + ref.encode() + b"\n" in packed or packed.endswith(b" " + ref.encode())
