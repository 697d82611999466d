"""§3: repository state and freshness are validated before a handoff is marked
ready: a validation report of another repository head does not promote."""

from __future__ import annotations

import pytest

from baton.app import Baton
from baton.errors import PromotionRefused
from tests.app_support import promote_handoff, validate_handoff_command
from tests.handoff_support import git_commit, payload


def _capture(root) -> str:
    with Baton.open(root) as app:
        return app.capture(payload()).handoff_id


def _validated(repo) -> str:
    handoff_id = _capture(repo)
    validate_handoff_command(repo, handoff_id)
    return handoff_id


def test_a_commit_after_validation_refuses_the_promotion_naming_both_heads(repo):
    handoff_id = _validated(repo)
    git_commit(repo, {"src/app.py": "x = 2\n"}, "later work")
    with pytest.raises(PromotionRefused) as refused:
        promote_handoff(repo, handoff_id, accept_warnings="tests")
    assert "moved since this handoff was validated" in refused.value.message
    assert refused.value.exit_code == 3


def test_validating_again_after_the_commit_lets_the_promotion_through_with_its_warning(repo):
    handoff_id = _validated(repo)
    git_commit(repo, {"src/app.py": "x = 2\n"}, "later work")
    report = validate_handoff_command(repo, handoff_id).report
    assert report["status"] == "warn"  # the head moved since capture: the report says so
    assert promote_handoff(repo, handoff_id, accept_warnings="the commit is this work").record["status"] == "ready"


def test_an_unchanged_head_promotes_as_before(repo):
    handoff_id = _validated(repo)
    assert promote_handoff(repo, handoff_id, accept_warnings="tests").record["status"] == "ready"


def test_outside_git_nothing_is_known_to_have_moved(project):
    handoff_id = _capture(project)
    validate_handoff_command(project, handoff_id)
    assert promote_handoff(project, handoff_id, accept_warnings="tests").record["status"] == "ready"


def _linked_worktree(repo, where):
    from dulwich import porcelain

    porcelain.branch_create(str(repo), "feature")
    porcelain.worktree_add(str(repo), str(where / "wt"), branch="feature")
    wt = (where / "wt").resolve()
    git_commit(wt, {"src/feature.py": "y = 1\n"}, "feature work")  # the two worktrees' heads differ
    return wt


def test_ready_from_the_main_worktree_reads_the_head_of_the_worktree_the_handoff_was_validated_in(repo, tmp_path):
    # Another worktree's head says nothing about the handoff: it is not "the
    # repository head moved", and validating again from here would not help
    # (a validation in another worktree is recorded for that worktree only).
    wt = _linked_worktree(repo, tmp_path)
    handoff_id = _validated(wt)
    assert promote_handoff(repo, handoff_id, accept_warnings="tests").record["status"] == "ready"


def test_ready_from_the_main_worktree_refuses_when_the_handoffs_worktree_moved(repo):
    wt = _linked_worktree(repo, repo / ".worktrees")  # inside the project root
    handoff_id = _validated(wt)
    git_commit(wt, {"src/feature.py": "y = 2\n"}, "more feature work")
    with pytest.raises(PromotionRefused) as refused:
        promote_handoff(repo, handoff_id, accept_warnings="tests")
    assert "moved since this handoff was validated" in refused.value.message


def test_a_handoffs_worktree_outside_the_project_root_is_not_read_from_another_worktree(repo, tmp_path):
    wt = _linked_worktree(repo, tmp_path)  # beside the project, outside its root
    handoff_id = _validated(wt)
    git_commit(wt, {"src/feature.py": "y = 2\n"}, "more feature work")
    assert promote_handoff(repo, handoff_id, accept_warnings="tests").record["status"] == "ready"
    handoff_2 = _validated(wt)
    git_commit(wt, {"src/feature.py": "y = 3\n"}, "again")
    with pytest.raises(PromotionRefused):  # from its own worktree the move is seen
        promote_handoff(wt, handoff_2, accept_warnings="tests")


def _validated_with_artifact(repo) -> str:
    with Baton.open(repo) as app:
        handoff_id = app.capture(payload(artifacts=[{"path": "src/app.py", "role": "modified"}])).handoff_id
    report = validate_handoff_command(repo, handoff_id).report
    assert any(c["name"] == "artifacts" and c["status"] == "pass" for c in report["checks"])
    return handoff_id


def test_an_artifact_edited_after_validation_refuses_the_promotion_naming_it(repo):
    handoff_id = _validated_with_artifact(repo)
    (repo / "src" / "app.py").write_text("x = 3\n")  # edited, not committed: the head did not move
    with pytest.raises(PromotionRefused) as refused:
        promote_handoff(repo, handoff_id, accept_warnings="tests")
    assert "artifacts changed since this handoff was validated (src/app.py)" in refused.value.message


def test_after_validating_again_the_edited_artifact_is_the_reports_warning_to_accept(repo):
    handoff_id = _validated_with_artifact(repo)
    (repo / "src" / "app.py").write_text("x = 3\n")
    validate_handoff_command(repo, handoff_id)
    assert promote_handoff(repo, handoff_id, accept_warnings="the edit is this work").record["status"] == "ready"
