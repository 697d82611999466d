"""An artifact recorded ``role: deleted`` is judged too: absent, as recorded, it is no drift; back again (a
revert, another branch's checkout, a regenerated file), it is drift, "recorded as deleted; it exists again"
(tester-use22 T5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from baton.app import Baton
from tests.app_support import (
    baton_repo,
    ready_artifacts,
    resume_handoff,
    resumed_drift,
    validate_handoff_command,
)
from tests.handoff_support import payload


@pytest.fixture
def repo(tmp_path) -> Path:
    return baton_repo(tmp_path / "repo", {"README.md": "hello\n"})


def capture_deleted(root: Path) -> str:
    with Baton.open(root) as app:
        return app.capture(payload(artifacts=[{"path": "gone.py", "role": "deleted"}])).handoff_id


def ready_deleted(root: Path) -> str:
    return ready_artifacts(root, {"path": "gone.py", "role": "deleted"}, accept_warnings="test fixture")


def test_a_deleted_artifact_still_absent_is_no_drift(repo):
    assert resume_handoff(repo, ready_deleted(repo)).freshness["drift"] == []


def test_a_deleted_artifact_that_exists_again_is_drift(repo):
    handoff_id = ready_deleted(repo)
    (repo / "gone.py").write_text("back\n")
    assert resumed_drift(repo, handoff_id) == (
        "partially_stale", [("gone.py", "modified", "recorded as deleted; it exists again")])


def test_validate_warns_of_a_deleted_artifact_that_exists_again(repo):
    handoff_id = capture_deleted(repo)
    (repo / "gone.py").write_text("back\n")
    report = validate_handoff_command(repo, handoff_id).report
    assert report["status"] == "warn"
    assert "artifacts[0].path: 'gone.py' recorded as deleted; it exists again" in json.dumps(report)
