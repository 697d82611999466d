"""Temporary files that a process killed mid-write left under ``.baton/``.

Every file Baton writes whole is written first under a temporary name in the
same folder and then renamed over its target: a materialized file (``handoffs/``,
``batons/``) as ``.tmp.<pid>.<8 hex>`` (``baton.config.write_bytes_atomic``),
a feed rewritten by ``forget`` as ``.erase.<pid>.<8 hex>`` and by ``repair`` as
``.repair.<pid>.<8 hex>`` (``ledger/``), a repair's copy or manifest rewritten by
``forget`` as ``.forget.<pid>.<8 hex>`` (``quarantine/``). A process killed between the write
and the rename (``kill -9``, a crash, a power cut) leaves that file behind,
holding the whole text it was writing — text a later ``baton forget`` may
have erased from the ledger. ``baton rebuild`` removes them; ``verify`` and
``doctor`` name them.

Only a regular file whose name is exactly one of those patterns, in one of
those folders, is ever a leftover: never a symbolic link (nor anything
through one: a folder that is a link is not looked into), never another
name. A file whose ``<pid>`` is a running process is not a leftover yet: that
process may be about to rename it.
"""

from __future__ import annotations

import os
import re
import stat
from typing import TYPE_CHECKING

from baton.errors import StorageError

if TYPE_CHECKING:
    from baton.project import ProjectPaths

LEFTOVER_NAME = re.compile(r"^\.(tmp|erase|repair|forget)\.([0-9]{1,10})\.[0-9a-f]{8}$")
"""A temporary name Baton writes (``write_bytes_atomic``, ``erase.replace_feed``, ``repair._rewrite``,
``quarantined._replace``)."""


def leftover_temporaries(paths: "ProjectPaths") -> list[str]:
    """The leftovers (module docstring), as paths relative to ``.baton/``, sorted."""
    found = []
    for folder, kinds in ((paths.handoffs_dir, {"tmp"}), (paths.batons_dir, {"tmp"}),
                          (paths.ledger_dir, {"erase", "repair"}), (paths.quarantine_dir, {"forget"})):
        try:
            if not stat.S_ISDIR(os.lstat(folder).st_mode):
                continue  # a link where the folder belongs is not looked into
            # Only the names that match are kept, never the whole listing: ``handoffs/`` holds a
            # file per handoff, and a list of every entry was most of ``verify``'s peak memory
            # growth at 100k events (docs/performance.md).
            with os.scandir(folder) as entries:
                named = [(entry, int(match[2])) for entry in entries
                         if (match := LEFTOVER_NAME.match(entry.name)) is not None and match[1] in kinds]
        except OSError:
            continue  # the folder cannot be listed (whole): nothing in it is named
        for entry, pid in named:
            if _running(pid):
                continue
            try:
                if entry.is_file(follow_symlinks=False):
                    found.append(f"{folder.name}/{entry.name}")
            except OSError:
                continue
    return sorted(found)


def remove_leftover_temporaries(paths: "ProjectPaths") -> list[str]:
    """Remove the leftovers; returns what was removed (relative to ``.baton/``).

    Raises:
        StorageError: one could not be removed (those before it are).
    """
    removed = []
    for rel in leftover_temporaries(paths):
        path = paths.baton_dir / rel
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                continue  # replaced by something else since it was found
            os.unlink(path)  # never follows a link
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise StorageError(f"cannot remove the leftover temporary file .baton/{rel}: {exc}; remove it by hand "
                               f"(`rm .baton/{rel}`)") from exc
        removed.append(rel)
    return removed


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # no such process (a number above any pid)
        return False
    except OSError:  # PermissionError: running, as another user
        return True
    return True
