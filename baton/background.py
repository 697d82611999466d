"""The index brought up to date in a process of its own.

A hook has seconds (``BATON_HOOK_DEADLINE``); replaying a large ledger takes
longer (a full replay of 100,000 events is ~11 s here). Folding it in the hook
would be cut off by its deadline every time, and the replay's one
transaction would roll back with it, so the index would never catch up. A
catch-up the hook may not fold (``IndexBehind``) is handed here instead:
``baton rebuild --if-needed`` for the project, started in a session of its own
with none of the hook's streams (stdin and stdout on ``/dev/null``, stderr
to ``.baton/cache/catch-up.log``), so the harness, which waits for the
hook's output to close, is not kept waiting. It takes the ledger lock like any
writer; a second one started meanwhile waits for it and then finds nothing to
fold. It runs the same interpreter and package as the hook, never a shell.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

LOG = "cache/catch-up.log"
"""Where the background catch-up's stderr goes, relative to ``.baton/``."""


def start_catch_up(root: Path, baton_dir: Path) -> int | None:
    """Start ``baton rebuild --if-needed`` for the project at ``root``;
    its pid, or None when it could not be started."""
    argv = [sys.executable, "-P", "-m", "baton", "--project", str(root), "rebuild", "--if-needed"]
    log = baton_dir / LOG
    try:
        log.parent.mkdir(exist_ok=True)
    except OSError:
        pass
    for stderr in (str(log), os.devnull):
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, stderr, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
        ]
        try:
            return os.posix_spawn(sys.executable, argv, os.environ, file_actions=actions, setsid=True)
        except OSError:
            continue
    return None
