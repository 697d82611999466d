"""``baton install-hooks --command``: Baton's entries are replaced, never
duplicated, when the command changes; a path with a space stays one word;
whatever a generated file references exists or is a command."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import tomllib

import pytest

from baton.cli import build_parser
from baton.harnesses import HARNESSES, adapter
from baton.harnesses.install import install_hooks
from tests.cli_support import run

HOOKS_FILE = {"claude-code": ".claude/settings.json", "codex": ".codex/hooks.json",
              "gemini-cli": ".gemini/settings.json", "cursor": ".cursor/hooks.json"}
MCP_FILE = {"claude-code": ".mcp.json", "codex": ".codex/config.toml",
            "gemini-cli": ".gemini/settings.json", "cursor": ".cursor/mcp.json"}
FORWARDS = {"codex": {"env_vars": ["BATON_PROJECT"]}, "claude-code": {}, "gemini-cli": {}, "cursor": {}}
"""What a harness's Baton server entry adds to its command: Codex is told to pass ``$BATON_PROJECT`` on."""

START = adapter("claude-code").event_suffix("SessionStart", "/venv/bin/baton")
"""What follows Claude Code's SessionStart line run by ``/venv/bin/baton``: what the agent is told when it
cannot run (``start_failed``)."""


def _hook_commands(root, harness: str) -> dict[str, list[str]]:
    """Every command each event of the harness's hooks file runs."""
    hooks = json.loads((root / HOOKS_FILE[harness]).read_text())["hooks"]
    out = {}
    for event, entries in hooks.items():
        out[event] = []
        for entry in entries:
            out[event] += [entry["command"]] if "command" in entry else [h["command"] for h in entry["hooks"]]
    return out


def _baton_server(root, harness: str) -> dict:
    """The baton server's entry, without Claude Code's ``alwaysLoad`` (held by
    tests/test_install_hooks_claude_code.py): how the server is launched."""
    path = root / MCP_FILE[harness]
    if path.suffix == ".toml":
        return tomllib.loads(path.read_text())["mcp_servers"]["baton"]
    server = json.loads(path.read_text())["mcpServers"]["baton"]
    return {k: v for k, v in server.items() if not (harness == "claude-code" and k == "alwaysLoad")}


def _snapshot(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and ".baton" not in p.parts}


@pytest.fixture
def script(tmp_path):
    """An executable in a directory whose name has a space; it echoes its arguments."""
    folder = tmp_path / "dir with space"
    folder.mkdir()
    path = folder / "baton"
    path.write_text('#!/bin/sh\necho "ran $*"\n')
    path.chmod(0o755)
    return path


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_new_command_replaces_batons_hooks_and_server_instead_of_adding_them(project_dir, harness):
    install_hooks(project_dir, harness)
    install_hooks(project_dir, harness, command="/venv/bin/baton")
    events = [hook.event for hook in adapter(harness).hooks if adapter(harness).role(hook) in adapter(harness).default_roles()]
    assert _hook_commands(project_dir, harness) == {
        event: [f"/venv/bin/baton hook {harness} {event}{adapter(harness).command_suffix}"
                f"{adapter(harness).event_suffix(event, '/venv/bin/baton')}"] for event in events}
    assert _baton_server(project_dir, harness) == {"command": "/venv/bin/baton", "args": ["mcp"], **FORWARDS[harness]}


@pytest.mark.parametrize("harness", HARNESSES)
def test_running_the_new_command_again_changes_nothing(project_dir, harness):
    install_hooks(project_dir, harness)
    install_hooks(project_dir, harness, command="/venv/bin/baton")
    before = _snapshot(project_dir)
    again = install_hooks(project_dir, harness, command="/venv/bin/baton")
    assert {c.action for c in again.changes} == {"unchanged"}
    assert _snapshot(project_dir) == before


def test_a_dry_run_shows_the_replaced_command(project_dir):
    install_hooks(project_dir, "claude-code")
    before = _snapshot(project_dir)
    text = install_hooks(project_dir, "claude-code", dry_run=True, command="/venv/bin/baton").render()
    assert _snapshot(project_dir) == before
    assert '-            "command": "baton hook claude-code SessionStart || {' in text
    assert '+            "command": "/venv/bin/baton hook claude-code SessionStart || {' in text
    assert '-      "command": "baton",' in text and '+      "command": "/venv/bin/baton",' in text


