"""Gemini CLI: hooks and the MCP server in ``.gemini/settings.json``, the agent skill in
``.agents/skills/baton/SKILL.md``.

Format: https://geminicli.com/docs/hooks/reference (google-gemini/gemini-cli
``docs/hooks/reference.md``): SessionStart ``source`` startup|resume|clear,
answered with ``hookSpecificOutput.additionalContext``; PreCompress
``trigger`` auto|manual (advisory, asynchronous); SessionEnd ``reason``
exit|clear|logout|prompt_input_exit|other (best effort: the CLI does not
wait). Common fields ``session_id``, ``transcript_path``, ``cwd``,
``hook_event_name``, ``timestamp``. stdout must hold JSON only, so an answer
with nothing to inject is ``{}``. Timeouts are in milliseconds. BeforeAgent
(after a prompt is submitted, ``prompt``) feeds the detector as Claude
Code's UserPromptSubmit does.
"""

from __future__ import annotations

from typing import Any

from baton.harnesses.protocol import (
    PRE_COMPACT, SESSION_END, SESSION_START, USER_PROMPT,
    CommandHookAdapter, ConfigFile, HookCommand, SessionMetadata,
    agents_skill, matcher_groups, mcp_servers,
)

HOOKS = (HookCommand("SessionStart"), HookCommand("PreCompress"), HookCommand("SessionEnd"),
         HookCommand("BeforeAgent"))


def _answer(metadata: SessionMetadata, context: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"additionalContext": context}}


def _files(command: str, lines: tuple[str, ...]) -> list[ConfigFile]:
    hooks = matcher_groups(HOOKS, lines, name="baton", timeout=30000)
    return [ConfigFile(".gemini/settings.json", merge={"hooks": hooks, **mcp_servers(command)}), agents_skill()]


ADAPTER = CommandHookAdapter(
    name="gemini-cli",
    kinds={"SessionStart": SESSION_START, "PreCompress": PRE_COMPACT, "SessionEnd": SESSION_END,
           "BeforeAgent": USER_PROMPT},
    hooks=HOOKS,
    files=_files,
    answer=_answer,
    empty_answer="{}",
)
