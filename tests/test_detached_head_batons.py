"""A baton left while HEAD is detached (docs/batons.md, "Who and where"):
mid-rebase or mid-bisect it is the branch being rebased or bisected's; on a
plain detached HEAD it is keyed ``(detached)``, a name git forbids, so no
real branch (one named ``unknown``) receives it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.cli_support import run_json


def _git(cwd: Path, *args: str, env: dict | None = None) -> str:
    done = subprocess.run(["git", "-c", "user.email=r@example.com", "-c", "user.name=R", *args], cwd=cwd,
                          capture_output=True, text=True, env={**os.environ, **(env or {})})
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


@pytest.fixture
def repo(tmp_path, capsys) -> Path:
    here = tmp_path / "r"
    here.mkdir()
    _git(here, "init", "-q", "-b", "master")
    _git(here, "config", "user.email", "r@example.com")
    _git(here, "commit", "-q", "--allow-empty", "-m", "a")
    run_json(capsys, here, "init")
    _git(here, "checkout", "-qb", "feature")
    (here / "f").write_text("1\n")
    _git(here, "add", "f")
    _git(here, "commit", "-qm", "one")
    (here / "f").write_text("1\n2\n")
    _git(here, "commit", "-qam", "two")
    return here


def _waiting(capsys, repo: Path) -> str | None:
    handoff = run_json(capsys, repo, "bootstrap", "--peek").get("handoff")
    return handoff["id"] if handoff else None


def test_a_baton_left_mid_rebase_is_the_rebased_branchs(capsys, repo):
    _git(repo, "rebase", "-i", "HEAD~1", env={"GIT_SEQUENCE_EDITOR": "sed -i '1s/^pick/edit/'"})
    assert _git(repo, "branch", "--show-current").strip() == ""  # stopped, HEAD detached
    left = run_json(capsys, repo, "session", "end", "s1", "--handoff-steps", "finish the rebase, then run tests")
    assert left["handoff"]["branch"] == "feature"
    _git(repo, "rebase", "--continue")
    assert _waiting(capsys, repo) == left["handoffId"]


def test_a_baton_left_on_a_detached_head_is_not_given_to_a_branch_named_unknown(capsys, repo):
    _git(repo, "checkout", "-q", "--detach")
    left = run_json(capsys, repo, "session", "end", "s1", "--handoff-steps", "look at the detached work")
    assert left["handoff"]["branch"] == "(detached)"
    _git(repo, "checkout", "-qb", "unknown")
    assert _waiting(capsys, repo) is None


def test_a_start_after_a_branch_rename_says_once_a_baton_waits_under_the_old_name(capsys, repo):
    left = run_json(capsys, repo, "session", "end", "s1", "--handoff-steps", "carry on")
    _git(repo, "branch", "-m", "feature", "feature2")
    first = run_json(capsys, repo, "bootstrap")
    told = [n for n in first["notices"] if left["handoffId"] in n]
    assert told and "no branch feature exists here" in told[0] and "with feature as its branch" in told[0], first["notices"]
    again = run_json(capsys, repo, "bootstrap")
    assert not [n for n in again["notices"] if left["handoffId"] in n]


def test_a_start_on_another_branch_that_still_exists_is_not_told_of_its_baton(capsys, repo):
    left = run_json(capsys, repo, "session", "end", "s1", "--handoff-steps", "carry on")
    _git(repo, "checkout", "-qb", "other")
    shown = run_json(capsys, repo, "bootstrap")
    assert not [n for n in shown["notices"] if left["handoffId"] in n]
