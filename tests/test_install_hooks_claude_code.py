"""``baton install-hooks --harness claude-code``: what Claude Code (2.1.197 to 2.1.337) needs
that the other harnesses do not (issue 23): a ``timeout`` on every hook entry
(without one, all SessionEnd hooks together get 1.5 s and a busy machine
loses the baton), and the project's MCP server approved in
``.claude/settings.local.json`` (headless ``claude -p`` never asks)."""

from __future__ import annotations

import json

import pytest

from baton.harnesses import adapter
from baton.harnesses.install import ALL_EVENTS, install_hooks
from tests.cli_support import run, run_json

LOCAL = ".claude/settings.local.json"

START = adapter("claude-code").event_suffix("SessionStart", "baton")
"""What follows Claude Code's SessionStart line run by a bare ``baton``: what the agent is told when it cannot
run (``start_failed``)."""


def _baton_hooks(settings: dict) -> dict[str, list[dict]]:
    return {event: [h for group in groups for h in group["hooks"] if " hook claude-code " in h["command"]]
            for event, groups in settings["hooks"].items()}


def test_every_hook_entry_carries_a_timeout_fitted_to_its_event(project_dir):
    install_hooks(project_dir, "claude-code", events=ALL_EVENTS)
    hooks = _baton_hooks(json.loads((project_dir / ".claude" / "settings.json").read_text()))
    timeouts = {event: [h.get("timeout") for h in found] for event, found in hooks.items()}
    # SessionEnd: long enough for the hand-on on a busy machine (Claude Code's default is 1.5 s);
    # the start and a prompt hold the session up, so theirs are short.
    assert timeouts == {"SessionStart": [15], "PreCompact": [30], "SessionEnd": [30], "UserPromptSubmit": [15],
                        "Stop": [15], "Interrupt": [15]}


def test_every_timeout_leaves_the_hook_room_to_give_up_first(project_dir):
    """Past its own deadline a hook answers "nothing" and leaves a notice; the harness's
    timeout must come later, with room for the process to start, or it kills the hook first."""
    from baton.harnesses.hook import DEADLINE_SECONDS

    install_hooks(project_dir, "claude-code")
    hooks = _baton_hooks(json.loads((project_dir / ".claude" / "settings.json").read_text()))
    assert all(h["timeout"] >= DEADLINE_SECONDS + 5 for found in hooks.values() for h in found)


def test_an_earlier_install_without_timeouts_gains_them_and_a_users_own_timeout_stays(project_dir):
    settings = project_dir / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"hooks": {
        "SessionEnd": [{"hooks": [{"type": "command", "command": "baton hook claude-code SessionEnd"}]}],
        "SessionStart": [{"matcher": "startup", "hooks": [
            {"type": "command", "command": "baton hook claude-code SessionStart", "timeout": 5}]}],
    }}))
    result = install_hooks(project_dir, "claude-code")
    hooks = _baton_hooks(json.loads(settings.read_text()))
    assert hooks["SessionEnd"] == [{"type": "command", "command": "baton hook claude-code SessionEnd", "timeout": 30}]
    assert hooks["SessionStart"] == [{"type": "command", "command": "baton hook claude-code SessionStart" + START,
                                      "timeout": 5}]
    assert next(c for c in result.changes if c.path == ".claude/settings.json").action == "updated"


def _start_matchers(settings: dict) -> list[str]:
    return [group.get("matcher") for group in settings["hooks"]["SessionStart"]
            if any(" hook claude-code " in h["command"] for h in group["hooks"])]


def test_the_session_start_hook_runs_for_a_forked_session(project_dir):
    """Claude Code 2.1.214 and later start a ``--fork-session`` session with source ``fork``
    under its own id; a matcher without it runs no hook, and the fork never gets the baton."""
    install_hooks(project_dir, "claude-code")
    (matcher,) = _start_matchers(json.loads((project_dir / ".claude" / "settings.json").read_text()))
    assert set(matcher.split("|")) == {"startup", "resume", "clear", "compact", "fork"}


def test_an_earlier_install_without_fork_in_its_matcher_gains_it(project_dir):
    settings = project_dir / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"hooks": {"SessionStart": [{"matcher": "startup|resume|clear|compact", "hooks": [
        {"type": "command", "command": "baton hook claude-code SessionStart", "timeout": 15}]}]}}))
    result = install_hooks(project_dir, "claude-code")
    assert _start_matchers(json.loads(settings.read_text())) == ["startup|resume|clear|compact|fork"]
    assert next(c for c in result.changes if c.path == ".claude/settings.json").action == "updated"


