"""One freshness check's hashing is bounded in all, not only per folder (tester-use23 T5): a session start
whose baton names many folder artifacts hashes at most its budget, still delivers the baton, and its freshness
line says how many artifacts were not checked and what checks them; an explicit `resume` checks them all."""

from __future__ import annotations

from pathlib import Path

import pytest

from baton.app import Baton
from baton.commands import handoff_facts
from baton.domain.batons import freshness_line
from baton.domain.freshness import ArtifactDrift, derive_freshness
from baton.domain.freshness_states import NOT_CHECKED
from baton.domain.short_ids import short_id
from tests.app_support import init_project, resume_handoff, validate_handoff_command
from tests.handoff_support import git_init, payload

FOLDERS = 6
FILES = 20
BUDGET = 50


@pytest.fixture
def repo(tmp_path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    files = {f"f{n}/x{i}.txt": f"line {n} {i}\n" for n in range(FOLDERS) for i in range(FILES)}
    git_init(root, {"README.md": "hello\n", **files})
    init_project(root)
    return root


def handed_on(root: Path) -> str:
    with Baton.open(root) as app:
        artifacts = [{"path": f"f{n}", "role": "modified"} for n in range(FOLDERS)]
        handoff_id = app.capture(payload(artifacts=artifacts)).handoff_id
        app.validate(handoff_id)
        app.promote(handoff_id, accept_warnings="synthetic test data")
        app.hand_on(handoff_id, owner="alice", branch="main")
    return handoff_id


@pytest.fixture
def small_budget(monkeypatch) -> list[Path]:
    """A start's budget of ``BUDGET`` entries; the files its checks read, counted."""
    monkeypatch.setattr(handoff_facts, "START_BUDGET_ENTRIES", BUDGET)
    read: list[Path] = []
    real = handoff_facts.read_bounded

    def counted(path, limit=handoff_facts.SCREEN_LIMIT_BYTES):
        read.append(Path(path))
        return real(path, limit)

    monkeypatch.setattr(handoff_facts, "read_bounded", counted)
    return read


def test_a_start_with_many_folder_artifacts_hashes_at_most_its_budget(repo, small_budget):
    handed_on(repo)
    small_budget.clear()
    with Baton.open(repo) as app:
        app.bootstrap(owner="alice", branch="main", peek=True)
    assert 0 < len(small_budget) <= BUDGET


def test_a_start_past_its_budget_delivers_the_baton_saying_what_was_not_checked(repo, small_budget):
    handoff_id = handed_on(repo)
    with Baton.open(repo) as app:
        brief = app.bootstrap(owner="alice", branch="main").render()
    short = short_id(handoff_id)
    assert "**Freshness: STALE** — the repository head `" in brief
    assert "is unchanged, but not every artifact was checked; 4 artifacts were not checked now" in brief
    assert f"; 4 artifacts were not checked now (past this check's hashing budget): `baton resume {short}` checks them" \
        in brief
    assert "Claimed by session" in brief


def test_resume_checks_every_artifact_a_start_had_no_budget_for(repo, small_budget):
    handoff_id = handed_on(repo)
    resumed = resume_handoff(repo, handoff_id)
    assert resumed.freshness["state"] == "fresh"
    assert resumed.freshness["drift"] == []


def test_a_bytes_budget_spent_leaves_the_rest_not_checked_never_unchanged(repo, monkeypatch):
    handed_on(repo)
    monkeypatch.setattr(handoff_facts, "START_BUDGET_BYTES", 100)
    with Baton.open(repo) as app:
        brief = app.bootstrap(owner="alice", branch="main", peek=True).render()
    assert "Freshness: fresh" not in brief
    assert "artifacts were not checked now" in brief


def test_a_batons_freshness_line_counts_one_artifact_not_checked():
    report = derive_freshness("a" * 40, "a" * 40, [ArtifactDrift("docs", "unclassified", "sha256-tree:1", None,
                                                                 NOT_CHECKED)], True)
    handoff_id = "01a24cde-922e-7143-8342-f954506ee620"
    line = freshness_line(report, handoff_id)
    short = short_id(handoff_id)
    assert ("is unchanged, but not every artifact was checked; 1 artifact was not checked now (past this check's hashing budget): "
            f"`baton resume {short}` checks it") in line



def test_validate_checks_every_artifact_a_start_had_no_budget_for(repo, small_budget):
    with Baton.open(repo) as app:
        artifacts = [{"path": f"f{n}", "role": "modified"} for n in range(FOLDERS)]
        handoff_id = app.capture(payload(artifacts=artifacts)).handoff_id
    (repo / "f5" / "x3.txt").write_text("changed\n")
    report = str(validate_handoff_command(repo, handoff_id).to_json())
    assert "f5" in report
    assert "not checked now" not in report