def test_batons_hook_is_recognised_by_its_shape_and_other_hooks_and_keys_are_kept(project_dir):
    """A duplicate left by an earlier install goes; the user's timeout on Baton's hook and their own hooks stay."""
    settings = project_dir / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"model": "opus", "hooks": {"SessionStart": [
        {"matcher": "startup", "hooks": [{"type": "command", "command": "./mine.sh"},
                                         {"type": "command", "command": "baton hook claude-code SessionStart",
                                          "timeout": 99}]},
        {"hooks": [{"type": "command", "command": "'/old/my baton' hook claude-code SessionStart"}]},
        {"hooks": [{"type": "command", "command": "notify hook claude-code"}]},
    ]}}))
    install_hooks(project_dir, "claude-code", command="/venv/bin/baton")
    merged = json.loads(settings.read_text())
    assert merged["model"] == "opus"
    assert merged["hooks"]["SessionStart"] == [
        {"matcher": "startup", "hooks": [{"type": "command", "command": "./mine.sh"},
                                         {"type": "command",
                                          "command": "/venv/bin/baton hook claude-code SessionStart" + START,
                                          "timeout": 99}]},
        {"hooks": [{"type": "command", "command": "notify hook claude-code"}]},
    ]


def test_the_baton_server_takes_the_new_command_and_keeps_its_other_keys(project_dir):
    (project_dir / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "other": {"command": "x"}, "baton": {"command": "baton", "args": ["mcp"], "env": {"BATON_DEBUG": "1"}}}}))
    install_hooks(project_dir, "claude-code", command="/venv/bin/baton")
    assert json.loads((project_dir / ".mcp.json").read_text())["mcpServers"] == {
        "other": {"command": "x"},
        "baton": {"command": "/venv/bin/baton", "args": ["mcp"], "env": {"BATON_DEBUG": "1"}, "alwaysLoad": True}}


def test_codex_baton_table_gets_the_new_command_and_the_rest_of_the_file_is_untouched(project_dir):
    config = project_dir / ".codex" / "config.toml"
    config.parent.mkdir()
    head = 'model = "gpt-5-codex"\n\n[mcp_servers.baton]\n'
    tail = 'env = { BATON_DEBUG = "1" }\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n'
    config.write_text(head + 'command = "baton"\nargs = [\n  "mcp",\n]\n' + tail)
    install_hooks(project_dir, "codex", command="/venv/bin/baton")
    assert config.read_text() == (head + 'command = "/venv/bin/baton"\nargs = ["mcp"]\n'
                                  'env_vars = ["BATON_PROJECT"]\n' + tail)
    assert tomllib.loads(config.read_text())["mcp_servers"]["baton"] == {
        "command": "/venv/bin/baton", "args": ["mcp"], "env": {"BATON_DEBUG": "1"}, "env_vars": ["BATON_PROJECT"]}


def test_a_codex_baton_server_baton_cannot_edit_in_place_is_refused_and_left_untouched(project_dir, capsys):
    config = project_dir / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('mcp_servers = { baton = { command = "baton", args = ["mcp"] } }\n')
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "codex", "--command", "/venv/bin/baton")
    assert code == 2 and "cannot update [mcp_servers.baton] in place" in err
    assert config.read_text() == 'mcp_servers = { baton = { command = "baton", args = ["mcp"] } }\n'


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_command_path_with_a_space_is_one_word_that_the_hook_shell_runs(project_dir, harness, script):
    install_hooks(project_dir, harness, command=str(script))
    for event, commands in _hook_commands(project_dir, harness).items():
        (command,) = commands
        ran = subprocess.run(["sh", "-c", command], capture_output=True, text=True, check=True)
        assert ran.stdout == f"ran hook {harness} {event}\n"
    assert _baton_server(project_dir, harness) == {"command": str(script), "args": ["mcp"], **FORWARDS[harness]}


