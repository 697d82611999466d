"""``$BATON_PROJECT`` (or ``--project``) naming a project other than the one a session or
``install-hooks`` runs in: what it opens is said, with the folder and the setting
(docs/hooks.md, where a hook is told which folder to open)."""

from __future__ import annotations

import json

from tests.app_support import init_project
from tests.conftest import run_baton
from tests.handoff_support import git_init
from tests.harness_support import fixture, hook, injected


def _two_projects(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for folder in (a, b):
        folder.mkdir()
        git_init(folder)
        init_project(folder)
    assert run_baton("session", "end", "s0", "--handoff-steps", "Step from A", cwd=a).returncode == 0
    return a, b


def test_a_start_whose_baton_project_names_another_project_says_so_first(tmp_path, monkeypatch):
    a, b = _two_projects(tmp_path)
    monkeypatch.setenv("BATON_PROJECT", str(a))
    outcome = hook(b, "gemini-cli", "SessionStart", fixture("gemini-cli", "SessionStart.startup", b))
    said = injected("gemini-cli", outcome.answer)
    first = said.splitlines()[0]
    assert f"`{a.resolve()}`" in first and "`$BATON_PROJECT`" in first and f"`{b.resolve()}`" in first
    assert "Step from A" in said  # what the setting is for: that project's baton, claimed


def test_a_start_whose_baton_project_names_its_own_project_says_nothing_of_it(tmp_path, monkeypatch):
    a, b = _two_projects(tmp_path)
    monkeypatch.setenv("BATON_PROJECT", str(b))
    outcome = hook(b, "gemini-cli", "SessionStart", fixture("gemini-cli", "SessionStart.startup", b))
    assert "This brief comes from" not in injected("gemini-cli", outcome.answer)


def test_install_hooks_told_to_write_into_another_project_names_its_absolute_folder(tmp_path):
    a, b = _two_projects(tmp_path)
    done = run_baton("install-hooks", "--harness", "gemini-cli", cwd=b, env={"BATON_PROJECT": str(a)})
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith(f"gemini-cli: in {a.resolve()} (named by $BATON_PROJECT)")
    assert (a / ".gemini" / "settings.json").is_file() and not (b / ".gemini").exists()


def test_install_hooks_json_names_the_setting_only_when_it_points_elsewhere(tmp_path):
    a, b = _two_projects(tmp_path)
    there = run_baton("install-hooks", "--harness", "codex", "--json", "--project", str(a), cwd=b)
    here = run_baton("install-hooks", "--harness", "codex", "--json", cwd=b)
    assert json.loads(there.stdout)["namedBy"] == "--project" and json.loads(here.stdout)["namedBy"] is None