def test_the_mcp_server_is_approved_in_the_local_settings(project_dir):
    install_hooks(project_dir, "claude-code")
    assert json.loads((project_dir / LOCAL).read_text()) == {"enabledMcpjsonServers": ["baton"]}
    assert "baton" in json.loads((project_dir / ".mcp.json").read_text())["mcpServers"]


def test_the_server_is_always_loaded_so_its_tools_are_in_the_first_request(project_dir):
    install_hooks(project_dir, "claude-code")
    server = json.loads((project_dir / ".mcp.json").read_text())["mcpServers"]["baton"]
    assert server == {"command": "baton", "args": ["mcp"], "alwaysLoad": True}


def test_the_approval_keeps_the_users_keys_and_servers(project_dir):
    local = project_dir / LOCAL
    local.parent.mkdir()
    local.write_text(json.dumps({"permissions": {"allow": ["Bash(npm test)"]}, "enabledMcpjsonServers": ["docs"],
                                 "disabledMcpjsonServers": ["noisy"]}))
    install_hooks(project_dir, "claude-code")
    assert json.loads(local.read_text()) == {"permissions": {"allow": ["Bash(npm test)"]},
                                             "enabledMcpjsonServers": ["docs", "baton"],
                                             "disabledMcpjsonServers": ["noisy"]}
    again = install_hooks(project_dir, "claude-code")
    assert next(c for c in again.changes if c.path == LOCAL).action == "unchanged"
    assert json.loads(local.read_text())["enabledMcpjsonServers"] == ["docs", "baton"]


def test_an_approval_list_that_is_not_a_list_is_refused_not_overwritten(project_dir, capsys):
    local = project_dir / LOCAL
    local.parent.mkdir()
    local.write_text('{"enabledMcpjsonServers": "docs"}')
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code")
    assert code == 2 and "enabledMcpjsonServers is not a list" in err
    assert local.read_text() == '{"enabledMcpjsonServers": "docs"}'


def test_a_dry_run_shows_the_approval_and_writes_nothing(project_dir, capsys):
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code", "--dry-run")
    assert code == 0
    assert f"+++ b/{LOCAL}" in out and '"enabledMcpjsonServers"' in out
    assert "# the baton MCP server is approved in .claude/settings.local.json" in out
    assert not (project_dir / LOCAL).exists()


def test_the_install_says_in_one_line_that_it_approved_the_server_and_not_again(project_dir, capsys):
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code")
    assert code == 0
    said = [line for line in out.splitlines() if "approved" in line]
    assert said == ["claude-code: the baton MCP server is approved in .claude/settings.local.json "
                    "(enabledMcpjsonServers): Claude Code starts it without asking, headless too"]
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code")
    assert code == 0 and "approved" not in out


@pytest.mark.parametrize("harness", ["codex", "gemini-cli", "cursor"])
def test_no_other_harness_gets_a_claude_code_approval(project_dir, harness, capsys):
    out = run_json(capsys, project_dir, "install-hooks", "--harness", harness)
    assert not (project_dir / LOCAL).exists()
    assert all("note" not in f for f in out["files"])


def test_install_json_carries_a_note_only_on_the_file_it_explains(project_dir, capsys):
    out = run_json(capsys, project_dir, "install-hooks", "--harness", "claude-code")
    noted = {f["path"]: f["note"] for f in out["files"] if "note" in f}
    assert list(noted) == [LOCAL] and "approved" in noted[LOCAL]


# -- the start hook's fallback says what is wrong (harness16) --------------------------------------

def _start_hook_run(project_dir, path: str) -> str:
    """The SessionStart command line run as Claude Code runs it (``sh -c``), its stdout."""
    import subprocess

    (line,) = [h["command"] for h in _baton_hooks(json.loads((project_dir / ".claude" / "settings.json")
                                                             .read_text()))["SessionStart"]]
    done = subprocess.run(["/bin/sh", "-c", line], cwd=project_dir, env={"PATH": path, "HOME": str(project_dir)},
                          input="{}", capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_start_hook_says_no_file_exists_at_its_absolute_command_once_it_is_gone(project_dir, tmp_path):
    program = tmp_path / "venv" / "bin" / "baton"
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    install_hooks(project_dir, "claude-code", command=str(program))
    program.unlink()
    said = _start_hook_run(project_dir, "/usr/bin:/bin")
    assert said.startswith(f"Baton could not run its SessionStart hook (exit status 127: no file exists at {program}),")
    assert "PATH" not in said


def test_the_start_hook_of_a_bare_baton_says_it_was_not_found_on_the_path(project_dir, tmp_path):
    install_hooks(project_dir, "claude-code", command="baton")
    said = _start_hook_run(project_dir, "/usr/bin:/bin")
    assert said.startswith("Baton could not run its SessionStart hook (exit status 127; 127: the command was not "
                           "found on the PATH Claude Code runs hooks with)")
