"""``baton install-hooks`` as a person runs it, then the real harness: run again, and taken out.

For each harness (Claude Code 2.1.337, Codex CLI 0.171.0, Gemini CLI 0.61.0), in a
fresh git project that already holds a settings file of the person's own:

- **Run twice.** The second ``install-hooks`` changes no file, and the harness then
  runs Baton's hooks once each — one brief in the model's first request, not two —
  and, for Codex, still trusts the hooks the person trusted after the first run (an
  unchanged hook keeps its trust; a changed one would need trusting again).
- **Taken out** (``install-hooks --remove``, docs/hooks.md). The person's own file
  comes back byte for byte, and the next session starts and ends normally with no
  brief, no Baton tool offered to the model, and nothing appended to the ledger.

What the agent was told is read from the request its harness sent its model; what
Baton did, from the ledger.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.common import ProxyTrap, git_project, harness_program, ledger_events, run_baton, run_harness
from tests.e2e.fake_anthropic import FakeAnthropic, claude_argv, claude_env, said
from tests.e2e.fake_gemini import FakeGemini, hook_contexts
from tests.e2e.fake_openai import FakeResponses, tool_names
from tests.e2e.test_claude_code import RUN_TIMEOUT, session
from tests.e2e.test_codex import CodexProject, developer_texts
from tests.e2e.test_gemini_cli import Session

pytestmark = pytest.mark.e2e

CLAUDE_BRIEF = "SessionStart hook additional context: "
"""How Claude Code (2.1.197, 2.1.332 and 2.1.337 alike) puts a SessionStart hook's context before the model."""


def _install(project: Path, env: dict[str, str], harness: str, *more: str) -> dict[str, Any]:
    """``baton install-hooks --harness HARNESS`` as the person types it (``more``: e.g. ``--remove``); its JSON."""
    done = run_baton(project, env, "install-hooks", "--harness", harness, *more, "--json")
    assert done.returncode == 0, f"install-hooks exited {done.returncode}:\n{done.stderr}"
    return json.loads(done.stdout)


def _unchanged(result: dict[str, Any]) -> bool:
    return result["changed"] is False and {f["action"] for f in result["files"]} == {"unchanged"}


# -- Claude Code -------------------------------------------------------------------------------------

CLAUDE_SETTINGS = '{\n  "permissions": {"allow": ["Bash(make test)"]}\n}\n'
"""The person's own ``.claude/settings.json``, as they wrote it (install-hooks merges into it)."""


@pytest.fixture
def claude_project(tmp_path):
    with FakeAnthropic() as model:
        project = git_project(tmp_path / "project")
        (project / ".claude").mkdir()
        (project / ".claude" / "settings.json").write_text(CLAUDE_SETTINGS)
        env = claude_env(tmp_path / "home", model)
        _install(project, env, "claude-code")
        yield harness_program("claude-code"), project, env, model


def test_claude_code_runs_batons_start_hook_once_after_install_hooks_ran_twice(claude_project):
    claude, project, env, model = claude_project
    assert _unchanged(_install(project, env, "claude-code"))
    model.script = ["Hello."]
    session(claude, project, env, model, "hello")
    assert said(model.turns()[0]).count(CLAUDE_BRIEF) == 1
    assert [e["type"] for e in ledger_events(project, env)].count("session.begun") == 1


def _move_hooks_to_local_settings(project: Path) -> None:
    """Baton's hooks cut from ``.claude/settings.json`` and pasted into ``.claude/settings.local.json``
    by hand, as a person does who wants them for themselves, not the team."""
    shared_path, local_path = project / ".claude" / "settings.json", project / ".claude" / "settings.local.json"
    shared, local = json.loads(shared_path.read_text()), json.loads(local_path.read_text())
    local["hooks"] = shared.pop("hooks")
    shared_path.write_text(json.dumps(shared, indent=2) + "\n")
    local_path.write_text(json.dumps(local, indent=2) + "\n")


