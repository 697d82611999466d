"""Cursor: a project rule, the MCP server in ``.cursor/mcp.json``, hooks in ``.cursor/hooks.json``,
the agent skill in ``.agents/skills/baton/SKILL.md``.

Spec §15 makes rules and MCP Cursor's integration; hooks are used where
Cursor has them. Format: https://cursor.com/docs/agent/hooks (``version``
1, camelCase events, each a list of ``{command}``; ``sessionStart`` answered
with ``additional_context``; payloads carry ``conversation_id`` /
``session_id`` and ``workspace_roots``). Cursor's hook events have changed
between releases (``sessionStart`` was rejected as unknown by some), so the
rule and the MCP server carry the integration on their own; the hooks add
the brief at start and the draft before compaction where they run.

``beforeSubmitPrompt`` (``prompt``, ``attachments``) feeds the detector as
the other harnesses' prompt hooks do, but its answer is a verdict, not
context: ``{"continue": true}`` lets the prompt through, ``false`` holds it
back, and there is no field to tell the agent anything. So Baton always
answers ``{"continue": true}`` — also when it fails — and an explicit
request (``/handoff``) prepares the draft without the agent being told; the
agent finds it with ``handoff_list``. Shape checked against the documented
input/output (cursor.com/docs/agent/hooks, as typed in johnlindquist/cursor-hooks
``src/types.ts``: ``BeforeSubmitPromptResponse {continue: boolean}``).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a prompt hook never needs it)
if TYPE_CHECKING:
    from typing import Any

from baton.harnesses.protocol import (
    PRE_COMPACT,
    SESSION_END,
    SESSION_START,
    USER_PROMPT,
    CommandHookAdapter,
    ConfigFile,
    HookCommand,
    SessionMetadata,
    agents_skill,
    mcp_servers,
)

HOOKS = (HookCommand("sessionStart"), HookCommand("preCompact"), HookCommand("sessionEnd"),
         HookCommand("beforeSubmitPrompt"))
LET_THROUGH = '{"continue":true}'
"""``beforeSubmitPrompt``'s answer, always: the prompt goes on, whatever Baton did."""

RULE = """---
description: Baton keeps verified handoffs between agent sessions in this project
alwaysApply: true
---

This project uses Baton (`baton` CLI, `baton` MCP server) for session continuity.

- At the start of a chat, call the `bootstrap` MCP tool (or run `baton bootstrap`)
  and treat the brief as working context, not unquestionable truth.
- Before stopping, or when the context is nearly full: `handoff_capture`,
  `handoff_validate`, `handoff_ready` (or `baton checkpoint create`,
  `baton handoff validate ID`, `baton handoff ready ID`).
- To leave next steps for the next session on this branch: the `baton_session` tool with
  action `session_end` and a `handoff` object (`baton session end ID --handoff-steps "A,B"`).
- When the user asks for a handoff (`/handoff`, "continue later"), Baton has already
  prepared a draft: find it with `handoff_list` (status `draft`), complete it with what
  you know, in place (`baton handoff amend ID --input FILE`, or `handoff_amend` with the
  draft's id), or with `handoff_capture` with `parent` set to the draft's id: the end of
  this chat hands any of them on. Then validate and promote it.
- Record facts only: the commands you ran and their real results, decisions and why,
  what failed. Never paste secrets or transcripts.
- `baton --help` lists every command and `baton COMMAND --help` explains one; the
  MCP tools describe their own parameters.
"""


def _answer(metadata: SessionMetadata, context: str) -> dict[str, Any]:
    return {"additional_context": context}


def _files(command: str, hooks: tuple[HookCommand, ...], lines: tuple[str, ...]) -> list[ConfigFile]:
    entries = {hook.event: [{"command": line}] for hook, line in zip(hooks, lines)}
    return [ConfigFile(".cursor/mcp.json", merge=mcp_servers(command)),
            ConfigFile(".cursor/rules/baton.mdc", text=RULE),
            ConfigFile(".cursor/hooks.json", merge={"version": 1, "hooks": entries}),
            agents_skill()]


ADAPTER = CommandHookAdapter(
    name="cursor",
    kinds={"sessionStart": SESSION_START, "preCompact": PRE_COMPACT, "sessionEnd": SESSION_END,
           "beforeSubmitPrompt": USER_PROMPT},
    hooks=HOOKS,
    files=_files,
    answer=_answer,
    empty_answer="{}",
    empty_answers={"beforeSubmitPrompt": LET_THROUGH},
    prompt_context=False,
    # Every Cursor hook carries ``conversation_id``; only the session hooks also
    # carry a ``session_id``, which need not equal it. The conversation is
    # the session for every event, so a start, a compaction and an end agree
    # (entireio/cli's Cursor agent keys every event by it too).
    session_fields=("conversation_id", "session_id"),
)
