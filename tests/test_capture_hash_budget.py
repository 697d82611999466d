"""A capture inside a hook's deadline (a PreCompact draft, an automatic one) hashes its artifacts up to a
total budget (``capture.capture_budget``; a parameter here, to keep real folders small): the artifacts past
it are kept, recorded not hashed yet (``content_hash_skipped``: ``NOT_HASHED_YET``), never with a hash it
did not compute, and freshness never calls them unchanged. A plain capture hashes every one; validation hashes
those left (recording the hashes with its event), and a handoff never becomes ready with one never hashed."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from baton.commands import validate as validate_module
from baton.commands.capture import HashedNow, capture_in_scope, hash_artifacts
from baton.commands.context import Project
from baton.commands.handoff_facts import HashBudget, live_freshness
from baton.commands.ids import load_handoff
from baton.domain.content_hash import SCREEN_LIMIT_BYTES
from baton.domain.freshness import NOT_HASHED_YET
from baton.mcp_server import build_server
from baton.policy import Policy
from tests.cli_support import run, run_json
from tests.handoff_support import payload

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


def _budgeted_draft(project: Path, count: int = 3, room: float = 1.5) -> str:
    """A draft a hook's capture made of ``count`` real folders with room for about ``room`` of them."""
    body = payload(artifacts=folders(project, count))
    return _captured_with_budget(project, body, budget_for(room))


def _artifacts(capsys, project: Path, handoff_id: str) -> list[dict]:
    return run_json(capsys, project, "handoff", "show", handoff_id)["handoff"]["artifacts"]


def _full_hashes(project: Path, paths: list[str]) -> list[str]:
    """What a capture outside a hook records for ``paths`` now (every one hashed)."""
    whole = {"artifacts": [{"path": p, "role": "read"} for p in paths]}
    hash_artifacts(project, whole, Policy())
    return [a["content_hash"] for a in whole["artifacts"]]


def test_a_budgeted_draft_is_shown_not_hashed_yet_and_never_unchanged(capsys, repo):
    handoff_id = _budgeted_draft(repo)
    assert [a.get("content_hash_skipped") for a in _artifacts(capsys, repo, handoff_id)] == [
        None, NOT_HASHED_YET, NOT_HASHED_YET]
    opened = Project.open(repo)
    try:
        report = live_freshness(repo, load_handoff(opened.reading(), handoff_id), whole=True)
    finally:
        opened.close()
    assert {d.path: d.kind for d in report.drift} == {"data1": "unclassified", "data2": "unclassified"}


def test_validation_hashes_every_artifact_a_hook_left_not_hashed_yet_and_records_the_hash(capsys, repo):
    handoff_id = _budgeted_draft(repo)
    result = run_json(capsys, repo, "handoff", "validate", handoff_id)
    assert result["hashed"] == ["data1", "data2"]
    findings = [f for check in result["report"]["checks"] for f in check["findings"]]
    assert not [f for f in findings if "not hashed yet" in f["message"]]
    assert not [d for d in result["report"]["freshness"]["drift"] if d["path"].startswith("data")]
    artifacts = _artifacts(capsys, repo, handoff_id)
    assert [a["content_hash"] for a in artifacts] == _full_hashes(repo, ["data0", "data1", "data2"])
    assert not [a for a in artifacts if "content_hash_skipped" in a]


def _validated_artifacts_survive_a_rebuild(capsys, project: Path, handoff_id: str) -> bool:
    """Whether the artifacts as ``handoff validate`` recorded them are the same once a rebuild folds the
    ledger again."""
    run_json(capsys, project, "handoff", "validate", handoff_id)
    before = _artifacts(capsys, project, handoff_id)
    run_json(capsys, project, "rebuild")
    return _artifacts(capsys, project, handoff_id) == before


def test_the_hashes_validation_recorded_are_folded_again_by_a_rebuild(capsys, repo):
    assert _validated_artifacts_survive_a_rebuild(capsys, repo, _budgeted_draft(repo))


def test_a_folder_changed_after_validation_hashed_it_keeps_the_handoff_from_ready(capsys, repo):
    handoff_id = _budgeted_draft(repo)
    run_json(capsys, repo, "handoff", "validate", handoff_id)
    (repo / "data2" / "part0.bin").write_bytes(b"changed")
    refused = run_json(capsys, repo, "handoff", "ready", handoff_id, "--accept-warnings", "test", expect=3)
    assert "data2" in refused["error"]["message"] and "changed since" in refused["error"]["message"]


