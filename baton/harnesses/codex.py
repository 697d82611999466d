"""Codex: hooks in ``.codex/hooks.json``, the MCP server in ``.codex/config.toml``,
the agent skill in ``.agents/skills/baton/SKILL.md``.

Format: https://developers.openai.com/codex/hooks and the generated schemas
in openai/codex ``codex-rs/hooks/schema/generated/`` (SessionStart ``source``
startup|resume|clear|compact, answered with
``hookSpecificOutput.additionalContext``; PreCompact ``trigger`` manual|auto;
common fields ``session_id``, ``turn_id``, ``transcript_path``, ``cwd``,
``hook_event_name``, ``model``).

Codex has no session-end event: ``Stop`` runs when each turn ends. Baton
ends the session at the first ``Stop`` and, at later ones, only hands on a
ready handoff the session wrote since (``finish_session`` is idempotent).
A turn the person stops runs no ``Stop`` but ``Interrupt`` (``session_id``,
``turn_id``; Codex 0.171.0, run for real: Esc, and Ctrl-C's "Cancel task" and
"Exit", after which no later turn's ``Stop`` may ever come), which Baton
takes as that turn's end, as ``Stop``.
UserPromptSubmit (``prompt``) feeds the detector as for Claude Code.

Codex runs a project's hooks only when the person trusted them: it loads
``.codex/`` (hooks and MCP servers) only in a trusted folder, and then runs
each hook only once its definition is trusted, pinned to a hash of it in the
user's ``config.toml`` (``[hooks.state."<key>"] trusted_hash``), which
Codex's ``/hooks`` screen writes. Codex reads that state from the user's
own config layers only, never from a project's (openai/codex
``codex-rs/hooks/src/config_rules.rs``), so Baton cannot trust its hooks
from the project's files; it says what the user must do (``TRUST_STEP``).
Untrusted, the hooks are skipped without a word.
"""

from __future__ import annotations

import orjson

from baton.harnesses.protocol import (
    PRE_COMPACT,
    SESSION_END,
    SESSION_START,
    USER_PROMPT,
    CommandHookAdapter,
    ConfigFile,
    HookCommand,
    agents_skill,
    hook_specific_output,
    matcher_groups,
    mcp_server,
    start_failed,
)

HOOKS = (
    HookCommand("SessionStart", "startup|resume|clear|compact"),
    HookCommand("PreCompact", "manual|auto"),
    HookCommand("Stop"),
    HookCommand("Interrupt"),
    HookCommand("UserPromptSubmit"),
)


TRUST_STEP = ("Codex runs these hooks only once you trust them: run `codex` in this folder (trust the folder "
              "when asked), type /hooks and trust Baton's {hooks} hooks, and again after an install-hooks "
              "that changes them (`codex exec` alone: --dangerously-bypass-hook-trust)")
"""Codex 0.171: an untrusted hook never runs, and nothing says so (docs/hooks.md, Codex).
``{hooks}`` is how many ``install-hooks`` wired (``--events``)."""


START_FAILED = start_failed("Codex")
"""Given the program the hooks run, what follows the SessionStart hook's command line: when the
command cannot run, say why to the agent (a bare ``baton`` not on the ``PATH``, or the file at the
path install-hooks wrote missing or not executable).
Codex 0.171.0 shows a failing hook as ``hook: SessionStart Failed`` and nothing else — neither its
stderr nor its ``systemMessage``, in ``codex exec`` (checked with the real binary; its source
records only ``hook exited with code N``) — but a start hook's plain stdout on status 0 reaches
the model as context (openai/codex ``codex-rs/hooks/src/events/session_start.rs``)."""

FORWARDED = ("BATON_PROJECT",)
"""What Codex passes on to Baton's MCP server from the person's environment (``env_vars``):
Codex starts MCP servers with a filtered environment of its own but hooks with the person's,
so without it the hooks would use the project ``$BATON_PROJECT`` names and the MCP tools the
folder's — a handoff readied in one ledger, the session ended in the other (tester harness15 G4)."""


def _toml_body(command: str) -> str:
    server = mcp_server(command)
    # JSON strings and arrays of strings are valid TOML basic strings and arrays.
    return (f"command = {orjson.dumps(server['command']).decode()}\n"
            f"args = {orjson.dumps(server['args']).decode().replace(',', ', ')}\n"
            f"env_vars = {orjson.dumps(list(FORWARDED)).decode().replace(',', ', ')}\n")


def _files(command: str, hooks: tuple[HookCommand, ...], lines: tuple[str, ...]) -> list[ConfigFile]:
    return [ConfigFile(".codex/hooks.json", merge={"hooks": matcher_groups(hooks, lines, timeout=30)}),
            ConfigFile(".codex/config.toml", toml_table="mcp_servers.baton", toml_body=_toml_body(command)),
            agents_skill()]


ADAPTER = CommandHookAdapter(
    name="codex",
    kinds={"SessionStart": SESSION_START, "PreCompact": PRE_COMPACT, "Stop": SESSION_END,
           "Interrupt": SESSION_END, "UserPromptSubmit": USER_PROMPT},
    hooks=HOOKS,
    files=_files,
    answer=hook_specific_output,
    end_reason="turn",
    user_steps=(TRUST_STEP,),
    event_suffixes={"SessionStart": START_FAILED},
    event_limits={"Interrupt": 3.0},
)
