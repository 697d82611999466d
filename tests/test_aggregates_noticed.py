"""Decider behaviours the mutation run (``benchmarks/mutation.py --package baton/domain/aggregates``) found
untested; the tables in ``test_aggregates.py`` hold the rest."""

from __future__ import annotations

import pytest

from baton.domain.aggregates import baton as batons
from baton.domain.batons import CANCELLED, CLAIMED, SUPERSEDED
from baton.errors import BatonNotPending, BatonSuperseded
from baton.events.catalogue import BatonClaimed
from baton.values import replace
from tests.events_support import recorded
from tests.test_aggregates import FIRST, KEY, SECOND, baton, given


def handoff_id(n: int) -> str:
    return f"018f0000-0000-7000-8000-{n:012d}"


def test_a_key_remembers_its_last_twenty_earlier_batons_newest_first():
    state = given(*(batons.CreateBaton(baton(handoff_id(n))) for n in range(1, 24)))
    assert state.current.id == handoff_id(23)
    assert [p["id"] for p in state.previous] == [handoff_id(n) for n in range(22, 2, -1)]


@pytest.mark.parametrize("shared", [True, False])
def test_a_created_baton_folds_shared_exactly_when_it_was_created_shared(shared):
    state = given(batons.CreateBaton(replace(baton(), shared=shared)))
    assert state.current.shared is shared


def test_creating_claiming_and_cancelling_are_accepted_folds():
    created = batons.decide(batons.BatonKey(KEY), batons.CreateBaton(baton()))
    folded = batons.fold(batons.BatonKey(KEY), recorded(created[0]))
    assert folded.accepted is True
    state = folded.state
    for command, status in ((batons.ClaimBaton(FIRST, "s2", "2026-09-02T16:00:00Z"), CLAIMED),
                            (batons.CancelBaton(session="s1"), CANCELLED)):
        [event] = batons.decide(state, command)
        after = batons.fold(state, recorded(event, version=2))
        assert after.accepted is True and after.state.current.status == status


def test_a_recorded_claim_with_an_empty_session_and_time_claims_for_no_session_at_the_event_s_time():
    state = given(batons.CreateBaton(baton()))
    claim = BatonClaimed(key=KEY, handoff_id=FIRST, session="", claimed_at="")
    folded = batons.fold(state, recorded(claim, version=2, at="2026-09-02T17:00:00.000000Z"))
    assert folded.accepted is True
    assert folded.state.current.claimed_by_session is None and folded.state.current.claimed_at is None
    no_time = BatonClaimed(key=KEY, handoff_id=FIRST, session="s9", claimed_at=None)
    current = batons.fold(state, recorded(no_time, version=2, at="2026-09-02T17:00:00.000000Z")).state.current
    assert current.claimed_at == "2026-09-02T17:00:00.000000Z" and current.claimed_by_session == "s9"


def test_a_key_read_back_with_a_version_that_is_not_a_number_starts_at_zero():
    assert batons.BatonKey.from_doc(KEY, {"version": "7", "current": None}).version == 0
    assert batons.BatonKey.from_doc(KEY, {"version": 7, "current": None}).version == 7


def test_claiming_where_no_baton_exists_or_a_newer_one_replaced_it_says_which():
    with pytest.raises(BatonSuperseded, match=f"^baton {FIRST} was superseded before it could be claimed$"):
        batons.decide(batons.BatonKey(KEY), batons.ClaimBaton(FIRST, "s2", "t"))
    state = given(batons.CreateBaton(baton(FIRST)), batons.CreateBaton(baton(SECOND)))
    with pytest.raises(BatonSuperseded, match=f"superseded by baton {SECOND} before"):
        batons.decide(state, batons.ClaimBaton(FIRST, "s2", "t"))


def test_dismissing_an_earlier_baton_names_the_status_it_ended_with():
    third = handoff_id(3)
    state = given(batons.CreateBaton(baton(FIRST)), batons.ClaimBaton(FIRST, "s2", "t"),
                  batons.CreateBaton(baton(SECOND)), batons.CreateBaton(baton(third)))
    with pytest.raises(BatonNotPending, match=f"^baton {FIRST} is claimed, not pending; nothing to dismiss$"):
        batons.decide(state, batons.DismissBaton(FIRST))
    with pytest.raises(BatonNotPending, match=f"^baton {SECOND} is {SUPERSEDED}, not pending"):
        batons.decide(state, batons.DismissBaton(SECOND))
    with pytest.raises(BatonNotPending, match=f"^baton {handoff_id(9)} is {SUPERSEDED}, not pending"):
        batons.decide(state, batons.DismissBaton(handoff_id(9)))


