"""Claude Code's ``"disableAllHooks": true`` turns every hook off, Baton's with them:
``install-hooks`` and ``baton doctor`` say so (tester-use19 T14). The real CLI, in a
real git repository; the user's settings live in ``$CLAUDE_CONFIG_DIR``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_baton


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    (root / ".claude").mkdir(parents=True)
    assert subprocess.run(["git", "init", "-q", str(root)], capture_output=True).returncode == 0
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "user-claude"))
    return root


def install(repo: Path) -> subprocess.CompletedProcess:
    done = run_baton("install-hooks", "--harness", "claude-code", "--json", cwd=repo)
    assert done.returncode == 0, done.stderr
    return done


def doctor_check(repo: Path) -> dict | None:
    checks = json.loads(run_baton("doctor", "--json", cwd=repo).stdout)["checks"]
    found = [c for c in checks if "disableAllHooks" in c["name"]]
    return found[0] if found else None


def test_install_hooks_warns_when_the_project_settings_disable_all_hooks(repo):
    (repo / ".claude" / "settings.json").write_text('{"disableAllHooks": true}')
    done = install(repo)
    assert any("disableAllHooks" in w and ".claude/settings.json" in w for w in json.loads(done.stdout)["warnings"])


def test_doctor_warns_when_the_project_settings_disable_all_hooks(repo):
    (repo / ".claude" / "settings.json").write_text('{"disableAllHooks": true}')
    install(repo)
    check = doctor_check(repo)
    assert check is not None and check["status"] == "warn" and "none of Baton's hooks run" in check["detail"]


@pytest.mark.parametrize("value", ["0", "1", '""', "[]"])
def test_doctor_warns_of_any_disable_all_hooks_value_but_false_or_null(repo, value):
    (repo / ".claude" / "settings.json").write_text(f'{{"disableAllHooks": {value}}}')
    install(repo)
    check = doctor_check(repo)
    assert check is not None and check["status"] == "warn"


def test_doctor_warns_when_the_local_settings_disable_all_hooks(repo):
    install(repo)
    local = repo / ".claude" / "settings.local.json"
    local.write_text(json.dumps({**json.loads(local.read_text()), "disableAllHooks": True}))
    check = doctor_check(repo)
    assert check is not None and ".claude/settings.local.json" in check["detail"]


def test_install_hooks_warns_when_the_users_settings_disable_all_hooks(repo, tmp_path):
    (tmp_path / "user-claude").mkdir()
    (tmp_path / "user-claude" / "settings.json").write_text('{"disableAllHooks": true}')
    done = install(repo)
    assert any(str(tmp_path / "user-claude" / "settings.json") in w for w in json.loads(done.stdout)["warnings"])


def test_a_project_that_sets_disable_all_hooks_false_over_the_users_true_runs_hooks(repo, tmp_path):
    (tmp_path / "user-claude").mkdir()
    (tmp_path / "user-claude" / "settings.json").write_text('{"disableAllHooks": true}')
    (repo / ".claude" / "settings.json").write_text('{"disableAllHooks": false}')
    done = install(repo)
    assert not any("disableAllHooks" in w for w in json.loads(done.stdout)["warnings"])
    assert doctor_check(repo) is None


def test_without_the_switch_neither_install_hooks_nor_doctor_speaks_of_it(repo):
    done = install(repo)
    assert not any("disableAllHooks" in w for w in json.loads(done.stdout)["warnings"])
    assert doctor_check(repo) is None