def _session_with_hook_events(claude: Path, project: Path, env: dict[str, str], model: FakeAnthropic,
                              prompt: str) -> list[dict[str, Any]]:
    """One headless session, its output streamed with every hook Claude Code ran
    (``--include-hook-events``: a ``hook_started`` message per hook command); the messages."""
    done = run_harness(claude_argv(claude, prompt, "--output-format", "stream-json", "--verbose",
                                   "--include-hook-events"), project, env, timeout=RUN_TIMEOUT)
    assert done.returncode == 0, f"claude exited {done.returncode}\n{done.stderr[-4000:]}\n{done.stdout[-4000:]}"
    model.check()
    messages = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert messages and messages[-1].get("type") == "result" and messages[-1].get("is_error") is False, messages[-1:]
    return messages


def test_claude_code_runs_batons_hooks_moved_to_local_settings_once_after_install_hooks_ran_again(claude_project):
    """Installed with ``--command baton``, Baton's hooks moved by hand into
    ``.claude/settings.local.json``, then ``install-hooks`` run again (its default command, this
    ``baton``'s own path, a different command line). Claude Code runs the hooks of both files and
    runs two different command lines twice: the hooks must be updated where they are, with no
    copy in ``.claude/settings.json``. The waiting baton is then delivered once: one SessionStart
    hook run, one brief carrying it, one claim, the session begun and ended once."""
    claude, project, env, model = claude_project
    _install(project, env, "claude-code", "--command", "baton")
    _move_hooks_to_local_settings(project)
    again = _install(project, env, "claude-code")
    left = run_baton(project, env, "session", "end", "earlier-session",
                     "--handoff-steps", "Wire the zebra-42 parser into the CLI")
    assert left.returncode == 0, left.stderr
    model.script = ["On it."]
    messages = _session_with_hook_events(claude, project, env, model, "hello")
    started = [m for m in messages if m.get("subtype") == "hook_started" and m.get("hook_event") == "SessionStart"]
    assert len(started) == 1, started
    told = said(model.turns()[0])
    assert told.count(CLAUDE_BRIEF) == 1 and told.count("Wire the zebra-42 parser into the CLI") == 1, told
    sid = messages[-1]["session_id"]
    events = ledger_events(project, env)
    assert [e["data"]["session"] for e in events if e["type"] == "baton.claimed"] == [sid]
    assert sorted(e["type"] for e in events if e["type"] in ("session.begun", "session.ended")
                  and sid in json.dumps(e)) == ["session.begun", "session.ended"]
    assert set(again["hookFiles"].values()) == {".claude/settings.local.json"}


def test_after_remove_claude_code_runs_without_baton_and_the_persons_settings_come_back(claude_project):
    claude, project, env, model = claude_project
    model.script = ["Hello."]
    session(claude, project, env, model, "hello")
    assert CLAUDE_BRIEF in said(model.turns()[0]) and "mcp__baton__baton_status" in model.tool_names()

    _install(project, env, "claude-code", "--remove")
    assert (project / ".claude" / "settings.json").read_text() == CLAUDE_SETTINGS
    assert not (project / ".mcp.json").exists() and not (project / ".claude" / "settings.local.json").exists()
    recorded = len(ledger_events(project, env))
    model.script = ["Hello again."]
    asked = len(model.turns())
    session(claude, project, env, model, "hello")
    (first, *_) = model.turns()[asked:]
    assert CLAUDE_BRIEF not in said(first)
    assert not [t for t in (first.json or {}).get("tools") or [] if t.get("name", "").startswith("mcp__baton__")]
    assert len(ledger_events(project, env)) == recorded


# -- Codex CLI ---------------------------------------------------------------------------------------

CODEX_CONFIG = '# my project\'s Codex settings\nmodel_reasoning_effort = "low"\n'
"""The person's own ``.codex/config.toml`` (install-hooks adds ``[mcp_servers.baton]`` to it)."""