def test_a_claim_that_lost_is_kept_as_a_conflict_naming_the_winner():
    state = given(batons.CreateBaton(baton(FIRST)), batons.ClaimBaton(FIRST, "s2", "2026-09-02T16:00:00Z"))
    late = BatonClaimed(key=KEY, handoff_id=FIRST, session="s3", claimed_at="2026-09-02T16:00:01Z")
    folded = batons.fold(state, recorded(late, version=3))
    assert folded.accepted is False
    [conflict] = folded.state.conflicts
    assert conflict["handoffId"] == FIRST and conflict["sessionId"] == "s3"
    assert conflict["winner"] == {"status": CLAIMED, "claimedBySession": "s2", "claimedAt": "2026-09-02T16:00:00Z"}


def test_a_claim_of_an_earlier_baton_that_lost_names_the_baton_that_replaced_it():
    third = handoff_id(3)
    state = given(batons.CreateBaton(baton(FIRST)), batons.CreateBaton(baton(SECOND)),
                  batons.CreateBaton(baton(third)))
    late = BatonClaimed(key=KEY, handoff_id=FIRST, session="s3", claimed_at="2026-09-02T16:00:01Z")
    [conflict] = batons.fold(state, recorded(late, version=4)).state.conflicts
    assert conflict["winner"]["status"] == SUPERSEDED and conflict["winner"]["supersededBy"] == SECOND
    unknown = BatonClaimed(key=KEY, handoff_id=handoff_id(9), session="s3", claimed_at="t")
    assert batons.fold(state, recorded(unknown, version=4)).state.conflicts == ()


# -- handoffs and sessions -----------------------------------------------------------------------------------

@pytest.mark.parametrize("status", ["draft", "validated", "ready", "resumed", "superseded", "archived"])
def test_allows_says_what_decide_would_accept(status):
    from baton.domain.aggregates import handoff as aggregate
    from baton.domain.lifecycle import ALLOWED
    from tests.test_domain_lifecycle import ACTIONS, action_for, in_state

    h = in_state(status)
    for action in ACTIONS:
        assert aggregate.allows(h, action_for(action, h)) is (action in ALLOWED[status])
        assert aggregate.allows(None, action_for(action, h)) is False
    assert aggregate.allows(None, aggregate.Capture(h)) is True
    assert aggregate.allows(h, aggregate.Capture(h)) is False


def test_a_record_time_is_the_envelope_time_to_the_second():
    from baton.domain.aggregates.handoff import record_time

    assert record_time("2026-09-02T15:00:00.123456Z") == "2026-09-02T15:00:00Z"
    assert record_time("2026-09-02T15:00:00") == "2026-09-02T15:00:00Z"
    assert record_time("2026-09-02") == "2026-09-02"


def session_after(*events):
    from baton.domain.aggregates import session as sessions

    state = None
    for event in events:
        state = sessions.evolve_session(state, recorded(event), "s1")
    return state


def test_a_session_keeps_what_it_began_with_and_takes_from_its_end_only_what_it_lacked():
    from baton.events.catalogue import SessionBegun, SessionEnded

    state = session_after(SessionBegun(key="s1", session="s1", owner="alice", branch="", harness=None),
                          SessionEnded(key="s1", session="s1", owner="bob", branch="main", harness="codex"))
    assert (state["owner"], state["branch"], state["harness"]) == ("alice", "main", "codex")


def test_blank_or_non_text_session_fields_are_recorded_as_missing():
    from baton.events.catalogue import SessionBegun

    state = session_after(SessionBegun(key="s1", session="s1", owner="alice", branch="main", harness="",
                                       objective=7, received_baton=""))
    assert state["harness"] is None and state["objective"] is None and state["receivedBaton"] is None


@pytest.mark.parametrize("missing", ["owner", "branch", "objective"])
def test_an_objective_set_without_an_owner_branch_or_objective_changes_nothing(missing):
    from baton.domain.aggregates import session as sessions
    from baton.events.catalogue import ObjectiveSet

    before = {"key": "k", "owner": "alice", "branch": "main", "objective": "old"}
    fields = {"owner": "alice", "branch": "main", "objective": "new", missing: ""}
    assert sessions.evolve_objective(before, recorded(ObjectiveSet(key="k", **fields)), "k") == before


def test_promoting_a_handoff_whose_validation_failed_is_a_refused_promotion_not_a_wrong_state():
    from baton.domain.aggregates import handoff as aggregate
    from baton.domain.lifecycle import record_validation
    from baton.errors import PromotionRefused
    from tests.test_domain_lifecycle import T1, T2, draft, passed

    failed = record_validation(draft(), passed("fail"), now=T1)
    assert failed.status == "draft"
    with pytest.raises(PromotionRefused):
        aggregate.decide(failed, aggregate.Promote(), now=T2)


