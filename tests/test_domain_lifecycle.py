"""The handoff state machine (§5, §8): every transition allowed and refused."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.domain.aggregates import handoff as aggregate
from baton.domain.aggregates.handoff import (
    Archive,
    FlagConflicted,
    Promote,
    RecordValidation,
    Resume,
    Revise,
    Supersede,
)
from baton.domain.handoff import STATUSES, Handoff, Validation, handoff_to_json
from baton.domain.lifecycle import (
    ALLOWED,
    AMEND,
    PromotionRefused,
    TransitionError,
    allowed_actions,
    amend,
    archive,
    flag_conflicted,
    immutable_body,
    promote,
    record_validation,
    record_validation_elsewhere,
    resume,
    revise,
    supersede,
)
from baton.domain.validation import ValidationFacts, validate_handoff
from tests.events_support import recorded
from tests.strategies import draft, handoffs, minimal_payload

T1, T2, T3 = "2026-09-02T14:31:00Z", "2026-09-02T14:32:00Z", "2026-09-02T14:33:00Z"
OTHER = "018f0000-0000-7000-8000-0000000000c3"
CHILD = "018f0000-0000-7000-8000-0000000000d4"


def passed(status: str = "pass") -> Validation:
    return Validation(status=status, validated_at=T1)


def in_state(status: str) -> Handoff:
    """A record brought to ``status`` through the real transitions."""
    h = draft()
    if status == "draft":
        return h
    h = record_validation(h, passed(), now=T1)
    if status == "validated":
        return h
    h = promote(h, now=T2)
    if status == "ready":
        return h
    if status == "resumed":
        return resume(h, now=T3)
    if status == "superseded":
        return supersede(h, by=OTHER, now=T3)
    return archive(h, now=T3, reason="done")


def transition(h: Handoff, command, *, now: str) -> Handoff:
    """The decider's way: decide the events, then fold them as recorded at ``now``."""
    after = h
    for event in aggregate.decide(h, command, now=now):
        after = aggregate.evolve(after, recorded(event, at=now[:-1] + ".000000Z"))
    return after


def action_for(name: str, h: Handoff):
    return {
        "revise": Revise(draft(minimal_payload(work={"title": "new", "objective": "new objective"}))),
        "validate": RecordValidation({"status": "pass", "validated_at": T1, "checks": []}),
        "promote": Promote(),
        "resume": Resume(),
        "supersede": Supersede(OTHER),
        "archive": Archive("obsolete"),
        "flag_conflicted": FlagConflicted(),
    }[name]


ACTIONS = ("revise", "validate", "promote", "resume", "supersede", "archive", "flag_conflicted")
ALLOWED_PAIRS = [(s, a) for s in STATUSES for a in ACTIONS if a in ALLOWED[s]]
REFUSED_PAIRS = [(s, a) for s in STATUSES for a in ACTIONS if a not in ALLOWED[s]]


# --------------------------------------------------------------------------- the table


@pytest.mark.parametrize(("status", "action"), ALLOWED_PAIRS)
def test_every_allowed_transition_succeeds(status, action):
    h = in_state(status)
    after = transition(h, action_for(action, h), now="2026-09-02T15:00:00Z")
    assert after.status in STATUSES and after.id == h.id


@pytest.mark.parametrize(("status", "action"), REFUSED_PAIRS)
def test_every_refused_transition_names_the_state_and_what_is_allowed(status, action):
    h = in_state(status)
    with pytest.raises(TransitionError) as info:
        transition(h, action_for(action, h), now="2026-09-02T15:00:00Z")
    err = info.value
    assert err.exit_code == 4
    assert f"it is {status}" in err.message
    assert err.details["allowed"] == list(ALLOWED[status])
    offered = [a for a in ALLOWED[status] if a not in ("supersede", "flag_conflicted")]
    assert ("allowed: " + ", ".join(offered)) in err.message or "nothing (terminal state)" in err.message
    assert err.details["offered"] == offered


