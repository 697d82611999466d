"""Where a harness must be started for Baton's wiring to work (``started_below``,
``baton doctor``), and whether an agent uses Baton's tools in a session whose harness ran none of
Baton's hooks (harness14 F2): Claude Code started in a subfolder of a project
wired at its root runs none of the project's hooks (``.claude/settings.json`` is
read from the folder it starts in) yet finds ``.mcp.json`` from there, so the
MCP tools work while nothing is delivered at the start nor handed on at the end.

Pure: the facts are gathered by the application (``baton.commands.start_hooks``)
and the MCP server that knows where it was started; the server renders the answer.
"""

from __future__ import annotations

from baton.model import frozen

HARNESS_NAMES = {"claude-code": "Claude Code", "gemini-cli": "Gemini CLI"}

STARTED_AT_ROOT = {
    "claude-code": "runs none of the project's hooks (no brief at its start, nothing handed on at its end), while "
                   "Baton's MCP tools still work",
    "gemini-cli": "runs none of the project's hooks and offers none of Baton's MCP tools (no brief at its start, "
                  "nothing handed on at its end, no baton tools for the agent)",
}
"""The harnesses that read the project's wiring only from the folder they are started in, and what
one started in a subfolder does (run for real): Claude Code (2.1.332, 2.1.337) reads
``.claude/settings.json`` there, yet finds ``.mcp.json`` from it; Gemini CLI 0.61.0 reads ``.gemini/settings.json`` (hooks and
MCP servers alike) there. Codex 0.171.0 finds ``.codex/`` from a subfolder: not here."""


def started_below(harness: str, below: str | None, root: str) -> str | None:
    """What ``baton doctor`` run in ``below`` (a subfolder of the worktree ``root`` wired for
    ``harness``; None or empty: the root itself) warns of, or None: nothing to say."""
    if not below or harness not in STARTED_AT_ROOT:
        return None
    return (f"this is {below}, a subfolder of the project: {HARNESS_NAMES[harness]} started here "
            f"{STARTED_AT_ROOT[harness]}; start it at the project root ({root})")


@frozen
class UnhookedStart:
    """A session started where its harness runs none of the project's hooks."""

    harness: str
    folder: str
    """Where the harness was started, relative to the project's worktree (POSIX)."""
    root: str
    """The worktree, where the harness must be started for its hooks to run."""

    @property
    def harness_name(self) -> str:
        """The harness as people call it."""
        return HARNESS_NAMES.get(self.harness, self.harness)


def unhooked_start(*, harness: str, start_hook_wired: bool, root: str, launched_below: str | None,
                   begun_since_launch: bool) -> UnhookedStart | None:
    """The session's start hook did not run, and why: ``harness``'s start hook is wired at
    ``root``, the harness was started in ``launched_below`` (a subfolder of it; None: at the
    root, or the folder is unknown), and no session began since the server started (a start
    hook that ran anyway — one wired in that subfolder, or in the user's settings — records
    one). None: nothing to say."""
    if not start_hook_wired or not launched_below or begun_since_launch:
        return None
    return UnhookedStart(harness, launched_below, root)
