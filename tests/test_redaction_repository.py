"""Git-derived fields of a handoff (branch, remote) are redacted like the payload, and listed in ``redactions``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.app_support import init_project
from tests.conftest import run_baton

TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5"


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _repo_on_secret_branch(root: Path) -> None:
    _git(root, "init", "-q")
    _git(root, "-c", "user.email=a@example.com", "-c", "user.name=A", "commit", "-q", "--allow-empty", "-m", "init")
    _git(root, "checkout", "-q", "-b", f"fix/{TOKEN}")
    init_project(root)


def _capture(root: Path, *args: str) -> dict:
    done = run_baton("checkpoint", "create", "--json", "--title", "t", "--objective", "o", *args, cwd=root)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_redacted_branch_is_listed_in_the_capture_redactions(project_dir):
    _repo_on_secret_branch(project_dir)
    out = _capture(project_dir)
    assert out["handoff"]["project"]["repository"]["branch"] == "fix/[REDACTED:github-token]"
    entry = {"field": "project.repository.branch", "rule": "github-token",
             "replacement": "[REDACTED:github-token]"}
    assert any(entry.items() <= r.items() for r in out["redactions"])
    assert any(entry.items() <= r.items() for r in out["handoff"]["redactions"])


def test_a_redacted_remote_path_is_listed_in_the_capture_redactions(project_dir):
    _repo_on_secret_branch(project_dir)
    _git(project_dir, "remote", "add", "origin", f"https://example.com/org/{TOKEN}.git")
    fields = {r["field"] for r in _capture(project_dir)["redactions"]}
    assert "project.repository.remote_hint" in fields


def test_an_amended_record_lists_its_snapshot_redaction_once(project_dir):
    _repo_on_secret_branch(project_dir)
    first = _capture(project_dir)
    done = run_baton("handoff", "amend", first["id"], "--title", "t2", "--json", cwd=project_dir)
    assert done.returncode == 0, done.stderr
    fields = [r["field"] for r in json.loads(done.stdout)["handoff"]["redactions"]]
    assert fields.count("project.repository.branch") == 1
