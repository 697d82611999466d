"""Which lock file left on a path remote ``baton sync`` may remove (pure: no I/O).

Git never removes a ``.lock`` file it did not create: a live one guards an
update in progress, and breaking a ref's lock can lose that update. Baton
does the same for every lock but one kind, a **pack index lock**
(``objects/pack/pack-<sha>.idx.lock``), which dulwich holds only while it
writes the index of a pack it has just moved in, in one pass. A pack is
named by its checksum, so every writer of ``pack-<sha>.idx`` writes the same
bytes: breaking that lock cannot lose or corrupt anything (at worst a writer
still running fails its rename and retries). It is removed when nothing has
written to it for ``STALE_AFTER_SECONDS`` and no process on this machine
has it open — what a full disk or a killed push leaves behind, and what
blocks every later push of the same objects. Any other lock (a ref's, the
ledger ref's own) is only named, with the command that removes it.
"""

from __future__ import annotations

import re

STALE_AFTER_SECONDS = 600
"""A pack index is written in seconds; ten minutes without a write is a dead writer."""

_PACK_INDEX_LOCK = re.compile(r"(?:^|/)objects/pack/pack-[0-9a-f]{40}(?:[0-9a-f]{24})?\.idx\.lock$")


def is_pack_index_lock(relpath: str) -> bool:
    """``relpath`` (inside the repository, ``/``-separated) is a pack index's lock."""
    return bool(_PACK_INDEX_LOCK.search(relpath))


def may_remove(relpath: str, *, age_seconds: float, held_open: bool) -> bool:
    """May sync remove this lock? Only a pack index lock, idle for
    ``STALE_AFTER_SECONDS`` and held open by no process here."""
    return is_pack_index_lock(relpath) and age_seconds >= STALE_AFTER_SECONDS and not held_open