def test_a_command_that_names_no_file_is_split_like_a_shell(project_dir):
    install_hooks(project_dir, "claude-code", command="uvx --from 'baton-cli' baton")
    assert _hook_commands(project_dir, "claude-code")["SessionEnd"] == [
        "uvx --from baton-cli baton hook claude-code SessionEnd"]
    assert _baton_server(project_dir, "claude-code") == {"command": "uvx",
                                                          "args": ["--from", "baton-cli", "baton", "mcp"]}


def test_a_command_whose_quotes_do_not_close_is_refused(project_dir, capsys):
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "codex", "--command", "'/opt/baton")
    assert code == 2 and "cannot be split into words" in err
    assert _snapshot(project_dir) == {}


@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_command_is_refused_not_taken_for_the_default(project_dir, capsys, value):
    """``--command "$BATON"`` with the variable unset: the user named a program, and none is there."""
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "codex", "--command", value)
    assert code == 2 and "--command must name the baton program" in err
    assert _snapshot(project_dir) == {}


def test_a_mistyped_path_with_a_space_is_refused_not_split(project_dir, script, capsys):
    mistyped = str(script).replace("dir with space", "dir with spaces")
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code", "--command", mistyped)
    assert code == 2 and "names no file" in err
    assert _snapshot(project_dir) == {}


def test_a_command_naming_a_folder_is_refused(project_dir, script, capsys):
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code",
                         "--command", str(script.parent) + "/")
    assert code == 2 and "is a folder" in err
    assert _snapshot(project_dir) == {}


def test_a_relative_command_path_is_written_absolute(project_dir, script, monkeypatch):
    monkeypatch.chdir(script.parent.parent)
    install_hooks(project_dir, "claude-code", command=f"{script.parent.name}/{script.name}")
    assert _baton_server(project_dir, "claude-code") == {"command": str(script), "args": ["mcp"]}


PATH = re.compile(r"(?<![\w/:.-])[\w.-]+/[\w./-]*\w")


@pytest.mark.parametrize("harness", HARNESSES)
def test_every_path_a_generated_file_names_exists_in_the_project(project_dir, harness):
    result = install_hooks(project_dir, harness)
    for change in result.changes:
        text = (project_dir / change.path).read_text()
        for path in PATH.findall(text):
            assert (project_dir / path).exists(), f"{change.path} names {path}, which is not in the project"


def test_every_baton_command_the_cursor_rule_names_is_a_command(project_dir):
    install_hooks(project_dir, "cursor")
    rule = (project_dir / ".cursor" / "rules" / "baton.mdc").read_text()
    commands = [c for c in re.findall(r"`(baton [^`]+)`", " ".join(rule.split())) if "--help" not in c]
    assert len(commands) >= 4
    for command in commands:
        words = [w.replace("ID", "h-1") for w in shlex.split(command)][1:]
        build_parser().parse_args(words)  # exits 2 on a command or option Baton does not have


def test_a_codex_baton_table_known_only_by_its_subtable_gains_its_header(project_dir):
    config = project_dir / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('[mcp_servers.baton.env]\nBATON_DEBUG = "1"\n')
    install_hooks(project_dir, "codex", command="/venv/bin/baton")
    assert tomllib.loads(config.read_text())["mcp_servers"]["baton"] == {
        "command": "/venv/bin/baton", "args": ["mcp"], "env": {"BATON_DEBUG": "1"}, "env_vars": ["BATON_PROJECT"]}


def test_the_cursor_rule_says_how_to_complete_the_draft_baton_prepared(project_dir):
    install_hooks(project_dir, "cursor")
    rule = " ".join((project_dir / ".cursor" / "rules" / "baton.mdc").read_text().split())
    assert "`baton handoff amend ID --input FILE`" in rule


def test_codex_passes_baton_project_on_to_batons_mcp_server(project_dir):
    """Codex starts MCP servers with a filtered environment, hooks with the person's: the
    server must be given ``$BATON_PROJECT`` too, or it works on another project than the
    hooks (tester harness15 G4)."""
    install_hooks(project_dir, "codex", command="baton")
    server = tomllib.loads((project_dir / ".codex" / "config.toml").read_text())["mcp_servers"]["baton"]
    assert server["env_vars"] == ["BATON_PROJECT"]
