"""Claude Code: hooks in ``.claude/settings.json`` (or in ``.claude/settings.local.json``
when the person moved them there: ``ConfigFile.personal_hooks``), the MCP server in
``.mcp.json`` (always loaded, and approved in ``.claude/settings.local.json``), the agent
skill in ``.claude/skills/baton/SKILL.md``.

Format: https://code.claude.com/docs/en/hooks (SessionStart ``source``
startup|resume|clear|compact|fork, answered with ``hookSpecificOutput.additionalContext``;
PreCompact ``trigger`` manual|auto, which cannot inject context; SessionEnd
``reason``; common fields ``session_id``, ``transcript_path``, ``cwd``,
``hook_event_name``). UserPromptSubmit (``prompt``) feeds the detector: a
prompt that is an explicit handoff request ("handoff", "continue later",
"/handoff"...) prepares a draft and the answer tells the agent which fields
to complete; the prompt itself is never kept. PreCompact feeds the detector
too (``baton.harnesses.hook``).
"""

from __future__ import annotations

from baton.harnesses.protocol import (
    PRE_COMPACT,
    SESSION_END,
    SESSION_START,
    TURN_END,
    USER_PROMPT,
    CommandHookAdapter,
    ConfigFile,
    HookCommand,
    hook_specific_output,
    matcher_groups,
    mcp_server,
    skill_text,
    start_failed,
)

START_SOURCES = "startup|resume|clear|compact|fork"
"""Every ``source`` Claude Code starts a session with, the SessionStart matcher. ``fork``
(``--fork-session``) came in 2.1.214: until then a fork reported ``resume``
under the session it was forked from (so Baton took it for that session again and
delivered nothing); since, it reports ``fork`` under its own new id, and a matcher without
it runs no hook at all — the forked session, a new one, would never receive the baton."""

HOOKS = (
    HookCommand("SessionStart", START_SOURCES, timeout=15),
    HookCommand("PreCompact", "manual|auto", timeout=30),
    HookCommand("SessionEnd", timeout=30),
    HookCommand("UserPromptSubmit", timeout=15),
    HookCommand("Stop", timeout=15),
    HookCommand("Interrupt", timeout=15),
)
"""Each with a ``timeout`` in seconds. Claude Code's default for a command hook is
long, except at SessionEnd: without a ``timeout`` there, all SessionEnd hooks
together get 1.5 s, and a busy machine cancels the hook that hands the
baton on. With one, SessionEnd waits up to the largest (capped at 60 s;
``CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS`` overrides). The session's start
and a prompt wait on their hook, so theirs are short — yet above the hook's
own deadline (``baton.harnesses.hook.DEADLINE_SECONDS``, 10 s) with room for
the process to start: Baton gives up first and leaves its notice, and the
harness's timeout only stops a hook that could not even do that. ``Stop`` (a turn's end, after the
model answered; ``TURN_END``) is wired with the prompt hook: bash mode (``! cmd``) runs no
``UserPromptSubmit`` yet sends the model a turn, whose ``Stop`` removes the start's mark. ``Interrupt``
(2.1.337: a turn the person stopped, Esc) runs instead of ``Stop`` for a turn whose request went out
and is wired beside it (``TURN_END`` too): a bash-mode first input whose turn is interrupted spends
the baton as one the model answered."""


SKILL_FILE = ".claude/skills/baton/SKILL.md"
"""Where Claude Code finds a project's skills (``.claude/skills/NAME/SKILL.md``)."""


ALWAYS_LOAD = True
"""``alwaysLoad`` on the server in ``.mcp.json``: Claude Code then waits for Baton's
server (up to ``MCP_CONNECT_TIMEOUT_MS``, 5 s by default) before the first
request and never defers its tools behind tool search. Without it a headless
session waits 2 s at most, and on a busy machine the first request goes out
without Baton's tools (the agent cannot call ``bootstrap`` in its first turn)."""

LOCAL_SETTINGS = ".claude/settings.local.json"
"""Where the project's ``.mcp.json`` servers are approved: Claude Code starts a
server there only once approved, and ``claude -p`` never asks (it ignores
``enableAllProjectMcpServers`` in ``.claude/settings.json``). Personal to the
clone, as Claude Code keeps it: created in a git repository, it is added to
the clone's ``.git/info/exclude`` (``ConfigFile.clone_only``). Claude Code runs the hooks
of this file too, beside ``.claude/settings.json``'s (both run): a person who wants Baton's
hooks for themselves, not the team, moves them here, and ``install-hooks`` keeps them here
(``ConfigFile.personal_hooks``)."""

APPROVAL_NOTE = ("the baton MCP server is approved in .claude/settings.local.json (enabledMcpjsonServers): "
                 "Claude Code starts it without asking, headless too")


def _files(command: str, hooks: tuple[HookCommand, ...], lines: tuple[str, ...]) -> list[ConfigFile]:
    return [ConfigFile(".claude/settings.json", merge={"hooks": matcher_groups(hooks, lines)}),
            ConfigFile(".mcp.json",
                       merge={"mcpServers": {"baton": {**mcp_server(command), "alwaysLoad": ALWAYS_LOAD}}}),
            ConfigFile(LOCAL_SETTINGS, merge={"enabledMcpjsonServers": ["baton"]}, note=APPROVAL_NOTE,
                       clone_only=True, personal_hooks=True),
            ConfigFile(SKILL_FILE, text=skill_text())]


ADAPTER = CommandHookAdapter(
    name="claude-code",
    kinds={"SessionStart": SESSION_START, "PreCompact": PRE_COMPACT, "SessionEnd": SESSION_END,
           "UserPromptSubmit": USER_PROMPT, "Stop": TURN_END,
           "Interrupt": TURN_END},
    hooks=HOOKS,
    files=_files,
    answer=hook_specific_output,
    # Claude Code shows a failing hook's stderr in verbose mode only; a start hook's plain stdout
    # on status 0 is added to the agent's context: the agent is told why (``start_failed``).
    event_suffixes={"SessionStart": start_failed("Claude Code")},
    # The project folder for every hook; the payload's ``cwd`` follows the agent's ``cd``.
    project_dir_env=("CLAUDE_PROJECT_DIR",),
    prompt_hook_files=(".claude/settings.json", LOCAL_SETTINGS),
)
