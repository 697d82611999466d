"""``baton doctor`` on a clone whose committed wiring runs the portable ``baton`` and has no
``baton`` on PATH: it says to put ``baton`` on PATH, never to rewire the team's tracked files with
this machine's absolute path (tester26 T8)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from baton.harnesses.install import install_hooks
from baton.harnesses.wiring import running_baton
from tests.cli_support import run

GIT = shutil.which("git") or "git"
"""Found before a test empties PATH."""


@pytest.fixture
def no_baton_on_path(monkeypatch, tmp_path):
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def _git(root, *args: str) -> None:
    subprocess.run([GIT, "-c", "user.email=a@example.com", "-c", "user.name=A", *args], cwd=root,
                   check=True, capture_output=True)


def _committed_wiring(root) -> None:
    """Alice's clone: the wiring made with ``--command baton`` and committed."""
    _git(root, "init", "-q")
    install_hooks(root, "claude-code", command="baton")
    _git(root, "add", ".claude/settings.json", ".mcp.json")
    _git(root, "commit", "-qm", "wire Baton")


def _check(capsys, root) -> dict:
    code, out, err = run(capsys, root, "doctor", "--json")
    assert code == 3, err
    return {c["name"]: c for c in json.loads(out)["checks"]}["harness claude-code"]


def test_doctor_says_to_put_baton_on_path_for_committed_wiring_that_runs_the_portable_baton(
        project_dir, capsys, no_baton_on_path):
    _committed_wiring(project_dir)

    check = _check(capsys, project_dir)

    assert check["status"] == "fail"
    assert "put `baton` on PATH here" in check["detail"]
    assert ".claude/settings.json" in check["detail"] and ".mcp.json" in check["detail"]


def test_doctor_names_no_rewire_that_writes_an_absolute_path_into_committed_wiring(
        project_dir, capsys, no_baton_on_path):
    _committed_wiring(project_dir)

    detail = _check(capsys, project_dir)["detail"]

    assert f"run `{running_baton()} install-hooks --harness claude-code`" not in detail
    assert f"`{running_baton()} install-hooks --harness claude-code --command baton` keeps" in detail


def test_doctor_still_offers_the_absolute_path_rewire_for_wiring_git_does_not_track(
        project_dir, capsys, no_baton_on_path):
    _git(project_dir, "init", "-q")
    install_hooks(project_dir, "claude-code", command="baton")  # this clone's own: nothing committed

    detail = _check(capsys, project_dir)["detail"]

    assert "put `baton` on PATH, or run" in detail
    assert f"run `{running_baton()} install-hooks --harness claude-code` (it writes that baton's absolute path)" in detail