def test_validation_shows_its_hashing_on_stderr_and_never_in_its_json(capsys, repo):
    handoff_id = _budgeted_draft(repo)
    code, out, err = run(capsys, repo, "handoff", "validate", handoff_id, "--json")
    assert code == 0
    assert "baton: hashing 1/2 artifacts a hook's capture left not hashed yet: data1" in err
    assert "baton: hashing 2/2 artifacts a hook's capture left not hashed yet: data2" in err
    assert "baton: hashing" not in out


def test_validation_in_text_says_what_it_hashed(capsys, repo):
    handoff_id = _budgeted_draft(repo)
    code, out, _ = run(capsys, repo, "handoff", "validate", handoff_id)
    assert code == 0 and "hashed 2 artifacts a hook's capture left not hashed yet (recorded): data1, data2" in out


def _validated_without_hashing(project: Path, handoff_id: str, monkeypatch) -> None:
    """``handoff validate`` as a Baton before validation hashed: the artifacts stay not hashed yet."""
    with monkeypatch.context() as patched:
        patched.setattr(validate_module, "hash_not_hashed_yet", lambda *args, **kwargs: HashedNow({}, {}))
        opened = Project.open(project)
        try:
            assert validate_module.validate_handoff_command(opened, handoff_id).report["status"] == "warn"
        finally:
            opened.close()


def test_ready_hashes_what_an_older_validation_left_not_hashed_yet(capsys, repo, monkeypatch):
    handoff_id = _budgeted_draft(repo)
    _validated_without_hashing(repo, handoff_id, monkeypatch)
    ready = run_json(capsys, repo, "handoff", "ready", handoff_id, "--accept-warnings", "older validation")
    assert ready["status"] == "ready"
    artifacts = _artifacts(capsys, repo, handoff_id)
    assert [a["content_hash"] for a in artifacts] == _full_hashes(repo, ["data0", "data1", "data2"])
    run_json(capsys, repo, "rebuild")
    assert _artifacts(capsys, repo, handoff_id) == artifacts


def test_a_handoff_never_becomes_ready_with_an_artifact_whose_hash_was_never_computed(capsys, repo, monkeypatch):
    handoff_id = _budgeted_draft(repo)
    _validated_without_hashing(repo, handoff_id, monkeypatch)
    shutil.rmtree(repo / "data2")  # gone: nothing to hash
    refused = run_json(capsys, repo, "handoff", "ready", handoff_id, "--accept-warnings", "older validation",
                       expect=3)
    assert "not hashed yet (data2)" in refused["error"]["message"]
    assert run_json(capsys, repo, "handoff", "show", handoff_id)["handoff"]["status"] == "validated"


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_the_mcp_validate_tool_hashes_and_records_them_too(repo):
    handoff_id = _budgeted_draft(repo)
    async with Client(build_server(repo)) as client:
        validated = await client.call_tool("handoff_validate", {"id": handoff_id})
    assert validated.structured_content["hashed"] == ["data1", "data2"]
    opened = Project.open(repo)
    try:
        record = load_handoff(opened.reading(), handoff_id)
    finally:
        opened.close()
    assert [a.content_hash for a in record.artifacts] == _full_hashes(repo, ["data0", "data1", "data2"])


def _draft_with_a_file_too_large_to_screen(project: Path) -> str:
    """A draft a hook's capture made whose budget was spent on a folder before a file over the secret screen's
    limit, left not hashed yet."""
    (project / "big.txt").write_bytes(b"y" * (SCREEN_LIMIT_BYTES + 1))
    body = payload(artifacts=[*folders(project, 1), {"path": "big.txt", "role": "modified"}])
    return _captured_with_budget(project, body, budget_for(0.5))


def test_a_file_too_large_to_screen_after_the_budget_is_spent_is_recorded_not_hashed_yet(capsys, repo):
    handoff_id = _draft_with_a_file_too_large_to_screen(repo)
    (big,) = [a for a in _artifacts(capsys, repo, handoff_id) if a["path"] == "big.txt"]
    assert big["content_hash_skipped"] == NOT_HASHED_YET


def test_validation_does_not_announce_hashing_a_file_too_large_to_screen(capsys, repo):
    handoff_id = _draft_with_a_file_too_large_to_screen(repo)
    code, out, err = run(capsys, repo, "handoff", "validate", handoff_id, "--json")
    assert code == 0 and "big.txt" not in json.loads(out)["hashed"]
    assert "big.txt" not in err


