"""Sessions: begin claims the baton; objectives are bound to owner+branch and never outlive their session."""

from __future__ import annotations

import time

import pytest

from baton.app import Baton
from baton.commands.context import Project
from baton.commands.identity import SessionContext
from baton.commands.objectives import get_session_objective
from baton.domain.batons import STEPS_REQUIRED, objective_doc_key
from baton.domain.unended import UNENDED_HOURS
from baton.errors import InputError
from baton.ledger.envelope import Event, EventDraft, seal
from baton.projections.sessions import ObjectivesBase, session_doc
from tests.app_support import begin_session, end_session
from tests.batons_support import ALICE, BOB, active, append_raw, events, leave, start


def objective(project, owner=ALICE, branch="main"):
    opened = Project.open(project)
    try:
        return get_session_objective(opened.reading(), SessionContext(owner, branch))
    finally:
        opened.close()


def test_session_begin_claims_the_eligible_baton(project):
    record = leave(project, "s1", steps=["write the fixture"])
    begun = begin_session(project, session_id="s2", harness="codex", owner=ALICE, branch="main")
    assert begun.record.id == record.id
    assert begun.record.claimed_by_session == "s2"
    assert "## 🤝 Active Session Handoff" in begun.render()
    assert "write the fixture" in begun.render()
    assert active(project) is None
    assert len(events(project, "baton.claimed")) == 1


def test_session_begin_without_a_baton_claims_nothing(project):
    begun = begin_session(project, session_id="s1", owner=ALICE, branch="main")
    assert begun.record is None
    assert begun.to_json()["handoff"] is None
    assert events(project, "baton.claimed") == []


def test_session_begin_mints_a_session_id_when_none_is_given(project):
    begun = begin_session(project, owner=ALICE, branch="main")
    assert len(begun.session_id) == 36


def test_session_end_with_an_empty_payload_leaves_no_baton_and_is_not_an_error(project):
    for n, payload in enumerate((None, {}, {"nextSteps": []})):
        result = end_session(project, f"s{n}", payload, owner=ALICE, branch="main")
        assert result.exit_code == 0 and result.created is None
    assert events(project, "baton.created") == []
    assert len(events(project, "session.ended")) == 3


def test_session_end_without_a_non_empty_step_fails_with_the_exact_message_and_writes_nothing(project):
    before = len(events(project))
    with pytest.raises(InputError) as caught:
        end_session(project, "s1", {"nextSteps": ["  "], "failedApproaches": ["x"]}, owner=ALICE, branch="main")
    assert caught.value.message == STEPS_REQUIRED == "handoff.nextSteps must contain at least one non-empty step."
    assert len(events(project)) == before


def test_begin_with_an_objective_sets_it_for_this_owner_and_branch(project):
    begin_session(project, session_id="s1", objective="Ship OAuth", owner=ALICE, branch="main")
    got = objective(project)
    assert got.objective == "Ship OAuth" and got.session_id == "s1"
    assert got.to_json().keys() == {"owner", "branch", "objective", "sessionId", "updatedAt", "harness"}
    assert objective(project, branch="dev") is None
    assert objective(project, owner=BOB) is None


def test_session_end_clears_the_objective(project):
    begin_session(project, session_id="s1", objective="Ship OAuth", owner=ALICE, branch="main")
    result = end_session(project, "s1")
    assert result.objective_cleared
    assert objective(project) is None
    assert [e.data["reason"] for e in events(project, "objective.cleared")] == ["session_end"]


def _begun_long_ago(project, session_id, objective, branch="main"):
    """A session begun with ``objective`` and silent past the horizon since: taken for ended
    (``domain.unended.taken_for_ended``), its objective stale."""
    long_ago = time.time_ns() - (UNENDED_HOURS + 1) * 3600 * 10**9
    with Baton.open(project, clock=lambda: long_ago) as app:
        app.begin_session(session_id=session_id, objective=objective, owner=ALICE, branch=branch, claim=False)


def test_begin_without_an_objective_clears_a_stale_one(project):
    _begun_long_ago(project, "s1", "Old goal")
    begun = begin_session(project, session_id="s2", owner=ALICE, branch="main")
    assert begun.objective_cleared
    assert objective(project) is None


def test_begin_without_an_objective_says_it_cleared_the_earlier_one(project):
    # The text output says so, as `session end` does ("The session objective was cleared.").
    _begun_long_ago(project, "s1", "Old goal")
    assert "cleared" in begin_session(project, session_id="s2", owner=ALICE, branch="main").render()
    assert "cleared" not in begin_session(project, session_id="s3", owner=ALICE, branch="main").render()


def test_an_objective_whose_session_never_existed_reads_as_null(project):
    append_raw(project, "objective.set", "objective/alice%40example.com__main",
               {"owner": ALICE, "branch": "main", "objective": "Orphan", "session": "no-such-session"})
    assert objective(project) is None


def test_an_objective_whose_session_ended_reads_as_null(project):
    begin_session(project, session_id="s1", objective="Goal", owner=ALICE, branch="main")
    # A session.ended written without clearing (an older tool, a crash between events).
    append_raw(project, "session.ended", "session/s1", {"session": "s1"})
    assert objective(project) is None


