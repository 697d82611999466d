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

Gemini CLI 0.61.0, run for real (tests/e2e/test_gemini_cli.py):

- PreCompress fires before *every* turn with ``trigger: auto``: the CLI
  calls it ahead of its own threshold check, and the payload carries no
  token count to tell a real compression apart. Only ``manual`` (``/compress``)
  is certainly one, so the hook is installed with the matcher ``manual``
  (Gemini matches a trigger exactly) and an ``auto`` that reaches Baton all
  the same (an older entry without the matcher) is ignored at once: no
  draft, no ledger write.
- ``/clear`` fires SessionEnd (``clear``), then SessionStart ``clear`` under a new
  session id, but shows only the answer's ``systemMessage``: its
  ``additionalContext`` reaches no model (``clearCommand`` in the CLI's bundle).
  A ``clear`` start is therefore ignored (``contextless_sources``): claiming the
  baton there would mark it received by a conversation never given it.
- BeforeAgent's ``prompt`` is the text sent to the model, the SessionStart
  context in front: ``<hook_context>…</hook_context>\n\n`` and then what
  the person typed. Detection reads what follows the wrapper.
- ``/chat resume TAG`` runs no hook and replaces the conversation's history — a
  start's ``additionalContext`` is in it — by the saved one; a BeforeAgent context
  is added to the prompt itself. So a start that claims a baton keeps its brief
  for the first prompt's hook (``brief_with_first_prompt``).
- Hooks and MCP servers of a project run only in a trusted folder (a
  headless run in an untrusted one stops with an error).
- A hook exiting with status 2 or more is a "deny": a ``baton`` missing from
  PATH (127, ``command not found``) on BeforeAgent would block every prompt.
  Each command line ends in ``|| exit 1``: status 1 is a warning, shown to
  the user, and the prompt goes on.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a prompt hook never needs it)
if TYPE_CHECKING:
    from typing import Any

from baton.harnesses.protocol import (
    NONBLOCKING_SUFFIX,
    PRE_COMPACT,
    SESSION_END,
    SESSION_START,
    USER_PROMPT,
    CommandHookAdapter,
    ConfigFile,
    HookCommand,
    SessionMetadata,
    agents_skill,
    matcher_groups,
    mcp_servers,
)

HOOKS = (HookCommand("SessionStart"), HookCommand("PreCompress", matcher="manual"), HookCommand("SessionEnd"),
         HookCommand("BeforeAgent"))

_OPEN, _CLOSE = "<hook_context>", "</hook_context>"


def unwrap_prompt(prompt: str) -> str:
    """What the person typed: the prompt after the ``<hook_context>…</hook_context>``
    Gemini CLI puts in front of it (up to the last closing tag, so a context that
    itself quotes the tag is cut whole); a prompt without one is returned as is."""
    text = prompt.lstrip()
    if not text.startswith(_OPEN):
        return prompt
    end = text.rfind(_CLOSE)
    return text[end + len(_CLOSE):].lstrip() if end >= 0 else prompt


def _answer(metadata: SessionMetadata, context: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"additionalContext": context}}


def _files(command: str, hooks: tuple[HookCommand, ...], lines: tuple[str, ...]) -> list[ConfigFile]:
    groups = matcher_groups(hooks, lines, name="baton", timeout=30000)
    return [ConfigFile(".gemini/settings.json", merge={"hooks": groups, **mcp_servers(command)}), agents_skill()]


ADAPTER = CommandHookAdapter(
    name="gemini-cli",
    kinds={"SessionStart": SESSION_START, "PreCompress": PRE_COMPACT, "SessionEnd": SESSION_END,
           "BeforeAgent": USER_PROMPT},
    hooks=HOOKS,
    files=_files,
    answer=_answer,
    empty_answer="{}",
    compaction_triggers=("manual",),
    contextless_sources=("clear",),
    unwrap_prompt=unwrap_prompt,
    command_suffix=NONBLOCKING_SUFFIX,
    user_steps=("Gemini CLI runs a project's hooks and MCP servers only in a trusted folder: trust this one when "
                "Gemini asks (headless: `gemini --skip-trust` or GEMINI_CLI_TRUST_WORKSPACE=true)",),
    # Gemini CLI 0.61 sets both (``CLAUDE_PROJECT_DIR`` "for compatibility") to its hook input's ``cwd``.
    project_dir_env=("GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"),
    prompt_hook_files=(".gemini/settings.json",),
    brief_with_first_prompt=True,
)