# -- the lifecycle's reasons for a refused transition --------------------------------------------------------

def refusal(h, action):
    from baton.domain.lifecycle import TransitionError, require

    with pytest.raises(TransitionError) as caught:
        require(h, action)
    return caught.value


def test_promoting_a_flagged_validated_record_says_to_revise_it_to_clear_the_flag():
    from baton.domain.lifecycle import PROMOTE, flag_conflicted
    from tests.test_domain_lifecycle import T3, in_state

    flagged = flag_conflicted(in_state("validated"), now=T3)
    assert "revise it to clear the conflicted flag" in refusal(flagged, PROMOTE).message


@pytest.mark.parametrize("status", ["ready", "resumed", "superseded", "archived"])
def test_revising_a_record_past_draft_says_amend_creates_a_corrected_child(status):
    from baton.domain.lifecycle import REVISE
    from tests.test_domain_lifecycle import in_state

    assert "a ready record never changes; amend creates a corrected child" in refusal(in_state(status), REVISE).message


def test_refusals_without_a_special_case_give_no_special_reason():
    from baton.domain.lifecycle import PROMOTE, RESUME
    from tests.test_domain_lifecycle import in_state

    for h, action in ((in_state("draft"), PROMOTE), (in_state("draft"), RESUME), (in_state("archived"), PROMOTE)):
        message = refusal(h, action).message
        assert "amend creates" not in message and "to clear the" not in message and "another worktree" not in message


def test_promoting_a_draft_validated_only_in_another_worktree_says_where_to_validate_it():
    import attrs

    from baton.domain.lifecycle import PROMOTE
    from tests.test_domain_lifecycle import in_state

    h = in_state("draft")
    elsewhere = attrs.evolve(h.validation, extra={"elsewhere": [{"ran_on": {"worktree": "wt-b"}}, "noise"]})
    message = refusal(attrs.evolve(h, validation=elsewhere), PROMOTE).message
    assert "validated only in another worktree (wt-b)" in message and "the main worktree (.)" in message


@pytest.mark.parametrize("status", ["draft", "validated", "ready", "resumed", "superseded", "archived"])
def test_each_lifecycle_transition_refuses_a_state_that_does_not_allow_it_on_its_own(status):
    from baton.domain.lifecycle import (
        ALLOWED,
        ARCHIVE,
        FLAG_CONFLICTED,
        RESUME,
        VALIDATE,
        TransitionError,
        archive,
        flag_conflicted,
        record_validation,
        resume,
    )
    from tests.test_domain_lifecycle import T3, in_state, passed

    calls = {
        VALIDATE: lambda h: record_validation(h, passed(), now=T3),
        RESUME: lambda h: resume(h, now=T3),
        ARCHIVE: lambda h: archive(h, now=T3, reason="done"),
        FLAG_CONFLICTED: lambda h: flag_conflicted(h, now=T3),
    }
    for action, call in calls.items():
        if action in ALLOWED[status]:
            call(in_state(status))
        else:
            with pytest.raises(TransitionError):
                call(in_state(status))


def test_a_record_remembers_the_newest_validation_of_each_of_its_last_ten_other_worktrees():
    from baton.domain.lifecycle import record_validation_elsewhere
    from tests.test_domain_lifecycle import T3, in_state

    h = in_state("draft")
    for n in range(12):
        h = record_validation_elsewhere(h, {"status": "pass", "ran_on": {"worktree": f"wt-{n}"}}, now=T3)
    h = record_validation_elsewhere(h, {"status": "fail", "ran_on": {"worktree": "wt-11"}}, now=T3)
    runs = h.validation.extra["elsewhere"]
    assert [r["ran_on"]["worktree"] for r in runs] == [f"wt-{n}" for n in range(2, 11)] + ["wt-11"]
    assert runs[-1]["status"] == "fail" and h.status == "draft"


def test_the_immutable_body_of_a_record_leaves_out_only_its_lifecycle_fields():
    from baton.domain.handoff import handoff_to_json
    from baton.domain.lifecycle import LIFECYCLE_FIELDS, immutable_body, resume
    from tests.test_domain_lifecycle import T3, in_state

    ready = in_state("ready")
    body = immutable_body(ready)
    assert body == {k: v for k, v in handoff_to_json(ready).items() if k not in LIFECYCLE_FIELDS}
    assert "status" not in body and body["id"] == ready.id
    assert immutable_body(resume(ready, now=T3)) == body