@pytest.mark.parametrize(("status", "action"), REFUSED_PAIRS)
def test_a_refused_transition_never_offers_what_only_baton_itself_does(status, action):
    h = in_state(status)
    with pytest.raises(TransitionError) as info:
        transition(h, action_for(action, h), now="2026-09-02T15:00:00Z")
    allowed = info.value.message.rpartition("allowed: ")[2]
    assert "supersede" not in allowed and "flag_conflicted" not in allowed


def test_superseded_and_archived_are_terminal_except_for_amending():
    assert allowed_actions(in_state("archived")) == ()
    assert allowed_actions(in_state("superseded")) == (AMEND,)


# --------------------------------------------------------------------------- each transition


@pytest.mark.parametrize("status", ["superseded", "archived"])
def test_recording_a_validation_on_a_terminal_record_is_refused_by_the_lifecycle_itself(status):
    with pytest.raises(TransitionError):
        record_validation(in_state(status), passed(), now=T3)


@pytest.mark.parametrize("status", ["draft", "archived"])
def test_promoting_a_record_not_validated_is_refused_by_the_lifecycle_itself(status):
    with pytest.raises(TransitionError):
        promote(in_state(status), now=T3)


def test_recording_another_worktrees_validation_on_an_archived_record_is_refused_by_the_lifecycle_itself():
    with pytest.raises(TransitionError):
        record_validation_elsewhere(in_state("archived"), {"status": "pass", "validated_at": T1}, now=T3)


def test_passing_validation_moves_a_draft_to_validated():
    h = record_validation(draft(), passed(), now=T1)
    assert h.status == "validated" and h.validation.status == "pass" and h.updated_at == T1


def test_a_warning_validation_also_moves_to_validated():
    assert record_validation(draft(), passed("warn"), now=T1).status == "validated"


def test_failed_validation_keeps_draft_and_flags_invalid():
    h = record_validation(draft(), passed("fail"), now=T1)
    assert h.status == "draft" and h.flags == ("invalid",)


def test_a_failed_revalidation_sends_a_validated_record_back_to_draft():
    h = record_validation(in_state("validated"), passed("fail"), now=T2)
    assert h.status == "draft" and "invalid" in h.flags


def test_a_passing_revalidation_clears_invalid():
    h = record_validation(draft(), passed("fail"), now=T1)
    assert record_validation(h, passed(), now=T2).flags == ()


def test_recording_not_run_as_a_validation_is_a_programming_error():
    with pytest.raises(ValueError):
        record_validation(draft(), Validation(), now=T1)


def test_revision_resets_validation_and_clears_both_flags_but_keeps_identity():
    h = flag_conflicted(record_validation(draft(), passed("fail"), now=T1), now=T1)
    body = draft(minimal_payload(work={"title": "revised", "objective": "revised objective"}),
                 id=OTHER, now="2030-01-01T00:00:00Z")
    after = revise(h, body, now=T2)
    assert (after.id, after.created_at, after.updated_at) == (h.id, h.created_at, T2)
    assert after.status == "draft" and after.flags == () and after.validation.status == "not_run"
    assert after.work.title == "revised"


def test_promotion_makes_a_validated_record_ready():
    h = promote(in_state("validated"), now=T2)
    assert h.status == "ready" and h.updated_at == T2 and h.validation.accepted_warnings is None


def test_promoting_a_warn_needs_a_reason_and_records_it():
    h = record_validation(draft(), passed("warn"), now=T1)
    with pytest.raises(PromotionRefused) as info:
        promote(h, now=T2)
    assert info.value.exit_code == 3 and any("`accept_warnings`" in p for p in info.value.problems)
    with pytest.raises(PromotionRefused):
        promote(h, now=T2, accepted_warnings="   ")
    ready = promote(h, now=T2, accepted_warnings="head drift reviewed")
    assert ready.status == "ready" and ready.validation.accepted_warnings == "head drift reviewed"


def test_a_failed_record_cannot_be_promoted():
    h = record_validation(draft(), passed("fail"), now=T1)
    with pytest.raises(TransitionError):
        promote(h, now=T2, accepted_warnings="please")


