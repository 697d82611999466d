"""A folder given as an artifact is hashed as a tree (docs/security.md, "Artifact content hashes"): a digest
over its files' paths and contents, bounded, never following a symlink; a folder over the bounds records why it
was not hashed, and freshness then says it cannot be checked, never "unchanged" (tester-use22 T4)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from baton.app import Baton
from baton.commands import capture as capture_module
from baton.commands import handoff_facts
from tests.app_support import (
    baton_repo,
    ready_artifacts,
    resume_handoff,
    resumed_drift,
    validate_handoff_command,
)
from tests.cli_support import run, run_json
from tests.handoff_support import git_commit, payload

PASSWORD_LINE = "DB_PASSWORD=Winter2026!\n"


@pytest.fixture
def repo(tmp_path) -> Path:
    return baton_repo(tmp_path / "repo", {"README.md": "hello\n", "pkg/a.py": "a = 1\n", "pkg/sub/b.py": "b = 2\n"})


def capture(root: Path, *artifacts: dict) -> tuple[str, dict]:
    with Baton.open(root) as app:
        captured = app.capture(payload(artifacts=list(artifacts)))
    return captured.handoff_id, captured


def ready(root: Path, path: str = "pkg") -> str:
    return ready_artifacts(root, {"path": path, "role": "modified"}, accept_warnings="the folder is a test fixture")


def recorded(root: Path, handoff_id: str) -> dict:
    with Baton.open(root) as app:
        [artifact] = app.project.reading().get("handoffs", handoff_id)["artifacts"]
    return artifact


def test_a_folder_artifact_records_a_tree_hash_at_capture(repo):
    assert recorded(repo, ready(repo))["content_hash"].startswith("sha256-tree:")


def test_an_unchanged_folder_artifact_is_fresh(repo):
    assert resume_handoff(repo, ready(repo)).freshness["state"] == "fresh"


def test_a_file_changed_in_a_folder_artifact_is_drift(repo):
    handoff_id = ready(repo)
    (repo / "pkg" / "sub" / "b.py").write_text("b = 3\n")
    assert resumed_drift(repo, handoff_id) == (
        "partially_stale", [("pkg", "modified", "a file in the folder changed, was added or was removed")])


def test_a_file_added_to_a_folder_artifact_is_drift(repo):
    handoff_id = ready(repo)
    (repo / "pkg" / "new.py").write_text("z\n")
    assert [d["path"] for d in resume_handoff(repo, handoff_id).freshness["drift"]] == ["pkg"]


def test_a_file_removed_from_a_folder_artifact_is_drift(repo):
    handoff_id = ready(repo)
    (repo / "pkg" / "a.py").unlink()
    assert [d["path"] for d in resume_handoff(repo, handoff_id).freshness["drift"]] == ["pkg"]


def test_a_file_renamed_in_a_folder_artifact_is_drift(repo):
    handoff_id = ready(repo)
    (repo / "pkg" / "a.py").rename(repo / "pkg" / "c.py")
    assert [d["path"] for d in resume_handoff(repo, handoff_id).freshness["drift"]] == ["pkg"]


def test_a_folder_holding_a_secret_records_no_hash_that_changes_with_the_secret_alone(repo):
    (repo / "pkg" / "settings.env").write_text("APP=shop\n" + PASSWORD_LINE)
    handoff_id = ready(repo)
    (repo / "pkg" / "settings.env").write_text("APP=shop\n" + PASSWORD_LINE.replace("Winter2026!", "Summer2027#x"))
    assert resume_handoff(repo, handoff_id).freshness["state"] == "fresh"


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_a_symlink_in_a_folder_artifact_is_not_followed(repo, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("outside\n")
    (repo / "pkg" / "link").symlink_to(outside)
    handoff_id = ready(repo)
    outside.write_text("changed outside the project\n")
    assert resume_handoff(repo, handoff_id).freshness["state"] == "fresh"


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_a_symlink_in_a_folder_artifact_pointed_elsewhere_is_drift(repo, tmp_path):
    (repo / "pkg" / "link").symlink_to("a.py")
    handoff_id = ready(repo)
    (repo / "pkg" / "link").unlink()
    (repo / "pkg" / "link").symlink_to("sub/b.py")
    assert [d["path"] for d in resume_handoff(repo, handoff_id).freshness["drift"]] == ["pkg"]


def test_a_folder_over_the_bounds_records_no_hash_and_says_why(repo, monkeypatch):
    monkeypatch.setattr(handoff_facts, "FOLDER_MAX_ENTRIES", 1)
    handoff_id, captured = capture(repo, {"path": "pkg", "role": "modified"})
    artifact = recorded(repo, handoff_id)
    assert "content_hash" not in artifact
    assert artifact["content_hash_skipped"].startswith("not hashed: the folder holds more than 1 entries")
    assert captured.hints == (f"artifacts[0] 'pkg' {artifact['content_hash_skipped']}",)


def test_a_folder_artifact_that_was_not_hashed_is_never_reported_unchanged(repo, monkeypatch):
    monkeypatch.setattr(handoff_facts, "FOLDER_MAX_ENTRIES", 1)
    handoff_id = ready(repo)
    assert resumed_drift(repo, handoff_id) == (
        "stale", [("pkg", "unclassified", "not hashed at capture, so its changes cannot be checked")])


def test_validate_warns_that_a_folder_artifact_over_the_bounds_cannot_be_checked(repo, monkeypatch):
    monkeypatch.setattr(handoff_facts, "FOLDER_MAX_ENTRIES", 1)
    handoff_id, _ = capture(repo, {"path": "pkg", "role": "modified"})
    report = validate_handoff_command(repo, handoff_id).report
    assert report["status"] == "warn"
    assert "artifacts[0].content_hash_skipped: 'pkg': not hashed: the folder holds" in json.dumps(report)


def test_an_old_folder_artifact_recorded_without_a_hash_stays_as_it_was(repo, monkeypatch):
    monkeypatch.setattr(capture_module, "_hash_artifacts", lambda *args, **kwargs: None)  # as before folders were hashed
    handoff_id = ready(repo)
    assert "content_hash" not in recorded(repo, handoff_id) and "content_hash_skipped" not in recorded(repo, handoff_id)
    monkeypatch.undo()
    (repo / "pkg" / "a.py").write_text("a = 2\n")
    assert resume_handoff(repo, handoff_id).freshness["state"] == "fresh"


def test_the_cli_validate_warns_of_a_changed_file_in_a_folder_artifact(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo)
    item = json.dumps({"description": "n", "suggested_action": "a", "acceptance_check": "c"})
    captured = run_json(capsys, repo, "checkpoint", "create", "--no-input", "--title", "t", "--objective", "dir",
                        "--artifact", "pkg:modified", "--open-item", item)
    (repo / "pkg" / "a.py").write_text("a = 2\n")
    _, out, _ = run(capsys, repo, "handoff", "validate", captured["id"], "--json")
    assert "'pkg' changed since capture" in out


def test_a_git_ignored_file_added_to_a_folder_artifact_is_not_drift(repo):
    """Running the tests leaves ``__pycache__`` in the folder; git ignores it, so does the tree hash
    (tester-use22b T3)."""
    git_commit(repo, {".gitignore": "__pycache__/\n*.log\n"})
    handoff_id = ready(repo)
    (repo / "pkg" / "__pycache__").mkdir()
    (repo / "pkg" / "__pycache__" / "a.cpython-312.pyc").write_bytes(b"\x00bin")
    (repo / "pkg" / "run.log").write_text("ran\n")
    assert resume_handoff(repo, handoff_id).freshness["state"] == "fresh"


def test_a_tracked_file_an_ignore_rule_matches_still_counts_in_a_folder_artifact(repo):
    git_commit(repo, {"pkg/kept.cfg": "x = 1\n"})
    git_commit(repo, {".gitignore": "*.cfg\n"})
    handoff_id = ready(repo)
    (repo / "pkg" / "kept.cfg").write_text("x = 2\n")
    assert [d["path"] for d in resume_handoff(repo, handoff_id).freshness["drift"]] == ["pkg"]


def test_git_ignored_files_do_not_count_toward_a_folder_artifact_s_bounds(repo, monkeypatch):
    git_commit(repo, {".gitignore": "build/\n"})
    for n in range(5):
        (repo / "pkg" / "build").mkdir(exist_ok=True)
        (repo / "pkg" / "build" / f"out{n}.o").write_text("o\n")
    monkeypatch.setattr(handoff_facts, "FOLDER_MAX_ENTRIES", 2)
    handoff_id, _ = capture(repo, {"path": "pkg", "role": "modified"})
    assert recorded(repo, handoff_id)["content_hash"].startswith("sha256-tree:")


def test_a_folder_hash_recorded_with_its_ignored_files_in_still_matches_an_unchanged_folder(repo, monkeypatch):
    """A record captured before ignored files were left out hashed them: it is compared both ways."""
    git_commit(repo, {".gitignore": "__pycache__/\n"})
    (repo / "pkg" / "__pycache__").mkdir()
    (repo / "pkg" / "__pycache__" / "a.pyc").write_bytes(b"\x00bin")
    import baton.git_status as git_status
    monkeypatch.setattr(git_status, "ignore_filter", lambda folder: None)  # as captured before the rule
    handoff_id = ready(repo)
    monkeypatch.undo()
    assert resume_handoff(repo, handoff_id).freshness["state"] == "fresh"
    (repo / "pkg" / "a.py").write_text("a = 2\n")
    assert [d["path"] for d in resume_handoff(repo, handoff_id).freshness["drift"]] == ["pkg"]
