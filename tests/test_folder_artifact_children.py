"""Which children a folder artifact's tree hash takes in (docs/security.md, "Artifact content hashes"): a folder
git ignores is hashed whole, never as the empty tree (review23 V5); a child a path rule names as a secret is never
opened (V1); the walk itself is bounded, ignored entries included (V6)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import baton.git_status as git_status
from baton.app import Baton
from baton.commands import handoff_facts
from baton.domain.content_hash import tree_hash
from baton.domain.redaction import RedactionPolicy
from tests.app_support import baton_repo, ready_artifacts, resume_handoff, resumed_drift
from tests.handoff_support import payload

EMPTY_TREE = tree_hash([])


@pytest.fixture
def repo(tmp_path) -> Path:
    return baton_repo(tmp_path / "repo", {"README.md": "hello\n", ".gitignore": "dist/\n*.o\n", "src/app.py": "x = 1\n"})


def ready(root: Path, path: str) -> str:
    return ready_artifacts(root, {"path": path, "role": "created"}, accept_warnings="the folder is a test fixture")


def recorded(root: Path, handoff_id: str) -> dict:
    with Baton.open(root) as app:
        [artifact] = app.project.reading().get("handoffs", handoff_id)["artifacts"]
    return artifact


def capture(root: Path, path: str) -> dict:
    with Baton.open(root) as app:
        handoff_id = app.capture(payload(artifacts=[{"path": path, "role": "modified"}])).handoff_id
    return recorded(root, handoff_id)


def build_dist(root: Path) -> None:
    (root / "dist").mkdir()
    (root / "dist" / "app.js").write_text("bundle v1\n")
    (root / "dist" / "app.js.map").write_text("map v1\n")


# -- V5: a folder git ignores ----------------------------------------------------------------------

def test_a_folder_git_ignores_is_not_recorded_as_the_empty_tree(repo):
    build_dist(repo)
    assert capture(repo, "dist")["content_hash"] != EMPTY_TREE


def test_a_file_changed_in_a_folder_git_ignores_is_drift(repo):
    build_dist(repo)
    handoff_id = ready(repo, "dist")
    (repo / "dist" / "app.js").write_text("bundle v2\n")
    assert resumed_drift(repo, handoff_id) == (
        "partially_stale", [("dist", "modified", "a file in the folder changed, was added or was removed")])


def test_a_file_added_inside_a_subfolder_of_an_ignored_folder_is_drift(repo):
    build_dist(repo)
    (repo / "dist" / "assets").mkdir()
    handoff_id = ready(repo, "dist/assets")
    (repo / "dist" / "assets" / "logo.svg").write_text("<svg/>\n")
    assert [d["path"] for d in resume_handoff(repo, handoff_id).freshness["drift"]] == ["dist/assets"]


def test_a_folder_whose_own_gitignore_ignores_everything_is_hashed_whole(repo):
    (repo / "gen").mkdir()
    (repo / "gen" / ".gitignore").write_text("*\n")
    (repo / "gen" / "out.txt").write_text("v1\n")
    handoff_id = ready(repo, "gen")
    assert recorded(repo, handoff_id)["content_hash"] != EMPTY_TREE
    (repo / "gen" / "out.txt").write_text("v2\n")
    assert [d["path"] for d in resume_handoff(repo, handoff_id).freshness["drift"]] == ["gen"]


def test_an_ignored_folder_recorded_as_the_empty_tree_before_the_fix_is_drift_now(repo, monkeypatch):
    """What an upgrade shows: a record of an ignored folder captured as the empty tree is never "unchanged"."""
    build_dist(repo)
    monkeypatch.setattr(handoff_facts, "folder_content_hash", lambda *args, **kwargs: (EMPTY_TREE, None))
    monkeypatch.setattr("baton.commands.capture.folder_content_hash", lambda *args, **kwargs: (EMPTY_TREE, None))
    handoff_id = ready(repo, "dist")
    monkeypatch.undo()
    assert recorded(repo, handoff_id)["content_hash"] == EMPTY_TREE
    assert [(d["path"], d["kind"]) for d in resume_handoff(repo, handoff_id).freshness["drift"]] == [("dist", "modified")]


def test_ignored_files_below_a_folder_git_does_not_ignore_are_still_left_out(repo):
    (repo / "src" / "app.o").write_bytes(b"\x00obj")
    handoff_id = ready(repo, "src")
    (repo / "src" / "app.o").write_bytes(b"\x00obj, rebuilt")
    assert resume_handoff(repo, handoff_id).freshness["state"] == "fresh"


def test_a_folder_holding_only_ignored_files_is_hashed_whole(repo):
    (repo / "objs").mkdir()
    (repo / "objs" / "a.o").write_bytes(b"\x00a")
    handoff_id = ready(repo, "objs")
    assert recorded(repo, handoff_id)["content_hash"] != EMPTY_TREE
    (repo / "objs" / "a.o").write_bytes(b"\x00a, rebuilt")
    assert [d["path"] for d in resume_handoff(repo, handoff_id).freshness["drift"]] == ["objs"]


# -- V1: children named as secrets -------------------------------------------------------------------

def deploy_with_env(root: Path, secret: str) -> Path:
    (root / "deploy").mkdir(exist_ok=True)
    (root / "deploy" / "notes.txt").write_text("hello\n")
    (root / "deploy" / ".env").write_text(f"PASSWORD={secret}\n")
    return root / "deploy"


def test_a_folder_s_hash_does_not_depend_on_a_child_named_as_a_secret(repo):
    first = capture(repo, str(deploy_with_env(repo, "hunter2").relative_to(repo)))["content_hash"]
    deploy_with_env(repo, "hunter3")
    assert capture(repo, "deploy")["content_hash"] == first


@pytest.mark.parametrize("name", [".env", ".netrc", "id_rsa", "server.pem", "prod.env"])
def test_a_child_named_as_a_secret_is_never_opened(repo, monkeypatch, name):
    folder = deploy_with_env(repo, "hunter2")
    (folder / name).write_text("secret\n")
    opened: list[str] = []
    real_read = handoff_facts.read_bounded
    monkeypatch.setattr(handoff_facts, "read_bounded", lambda path, *a: opened.append(os.path.basename(path)) or real_read(path, *a))
    found, _ = handoff_facts.folder_content_hash(folder, RedactionPolicy())
    assert found is not None and name not in opened and opened == ["notes.txt"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_named_env_in_a_folder_does_not_block_the_capture(repo):
    folder = deploy_with_env(repo, "hunter2")
    (folder / ".env").unlink()
    os.mkfifo(folder / ".env")
    assert capture(repo, "deploy")["content_hash"].startswith("sha256-tree:")


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads a file of mode 000")
def test_an_unreadable_file_named_as_a_secret_does_not_fail_the_capture(repo):
    folder = deploy_with_env(repo, "hunter2")
    (folder / ".env").chmod(0)
    try:
        assert capture(repo, "deploy")["content_hash"].startswith("sha256-tree:")
    finally:
        (folder / ".env").chmod(0o600)


def test_a_child_named_as_a_secret_added_to_a_folder_is_drift(repo):
    (repo / "deploy").mkdir()
    (repo / "deploy" / "notes.txt").write_text("hello\n")
    handoff_id = ready(repo, "deploy")
    (repo / "deploy" / ".env").write_text("PASSWORD=hunter2\n")
    assert [d["path"] for d in resume_handoff(repo, handoff_id).freshness["drift"]] == ["deploy"]


def test_a_child_matched_by_a_path_rule_with_a_folder_in_it_is_never_opened(repo, monkeypatch):
    (repo / "home" / ".aws").mkdir(parents=True)
    (repo / "home" / ".aws" / "credentials").write_text("aws_secret_access_key = short\n")
    opened: list[str] = []
    real_read = handoff_facts.read_bounded
    monkeypatch.setattr(handoff_facts, "read_bounded", lambda path, *a: opened.append(os.path.basename(path)) or real_read(path, *a))
    assert capture(repo, "home")["content_hash"].startswith("sha256-tree:")
    assert "credentials" not in opened


# -- V6: the walk is bounded, ignored entries included -------------------------------------------------

def test_the_walk_of_a_folder_lists_at_most_its_bound_of_entries_ignored_ones_included(repo, monkeypatch):
    (repo / "src" / "build").mkdir()
    for n in range(60):
        (repo / "src" / "build" / f"f{n}.o").write_bytes(b"")
    monkeypatch.setattr(handoff_facts, "FOLDER_MAX_LISTED", 20)
    asked: list[Path] = []
    real_filter = git_status.ignore_filter

    def counting_filter(start):
        test = real_filter(start)
        return None if test is None else (lambda path, is_folder: asked.append(path) or test(path, is_folder))

    monkeypatch.setattr(git_status, "ignore_filter", counting_filter)
    artifact = capture(repo, "src")
    assert "content_hash" not in artifact
    assert artifact["content_hash_skipped"].startswith("not hashed: the folder lists more than 20 entries")
    assert len(asked) <= 20 + 2  # the folder itself, then at most the bound and the one entry past it


def test_a_folder_crowded_with_ignored_files_after_capture_is_never_reported_unchanged(repo, monkeypatch):
    handoff_id = ready(repo, "src")
    (repo / "src" / "build").mkdir()
    for n in range(30):
        (repo / "src" / "build" / f"f{n}.o").write_bytes(b"")
    monkeypatch.setattr(handoff_facts, "FOLDER_MAX_LISTED", 20)
    state, [(path, kind, detail)] = resumed_drift(repo, handoff_id)
    assert (state, path, kind) == ("stale", "src", "unclassified") and "lists more than 20 entries" in detail
