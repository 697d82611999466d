"""Claude Code 2.1.337, run for real against a scripted Anthropic API: Baton's MCP prompts are its
slash commands (``/mcp__baton__<prompt>``), and the agent skill ``install-hooks`` wrote is one of
its skills. Assertions look at what reached the model and at Claude Code's own init message.
"""

from __future__ import annotations

import json

import pytest

from tests.e2e.common import git_project, harness_program, run_baton, run_harness
from tests.e2e.fake_anthropic import FakeAnthropic, claude_env, is_turn

pytestmark = pytest.mark.e2e


@pytest.fixture
def claude(tmp_path):
    """A git project with Baton installed for Claude Code, the scripted model, Claude Code's environment."""
    with FakeAnthropic() as model:
        project = git_project(tmp_path / "project")
        # Claude Code 2.1 connects MCP servers in the background by default, so a slash command
        # read before `baton mcp` is up is unknown; MCP_CONNECTION_NONBLOCKING=0 makes it wait
        # for the connection (MCP_TIMEOUT: up to 60 s, room for a loaded machine).
        env = claude_env(tmp_path / "home", model, MCP_TIMEOUT="60000", MCP_CONNECTION_NONBLOCKING="0")
        installed = run_baton(project, env, "install-hooks", "--harness", "claude-code")
        assert installed.returncode == 0, installed.stderr
        yield project, env, model


def _run(project, env, prompt: str) -> list[dict]:
    program = harness_program("claude-code")
    done = run_harness([str(program), "-p", prompt, "--output-format", "stream-json", "--verbose",
                        "--dangerously-skip-permissions"], project, env, timeout=240)
    assert done.returncode == 0, f"claude exited {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def _user_texts(recorded) -> str:
    """Every text the agent's turn request carries from the user's side."""
    texts = []
    for message in (recorded.json or {}).get("messages") or []:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        texts += [content] if isinstance(content, str) else [c.get("text", "") for c in content or []
                                                               if isinstance(c, dict)]
    return "\n".join(texts)


def test_the_handoff_prompt_is_a_slash_command_whose_text_reaches_the_model(claude):
    project, env, model = claude
    model.script = ["I will write the handoff."]
    _run(project, env, "/mcp__baton__handoff")
    (turn,) = [r for r in model.messages() if is_turn(r)]
    text = _user_texts(turn)
    assert "Write a Baton handoff of this session now" in text
    assert "`handoff_capture`" in text and "`handoff_ready`" in text


def _init(messages: list[dict]) -> dict:
    (init,) = [m for m in messages if m.get("type") == "system" and m.get("subtype") == "init"]
    return init


def test_claude_code_offers_every_baton_prompt_as_a_slash_command(claude):
    from baton.mcp_server import PROMPT_NAMES

    project, env, model = claude
    model.script = ["Hello."]
    init = _init(_run(project, env, "hello"))
    # 2.1.332 and later add the server's "source" ("project") to each entry
    assert [s["status"] for s in init["mcp_servers"] if s.get("name") == "baton"] == ["connected"]
    assert {f"mcp__baton__{name}" for name in PROMPT_NAMES} <= set(init["slash_commands"])


def test_claude_code_lists_the_skill_install_hooks_wrote(claude):
    project, env, model = claude
    model.script = ["Hello."]
    assert "baton" in _init(_run(project, env, "hello"))["skills"]
