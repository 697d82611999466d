"""``baton install-hooks`` run where the project folder is the home directory: there the harnesses'
project files are their user-level configuration (``~/.claude/settings.json``,
``~/.codex/hooks.json``…), read in every folder, so Baton's hooks would run in every project. It is
refused (exit 5, nothing written) unless ``--user-level`` says that is meant (tester28 T1)."""

from __future__ import annotations

import json

import pytest

from baton.harnesses import HARNESSES
from tests.cli_support import run


@pytest.fixture
def home(tmp_path, monkeypatch):
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


@pytest.mark.parametrize("harness", HARNESSES)
def test_install_hooks_in_the_home_directory_is_refused_and_writes_nothing(home, capsys, harness):
    code, _, err = run(capsys, home, "install-hooks", "--harness", harness)

    assert code == 5
    assert "home directory" in err and "--user-level" in err
    assert list(home.iterdir()) == []


def test_the_refusal_names_the_user_level_file_and_how_to_install_in_a_project(home, capsys):
    _, _, err = run(capsys, home, "install-hooks", "--harness", "codex")

    assert ".codex/hooks.json" in err and "every folder" in err and "--project" in err


def test_the_refusal_with_json_is_a_policy_block_naming_the_reason(home, capsys):
    code, out, _ = run(capsys, home, "install-hooks", "--harness", "claude-code", "--json")

    error = json.loads(out)["error"]
    assert code == 5 and error["code"] == "policy_block" and error["exit_code"] == 5
    assert error["details"]["reason"] == "home_directory" and error["details"]["root"] == str(home)


def test_a_dry_run_in_the_home_directory_is_refused_too(home, capsys):
    code, _, _ = run(capsys, home, "install-hooks", "--harness", "gemini-cli", "--dry-run")

    assert code == 5 and list(home.iterdir()) == []


def test_user_level_wires_the_home_directory_when_that_is_meant(home, capsys):
    code, _, err = run(capsys, home, "install-hooks", "--harness", "codex", "--user-level")

    assert code == 0, err
    assert (home / ".codex" / "hooks.json").is_file()


def test_remove_in_the_home_directory_needs_no_flag(home, capsys):
    run(capsys, home, "install-hooks", "--harness", "codex", "--user-level")

    code, out, err = run(capsys, home, "install-hooks", "--harness", "codex", "--remove")

    assert code == 0, err
    assert "deleted .codex/hooks.json" in out and not (home / ".codex").exists()


def test_a_project_inside_the_home_directory_is_not_refused(home, capsys):
    project = home / "code" / "app"
    project.mkdir(parents=True)

    code, _, err = run(capsys, project, "install-hooks", "--harness", "claude-code")

    assert code == 0, err
    assert (project / ".claude" / "settings.json").is_file()


def test_user_level_with_remove_is_an_input_error(home, capsys):
    code, _, err = run(capsys, home, "install-hooks", "--harness", "codex", "--remove", "--user-level")

    assert code == 2 and "--user-level" in err
