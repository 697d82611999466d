"""A command run from inside a repository's git directory — ``cd .git``, or a
hook whose working directory is ``.git/hooks`` — opens the work tree's
project, as a command from any subfolder does; it used to take ``.git/`` for
a project of its own (suggesting ``baton init``, which then made
``.git/.baton``). A linked worktree's ``.git/worktrees/NAME`` opens the shared
project on that worktree's branch; a submodule's ``.git/modules/NAME`` (which
looks like a bare repository) the enclosing work tree's. Through the real command line and hook.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from dulwich import porcelain

from tests.cli_support import run_here
from tests.conftest import run_baton
from tests.handoff_support import git_init
from tests.harness_support import fixture


def cli(*args: str, cwd: Path, expect: int = 0):
    r = run_baton(*args, "--json", cwd=cwd)
    assert r.returncode == expect, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    return json.loads(r.stdout)


def here(*args: str, cwd: Path) -> dict:
    """``baton ARGS --json`` typed in ``cwd``, in this process: the steps that set a scene up or
    read its answer from the work tree itself, where a child process proves nothing more."""
    code, out, err = run_here(*args, "--json", cwd=cwd)
    assert code == 0, (code, out, err)
    return json.loads(out)


def checkpoint(cwd: Path, title: str, *, run=cli) -> str:
    return run("checkpoint", "create", "--no-input", "--title", title, "--objective", "it works",
               "--completed", "started", "--current-state", "half done", cwd=cwd)["id"]


@pytest.fixture
def repo(tmp_path) -> Path:
    root = (tmp_path / "repo").resolve()
    root.mkdir()
    git_init(root, {"src/app.py": "x = 1\n"})
    return root


def test_init_from_inside_the_git_directory_initialises_the_work_tree(repo):
    made = cli("init", cwd=repo / ".git" / "hooks")
    assert made["root"] == str(repo)
    assert (repo / ".baton" / "config.json").is_file()
    assert not (repo / ".git" / ".baton").exists() and not (repo / ".git" / "hooks" / ".baton").exists()


def test_init_naming_the_git_directory_as_the_project_initialises_the_work_tree(repo, tmp_path):
    made = cli("init", "--project", str(repo / ".git"), cwd=tmp_path)
    assert made["root"] == str(repo)
    assert not (repo / ".git" / ".baton").exists()


def test_a_command_from_inside_the_git_directory_opens_the_work_trees_project(repo):
    here("init", cwd=repo)
    hid = checkpoint(repo, "From the top", run=here)
    listed = cli("handoff", "list", cwd=repo / ".git")["handoffs"]
    assert [h["id"] for h in listed] == [hid]


def test_the_git_directory_resolves_as_a_plain_subfolder_does(repo):
    here("init", cwd=repo)
    from_git_dir = checkpoint(repo / ".git" / "hooks", "From .git/hooks")
    from_subfolder = checkpoint(repo / "src", "From src")
    listed = {h["id"] for h in here("handoff", "list", cwd=repo)["handoffs"]}
    assert listed == {from_git_dir, from_subfolder}


def test_uninitialised_from_inside_the_git_directory_names_the_work_tree(repo):
    r = run_baton("status", cwd=repo / ".git" / "hooks")
    assert r.returncode == 4
    assert f"{repo} is not a Baton project" in r.stderr and ".git" not in r.stderr


def test_a_subfolder_named_as_the_project_root_names_the_project_it_is_inside(repo, tmp_path):
    """``--project src`` names a root one folder too deep: the error names the
    project's root instead of suggesting ``baton init``, which would make a second project."""
    here("init", cwd=repo)
    r = run_baton("status", "--project", str(repo / "src"), "--json", cwd=tmp_path)
    assert r.returncode == 4 and "baton init" not in r.stderr
    assert f"it is inside the Baton project at {repo}: name that folder as the project root" in r.stderr
    error = json.loads(r.stdout)["error"]
    assert error["details"] == {"root": str(repo / "src"), "project_root": str(repo)}


def test_a_folder_outside_any_project_is_told_to_run_init(repo, tmp_path):
    r = run_baton("status", "--project", str(repo / "src"), cwd=tmp_path)
    assert r.returncode == 4 and "run `baton init` first" in r.stderr and "inside the Baton project" not in r.stderr


def test_a_linked_worktrees_git_directory_opens_the_shared_project_on_that_worktrees_branch(repo, tmp_path):
    here("init", cwd=repo)
    porcelain.branch_create(str(repo), "feature")
    porcelain.worktree_add(str(repo), str(tmp_path / "wt"), branch="feature")
    [gitdir] = (repo / ".git" / "worktrees").iterdir()
    hid = checkpoint(gitdir, "From the linked worktree's git directory")
    [row] = here("handoff", "list", cwd=repo)["handoffs"]
    assert (row["id"], row["branch"]) == (hid, "feature")
    assert not (gitdir / ".baton").exists() and not (tmp_path / "wt" / ".baton").exists()


def test_init_from_a_submodules_git_directory_initialises_the_enclosing_work_tree(repo):
    from dulwich.repo import Repo

    modules = repo / ".git" / "modules"
    modules.mkdir()
    Repo.init_bare(str(modules / "lib"), mkdir=True).close()
    made = cli("init", cwd=modules / "lib")
    assert made["root"] == str(repo)
    assert not (modules / "lib" / ".baton").exists()


def test_a_hook_running_in_git_hooks_serves_the_work_trees_project(repo):
    here("init", cwd=repo)
    hooks = repo / ".git" / "hooks"
    for event, name in (("SessionStart", "SessionStart.startup"), ("PreCompact", "PreCompact.auto")):
        r = subprocess.run([sys.executable, "-m", "baton", "hook", "claude-code", event],
                           input=json.dumps(fixture("claude-code", name, hooks, session_id="s1")),
                           capture_output=True, text=True, cwd=hooks, timeout=120)
        assert r.returncode == 0, r.stderr
    drafts = here("handoff", "list", "--status", "draft", cwd=repo)["handoffs"]
    assert len(drafts) == 1
    assert not (repo / ".git" / ".baton").exists() and not (hooks / ".baton").exists()
