"""Linked worktrees: one shared ``.baton/``, but git state and files per worktree.

A repository ``main`` (on ``master``) with a linked worktree ``wt-feature``
(on ``feature``), built with dulwich only. The ledger lives in the main
worktree's ``.baton/``; HEAD, branch, status, artifact paths and freshness are
read in the worktree the command runs in.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from dulwich import porcelain

from baton.commands.capture import capture_in_scope
from baton.commands.context import Project
from baton.errors import PolicyBlock
from baton.project import resolve_root, resolve_worktree
from tests.app_support import prepare_handoff, promote_handoff, resume_handoff, validate_handoff_command
from tests.conftest import run_baton
from tests.handoff_support import git_commit, git_init, payload

OWNER = "alice@example.com"


def head_of(path: Path) -> str:
    with porcelain.open_repo_closing(str(path)) as repo:
        return repo.head().decode()


def sha256_text(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def cli_json(*args: str, cwd: Path, expect: int = 0):
    r = run_baton(*args, "--json", cwd=cwd)
    assert r.returncode == expect, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    return json.loads(r.stdout)


def add_worktree(main: Path, path: Path, branch: str, *, force: bool = False) -> Path:
    porcelain.worktree_add(str(main), str(path), branch=branch, force=force)
    return path.resolve()


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """(main worktree on master, linked worktree on feature), each with its own
    commit, so their heads and their ``src/app.py`` differ."""
    main = tmp_path / "main"
    main.mkdir()
    git_init(main, {"src/app.py": "master version\n"})
    (main / ".git" / "config").write_text(
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[user]\n\temail = " + OWNER + "\n")
    from tests.app_support import init_project

    init_project(main)
    porcelain.branch_create(str(main), "feature")
    linked = add_worktree(main, tmp_path / "wt-feature", "feature")
    git_commit(linked, {"src/app.py": "feature version\n"}, message="feature work")
    assert head_of(linked) != head_of(main)
    monkeypatch.chdir(linked)
    return main.resolve(), linked


def capture_here(body: dict) -> str:
    """Capture in the current directory's project, as a command run there does."""
    opened = Project.open()
    try:
        with opened.writing() as scope:
            return capture_in_scope(scope, body).handoff_id
    finally:
        opened.close()


def record_of(handoff_id: str) -> dict:
    opened = Project.open()
    try:
        return opened.reading().get("handoffs", handoff_id)
    finally:
        opened.close()


def ready_here(body: dict) -> str:
    handoff_id = capture_here(body)
    assert validate_handoff_command(None, handoff_id).exit_code == 0
    promote_handoff(None, handoff_id)
    return handoff_id


# -- finding the project and the worktree ------------------------------------------------

def test_a_linked_worktree_opens_the_main_worktrees_project_but_knows_its_own_top_level(repo):
    main, linked = repo
    (linked / "src").mkdir(exist_ok=True)
    opened = Project.open()
    try:
        assert opened.root == main and opened.paths.baton_dir == main / ".baton"
        assert opened.paths.worktree == linked
    finally:
        opened.close()
    assert resolve_worktree(main, cwd=linked / "src") == str(linked)


def test_the_main_worktree_and_a_plain_folder_are_their_own_worktree(repo, tmp_path):
    main, _ = repo
    assert resolve_worktree(main, cwd=main) == str(main)
    plain = tmp_path / "plain"
    plain.mkdir()
    assert resolve_worktree(plain.resolve(), cwd=plain) == str(plain.resolve())


def test_project_naming_a_linked_worktree_opens_the_shared_project_in_that_worktree(repo, monkeypatch):
    main, linked = repo
    monkeypatch.chdir(main)
    assert resolve_root(linked) == str(main)
    assert resolve_worktree(main, linked) == str(linked)
    assert prepare_handoff(linked).to_json()["repository"]["branch"] == "feature"


def test_both_worktrees_share_one_baton_dir_and_one_ledger(repo):
    main, linked = repo
    cli_json("session", "end", "s-feature", "--handoff-steps", "feature work", cwd=linked)
    cli_json("session", "end", "s-master", "--handoff-steps", "master work", cwd=main)
    assert not (linked / ".baton").exists()
    feeds = list((main / ".baton" / "ledger").glob("*.jsonl"))
    assert len(feeds) == 1
    log_main = run_baton("log", "--json", cwd=main).stdout
    log_linked = run_baton("log", "--json", cwd=linked).stdout
    assert log_main == log_linked and "s-feature" in log_main and "s-master" in log_main


# -- batons are keyed to the worktree's branch ---------------------------------------------

def test_a_baton_left_in_a_linked_worktree_is_keyed_to_its_branch(repo):
    main, linked = repo
    baton = cli_json("session", "end", "s1", "--handoff-steps", "feature work", cwd=linked)["handoff"]
    assert (baton["owner"], baton["branch"]) == (OWNER, "feature")
    assert (main / ".baton" / "batons" / "alice%40example.com__feature.json").is_file()
    assert not (main / ".baton" / "batons" / "alice%40example.com__master.json").exists()


def test_a_session_on_master_in_the_main_worktree_does_not_see_the_feature_baton(repo):
    main, linked = repo
    cli_json("session", "end", "s1", "--handoff-steps", "feature work", cwd=linked)
    on_master = cli_json("bootstrap", "--session-id", "s2", cwd=main)
    assert on_master["handoff"] is None
    assert cli_json("session", "handoff", cwd=linked)["handoff"]["nextSteps"] == ["feature work"]


