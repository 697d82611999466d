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
from typing import TYPE_CHECKING

from baton.domain.ledger_refs import DEFAULT_REF
from baton.gitinfo import locate

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
