"""A project path typed in a content flag is taken from the current
directory, as git takes a pathspec, and recorded relative to the worktree's
top; from the top, and in payload files, paths mean what they always did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from baton.cli_input import ContentOptions, cwd_in_worktree, typed_from
from tests.conftest import run_baton
from tests.handoff_support import git_init


@pytest.fixture
def repo(project_dir) -> Path:
    """A git project with a source file two folders down, initialised for Baton."""
    git_init(project_dir, {"pkg/auth/session.py": "x = 1\n", "README.md": "hi\n"})
    assert run_baton("init", cwd=project_dir).returncode == 0
    return project_dir


def _captured(r) -> dict:
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["handoff"]


def test_an_artifact_typed_in_a_subdirectory_is_recorded_from_the_worktree_top_and_validates(repo):
    here = repo / "pkg" / "auth"
    r = run_baton("checkpoint", "create", "--no-input", "--json", "--title", "t", "--objective", "o",
                  "--artifact", "session.py", "../../README.md:read", cwd=here)
    handoff = _captured(r)
    assert [(a["path"], a["role"]) for a in handoff["artifacts"]] == [("pkg/auth/session.py", "modified"),
                                                                      ("README.md", "read")]
    v = run_baton("handoff", "validate", handoff["id"], "--json", cwd=here)
    assert "does not exist" not in v.stdout + v.stderr


def test_an_artifact_json_a_scope_glob_and_a_file_evidence_ref_are_taken_from_the_current_directory(repo):
    r = run_baton("checkpoint", "create", "--no-input", "--json", "--title", "t", "--objective", "o",
                  "--artifact", '{"path": "./session.py", "role": "created"}', "--scope", "**/*.py",
                  "--evidence", '{"type": "file", "claim": "read it", "ref": "session.py:1-2"}',
                  cwd=repo / "pkg" / "auth")
    handoff = _captured(r)
    assert handoff["artifacts"][0]["path"] == "pkg/auth/session.py"
    assert handoff["work"]["scope"] == ["pkg/auth/**/*.py"]
    assert handoff["evidence"][0]["ref"] == "pkg/auth/session.py:1-2"


def test_a_path_that_leaves_the_worktree_from_a_subdirectory_is_refused_as_typed(repo):
    r = run_baton("checkpoint", "create", "--no-input", "--title", "t", "--objective", "o",
                  "--artifact", "../../../elsewhere.py", cwd=repo / "pkg" / "auth")
    assert r.returncode == 5
    assert "'../../../elsewhere.py' refused" in r.stderr and "Traceback" not in r.stderr


def test_a_drive_relative_path_typed_in_a_subdirectory_is_refused_as_typed_as_at_the_top(repo):
    r = run_baton("checkpoint", "create", "--no-input", "--title", "t", "--objective", "o",
                  "--scope", "C:foo", cwd=repo / "pkg" / "auth")
    assert r.returncode == 5
    assert "'C:foo' refused" in r.stderr and "drive letter" in r.stderr and "Traceback" not in r.stderr


def test_from_the_worktree_top_paths_are_recorded_as_typed(repo):
    r = run_baton("checkpoint", "create", "--no-input", "--json", "--title", "t", "--objective", "o",
                  "--artifact", "pkg/auth/session.py", "--scope", "pkg/**", cwd=repo)
    handoff = _captured(r)
    assert handoff["artifacts"][0]["path"] == "pkg/auth/session.py"
    assert handoff["work"]["scope"] == ["pkg/**"]


def test_an_input_payload_file_keeps_paths_relative_to_the_worktree_top(repo):
    payload = repo / "pkg" / "auth" / "payload.json"
    payload.write_text(json.dumps({"work": {"title": "t", "objective": "o"},
                                   "artifacts": [{"path": "README.md", "role": "read"}]}))
    r = run_baton("checkpoint", "create", "--no-input", "--json", "--input", "payload.json", cwd=repo / "pkg" / "auth")
    assert _captured(r)["artifacts"][0]["path"] == "README.md"


def test_the_current_directory_is_named_from_the_worktree_top_and_empty_at_it_or_outside(tmp_path):
    (tmp_path / "top" / "a" / "b").mkdir(parents=True)
    top = tmp_path / "top"
    assert cwd_in_worktree(top, top / "a" / "b") == "a/b"
    assert cwd_in_worktree(top, top) == ""
    assert cwd_in_worktree(top, tmp_path) == ""


@pytest.mark.parametrize("typed, recorded", [
    ("x.py", "a/b/x.py"), ("./x.py", "a/b/x.py"), ("../y.py", "a/y.py"), ("../../z.md", "z.md"),
    ("c/../x.py", "a/b/x.py"), ("../../../out.py", "../../../out.py"), ("/etc/passwd", "/etc/passwd"),
    ("~/x", "~/x"), ("C:\\x", "C:\\x"),
])
def test_a_typed_path_is_made_relative_to_the_worktree_top_or_kept_as_typed_when_it_leaves(typed, recorded):
    assert typed_from("a/b", typed) == recorded


def test_at_the_worktree_top_a_typed_path_is_never_rewritten():
    for typed in ("x.py", "./x.py", "a/../x.py", "../x.py"):
        assert typed_from("", typed) == typed
    options = ContentOptions(artifacts=("a/../x.py:read",), scope=("./src/**",))
    assert options.to_changes()["artifacts"] == [{"path": "a/../x.py", "role": "read"}]
    assert options.to_changes()["work"]["scope"] == ["./src/**"]


def test_handoff_amend_takes_an_added_artifact_from_the_current_directory(repo):
    here = repo / "pkg" / "auth"
    handoff = _captured(run_baton("checkpoint", "create", "--no-input", "--json", "--title", "t", "--objective", "o",
                                  cwd=repo))
    r = run_baton("handoff", "amend", handoff["id"], "--json", "--artifact", "session.py:read", cwd=here)
    assert r.returncode == 0, r.stderr
    assert [a["path"] for a in json.loads(r.stdout)["handoff"]["artifacts"]] == ["pkg/auth/session.py"]


def test_from_outside_the_worktree_with_project_a_typed_path_stays_relative_to_the_top(repo):
    r = run_baton("checkpoint", "create", "--no-input", "--json", "--project", str(repo), "--title", "t",
                  "--objective", "o", "--artifact", "README.md", cwd=repo.parent)
    assert _captured(r)["artifacts"][0]["path"] == "README.md"


def test_in_a_linked_worktree_a_path_typed_in_a_subdirectory_is_taken_from_that_worktrees_top(tmp_path):
    from dulwich import porcelain

    main = tmp_path / "main"
    main.mkdir()
    git_init(main, {"src/app.py": "app\n"})
    assert run_baton("init", cwd=main).returncode == 0
    porcelain.branch_create(str(main), "b")
    porcelain.worktree_add(str(main), str(tmp_path / "wt"), branch="b")
    here = tmp_path / "wt" / "src"
    r = run_baton("checkpoint", "create", "--no-input", "--json", "--title", "t", "--objective", "o",
                  "--artifact", "app.py", cwd=here)
    handoff = _captured(r)
    assert handoff["artifacts"][0]["path"] == "src/app.py"
    assert handoff["artifacts"][0].get("content_hash")
