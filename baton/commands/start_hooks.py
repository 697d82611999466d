"""Whether the session an MCP server serves had its start hook run
(``baton.domain.start_hooks``): the facts the ledger holds (a session begun
since the server started), with those the server brings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from baton.domain.start_hooks import UnhookedStart, unhooked_start
from baton.projections.sessions import begun_since

if TYPE_CHECKING:
    from baton.commands.context import Project


def start_hook_missing(project: "Project", *, harness: str, start_hook_wired: bool, launched_below: str | None,
                       launched_at: str) -> UnhookedStart | None:
    """``unhooked_start`` for a server started at ``launched_at`` (RFC 3339, UTC) in the
    subfolder ``launched_below`` of the project's worktree. Reads only."""
    if not start_hook_wired or not launched_below:  # nothing to read the ledger for
        return None
    runner = project.reading()
    begun = "sessions" in runner.by_name and begun_since(runner.db, launched_at)
    return unhooked_start(harness=harness, start_hook_wired=start_hook_wired, root=str(project.paths.worktree),
                          launched_below=launched_below, begun_since_launch=begun)
