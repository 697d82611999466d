"""A repository whose git directory lies outside its work tree (docs/batons.md, "Who and
where"; docs/security.md): ``$GIT_DIR`` with ``core.worktree`` (the "bare dotfiles repository"
setup), ``$GIT_DIR`` with ``$GIT_WORK_TREE``, and a ``.git`` file naming a git directory
elsewhere (``git init --separate-git-dir``). Baton finds the repository as git does in the
same environment: the owner is the repository's ``user.email``, the branch the one checked out,
freshness is read, and ``doctor`` names the repository. Real git, real ``baton`` processes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_baton


def _git(cwd: Path, *args: str, env: dict | None = None) -> str:
    import os

    done = subprocess.run(["git", "-c", "user.name=G", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})})
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


@pytest.fixture
def dotfiles(tmp_path) -> tuple[Path, dict[str, str]]:
    """A work tree with no ``.git``, its git directory beside it named by ``$GIT_DIR`` and
    ``core.worktree``, on branch ``dev``, with ``user.email`` in the repository's config."""
    store, tree = tmp_path / "store.git", tmp_path / "wt"
    tree.mkdir()
    _git(tmp_path, "init", "-q", "--bare", "-b", "main", str(store))
    _git(tmp_path, "--git-dir", str(store), "config", "core.bare", "false")
    _git(tmp_path, "--git-dir", str(store), "config", "core.worktree", str(tree))
    _git(tmp_path, "--git-dir", str(store), "config", "user.email", "g@ex.com")
    env = {"GIT_DIR": str(store)}
    (tree / "f").write_text("x\n")
    _git(tree, "add", "f", env=env)
    _git(tree, "commit", "-qm", "i", env=env)
    _git(tree, "checkout", "-qb", "dev", env=env)
    assert run_baton("init", cwd=tree, env=env).returncode == 0
    return tree, env


