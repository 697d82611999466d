"""Claude Code: hooks in ``.claude/settings.json``, the MCP server in ``.mcp.json``.

Format: https://code.claude.com/docs/en/hooks (SessionStart ``source``
startup|resume|clear|compact, answered with ``hookSpecificOutput.additionalContext``;
PreCompact ``trigger`` manual|auto, which cannot inject context; SessionEnd
``reason``; common fields ``session_id``, ``transcript_path``, ``cwd``,
``hook_event_name``). UserPromptSubmit is not handled: Baton has no
per-prompt detector signal to record yet, and a hook that does nothing
should not run on every prompt.
"""

from __future__ import annotations

from baton.harnesses.protocol import (
    PRE_COMPACT, SESSION_END, SESSION_START, CommandHookAdapter, ConfigFile, HookCommand, hook_specific_output,
    matcher_groups, mcp_servers,
)

HOOKS = (
    HookCommand("SessionStart", "startup|resume|clear|compact"),
    HookCommand("PreCompact", "manual|auto"),
    HookCommand("SessionEnd"),
)


def _files(command: str, lines: tuple[str, ...]) -> list[ConfigFile]:
    return [ConfigFile(".claude/settings.json", merge={"hooks": matcher_groups(HOOKS, lines)}),
            ConfigFile(".mcp.json", merge=mcp_servers(command))]


ADAPTER = CommandHookAdapter(
    name="claude-code",
    kinds={"SessionStart": SESSION_START, "PreCompact": PRE_COMPACT, "SessionEnd": SESSION_END},
    hooks=HOOKS,
    files=_files,
    answer=hook_specific_output,
)
