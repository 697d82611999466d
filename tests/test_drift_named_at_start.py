"""What drifted is named wherever freshness is told: a delivered baton's freshness line names the drifted
artifacts as `resume` does, also when the head moved (tester-use22 T3), and an artifact that now leads
outside the project through a symlink is said to, not "could not be read" (T2)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from baton.app import Baton
from baton.domain.batons import freshness_line
from baton.domain.freshness import ArtifactDrift, derive_freshness
from tests.app_support import baton_repo, resume_handoff
from tests.handoff_support import git_commit, payload

HEAD = "a" * 40
MOVED = "b" * 40
HANDOFF = "01a24cde-922e-7143-8342-f954506ee620"


def test_a_partially_stale_batons_freshness_line_names_the_drifted_artifact():
    report = derive_freshness(HEAD, HEAD, [ArtifactDrift("src/app.py", "modified", "sha256:1", "sha256:2")], True)
    line = freshness_line(report, HANDOFF)
    assert "but 1 referenced artifact changed since capture: src/app.py (modified); re-check" in line


def test_a_stale_batons_freshness_line_names_the_drifted_artifacts_when_the_head_moved():
    drift = [ArtifactDrift(f"src/m{i}.py", "modified", "sha256:1", "sha256:2") for i in range(5)]
    line = freshness_line(derive_freshness(HEAD, MOVED, drift, True), HANDOFF)
    assert line.startswith("> ⚠️ **Freshness: STALE** — the repository head moved")
    assert "; drifted artifacts: src/m0.py (modified), src/m1.py (modified), src/m2.py (modified), and 2 more;" in line


def test_a_batons_freshness_line_names_no_artifact_when_none_drifted():
    line = freshness_line(derive_freshness(HEAD, MOVED, [], True), HANDOFF)
    assert "drifted" not in line


@pytest.fixture
def repo(tmp_path) -> Path:
    return baton_repo(tmp_path / "repo", {"README.md": "hello\n", "src/app.py": "x = 1\n"})


def handed_on(root: Path, artifact: str) -> str:
    with Baton.open(root) as app:
        handoff_id = app.capture(payload(artifacts=[{"path": artifact, "role": "modified"}])).handoff_id
        app.validate(handoff_id)
        app.promote(handoff_id, accept_warnings="synthetic test data")
        app.hand_on(handoff_id, owner="alice", branch="main")
    return handoff_id


def test_the_session_start_baton_names_an_artifact_changed_after_the_head_moved(repo):
    handed_on(repo, "src/app.py")
    git_commit(repo, {"README.md": "later\n"})
    (repo / "src" / "app.py").write_text("x = 4\n")
    with Baton.open(repo) as app:
        brief = app.bootstrap(owner="alice", branch="main").render()
    assert "the captured commit is in its history); drifted artifact: src/app.py (modified);" in brief


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_an_artifact_now_a_symlink_out_of_the_project_is_drift_saying_so(repo, tmp_path):
    handoff_id = handed_on(repo, "src/app.py")
    outside = tmp_path / "outside.py"
    outside.write_text("x = 1\n")
    (repo / "src" / "app.py").unlink()
    (repo / "src" / "app.py").symlink_to(outside)
    resumed = resume_handoff(repo, handoff_id)
    [drift] = resumed.freshness["drift"]
    assert (drift["kind"], drift["detail"]) == ("unclassified",
                                                "now leads outside the project root through a symlink: not read")
    assert "drifted artifact: src/app.py (now leads outside the project root through a symlink: not read)" in (
        resumed.render())
