"""``baton install-hooks`` without ``--command`` writes the absolute path of the ``baton`` it was
run from, so a harness finds it whatever its ``PATH`` (issue 26); ``--command baton`` writes the
portable form for files a team commits. Switching between the two replaces Baton's entries, and
``--remove`` still puts the user's files back byte for byte."""

from __future__ import annotations

import json
import os
import shlex
import sys
import sysconfig

import pytest

from baton.harnesses import HARNESSES, adapter
from baton.harnesses.wiring import running_baton
from tests.cli_support import run, run_json
from tests.test_install_hooks_command import _baton_server, _hook_commands
from tests.test_install_remove_bytes import HAND_FORMATTED, _bytes, _put


def _executable(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def started_as(monkeypatch, tmp_path):
    """This process started as the console script ``…/my venv/bin/baton`` (a space in its path)."""
    path = _executable(tmp_path / "my venv" / "bin" / "baton")
    monkeypatch.setattr(sys, "argv", [str(path)])
    return str(path)


@pytest.fixture
def nowhere(monkeypatch, tmp_path):
    """No ``baton`` on PATH, none beside the interpreter; returns that empty folder."""
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setattr(sys, "executable", str(empty / "python"))
    monkeypatch.setattr(sysconfig, "get_path", lambda *args, **kwargs: str(empty))
    return empty


def _expected_hooks(harness: str, command: str) -> dict[str, list[str]]:
    wired = adapter(harness)
    return {hook.event: [f"{command} hook {harness} {hook.event}{wired.command_suffix}"
                         f"{wired.event_suffix(hook.event, command)}"]
            for hook in wired.hooks if wired.role(hook) in wired.default_roles()}


# -- which baton is running -----------------------------------------------------------------------

def test_the_running_baton_is_the_console_script_the_process_started_as(started_as, nowhere):
    assert running_baton() == started_as


def test_under_python_m_baton_it_is_the_console_script_of_the_running_interpreter(monkeypatch, tmp_path, nowhere):
    scripts = _executable(tmp_path / "venv" / "bin" / "baton").parent
    monkeypatch.setattr(sys, "argv", [str(tmp_path / "src" / "baton" / "__main__.py")])
    monkeypatch.setattr(sysconfig, "get_path", lambda *args, **kwargs: str(scripts))
    assert running_baton() == str(scripts / "baton")


def test_else_it_is_the_baton_on_path(monkeypatch, tmp_path, nowhere):
    on_path = _executable(tmp_path / "bin" / "baton")
    monkeypatch.setattr(sys, "argv", [str(tmp_path / "pytest")])
    monkeypatch.setenv("PATH", str(on_path.parent))
    assert running_baton() == str(on_path)


def test_a_file_named_baton_that_cannot_run_is_not_taken(monkeypatch, tmp_path, nowhere):
    plain = tmp_path / "baton"
    plain.write_text("not a program\n")
    monkeypatch.setattr(sys, "argv", [str(plain)])
    assert running_baton() is None


def test_a_symlinked_console_script_is_kept_as_the_link_which_outlives_an_upgrade(monkeypatch, tmp_path, nowhere):
    real = _executable(tmp_path / "pipx" / "venvs" / "baton" / "bin" / "baton")
    link = tmp_path / "local" / "bin" / "baton"
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    monkeypatch.setattr(sys, "argv", [str(link)])
    assert running_baton() == str(link)


# -- what install-hooks writes -------------------------------------------------------------------

@pytest.mark.parametrize("harness", HARNESSES)
def test_without_command_the_hooks_and_server_run_the_running_batons_absolute_path(project_dir, capsys, harness,
                                                                                   started_as, nowhere):
    out = run_json(capsys, project_dir, "install-hooks", "--harness", harness)
    assert out["command"] == shlex.quote(started_as) and out["warnings"] == []
    assert _hook_commands(project_dir, harness) == _expected_hooks(harness, shlex.quote(started_as))
    forwards = {"env_vars": ["BATON_PROJECT"]} if harness == "codex" else {}  # harness15 G4
    assert _baton_server(project_dir, harness) == {"command": started_as, "args": ["mcp"], **forwards}


def test_the_answer_says_how_to_write_the_portable_form(project_dir, capsys, started_as):
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code")
    assert code == 0
    assert f"claude-code: the hooks and the MCP server run {started_as} (this machine's path)" in out
    assert "--command baton" in out
    assert "--command baton" in run_json(capsys, project_dir, "install-hooks", "--harness", "claude-code")[
        "commandNote"]


def test_a_dry_run_shows_the_absolute_path_it_would_write(project_dir, capsys, started_as):
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "codex", "--dry-run")
    assert code == 0 and not (project_dir / ".codex").exists()
    assert f'+command = "{started_as}"' in out
    assert f"# the hooks and the MCP server run {started_as}" in out