def test_the_feature_baton_reaches_the_next_session_in_another_checkout_of_feature(repo, tmp_path):
    main, linked = repo
    cli_json("session", "end", "s1", "--handoff-steps", "feature work", cwd=linked)
    other = add_worktree(main, tmp_path / "wt-feature-2", "feature", force=True)
    r = run_baton("session", "begin", "--session-id", "s2", cwd=other)
    assert r.returncode == 0, r.stderr
    assert "## 🤝 Active Session Handoff" in r.stdout and "1. feature work" in r.stdout
    assert "feature" in r.stdout and "master" not in r.stdout
    assert cli_json("bootstrap", "--session-id", "s3", cwd=linked)["handoff"] is None  # claimed once


def test_the_feature_baton_reaches_the_next_session_in_the_same_worktree(repo):
    _, linked = repo
    cli_json("session", "end", "s1", "--handoff-steps", "feature work", cwd=linked)
    delivered = cli_json("bootstrap", "--session-id", "s2", cwd=linked)["handoff"]
    assert delivered["branch"] == "feature" and delivered["nextSteps"] == ["feature work"]


# -- git state of the current worktree ----------------------------------------------------

def test_prepare_in_a_linked_worktree_reports_its_branch_head_and_changes(repo):
    main, linked = repo
    (linked / "src" / "new.py").write_text("x = 1\n")
    out = prepare_handoff().to_json()
    assert out["repository"]["branch"] == "feature"
    assert out["repository"]["head"] == head_of(linked) != head_of(main)
    assert out["repository"]["dirty"] is True
    assert out["changed_files"] == ["src/new.py"]


def test_a_capture_in_a_linked_worktree_records_its_branch_and_head(repo):
    _, linked = repo
    handoff_id = capture_here(payload())
    record = record_of(handoff_id)
    assert record["project"]["repository"]["branch"] == "feature"
    assert record["project"]["repository"]["head"] == head_of(linked)


def test_freshness_in_a_linked_worktree_turns_stale_after_a_commit_there(repo):
    _, linked = repo
    handoff_id = ready_here(payload(artifacts=[{"path": "src/app.py", "role": "modified"}]))
    assert resume_handoff(None, handoff_id).freshness_state == "fresh"
    git_commit(linked, {"src/other.py": "y = 2\n"}, message="more feature work")
    assert resume_handoff(None, handoff_id).freshness_state == "stale"


def test_a_handoff_readied_in_a_linked_worktree_is_judged_against_the_worktree_it_is_resumed_in(repo, monkeypatch):
    main, _ = repo
    handoff_id = ready_here(payload())
    assert resume_handoff(None, handoff_id).freshness_state == "fresh"
    monkeypatch.chdir(main)  # master's head is not the head it was captured at
    assert resume_handoff(None, handoff_id).freshness_state == "stale"


# -- artifacts are files of the current worktree -----------------------------------------

def test_an_artifact_in_a_linked_worktree_is_hashed_from_the_linked_worktree(repo):
    handoff_id = capture_here(payload(artifacts=[{"path": "src/app.py", "role": "modified"}]))
    record = record_of(handoff_id)
    [artifact] = record["artifacts"]
    assert artifact["content_hash"] == sha256_text("feature version\n") != sha256_text("master version\n")


def test_an_artifact_edited_in_the_linked_worktree_is_drift_there(repo):
    _, linked = repo
    handoff_id = ready_here(payload(artifacts=[{"path": "src/app.py", "role": "modified"}]))
    (linked / "src" / "app.py").write_text("edited after the handoff\n")
    freshness = resume_handoff(None, handoff_id).freshness
    assert freshness["state"] == "partially_stale"
    assert [d["path"] for d in freshness["drift"]] == ["src/app.py"]


def test_an_artifact_must_stay_inside_the_current_worktree(repo):
    main, linked = repo
    os.symlink(main / "src" / "app.py", linked / "src" / "main-app.py")
    with pytest.raises(PolicyBlock):
        capture_here(payload(artifacts=[{"path": "src/main-app.py", "role": "read"}]))


# -- the other interfaces ------------------------------------------------------------------

def test_status_in_a_linked_worktree_judges_the_latest_handoff_there(repo):
    from tests.app_support import project_status

    _, linked = repo
    ready_here(payload())
    assert project_status().to_json()["latest"]["freshness_state"] == "fresh"
    git_commit(linked, {"src/other.py": "y = 2\n"}, message="more feature work")
    assert project_status().to_json()["latest"]["freshness_state"] == "stale"


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.anyio
async def test_an_mcp_server_started_in_a_linked_worktree_reads_that_worktree(repo, anyio_backend):
    from mcp import Client

    from baton.mcp_server import build_server

    _, linked = repo
    body = payload(artifacts=[{"path": "src/app.py", "role": "modified"}])
    async with Client(build_server()) as client:
        captured = (await client.call_tool("handoff_capture", body)).structured_content
    record = captured["handoff"]
    assert record["project"]["repository"]["branch"] == "feature"
    assert record["project"]["repository"]["head"] == head_of(linked)
    assert record["artifacts"][0]["content_hash"] == sha256_text("feature version\n")