def test_the_objective_reaches_the_bootstrap_brief(project):
    begin_session(project, session_id="s1", objective="Ship OAuth", owner=ALICE, branch="main")
    result = start(project, session="s1")
    assert "## 🎯 Session Objective" in result.brief.text and "Ship OAuth" in result.brief.text
    assert result.to_json()["sessionObjective"]["objective"] == "Ship OAuth"


def test_a_baton_carries_the_session_objective_into_its_handoff(project):
    begin_session(project, session_id="s1", objective="Ship OAuth", owner=ALICE, branch="main")
    record = end_session(project, "s1", {"nextSteps": ["a"]}, owner=ALICE, branch="main").created.record
    opened = Project.open(project)
    handoff = opened.reading().get("handoffs", record.id)
    assert handoff["work"]["objective"] == "Ship OAuth"
    assert [i["description"] for i in handoff["open_items"]] == ["a"]


def test_session_end_uses_the_owner_and_branch_the_session_began_with_for_its_objective(project):
    begin_session(project, session_id="s1", objective="Goal", owner=BOB, branch="dev")
    end_session(project, "s1")
    assert objective(project, owner=BOB, branch="dev") is None


@pytest.mark.parametrize("bad", ["", "   ", "a\nb", "x" * 201])
def test_malformed_session_ids_are_input_errors(project, bad):
    with pytest.raises(InputError):
        begin_session(project, session_id=bad, owner=ALICE, branch="main")


def test_an_over_long_objective_is_an_input_error(project):
    with pytest.raises(InputError, match="at most 2000"):
        begin_session(project, session_id="s1", objective="x" * 2001, owner=ALICE, branch="main")


def test_sessions_projection_records_what_each_session_received_and_left(project):
    leave(project, "s0")
    begin_session(project, session_id="s1", harness="claude-code", owner=ALICE, branch="main")
    left = end_session(project, "s1", {"nextSteps": ["b"]}, owner=ALICE, branch="main").created.record
    opened = Project.open(project)
    doc = session_doc(opened.reading(), opened.writer, "s1")
    assert doc["status"] == "ended"
    assert doc["harness"] == "claude-code"
    assert doc["receivedBaton"] is not None
    assert doc["leftBaton"] == left.id


def test_a_session_on_a_branch_that_encodes_alike_does_not_clear_the_others_objective(project):
    begin_session(project, session_id="s1", objective="Slash goal", owner=ALICE, branch="feat/x")
    begin_session(project, session_id="s2", owner=ALICE, branch="feat_x")
    assert objective(project, branch="feat/x").objective == "Slash goal"
    assert objective(project, branch="feat_x") is None


def test_setting_an_objective_on_a_branch_that_encodes_alike_keeps_the_others(project):
    begin_session(project, session_id="s1", objective="Underscore goal", owner=ALICE, branch="feat_x")
    begin_session(project, session_id="s2", objective="Slash goal", owner=ALICE, branch="feat/x")
    assert objective(project, branch="feat_x").objective == "Underscore goal"
    assert objective(project, branch="feat/x").objective == "Slash goal"


def test_ending_the_session_on_a_branch_that_encodes_alike_clears_only_its_own_objective(project):
    begin_session(project, session_id="s1", objective="Underscore goal", owner=ALICE, branch="feat_x")
    begin_session(project, session_id="s2", objective="Slash goal", owner=ALICE, branch="feat/x")
    end_session(project, "s2")
    assert objective(project, branch="feat/x") is None
    assert objective(project, branch="feat_x").objective == "Underscore goal"


def test_owners_that_encode_alike_keep_their_own_objectives_on_one_branch(project):
    begin_session(project, session_id="s1", objective="Underscore owner", owner="a_b", branch="main")
    begin_session(project, session_id="s2", objective="Slash owner", owner="a/b", branch="main")
    assert objective(project, owner="a_b").objective == "Underscore owner"
    assert objective(project, owner="a/b").objective == "Slash owner"


def test_a_replay_keeps_the_objectives_of_branches_that_encode_alike_as_they_were_folded(project):
    begin_session(project, session_id="s1", objective="Underscore goal", owner=ALICE, branch="feat_x")
    _begun_long_ago(project, "s2", "Slash goal", branch="feat/x")
    begin_session(project, session_id="s3", owner=ALICE, branch="feat/x")
    opened = Project.open(project)
    try:
        incremental = opened.reading().snapshot()
        opened.runner.rebuild()
        assert opened.runner.snapshot() == incremental
        assert [doc["branch"] for _key, doc in opened.runner.docs("objectives") if "objective" in doc] == ["feat_x"]
    finally:
        opened.close()


def _objective_event(data: dict) -> Event:
    return seal(EventDraft("objective.set", "objective/alice%40example.com__feat_x", data), event_id="0" * 36,
                writer="w", seq=1, at="2026-12-05T19:00:00.000000Z", hlc=1, stream_version=1, prev=None)


def test_an_objective_event_folds_into_the_document_of_its_exact_owner_and_branch():
    event = _objective_event({"owner": ALICE, "branch": "feat/x", "objective": "Slash goal", "session": "s1"})
    assert list(ObjectivesBase().keys(event)) == [objective_doc_key(ALICE, "feat/x")]
    assert objective_doc_key(ALICE, "feat/x") != objective_doc_key(ALICE, "feat_x")


def test_an_objective_event_without_its_names_folds_under_its_streams_key():
    event = _objective_event({"objective": "Nameless", "session": "s1"})
    assert list(ObjectivesBase().keys(event)) == ["alice%40example.com__feat_x"]
