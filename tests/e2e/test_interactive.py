"""The harnesses as people run them: each one's interactive TUI in a real pseudo-terminal.

The rest of the suite runs the harnesses headless (``claude -p``, ``codex exec``,
``gemini -p``). Here each runs as a person starts it, in a terminal
(``tests/e2e/terminal.py``: a pty of 120 x 40), in a scratch HOME whose
first-run settings skip the screens a new user meets once (onboarding, the
project's trust, the API key's approval), with Baton wired by ``baton
install-hooks`` and the harness pointed at its scripted model on 127.0.0.1.

One scenario per harness, in a git project where an earlier session left a
baton: start the TUI, wait for its prompt, type one prompt (the agent records
its work over Baton's MCP tools and makes it ready), wait for the model's reply
on the screen, and leave as a person does. Then: the brief of ``SessionStart``
reached the model (in the request the harness sent), the session's end left
its baton (the ledger), and nothing on the screen, then or at any moment
before (the terminal's transcript), is a hook's error or a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.common import git_project, harness_program, ledger_events, run_baton
from tests.e2e.fake_anthropic import FakeAnthropic, claude_env, said
from tests.e2e.terminal import Terminal
from tests.e2e.test_claude_code import capture_validate_ready, session_named_in, subject

pytestmark = pytest.mark.e2e

EARLIER_STEP = "Wire the zebra-42 parser into the CLI"
"""The next step an earlier session's baton carries: the brief of the next session start shows it."""

FAILURE_SIGNS = ("hook error", "blocking error", "Traceback (most recent call last)", "hook failed",
                 "Hook failed", "non-blocking status")
"""What a hook that broke shows in a harness's TUI (a harness's own wording, and Python's)."""


def interactive(env: dict[str, str]) -> dict[str, str]:
    """A harness's environment for its TUI: a colour terminal, and not in CI (Ink, the TUI
    library of Claude Code and Gemini CLI, draws only the last frame when it sees ``CI``)."""
    return {**{k: v for k, v in env.items() if k not in ("CI", "NO_COLOR")}, "TERM": "xterm-256color"}


def no_hook_trouble_shown(terminal: Terminal) -> None:
    shown = terminal.transcript() + "\n" + terminal.screen()
    found = [sign for sign in FAILURE_SIGNS if sign in shown]
    assert not found, f"the TUI showed {found}; the screen:\n{terminal.screen()}"


def events(project: Path, env: dict[str, str], kind: str) -> list[dict[str, Any]]:
    return [e for e in ledger_events(project, env) if e.get("type") == kind]


def an_earlier_baton(project: Path, env: dict[str, str]) -> None:
    left = run_baton(project, env, "session", "end", "earlier-session", "--handoff-steps", EARLIER_STEP)
    assert left.returncode == 0, left.stderr


# -- Claude Code -----------------------------------------------------------------------------------

CLAUDE_READY = "? for shortcuts"
"""Claude Code's prompt line when it waits for the person to type."""


def claude_home(env: dict[str, str], project: Path) -> None:
    """``~/.claude.json`` as after the first run: onboarding done, the API key of the environment
    approved (Claude Code keeps its last 20 characters), the project's folder trusted; and
    ``~/.claude/settings.json`` allowing Baton's MCP tools, as a person does once."""
    home = Path(env["HOME"])
    (home / ".claude.json").write_text(json.dumps({
        "hasCompletedOnboarding": True,
        "customApiKeyResponses": {"approved": [env["ANTHROPIC_API_KEY"].strip()[-20:]], "rejected": []},
        "projects": {str(project): {"hasTrustDialogAccepted": True}},
    }))
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["mcp__baton"]}}))


@pytest.fixture
def anthropic():
    with FakeAnthropic() as fake:
        yield fake


def claude_ready(tmp_path: Path, model: FakeAnthropic, project: Path) -> dict[str, str]:
    """Claude Code's environment for its TUI, Baton installed in ``project`` for it."""
    env = interactive(claude_env(tmp_path / "claude-home", model))
    installed = run_baton(project, env, "install-hooks", "--harness", "claude-code", "--events", "all")
    assert installed.returncode == 0, installed.stderr
    claude_home(env, project)
    return env


def claude_session(project: Path, env: dict[str, str], model: FakeAnthropic, prompt: str, reply: str) -> Terminal:
    """One interactive Claude Code session: start, one typed prompt, ``reply`` on the screen, ``/exit``."""
    with Terminal([str(harness_program("claude-code"))], project, env) as claude:
        claude.wait_for(CLAUDE_READY, why="Claude Code's prompt")
        claude.type(prompt)
        claude.type("\r")
        claude.wait_for(reply, why="the model's reply")
        claude.wait_for(CLAUDE_READY, why="Claude Code's prompt after the reply")
        claude.type("/exit")
        claude.type("\r")
        assert claude.wait_until_ended() == 0, claude.screen()
    model.check()
    return claude


def test_an_interactive_claude_code_session_is_briefed_and_its_end_leaves_its_baton(tmp_path, anthropic):
    project = git_project(tmp_path / "project")
    env = claude_ready(tmp_path, anthropic, project)
    an_earlier_baton(project, env)
    anthropic.script = capture_validate_ready(session_id=session_named_in)
    claude = claude_session(project, env, anthropic, "Record where the zebra-42 work stands.", "Handed off.")
    first = said(anthropic.turns()[0])
    assert "SessionStart hook additional context: ## 🤝 Active Session Handoff" in first
    assert EARLIER_STEP in first
    (begun,) = events(project, env, "session.begun")
    sid = begun["stream"].split("/", 1)[1]
    (_, captured) = events(project, env, "handoff.captured")  # the earlier baton's, then the agent's
    (_, created) = events(project, env, "baton.created")
    assert subject(created) == subject(captured) and created["data"]["session"] == sid
    assert sid in [e["stream"].split("/", 1)[1] for e in events(project, env, "session.ended")]
    no_hook_trouble_shown(claude)
