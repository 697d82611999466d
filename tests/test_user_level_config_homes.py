"""A harness's user-level configuration is where the harness itself reads it: ``$CLAUDE_CONFIG_DIR``
for Claude Code's ``~/.claude``, ``$CODEX_HOME`` for Codex's ``~/.codex``, ``$GEMINI_CLI_HOME`` for
the home directory Gemini CLI reads ``.gemini/`` (and ``.agents/``) in (``config_text.CONFIG_HOMES``).
``install-hooks --user-level`` writes there, ``--remove`` in the home directory takes Baton's part
out of there (a session start in a folder without ``.baton/`` names that file:
``test_hook_start_user_level``), and ``baton doctor``
in a project wired by it alone says so, in place of "none wired" (harness29)."""

from __future__ import annotations

import pytest

from tests.cli_support import run, run_json
from tests.handoff_support import git_init

MOVED = {  # harness: (its variable, the hooks file under the folder it names)
    "claude-code": ("CLAUDE_CONFIG_DIR", "settings.json"),
    "codex": ("CODEX_HOME", "hooks.json"),
    "gemini-cli": ("GEMINI_CLI_HOME", ".gemini/settings.json"),
}


@pytest.fixture
def home(isolated_home):
    return isolated_home


@pytest.fixture
def elsewhere(tmp_path):
    """The folder a harness's own variable names, outside the home directory."""
    folder = tmp_path / "config-home"
    folder.mkdir()
    return folder


def _moved(monkeypatch, harness: str, folder) -> object:
    variable, hooks = MOVED[harness]
    monkeypatch.setenv(variable, str(folder))
    return folder / hooks


@pytest.mark.parametrize("harness", sorted(MOVED))
def test_user_level_install_writes_the_hooks_file_where_the_harnesss_variable_puts_it(
        home, elsewhere, capsys, monkeypatch, harness):
    hooks = _moved(monkeypatch, harness, elsewhere)

    code, out, err = run(capsys, home, "install-hooks", "--harness", harness, "--user-level")

    assert code == 0, err
    assert f"created {hooks}" in out and f" hook {harness} SessionStart" in hooks.read_text()
    home_hooks = {"claude-code": ".claude/settings.json", "codex": ".codex/hooks.json",
                  "gemini-cli": ".gemini/settings.json"}[harness]
    assert not (home / home_hooks).exists()


def test_the_remove_the_notice_names_takes_the_hooks_out_of_the_moved_file(home, elsewhere, capsys, monkeypatch):
    hooks = _moved(monkeypatch, "codex", elsewhere)
    (elsewhere / "config.toml").write_text('model = "mine"\n')
    run(capsys, home, "install-hooks", "--harness", "codex", "--user-level")

    code, out, err = run(capsys, home, "install-hooks", "--harness", "codex", "--remove")

    assert code == 0, err
    assert f"deleted {hooks}" in out and not hooks.exists()
    assert (elsewhere / "config.toml").read_text() == 'model = "mine"\n'


def test_the_home_directory_refusal_names_the_moved_user_level_file(home, elsewhere, capsys, monkeypatch):
    hooks = _moved(monkeypatch, "codex", elsewhere)

    code, _, err = run(capsys, home, "install-hooks", "--harness", "codex")

    assert code == 5 and str(hooks) in " ".join(err.split()) and not hooks.exists()


# -- baton doctor in a project whose sessions the user-level hooks run ------------------------------

@pytest.fixture
def project(home):
    folder = home / "work" / "app"
    folder.mkdir(parents=True)
    git_init(folder)
    return folder


def _checks(capsys, project, expect: int = 0) -> dict[str, dict]:
    return {c["name"]: c for c in run_json(capsys, project, "doctor", expect=expect)["checks"]}


def test_doctor_in_a_project_run_by_user_level_hooks_names_the_file_that_wires_it(
        home, elsewhere, project, capsys, monkeypatch):
    hooks = _moved(monkeypatch, "codex", elsewhere)
    run(capsys, home, "install-hooks", "--harness", "codex", "--user-level")
    run(capsys, project, "init")

    checks = _checks(capsys, project)

    assert "harnesses" not in checks  # no "none wired"
    check = checks["harness codex"]
    assert check["status"] == "ok" and f"`{hooks}` (codex's user-level configuration" in check["detail"]
    assert "not wired in this worktree" in check["detail"]


def test_doctor_text_names_the_user_level_file_of_hooks_in_the_home_directory(home, project, capsys):
    run(capsys, home, "install-hooks", "--harness", "claude-code", "--user-level")
    run(capsys, project, "init")

    code, out, _ = run(capsys, project, "doctor")

    assert code == 0
    assert "harness claude-code: not wired in this worktree, but `~/.claude/settings.json`" in " ".join(out.split())
    assert "none wired" not in out


def test_doctor_fails_user_level_hooks_whose_program_is_not_found(home, project, capsys):
    run(capsys, home, "install-hooks", "--harness", "codex", "--user-level", "--command", "/gone/baton")
    run(capsys, project, "init")

    check = _checks(capsys, project, expect=3)["harness codex"]

    assert check["status"] == "fail" and "`/gone/baton` (no such executable file)" in check["detail"]


def test_doctor_still_says_none_wired_when_neither_the_project_nor_the_user_level_files_hold_the_hooks(
        project, capsys):
    run(capsys, project, "init")

    check = _checks(capsys, project)["harnesses"]

    assert check["status"] == "ok" and check["detail"].startswith("none wired in this worktree")