@pytest.fixture
def codex(tmp_path):
    trap = ProxyTrap()
    try:
        with FakeResponses() as model:
            world = CodexProject(tmp_path, model, trap)
            (world.project / ".codex").mkdir()
            (world.project / ".codex" / "config.toml").write_text(CODEX_CONFIG)
            _install(world.project, world.env, "codex")
            world.allow_a_slow_mcp_start()
            assert {h["trustStatus"] for h in world.trust_baton_hooks()} == {"trusted"}
            yield world
    finally:
        trap.close()


def _codex_briefs(world: CodexProject, since: int = 0) -> list[str]:
    return [t for r in world.model.turns()[since:since + 1] for t in developer_texts(r) if t.startswith("## Baton")]


def test_install_hooks_run_again_keeps_codexs_trust_and_its_hooks_run_once(codex):
    assert _unchanged(_install(codex.project, codex.env, "codex"))
    baton = [h for h in codex.hooks() if " hook codex " in (h.get("command") or "")]
    assert sorted(h["eventName"] for h in baton) == ["interrupt", "preCompact", "sessionStart", "stop"]
    assert {h["trustStatus"] for h in baton} == {"trusted"}
    codex.run("hello", ["Hello."])
    assert len(_codex_briefs(codex)) == 1, developer_texts(codex.model.turns()[0])
    assert codex.types().count("session.begun") == 1


def test_after_remove_codex_runs_without_baton_and_the_persons_config_comes_back(codex):
    codex.run("hello", ["Hello."])
    assert _codex_briefs(codex) and "mcp__baton/baton_status" in tool_names(codex.model.turns()[0])

    _install(codex.project, codex.env, "codex", "--remove")
    assert (codex.project / ".codex" / "config.toml").read_text() == CODEX_CONFIG
    assert not (codex.project / ".codex" / "hooks.json").exists()
    assert not [h for h in codex.hooks() if " hook codex " in (h.get("command") or "")]
    recorded = len(codex.events())
    asked = len(codex.model.turns())
    done = codex.run("hello", ["Hello again."])
    assert done.stdout.strip().endswith("Hello again."), done.stdout
    assert _codex_briefs(codex, asked) == []
    assert not [n for n in tool_names(codex.model.turns()[asked]) if n.startswith("mcp__baton")]
    assert len(codex.events()) == recorded


# -- Gemini CLI --------------------------------------------------------------------------------------

GEMINI_SETTINGS = '{\n  "ui": {"hideTips": true}\n}\n'
"""The person's own ``.gemini/settings.json`` (install-hooks merges its hooks and server into it)."""


@pytest.fixture
def gemini(tmp_path):
    trap = ProxyTrap()
    try:
        with FakeGemini() as model:
            project = git_project(tmp_path / "project")
            (project / ".gemini").mkdir()
            (project / ".gemini" / "settings.json").write_text(GEMINI_SETTINGS)
            yield Session(tmp_path, model, trap)  # install-hooks --harness gemini-cli --events all
    finally:
        trap.close()


def test_gemini_cli_runs_batons_start_hook_once_after_install_hooks_ran_twice(gemini):
    assert _unchanged(_install(gemini.project, gemini.env, "gemini-cli", "--events", "all"))
    [first, *_] = gemini.run("hello")
    assert len(hook_contexts(first)) == 1, hook_contexts(first)
    assert gemini.types().count("session.begun") == 1


def test_after_remove_gemini_cli_runs_without_baton_and_the_persons_settings_come_back(gemini):
    [first, *_] = gemini.run("hello")
    assert hook_contexts(first) and "mcp_baton_baton_status" in first.text()

    _install(gemini.project, gemini.env, "gemini-cli", "--remove")
    assert (gemini.project / ".gemini" / "settings.json").read_text() == GEMINI_SETTINGS
    recorded = len(gemini.events())
    [first, *_] = gemini.run("hello again")
    assert hook_contexts(first) == []
    assert "mcp_baton_" not in first.text()
    assert len(gemini.events()) == recorded