def test_validation_records_a_file_too_large_to_screen_without_a_hash_as_amend_does(capsys, repo):
    handoff_id = _draft_with_a_file_too_large_to_screen(repo)
    run_json(capsys, repo, "handoff", "validate", handoff_id)
    (validated,) = [a for a in _artifacts(capsys, repo, handoff_id) if a["path"] == "big.txt"]
    run_json(capsys, repo, "handoff", "amend", handoff_id, "--current-state", "amended")  # hashes every artifact
    (amended,) = [a for a in _artifacts(capsys, repo, handoff_id) if a["path"] == "big.txt"]
    assert "content_hash" not in validated
    assert validated["content_hash_skipped"] == amended["content_hash_skipped"]
    assert validated["content_hash_skipped"].startswith(f"not hashed: {SCREEN_LIMIT_BYTES + 1} bytes is over")


def test_the_reason_validation_recorded_for_a_file_too_large_to_screen_is_folded_again_by_a_rebuild(capsys, repo):
    assert _validated_artifacts_survive_a_rebuild(capsys, repo, _draft_with_a_file_too_large_to_screen(repo))


def test_validation_warns_that_a_file_too_large_to_screen_is_not_hashed_and_why(capsys, repo):
    handoff_id = _draft_with_a_file_too_large_to_screen(repo)
    result = run_json(capsys, repo, "handoff", "validate", handoff_id)
    (finding,) = [f for check in result["report"]["checks"] for f in check["findings"] if "big.txt" in f["message"]]
    assert f"not hashed: {SCREEN_LIMIT_BYTES + 1} bytes is over" in finding["message"]
    assert "not hashed yet" not in finding["message"]


def test_a_draft_with_a_file_too_large_to_screen_becomes_ready_once_validated_with_the_warning_accepted(capsys, repo):
    handoff_id = _draft_with_a_file_too_large_to_screen(repo)
    run_json(capsys, repo, "handoff", "validate", handoff_id)
    ready = run_json(capsys, repo, "handoff", "ready", handoff_id, "--accept-warnings", "too large to hash")
    assert ready["status"] == "ready"


def test_ready_records_a_file_too_large_to_screen_an_older_validation_left_not_hashed_yet(capsys, repo, monkeypatch):
    handoff_id = _draft_with_a_file_too_large_to_screen(repo)
    _validated_without_hashing(repo, handoff_id, monkeypatch)
    assert run_json(capsys, repo, "handoff", "ready", handoff_id, "--accept-warnings", "older validation")
    (big,) = [a for a in _artifacts(capsys, repo, handoff_id) if a["path"] == "big.txt"]
    assert big["content_hash_skipped"].startswith(f"not hashed: {SCREEN_LIMIT_BYTES + 1} bytes is over")


@pytest.mark.anyio
async def test_the_mcp_validate_tool_reports_its_hashing_as_progress_to_a_client_that_asks(repo):
    handoff_id = _budgeted_draft(repo)
    told: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        told.append((done, total, message))

    params = StdioServerParameters(command=sys.executable, args=["-m", "baton", "mcp", "--project", str(repo)],
                                   env=dict(os.environ), cwd=str(repo))
    async with Client(params) as client:  # the server a harness starts, over stdio
        validated = await client.call_tool("handoff_validate", {"id": handoff_id}, progress_callback=progress)
    assert validated.structured_content["hashed"] == ["data1", "data2"]
    assert told == [(0, 2, "hashing 1/2 artifacts a hook's capture left not hashed yet: data1"),
                    (1, 2, "hashing 2/2 artifacts a hook's capture left not hashed yet: data2"),
                    (2, 2, "hashed 2 artifacts a hook's capture left not hashed yet")]


@pytest.mark.anyio
async def test_the_mcp_ready_tool_reports_the_hashing_an_older_validation_left_as_progress(repo, monkeypatch):
    handoff_id = _budgeted_draft(repo)
    _validated_without_hashing(repo, handoff_id, monkeypatch)
    told: list[str | None] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        told.append(message)

    async with Client(build_server(repo)) as client:
        ready = await client.call_tool("handoff_ready", {"id": handoff_id, "accept_warnings": "older validation"},
                                       progress_callback=progress)
    assert ready.structured_content["status"] == "ready"
    assert told[-1] == "hashed 2 artifacts a hook's capture left not hashed yet"

