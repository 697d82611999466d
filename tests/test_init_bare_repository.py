"""``baton init`` refuses a bare git repository: it has no work tree for a session to work in,
git sees no branch checked out there, and ``.baton/`` would sit among the repository's own
files (``doctor`` then said "not a git repository" while checkpoints recorded a branch)."""

from __future__ import annotations

import json
import subprocess

from tests.conftest import run_baton


def _bare(tmp_path):
    bare = tmp_path / "b.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    return bare


def test_init_refuses_a_bare_git_repository(tmp_path):
    bare = _bare(tmp_path)
    result = run_baton("init", cwd=bare)
    assert result.returncode == 2
    assert f"{bare} is a bare git repository" in result.stderr
    assert f"`git clone {bare} DIR`" in result.stderr
    assert not (bare / ".baton").exists()


def test_init_refuses_a_folder_inside_a_bare_repository_with_json_too(tmp_path):
    bare = _bare(tmp_path)
    result = run_baton("init", "--json", "--project", str(bare / "hooks"), cwd=tmp_path)
    assert result.returncode == 2
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "input_error" and error["details"]["git_dir"] == str(bare)
    assert f"inside {bare}, a bare git repository" in error["message"]
    assert not (bare / "hooks" / ".baton").exists()


def test_init_in_a_clone_of_the_bare_repository_works(tmp_path):
    bare = _bare(tmp_path)
    subprocess.run(["git", "clone", "-q", str(bare), str(tmp_path / "clone")], check=True, capture_output=True)
    result = run_baton("init", cwd=tmp_path / "clone")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "clone" / ".baton" / "config.json").is_file()
