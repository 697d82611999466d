"""The agent skill ``install-hooks`` writes to ``.agents/skills/baton/SKILL.md`` is one the real
harnesses find (Codex 0.171.0's ``skills/list``, Gemini CLI 0.61.0's ``gemini skills list``), and
``install-hooks --remove`` takes it away again. No model is called: both list skills locally.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.common import git_project, harness_env, harness_program, run_baton, run_harness
from tests.e2e.fake_openai import FakeResponses
from tests.e2e.test_codex import AppServer, CodexProject

pytestmark = pytest.mark.e2e

SKILL = Path(".agents") / "skills" / "baton" / "SKILL.md"


def _codex_skills(codex: CodexProject) -> list[dict]:
    with AppServer(codex) as server:
        (entry,) = server.request("skills/list", {"cwds": [str(codex.project)]})["data"]
    return entry["skills"]


def test_codex_finds_the_baton_skill_in_the_project_and_loses_it_on_remove(tmp_path):
    with FakeResponses() as model:
        codex = CodexProject(tmp_path, model)
        codex.install_baton()
        (baton,) = [s for s in _codex_skills(codex) if s["name"] == "baton"]
        assert baton["scope"] == "repo" and baton["enabled"] is True
        assert Path(baton["path"]) == codex.project / SKILL
        removed = run_baton(codex.project, codex.env, "install-hooks", "--harness", "codex", "--remove")
        assert removed.returncode == 0, removed.stderr
        assert not [s for s in _codex_skills(codex) if s["name"] == "baton"]


def _gemini_skills(program: Path, project: Path, env: dict[str, str]) -> str:
    done = run_harness([str(program), "skills", "list"], project, env, timeout=180)
    assert done.returncode == 0, f"gemini exited {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done.stdout + done.stderr


def test_gemini_cli_finds_the_baton_skill_in_the_project_and_loses_it_on_remove(tmp_path):
    program = harness_program("gemini-cli")
    project = git_project(tmp_path / "project")
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps({
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    }))
    env = harness_env(home, GEMINI_CLI_TRUST_WORKSPACE="true")
    installed = run_baton(project, env, "install-hooks", "--harness", "gemini-cli")
    assert installed.returncode == 0, installed.stderr
    listed = _gemini_skills(program, project, env)
    assert "baton [Enabled]" in listed and str(project / SKILL) in listed
    removed = run_baton(project, env, "install-hooks", "--harness", "gemini-cli", "--remove")
    assert removed.returncode == 0, removed.stderr
    assert "baton [" not in _gemini_skills(program, project, env)
