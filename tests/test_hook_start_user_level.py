"""A session start in a folder without ``.baton/`` says where the hooks that ran are: the
project's own files ("installed here", with the ``--remove`` that takes them out there), the
harness's user-level configuration in the home directory (``install-hooks --user-level``: that
file, and the ``--remove`` that takes them out of it), or neither — then it claims nothing of the
folder (tester28 T1)."""

from __future__ import annotations

import json

import pytest

from baton.harnesses.install import install_hooks
from tests.conftest import run_baton
from tests.handoff_support import git_init
from tests.harness_support import fixture, injected

HOOKS_FILE = {"claude-code": ".claude/settings.json", "codex": ".codex/hooks.json",
              "gemini-cli": ".gemini/settings.json", "cursor": ".cursor/hooks.json"}
START = {"claude-code": "SessionStart.startup", "codex": "SessionStart.startup",
         "gemini-cli": "SessionStart.startup", "cursor": "sessionStart"}


@pytest.fixture
def home(tmp_path):
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def other(home):
    """A repository of the person's, never initialised for Baton."""
    folder = home / "other"
    folder.mkdir()
    git_init(folder)
    return folder


def _start(harness: str, folder, home) -> str:
    result = run_baton("hook", harness, START[harness].split(".")[0], cwd=folder,
                       env={"HOME": str(home), "BATON_HOOK_SERVER": "0"},
                       input=json.dumps(fixture(harness, START[harness], folder)))
    assert result.returncode == 0
    [said] = injected(harness, result.stdout).splitlines()
    return said


@pytest.mark.parametrize("harness", sorted(HOOKS_FILE))
def test_a_start_run_by_user_level_hooks_names_that_file_not_the_folder(home, other, harness, monkeypatch):
    monkeypatch.setenv("HOME", str(home))
    install_hooks(home, harness, user_level=True)

    said = _start(harness, other, home)

    assert f"`~/{HOOKS_FILE[harness]}`" in said and "user-level" in said
    assert f"`baton install-hooks --harness {harness} --remove --project ~`" in said
    assert "installed here" not in said and "`baton init` here" in said


def test_the_remove_a_user_level_notice_names_takes_the_hooks_out_of_the_home_directory(home, other, monkeypatch):
    monkeypatch.setenv("HOME", str(home))
    install_hooks(home, "codex", user_level=True)

    removed = run_baton("install-hooks", "--harness", "codex", "--remove", "--project", "~", cwd=other,
                        env={"HOME": str(home)})

    assert removed.returncode == 0, removed.stderr
    assert not (home / ".codex").exists()


def test_a_start_whose_hooks_are_neither_in_the_folder_nor_user_level_does_not_claim_they_are_here(home, other):
    said = _start("codex", other, home)

    assert "installed here" not in said and "none of its files holds them" in said
    assert "--remove" not in said  # a remove run here would find nothing of Baton's


def test_a_start_in_a_folder_whose_own_files_hold_the_hooks_says_they_are_installed_here(home, other):
    install_hooks(other, "codex")
    (other / ".baton" / "config.json").unlink()

    said = _start("codex", other, home)

    assert "hooks are installed here" in said and "`baton install-hooks --harness codex --remove`" in said


MOVED = {"claude-code": ("CLAUDE_CONFIG_DIR", "settings.json"), "codex": ("CODEX_HOME", "hooks.json"),
         "gemini-cli": ("GEMINI_CLI_HOME", ".gemini/settings.json")}
"""Each harness's own variable moving its user-level files, and the hooks file under the folder it names
(``config_text.CONFIG_HOMES``)."""


@pytest.mark.parametrize("harness", sorted(MOVED))
def test_a_start_run_by_user_level_hooks_the_harnesss_variable_moved_names_that_file(
        home, other, tmp_path, monkeypatch, harness):
    variable, hooks = MOVED[harness]
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv(variable, str(tmp_path / "config-home"))
    install_hooks(home, harness, user_level=True)

    said = _start(harness, other, home)

    assert f"user-level {harness} configuration (`{tmp_path / 'config-home' / hooks}`, read in every folder)" in said
    assert f"`baton install-hooks --harness {harness} --remove --project ~`" in said


def test_hooks_left_in_the_home_directory_once_codex_home_names_another_folder_are_not_named_user_level(
        home, other, tmp_path, monkeypatch):
    """Codex then reads ``$CODEX_HOME/hooks.json``, not ``~/.codex/hooks.json``: those hooks are not what ran."""
    monkeypatch.setenv("HOME", str(home))
    install_hooks(home, "codex", user_level=True)
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "config-home"))

    said = _start("codex", other, home)

    assert "user-level" not in said and "none of its files holds them" in said