def _left(tree: Path, env: dict[str, str], session: str = "s1") -> dict:
    done = run_baton("session", "end", session, "--harness", "codex", "--handoff-steps", "gd step", "--json",
                     cwd=tree, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["handoff"]


def test_a_baton_left_under_git_dir_and_core_worktree_is_for_the_repositorys_email_on_its_branch(dotfiles):
    tree, env = dotfiles
    handoff = _left(tree, env)
    assert (handoff["owner"], handoff["branch"]) == ("g@ex.com", "dev")


def test_doctor_under_git_dir_and_core_worktree_names_the_repository(dotfiles):
    tree, env = dotfiles
    report = json.loads(run_baton("doctor", "--json", cwd=tree, env=env).stdout)
    git = next(check for check in report["checks"] if check["name"] == "git")
    assert git["status"] == "ok"
    assert str(tree) in git["detail"]


def test_a_start_hook_under_git_dir_delivers_the_branchs_baton_as_fresh(dotfiles):
    tree, env = dotfiles
    _left(tree, env)
    payload = {"session_id": "c1", "cwd": str(tree), "source": "startup", "hook_event_name": "SessionStart"}
    started = run_baton("hook", "claude-code", "SessionStart", cwd=tree, env=env, input=json.dumps(payload))
    context = json.loads(started.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "gd step" in context
    assert "Freshness: fresh" in context


def test_a_baton_left_under_git_dir_and_git_work_tree_is_for_the_checked_out_branch(tmp_path):
    store, tree = tmp_path / "store.git", tmp_path / "wt"
    tree.mkdir()
    _git(tmp_path, "init", "-q", "--bare", "-b", "main", str(store))
    env = {"GIT_DIR": str(store), "GIT_WORK_TREE": str(tree)}
    _git(tree, "-c", "user.email=w@ex.com", "commit", "-q", "--allow-empty", "-m", "i", env=env)
    _git(tree, "checkout", "-qb", "topic", env=env)
    assert run_baton("init", cwd=tree, env=env).returncode == 0
    assert _left(tree, env)["branch"] == "topic"


def test_a_relative_git_work_tree_is_read_from_the_current_folder_as_git_does(tmp_path):
    store, tree = tmp_path / "store" / "proj.git", tmp_path / "work"
    tree.mkdir()
    _git(tmp_path, "init", "-q", "--bare", "-b", "main", str(store))
    _git(tmp_path, "--git-dir", str(store), "config", "core.bare", "false")
    env = {"GIT_DIR": str(store), "GIT_WORK_TREE": "."}
    _git(tree, "config", "user.email", "w@ex.com", env=env)
    _git(tree, "checkout", "-qb", "feature", env=env)
    _git(tree, "commit", "-q", "--allow-empty", "-m", "i", env=env)
    assert Path(_git(tree, "rev-parse", "--show-toplevel", env=env).strip()) == tree.resolve()
    assert run_baton("init", cwd=tree, env=env).returncode == 0
    handoff = _left(tree, env)
    assert (handoff["owner"], handoff["branch"]) == ("w@ex.com", "feature")
    report = json.loads(run_baton("doctor", "--json", cwd=tree, env=env).stdout)
    assert not [check for check in report["checks"] if check["name"] == "git environment"]


def test_a_baton_left_in_a_separate_git_dir_work_tree_is_for_its_branch(tmp_path):
    tree = tmp_path / "wt"
    _git(tmp_path, "init", "-q", "-b", "main", "--separate-git-dir", str(tmp_path / "store.git"), str(tree))
    _git(tree, "config", "user.email", "s@ex.com")
    _git(tree, "commit", "-q", "--allow-empty", "-m", "i")
    _git(tree, "checkout", "-qb", "side")
    assert run_baton("init", cwd=tree).returncode == 0
    handoff = _left(tree, {})
    assert (handoff["owner"], handoff["branch"]) == ("s@ex.com", "side")


@pytest.fixture
def elsewhere(dotfiles, tmp_path) -> tuple[Path, dict[str, str]]:
    """A Baton project (no git of its own) outside the work tree ``$GIT_DIR``'s repository names."""
    _, env = dotfiles
    project = tmp_path / "other"
    project.mkdir()
    assert run_baton("init", cwd=project, env=env).returncode == 0
    return project, env


def test_doctor_says_when_git_dir_names_a_repository_whose_work_tree_does_not_hold_the_project(elsewhere):
    project, env = elsewhere
    report = json.loads(run_baton("doctor", "--json", cwd=project, env=env).stdout)
    said = next(check for check in report["checks"] if check["name"] == "git environment")
    assert said["status"] == "warn"
    assert "$GIT_DIR" in said["detail"] and "not branch-scoped" in said["detail"]


def test_a_start_hook_says_when_git_dir_names_a_repository_whose_work_tree_does_not_hold_the_project(elsewhere):
    project, env = elsewhere
    payload = {"session_id": "c2", "cwd": str(project), "source": "startup", "hook_event_name": "SessionStart"}
    started = run_baton("hook", "claude-code", "SessionStart", cwd=project, env=env, input=json.dumps(payload))
    context = json.loads(started.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "$GIT_DIR names" in context and "not branch-scoped" in context


def test_doctor_says_when_git_dir_names_no_repository(project, tmp_path):
    env = {"GIT_DIR": str(tmp_path / "nothing-here")}
    report = json.loads(run_baton("doctor", "--json", cwd=project, env=env).stdout)
    said = next(check for check in report["checks"] if check["name"] == "git environment")
    assert "no git repository" in said["detail"]


def test_doctor_says_nothing_of_git_dir_when_it_is_unset(project):
    report = json.loads(run_baton("doctor", "--json", cwd=project).stdout)
    assert all(check["name"] != "git environment" for check in report["checks"])


def test_doctor_says_nothing_of_git_dir_naming_the_linked_worktree_it_runs_in(tmp_path):
    main, linked = tmp_path / "main", tmp_path / "wt"
    _git(tmp_path, "init", "-q", "-b", "main", str(main))
    _git(main, "config", "user.email", "m@ex.com")
    _git(main, "commit", "-q", "--allow-empty", "-m", "i")
    assert run_baton("init", cwd=main).returncode == 0
    _git(main, "worktree", "add", "-q", "-b", "feat", str(linked))
    env = {"GIT_DIR": str(Path(_git(linked, "rev-parse", "--absolute-git-dir").strip()))}
    report = json.loads(run_baton("doctor", "--json", cwd=linked, env=env).stdout)
    assert not [check for check in report["checks"] if check["name"] == "git environment"], report
    assert _left(linked, env)["branch"] == "feat"