@pytest.mark.parametrize("harness", HARNESSES)
def test_command_baton_writes_the_portable_form_with_no_note(project_dir, capsys, harness, started_as, monkeypatch):
    monkeypatch.setenv("PATH", os.path.dirname(started_as))
    out = run_json(capsys, project_dir, "install-hooks", "--harness", harness, "--command", "baton")
    assert out["command"] == "baton" and out["commandNote"] is None and out["warnings"] == []
    assert _hook_commands(project_dir, harness) == _expected_hooks(harness, "baton")


@pytest.mark.parametrize("harness", HARNESSES)
def test_switching_between_portable_and_absolute_replaces_batons_entries_and_a_rerun_changes_nothing(
        project_dir, capsys, harness, started_as):
    for command in (["--command", "baton"], [], ["--command", "baton"], []):
        run_json(capsys, project_dir, "install-hooks", "--harness", harness, *command)
        expected = "baton" if command else shlex.quote(started_as)
        assert _hook_commands(project_dir, harness) == _expected_hooks(harness, expected)
    again = run_json(capsys, project_dir, "install-hooks", "--harness", harness)
    assert again["changed"] is False


def test_an_entry_written_with_an_older_path_is_replaced(project_dir, capsys, started_as):
    run_json(capsys, project_dir, "install-hooks", "--harness", "gemini-cli", "--command", "/old/venv/bin/baton")
    run_json(capsys, project_dir, "install-hooks", "--harness", "gemini-cli")
    assert _hook_commands(project_dir, "gemini-cli") == _expected_hooks("gemini-cli", shlex.quote(started_as))
    assert _baton_server(project_dir, "gemini-cli") == {"command": started_as, "args": ["mcp"]}


@pytest.mark.parametrize("harness", sorted(HAND_FORMATTED))
def test_remove_after_installs_with_changing_commands_puts_the_users_files_back_byte_for_byte(
        project_dir, capsys, harness, started_as):
    files = HAND_FORMATTED[harness]
    _put(project_dir, files)
    run_json(capsys, project_dir, "install-hooks", "--harness", harness, "--command", "baton")
    run_json(capsys, project_dir, "install-hooks", "--harness", harness)
    run_json(capsys, project_dir, "install-hooks", "--harness", harness, "--command", "/old/venv/bin/baton")
    run_json(capsys, project_dir, "install-hooks", "--harness", harness, "--remove")
    assert _bytes(project_dir, files) == files


def test_doctor_passes_the_default_wiring(project_dir, capsys, started_as, nowhere):
    run_json(capsys, project_dir, "install-hooks", "--harness", "claude-code")
    out = run_json(capsys, project_dir, "doctor")
    (check,) = [c for c in out["checks"] if c["name"] == "harness claude-code"]
    assert check["status"] == "ok" and started_as in check["detail"]


def test_doctor_names_the_running_baton_when_the_wired_one_is_gone(project_dir, capsys, started_as, nowhere):
    run_json(capsys, project_dir, "install-hooks", "--harness", "codex", "--command", "/gone/venv/bin/baton")
    code, out, err = run(capsys, project_dir, "doctor", "--json")
    (check,) = [c for c in json.loads(out)["checks"] if c["name"] == "harness codex"]
    assert code == 3 and check["status"] == "fail" and "`/gone/venv/bin/baton`" in check["detail"]
    assert f"run `{shlex.quote(started_as)} install-hooks --harness codex`" in check["detail"]
