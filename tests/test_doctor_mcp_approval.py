"""``baton doctor`` warns where Claude Code's ``baton`` MCP server is not approved in this clone:
``.claude/settings.local.json`` is each clone's own (never committed), so a teammate's clone of a
project whose team committed the wiring, or a linked worktree, has ``.mcp.json`` and the hooks
but no approval, and a headless ``claude -p`` offers none of Baton's tools (tester-use17 T3;
docs/hooks.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from baton.harnesses.install import install_hooks
from tests.cli_support import run

LOCAL = ".claude/settings.local.json"


@pytest.fixture(autouse=True)
def baton_on_path(monkeypatch):
    """The ``baton`` the hooks and the server run is found, so the wiring is otherwise complete."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")


def _claude_check(capsys, project_dir) -> dict:
    code, out, err = run(capsys, project_dir, "doctor", "--json")
    return {c["name"]: c for c in json.loads(out)["checks"]}["harness claude-code"]


def test_doctor_warns_that_the_server_is_not_approved_where_the_local_settings_are_missing(project_dir, capsys):
    install_hooks(project_dir, "claude-code")
    (project_dir / LOCAL).unlink()
    check = _claude_check(capsys, project_dir)
    assert check["status"] == "warn"
    assert "the `baton` MCP server is not approved in this clone" in check["detail"]
    assert "baton install-hooks --harness claude-code" in check["detail"]


def test_doctor_warns_when_the_local_settings_do_not_list_the_server(project_dir, capsys):
    install_hooks(project_dir, "claude-code")
    (project_dir / LOCAL).write_text(json.dumps({"enabledMcpjsonServers": ["other"]}))
    assert _claude_check(capsys, project_dir)["status"] == "warn"


def test_doctor_is_content_once_install_hooks_approved_the_server_again(project_dir, capsys):
    install_hooks(project_dir, "claude-code")
    (project_dir / LOCAL).unlink()
    install_hooks(project_dir, "claude-code")
    check = _claude_check(capsys, project_dir)
    assert "not approved" not in check["detail"]


def test_doctor_takes_approving_every_project_server_as_approval(project_dir, capsys):
    install_hooks(project_dir, "claude-code")
    (project_dir / LOCAL).write_text(json.dumps({"enableAllProjectMcpServers": True}))
    assert "not approved" not in _claude_check(capsys, project_dir)["detail"]


def test_doctor_in_a_teammates_clone_of_committed_wiring_warns_that_the_server_is_not_approved(tmp_path, capsys):
    git = ["git", "-c", "user.name=A", "-c", "user.email=a@x", "-c", "init.defaultBranch=main"]
    team = tmp_path / "team"
    team.mkdir()
    subprocess.run([*git, "-C", str(team), "init", "-q"], check=True)
    assert run(capsys, team, "init")[0] == 0
    install_hooks(team, "claude-code", command="baton")
    subprocess.run([*git, "-C", str(team), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(team), "commit", "-q", "-m", "wiring"], check=True)
    clone = tmp_path / "clone"
    subprocess.run([*git, "clone", "-q", str(team), str(clone)], check=True)
    assert not (clone / LOCAL).exists()
    assert run(capsys, clone, "init")[0] == 0
    check = _claude_check(capsys, clone)
    assert check["status"] == "warn" and "not approved in this clone" in check["detail"]
