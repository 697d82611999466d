"""``baton session begin`` — the start a person types — is told, once, of the batons this
clone left that wait elsewhere, as a harness's start hook and ``bootstrap`` are: one left
under another owner, on a branch renamed or deleted since, or on a detached HEAD at this
branch's tip. The same decision (``bootstrap.left_for_another_owner``), said after "No
session handoff was waiting." and as ``notices`` in ``--json``. Real git, the command line.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.cli_support import run, run_json


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "user.name=A", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git("init", "-q", "-b", "main", cwd=root)
    git("config", "user.email", "alice@example.com", cwd=root)
    (root / "a").write_text("a\n")
    git("add", "a", cwd=root)
    git("commit", "-qm", "init", cwd=root)
    return root


def _leave(capsys, project: Path, session: str, *who: str) -> str:
    return run_json(capsys, project, "session", "end", session, "--handoff-steps", "step left", *who)["handoffId"]


def test_session_begin_on_the_branch_made_at_a_detached_baton_names_it(repo, capsys):
    run_json(capsys, repo, "init")
    git("checkout", "-q", "--detach", cwd=repo)
    run_json(capsys, repo, "session", "begin", "s-detached")
    baton_id = _leave(capsys, repo, "s-detached")
    git("switch", "-q", "-c", "fix", cwd=repo)

    code, out, err = run(capsys, repo, "session", "begin", "s-fix")

    assert code == 0, err
    waiting, notice = out.splitlines()[1:3]
    assert waiting == "No session handoff was waiting."
    assert "detached HEAD" in notice and baton_id in notice


def test_session_begin_json_names_a_baton_on_a_renamed_branch_in_notices(repo, capsys):
    run_json(capsys, repo, "init")
    git("checkout", "-q", "-b", "feature/wt", cwd=repo)
    run_json(capsys, repo, "session", "begin", "s-wt")
    baton_id = _leave(capsys, repo, "s-wt")
    git("branch", "-m", "feature/wt", "feature/wt2", cwd=repo)

    begun = run_json(capsys, repo, "session", "begin", "s-wt2")

    [notice] = begun["notices"]
    assert baton_id in notice and "no branch feature/wt exists here" in notice


def test_session_begin_names_a_baton_left_under_the_owner_before_with_its_own_option(project, capsys):
    run_json(capsys, project, "session", "begin", "s-old", "--owner", "ann@home.example", "--branch", "main")
    baton_id = _leave(capsys, project, "s-old", "--owner", "ann@home.example", "--branch", "main")

    begun = run_json(capsys, project, "session", "begin", "s-new", "--owner", "ann@corp.example",
                     "--branch", "main")

    [notice] = begun["notices"]
    assert baton_id in notice and "ann@corp.example" in notice
    assert "`baton session begin --owner ann@home.example` claims it" in notice


def test_session_begin_tells_a_waiting_baton_once_so_the_next_start_does_not_repeat_it(repo, capsys):
    run_json(capsys, repo, "init")
    git("checkout", "-q", "-b", "feature/wt", cwd=repo)
    run_json(capsys, repo, "session", "begin", "s-wt")
    _leave(capsys, repo, "s-wt")
    git("branch", "-m", "feature/wt", "feature/wt2", cwd=repo)

    first = run_json(capsys, repo, "session", "begin", "s-1")
    peeked = run_json(capsys, repo, "bootstrap", "--peek")

    assert len(first["notices"]) == 1
    assert not any("feature/wt " in notice for notice in peeked["notices"])


def test_session_begin_that_receives_a_baton_has_no_waiting_elsewhere_notice(project, capsys):
    run_json(capsys, project, "session", "begin", "s-old", "--owner", "ann@home.example", "--branch", "main")
    _leave(capsys, project, "s-old", "--owner", "ann@home.example", "--branch", "main")
    _leave(capsys, project, "s-mine", "--owner", "ann@corp.example", "--branch", "main")

    begun = run_json(capsys, project, "session", "begin", "s-new", "--owner", "ann@corp.example",
                     "--branch", "main")

    assert begun["handoff"] is not None and begun["notices"] == []
