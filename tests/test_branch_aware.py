"""Where the user stands matters: ``latest`` is the current branch's (and
worktree's) newest ready handoff, and a validation belongs to the worktree
and HEAD it ran on.

A repository ``main`` (on ``master``) with a linked worktree ``wt-docs`` (on
``feature/docs``), built with dulwich only; commands run as a user types
them, in one worktree or the other.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dulwich import porcelain

from tests.cli_support import run_here
from tests.conftest import run_baton
from tests.handoff_support import git_commit, git_init

OWNER = "alice@example.com"


def cli(*args: str, cwd: Path, expect: int = 0):
    r = run_baton(*args, "--json", cwd=cwd)
    assert r.returncode == expect, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    return json.loads(r.stdout)


def setup_cli(*args: str, cwd: Path, expect: int = 0):
    """``cli`` in this process, for the steps that set the scene (the commands a test proves
    something about still run in a child process)."""
    code, out, err = run_here(*args, "--json", cwd=cwd)
    assert code == expect, (code, out, err)
    return json.loads(out)


def text(*args: str, cwd: Path, expect: int = 0) -> str:
    r = run_baton(*args, cwd=cwd)
    assert r.returncode == expect, (r.returncode, r.stdout, r.stderr)
    return r.stdout


@pytest.fixture
def repo(tmp_path):
    main = tmp_path / "main"
    main.mkdir()
    git_init(main, {"src/app.py": "master version\n", "docs/guide.md": "guide\n"})
    (main / ".git" / "config").write_text(
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[user]\n\temail = " + OWNER + "\n")
    setup_cli("init", cwd=main)
    porcelain.branch_create(str(main), "feature/docs")
    porcelain.worktree_add(str(main), str(tmp_path / "wt-docs"), branch="feature/docs")
    docs = (tmp_path / "wt-docs").resolve()
    git_commit(docs, {"docs/guide.md": "guide, rewritten on the docs branch\n"}, message="docs work")
    return main.resolve(), docs


def ready(cwd: Path, title: str, artifact: str = "src/app.py") -> str:
    hid = setup_cli("checkpoint", "create", "--no-input", "--title", title, "--objective", f"{title} works",
                    "--artifact", artifact, "--completed", "started", "--current-state", "half done",
                    "--open-item", json.dumps({"description": f"finish {title}", "suggested_action": "write it",
                                               "acceptance_check": "its test passes"}), cwd=cwd)["id"]
    setup_cli("handoff", "validate", hid, cwd=cwd)
    setup_cli("handoff", "ready", hid, "--accept-warnings", "test repository", cwd=cwd)
    return hid


def test_latest_is_the_newest_ready_handoff_of_the_current_branch(repo):
    main, docs = repo
    on_master = ready(main, "OAuth replay")
    on_docs = ready(docs, "Docs rewrite", "docs/guide.md")
    assert cli("resume", "--format", "json", cwd=main)["id"] == on_master
    assert cli("resume", "--format", "json", cwd=docs)["id"] == on_docs


def test_latest_says_how_it_was_resolved(repo):
    main, docs = repo
    ready(main, "OAuth replay")
    ready(docs, "Docs rewrite", "docs/guide.md")
    assert cli("resume", cwd=main)["latest"] == {"scope": "worktree", "branch": "master", "notice": None}


def test_latest_falls_back_to_the_projects_newest_with_a_one_line_notice(repo):
    main, docs = repo
    on_master = ready(main, "OAuth replay")
    answer = cli("resume", cwd=docs)
    assert answer["id"] == on_master and answer["latest"]["scope"] == "project"
    assert "no ready handoff on branch feature/docs" in answer["latest"]["notice"]
    out = text("resume", cwd=docs)
    assert out.splitlines()[0].startswith("Note: no ready handoff on branch feature/docs")


def test_latest_on_a_detached_head_says_it_used_the_projects_newest(repo):
    main, _docs = repo
    on_master = ready(main, "OAuth replay")
    head = (main / ".git" / "refs" / "heads" / "master").read_text().strip()
    (main / ".git" / "HEAD").write_text(head + "\n")
    answer = cli("resume", cwd=main)
    assert answer["id"] == on_master and answer["latest"]["scope"] == "project"
    assert answer["latest"]["notice"].startswith("no current branch here (a detached HEAD")
    assert text("resume", cwd=main).splitlines()[0].startswith("Note: no current branch here")


def test_any_branch_asks_for_the_projects_newest(repo):
    main, docs = repo
    ready(main, "OAuth replay")
    newest = ready(docs, "Docs rewrite", "docs/guide.md")
    answer = cli("resume", "--any-branch", cwd=main)
    assert answer["id"] == newest and answer["latest"]["notice"] is None


def test_an_explicit_id_is_not_changed_by_the_branch(repo):
    main, docs = repo
    on_master = ready(main, "OAuth replay")
    ready(docs, "Docs rewrite", "docs/guide.md")
    assert cli("resume", on_master, cwd=docs)["latest"] is None


def test_handoff_rows_carry_branch_and_worktree(repo):
    main, docs = repo
    ready(main, "OAuth replay")
    ready(docs, "Docs rewrite", "docs/guide.md")
    rows = cli("handoff", "list", cwd=main)["handoffs"]
    assert [(r["title"], r["branch"], r["worktree"]) for r in rows] == [
        ("Docs rewrite", "feature/docs", "../wt-docs"), ("OAuth replay", "master", ".")]
    assert [r["title"] for r in cli("handoff", "list", "--branch", "master", cwd=docs)["handoffs"]] == ["OAuth replay"]


# -- a validation belongs to the worktree and HEAD it ran on ----------------------------------

def _validated(cwd: Path, title: str, artifact: str) -> str:
    hid = cli("checkpoint", "create", "--no-input", "--title", title, "--objective", "o", "--artifact", artifact,
              "--completed", "x", "--current-state", "y",
              "--open-item", json.dumps({"description": "finish it", "suggested_action": "write it",
                                         "acceptance_check": "its test passes"}), cwd=cwd)["id"]
    cli("handoff", "validate", hid, cwd=cwd)
    return hid


def test_a_validation_records_the_worktree_branch_and_head_it_ran_on(repo):
    main, _ = repo
    hid = _validated(main, "OAuth", "src/app.py")
    record = cli("handoff", "show", hid, cwd=main)["handoff"]
    with porcelain.open_repo_closing(str(main)) as r:
        head = r.head().decode()
    assert record["validation"]["ran_on"] == {"worktree": ".", "branch": "master", "head": head}
    assert f"validated on master@{head[:12]}" in text("handoff", "show", hid, "--format", "md", cwd=main)


def test_validating_from_another_worktree_does_not_flip_the_record(repo):
    main, docs = repo
    (main / "src" / "only-here.py").write_text("exists only in the main worktree\n")
    hid = _validated(main, "OAuth", "src/only-here.py")
    before = cli("handoff", "show", hid, cwd=main)["handoff"]
    assert before["status"] == "validated" and "invalid" not in before.get("flags", [])
    answer = cli("handoff", "validate", hid, cwd=docs, expect=3)  # the artifact is missing there
    assert answer["applies_to_record"] is False and answer["ran_on"]["branch"] == "feature/docs"
    after = cli("handoff", "show", hid, cwd=main)["handoff"]
    assert after["status"] == "validated" and "invalid" not in after.get("flags", [])
    assert after["validation"]["status"] == before["validation"]["status"]
    assert [(r["status"], r["ran_on"]["worktree"]) for r in after["validation"]["elsewhere"]] == [
        ("fail", "../wt-docs")]


def test_a_validation_from_another_worktree_says_so(repo):
    main, docs = repo
    hid = _validated(main, "OAuth", "src/app.py")
    out = text("handoff", "validate", hid, cwd=docs)
    assert "validated on feature/docs@" in out and "recorded for this worktree only" in out
    assert "validated elsewhere" in text("handoff", "show", hid, "--format", "md", cwd=main)


def test_show_and_amend_name_the_same_latest_as_resume(repo):
    main, docs = repo
    on_master = ready(main, "OAuth replay")
    ready(docs, "Docs rewrite", "docs/guide.md")
    assert cli("handoff", "show", "latest", cwd=main)["id"] == on_master
    child = cli("handoff", "amend", "latest", "--discovery", "the callback is idempotent", cwd=main)
    assert child["handoff"]["lineage"]["parents"] == [on_master]


def test_ready_after_validating_in_another_worktree_says_to_validate_in_the_records_worktree(repo):
    main, docs = repo
    hid = cli("checkpoint", "create", "--no-input", "--title", "OAuth", "--objective", "o", "--artifact",
              "src/app.py", "--completed", "x", "--current-state", "y", cwd=main)["id"]
    run_baton("handoff", "validate", hid, cwd=docs)  # recorded for wt-docs only, whatever its result
    r = run_baton("handoff", "ready", hid, "--accept-warnings", "test repository", cwd=docs)
    assert r.returncode == 4, (r.stdout, r.stderr)
    assert "validated only in another worktree (../wt-docs)" in r.stderr
    assert "validate it in the main worktree (.)" in r.stderr


def test_ready_names_the_linked_worktree_a_record_was_captured_in(repo):
    main, docs = repo
    hid = cli("checkpoint", "create", "--no-input", "--title", "Docs", "--objective", "o", "--artifact",
              "docs/guide.md", "--completed", "x", "--current-state", "y", cwd=docs)["id"]
    run_baton("handoff", "validate", hid, cwd=main)  # recorded for the main worktree only
    error = cli("handoff", "ready", hid, "--accept-warnings", "test repository", cwd=main, expect=4)["error"]
    assert "validate it in its worktree ../wt-docs" in error["message"]
