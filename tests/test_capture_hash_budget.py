"""A capture inside a hook's deadline (a PreCompact draft, an automatic one) hashes its artifacts up to a
total budget (``capture.capture_budget``; a parameter here, to keep real folders small): the artifacts past
it are kept, recorded not hashed yet (``content_hash_skipped``: ``NOT_HASHED_YET``), never with a hash it
did not compute, and validation and resume never call them unchanged. A plain capture hashes every one."""

from __future__ import annotations

from pathlib import Path

from baton.commands.capture import NOT_HASHED_YET, capture_in_scope, hash_artifacts
from baton.commands.context import Project
from baton.commands.handoff_facts import HashBudget
from baton.policy import Policy
from tests.cli_support import run_json

FILE_BYTES = 64 * 1024


def folders(root: Path, count: int, files: int = 4) -> list[dict]:
    """``count`` real folders of ``files`` files of ``FILE_BYTES`` each; their artifact entries."""
    out = []
    for i in range(count):
        folder = root / f"data{i}"
        folder.mkdir()
        for j in range(files):
            (folder / f"part{j}.bin").write_bytes(bytes([i, j]) * (FILE_BYTES // 2))
        out.append({"path": f"data{i}", "role": "read"})
    return out


def budget_for(folder_count: float) -> HashBudget:
    """Room for about ``folder_count`` of ``folders``' folders' bytes (entries and names without bound)."""
    return HashBudget(10**6, int(folder_count * 4 * FILE_BYTES), 10**6)


def test_a_budgeted_capture_hashes_what_fits_and_records_the_rest_not_hashed_yet(tmp_path):
    payload = {"artifacts": folders(tmp_path, 5)}
    hash_artifacts(tmp_path, payload, Policy(), budget=budget_for(2.5))
    hashed = [a for a in payload["artifacts"] if a.get("content_hash")]
    later = [a for a in payload["artifacts"] if not a.get("content_hash")]
    assert [a["path"] for a in hashed] == ["data0", "data1"]
    assert all(a["content_hash"].startswith("sha256-tree:") for a in hashed)
    assert [a["path"] for a in later] == ["data2", "data3", "data4"]  # kept, every one
    assert all(a["content_hash_skipped"] == NOT_HASHED_YET for a in later)


def test_a_capture_without_a_budget_hashes_every_folder(tmp_path):
    payload = {"artifacts": folders(tmp_path, 5)}
    hash_artifacts(tmp_path, payload, Policy())
    assert all(a["content_hash"].startswith("sha256-tree:") and "content_hash_skipped" not in a
               for a in payload["artifacts"])


def test_a_budget_spent_on_files_leaves_the_folders_after_them_not_hashed_yet(tmp_path):
    big = tmp_path / "big.bin"
    big.write_bytes(b"x" * (3 * FILE_BYTES))
    payload = {"artifacts": [{"path": "big.bin", "role": "read"}, *folders(tmp_path, 1)]}
    hash_artifacts(tmp_path, payload, Policy(), budget=HashBudget(10**6, 2 * FILE_BYTES, 10**6))
    file_artifact, folder_artifact = payload["artifacts"]
    assert file_artifact["content_hash"].startswith("sha256:")  # begun, so hashed whole
    assert folder_artifact["content_hash_skipped"] == NOT_HASHED_YET and "content_hash" not in folder_artifact


def _captured_with_budget(project: Path, payload: dict, budget: HashBudget) -> str:
    opened = Project.open(project)
    try:
        with opened.writing() as scope:
            return capture_in_scope(scope, payload, hash_budget=budget).handoff_id
    finally:
        opened.close()


def test_validation_and_resume_never_call_an_artifact_not_hashed_yet_unchanged(capsys, repo):
    payload = {"work": {"title": "Data", "objective": "Load the data"},
               "summary": {"current_state": "Loaded two of five"}, "artifacts": folders(repo, 3)}
    handoff_id = _captured_with_budget(repo, payload, budget_for(1.5))
    record = run_json(capsys, repo, "handoff", "show", handoff_id)["handoff"]
    assert [a.get("content_hash_skipped") for a in record["artifacts"]] == [None, NOT_HASHED_YET, NOT_HASHED_YET]
    report = run_json(capsys, repo, "handoff", "validate", handoff_id, expect=3)["report"]  # no next step: fail
    flagged = [f for check in report["checks"] for f in check["findings"] if f["path"].endswith("content_hash_skipped")]
    assert [f["status"] for f in flagged] == ["warn", "warn"] and all("not hashed yet" in f["message"] for f in flagged)
    assert {d["path"]: d["kind"] for d in report["freshness"]["drift"]} == {"data1": "unclassified",
                                                                           "data2": "unclassified"}
    assert report["freshness"]["state"] != "fresh"
