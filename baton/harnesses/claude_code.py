"""Claude Code: hooks in ``.claude/settings.json``, the MCP server in ``.mcp.json``,
the agent skill in ``.claude/skills/baton/SKILL.md``.

Format: https://code.claude.com/docs/en/hooks (SessionStart ``source``
startup|resume|clear|compact, answered with ``hookSpecificOutput.additionalContext``;
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
    PRE_COMPACT, SESSION_END, SESSION_START, USER_PROMPT,
    CommandHookAdapter, ConfigFile, HookCommand, hook_specific_output,
    matcher_groups, mcp_servers, skill_text,
)

HOOKS = (
    HookCommand("SessionStart", "startup|resume|clear|compact"),
    HookCommand("PreCompact", "manual|auto"),
    HookCommand("SessionEnd"),
    HookCommand("UserPromptSubmit"),
)


SKILL_FILE = ".claude/skills/baton/SKILL.md"
"""Where Claude Code finds a project's skills (``.claude/skills/NAME/SKILL.md``)."""


def _files(command: str, lines: tuple[str, ...]) -> list[ConfigFile]:
    return [ConfigFile(".claude/settings.json", merge={"hooks": matcher_groups(HOOKS, lines)}),
            ConfigFile(".mcp.json", merge=mcp_servers(command)),
            ConfigFile(SKILL_FILE, text=skill_text())]


ADAPTER = CommandHookAdapter(
    name="claude-code",
    kinds={"SessionStart": SESSION_START, "PreCompact": PRE_COMPACT, "SessionEnd": SESSION_END,
           "UserPromptSubmit": USER_PROMPT},
    hooks=HOOKS,
    files=_files,
    answer=hook_specific_output,
)
