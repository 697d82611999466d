"""``baton init`` over a ledger whose ``.baton/config.json`` is missing
(tracked only on another branch): it adopts the id the ledger recorded, and
the "not a Baton project" error says how to get the config back (docs/cli.md, ``baton init``)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli_support import run, run_json


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=f@example.com", "-c", "user.name=F", *args], cwd=cwd, check=True,
                   capture_output=True)


@pytest.fixture
def config_on_another_branch(tmp_path, capsys) -> tuple[Path, str]:
    """A repository whose config.json is committed on ``feat`` only, checked out on ``master``."""
    repo = tmp_path / "r"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "master")
    (repo / "a").write_text("a")
    _git(repo, "add", "a")
    _git(repo, "commit", "-qm", "a")
    first = run_json(capsys, repo, "init")["project_id"]
    _git(repo, "checkout", "-qb", "feat")
    _git(repo, "add", ".baton/config.json", ".baton/.gitignore")
    _git(repo, "commit", "-qm", "baton config")
    run_json(capsys, repo, "checkpoint", "create", "--no-input", "--title", "T", "--objective", "O")
    _git(repo, "checkout", "-q", "master")
    assert not (repo / ".baton" / "config.json").exists()
    return repo, first


def test_the_not_a_project_error_over_a_ledger_says_to_restore_config_json(capsys, config_on_another_branch):
    repo, _ = config_on_another_branch
    code, _out, err = run(capsys, repo, "handoff", "list")
    assert code != 0
    assert "git checkout <branch> -- .baton/config.json" in err and "has a Baton ledger" in err, err


def test_init_over_a_ledger_adopts_the_project_id_it_recorded_and_verify_passes(capsys, config_on_another_branch):
    repo, first = config_on_another_branch
    made = run_json(capsys, repo, "init")
    assert made["project_id"] == first and made["adopted"] is True
    assert json.loads((repo / ".baton" / "config.json").read_text())["project_id"] == first
    code, out, _ = run(capsys, repo, "verify")
    assert code == 0, out


def test_init_over_a_ledger_refuses_another_project_id(capsys, config_on_another_branch):
    repo, first = config_on_another_branch
    code, _out, err = run(capsys, repo, "init", "--project-id", "another-id")
    assert code != 0 and first in err, err