def test_a_conflicted_record_cannot_be_promoted_until_revised():
    h = flag_conflicted(in_state("validated"), now=T2)
    assert "promote" not in allowed_actions(h)
    with pytest.raises(TransitionError) as info:
        promote(h, now=T3)
    assert "conflicted" in info.value.message
    assert record_validation(h, passed(), now=T3).flags == ("conflicted",)  # validation does not clear it


def test_promotion_checks_the_ready_requirements():
    h = record_validation(draft(minimal_payload(open_items=[])), passed(), now=T1)
    with pytest.raises(PromotionRefused) as info:
        promote(h, now=T2)
    assert any(p.startswith("open_items:") for p in info.value.problems)


def test_flagging_conflicted_twice_is_idempotent():
    h = flag_conflicted(draft(), now=T1)
    assert flag_conflicted(h, now=T2) == h


def test_resuming_marks_the_record_resumed_and_may_repeat():
    h = resume(in_state("ready"), now=T3)
    assert h.status == "resumed" and h.resumed_at == T3
    assert resume(h, now="2026-09-02T16:00:00Z").resumed_at == "2026-09-02T16:00:00Z"


def test_superseding_records_the_successor():
    h = supersede(in_state("resumed"), by=OTHER, now=T3)
    assert h.status == "superseded" and h.superseded_by == OTHER


def test_a_record_cannot_be_superseded_by_itself_or_a_non_id():
    h = in_state("ready")
    for bad in (h.id, "nope"):
        with pytest.raises(ValueError):
            supersede(h, by=bad, now=T3)


def test_archiving_records_the_reason():
    assert archive(in_state("draft"), now=T3, reason="abandoned").archived_reason == "abandoned"
    assert archive(in_state("ready"), now=T3).archived_reason is None


# --------------------------------------------------------------------------- immutability after ready


@pytest.mark.parametrize("step", [
    lambda h: resume(h, now=T3),
    lambda h: supersede(h, by=OTHER, now=T3),
    lambda h: archive(h, now=T3, reason="x"),
    lambda h: supersede(resume(h, now=T3), by=OTHER, now="2026-09-03T00:00:00Z"),
])
def test_a_ready_record_never_changes_after_promotion(step):
    ready = in_state("ready")
    assert immutable_body(step(ready)) == immutable_body(ready)


@given(handoffs(status="ready"))
def test_no_lifecycle_step_after_ready_changes_the_body(h):
    h = attrs.evolve(h, flags=())
    for after in (resume(h, now=T3), supersede(h, by=OTHER, now=T3), archive(h, now=T3)):
        assert immutable_body(after) == immutable_body(h)


def test_a_ready_record_cannot_be_revised():
    with pytest.raises(TransitionError) as info:
        revise(in_state("ready"), draft(), now=T3)
    assert "amend" in info.value.message


def test_amending_creates_a_linked_child_and_leaves_the_parent_alone():
    parent = in_state("ready")
    before = handoff_to_json(parent)
    child = amend(parent, {"summary": {"current_state": "corrected"}}, id=CHILD, now=T3)
    assert handoff_to_json(parent) == before
    assert child.id == CHILD and child.status == "draft" and child.created_at == T3
    assert child.lineage.relation == "amend" and child.lineage.parents == (parent.id,)
    assert child.summary.current_state == "corrected" and child.work == parent.work
    assert child.validation.status == "not_run" and child.flags == ()


def test_a_draft_is_revised_not_amended():
    with pytest.raises(TransitionError) as info:
        amend(draft(), {}, id=CHILD, now=T3)
    assert "revised in place" in info.value.message


def test_an_amended_child_passes_lineage_against_its_parent():
    parent = in_state("ready")
    child = amend(parent, {}, id=CHILD, now=T3)
    report = validate_handoff(child, ValidationFacts(now=T3, known_handoff_ids=frozenset({parent.id})))
    assert report.check("lineage").status == "pass"


@given(st.sampled_from(STATUSES))
def test_allowed_actions_follow_the_table(status):
    assert allowed_actions(in_state(status)) == ALLOWED[status]
