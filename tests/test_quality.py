"""The continuity score (§10a): eight deterministic 0–100 dimensions and their mean, advisory only."""

from __future__ import annotations

import copy
from pathlib import Path

import orjson
import pytest
from handoff_samples import drop_nones, handoff_dicts, texts
from hypothesis import given
from hypothesis import strategies as st

from baton.domain.handoff import handoff_from_json, handoff_to_json
from baton.domain.quality import DIMENSIONS, NEUTRAL, mean_one_decimal, order_open_items, score_quality

FIXTURE = Path(__file__).parent / "golden" / "handoff-ready.json"


def ready() -> dict:
    return orjson.loads(FIXTURE.read_bytes())


def score(body: dict, **kw):
    return score_quality(handoff_from_json(drop_nones(body)), **kw)


# -- the whole score ----------------------------------------------------------------------------

@given(handoff_dicts(), st.sampled_from([None, "fresh", "partially_stale", "stale", "unknown"]))
def test_every_dimension_is_an_integer_within_0_and_100_and_overall_is_their_mean(body, state):
    q = score(body, freshness_state=state)
    assert [d.name for d in q.dimensions] == list(DIMENSIONS)
    for d in q.dimensions:
        assert isinstance(d.score, int) and 0 <= d.score <= 100
        assert d.reasons
    total = sum(d.score for d in q.dimensions)
    assert round(q.overall * 10) == (total * 10 + 4) // 8  # the mean, rounded half-up to one decimal


@given(handoff_dicts())
def test_same_record_gives_the_same_score(body):
    h = handoff_from_json(drop_nones(body))
    again = handoff_from_json(orjson.loads(orjson.dumps(handoff_to_json(h))))
    assert score_quality(h) == score_quality(again)
    assert orjson.dumps(score_quality(h).to_json()) == orjson.dumps(score_quality(again).to_json())


def test_mean_rounds_half_up_to_one_decimal():
    assert mean_one_decimal([98, 0, 0, 0, 0, 0, 0, 0]) == 12.3  # 12.25, not banker's 12.2
    assert mean_one_decimal([100] * 8) == 100.0
    assert mean_one_decimal([0] * 8) == 0.0


def test_json_shape_is_stable_and_marked_advisory():
    out = score(ready(), freshness_state="fresh").to_json()
    assert list(out) == ["overall", "advisory", "rubric_version", "dimensions"]
    assert out["advisory"] is True
    assert list(out["dimensions"]) == list(DIMENSIONS)
    assert set(out["dimensions"]["freshness"]) == {"score", "reasons"}


def test_weakest_dimension_is_the_lowest_score():
    q = score(ready(), freshness_state="stale")
    assert q.weakest().name == "freshness" and q.weakest().score == 0


# -- monotonic cues -------------------------------------------------------------------------------

@given(handoff_dicts(), st.lists(st.fixed_dictionaries({
    "type": st.sampled_from(["command", "test", "human", "observation"]),
    "claim": texts(30, 1),
    "ref": st.one_of(st.none(), texts(30)),
    "result": st.one_of(st.none(), st.sampled_from(["pass", "fail"])),
}), min_size=1, max_size=3), st.booleans())
def test_adding_evidence_never_lowers_evidence_coverage(body, extra, link):
    before = score(body)["evidence_coverage"].score
    more = copy.deepcopy(body)
    for i, ev in enumerate(extra):
        ev = dict(ev, id=f"E-new-{i}")
        more["evidence"].append(ev)
        if link:
            for claim in more["decisions"] + more["failed_attempts"]:
                claim["evidence_ids"].append(ev["id"])
    assert score(more)["evidence_coverage"].score >= before


def test_no_evidence_means_zero_evidence_coverage():
    body = ready()
    body["evidence"] = []
    for claim in body["decisions"] + body["failed_attempts"]:
        claim["evidence_ids"] = []
    assert score(body)["evidence_coverage"].score == 0


def test_linking_a_decision_to_evidence_raises_evidence_coverage_and_decision_completeness():
    body = ready()
    before = score(body)
    body["decisions"][1]["evidence_ids"] = ["E-002"]
    after = score(body)
    assert after["evidence_coverage"].score > before["evidence_coverage"].score
    assert after["decision_completeness"].score > before["decision_completeness"].score


# -- one cue at a time ---------------------------------------------------------------------------

@pytest.mark.parametrize("objective", ["", "TODO", "tbd", "<objective>", "   "])
def test_missing_or_placeholder_objective_scores_zero(objective):
    body = ready()
    body["work"]["objective"] = objective
    assert score(body)["objective_clarity"].score == 0


def test_measurable_specific_objective_scores_higher_than_a_vague_one():
    vague, specific = ready(), ready()
    vague["work"]["objective"] = "Improve auth"
    specific["work"]["objective"] = "Replayed callbacks must return 400 and the focused suite passes"
    assert score(specific)["objective_clarity"].score > score(vague)["objective_clarity"].score


def test_decision_rationale_adds_to_decision_completeness():
    body = ready()
    before = score(body)["decision_completeness"].score
    body["decisions"][1]["rationale"] = None
    assert score(body)["decision_completeness"].score < before


def test_dangling_evidence_id_does_not_count_as_backing():
    body = ready()
    body["decisions"][1]["evidence_ids"] = ["E-999"]
    assert score(body)["decision_completeness"].score == score(ready())["decision_completeness"].score


def test_no_decisions_and_no_failed_attempts_score_neutral():
    body = ready()
    body["decisions"] = []
    body["failed_attempts"] = []
    q = score(body)
    assert q["decision_completeness"].score == NEUTRAL
    assert q["failed_attempts"].score == NEUTRAL


def test_fully_described_artifacts_score_100_and_none_scores_0():
    body = ready()
    body["artifacts"] = body["artifacts"][:2]
    assert score(body)["artifact_coverage"].score == 100
    body["artifacts"] = []
    assert score(body)["artifact_coverage"].score == 0


def test_failed_attempt_without_reason_or_avoid_repeating_scores_lower():
    body = ready()
    body["failed_attempts"][0]["reason"] = None
    body["failed_attempts"][0]["avoid_repeating"] = False
    assert score(body)["failed_attempts"].score == 100 - 35 - 15


def test_next_action_with_action_and_acceptance_check_beats_a_bare_one():
    bare = ready()
    bare["open_items"][1]["suggested_action"] = None
    bare["open_items"][1]["acceptance_check"] = None
    assert score(bare)["next_action_clarity"].score < score(ready())["next_action_clarity"].score


def test_first_next_action_is_the_highest_priority_unblocked_item():
    body = ready()
    assert [i.id for i in order_open_items(handoff_from_json(body))] == ["O-001", "O-002"]
    body["open_items"][1]["blocked_by"] = ["O-002"]
    assert [i.id for i in order_open_items(handoff_from_json(body))] == ["O-002", "O-001"]


def test_explicitly_completed_work_without_open_items_has_a_clear_next_action():
    body = ready()
    body["open_items"] = []
    assert score(body)["next_action_clarity"].score == 50
    body["work"]["state"] = "completed"
    assert score(body)["next_action_clarity"].score == 100
    body["work"]["definition_of_done"] = []
    body["summary"]["completed"] = []
    body["work"].pop("state")
    assert score(body)["next_action_clarity"].score == 0


@pytest.mark.parametrize(("state", "expected"), [("fresh", 100), ("partially_stale", 50), ("stale", 0)])
def test_freshness_dimension_follows_the_state(state, expected):
    assert score(ready(), freshness_state=state)["freshness"].score == expected


def test_unknown_freshness_scores_higher_when_a_head_was_recorded():
    with_head = ready()
    without = ready()
    del without["project"]["repository"]
    assert score(with_head, freshness_state="unknown")["freshness"].score == 40
    assert score(without, freshness_state="unknown")["freshness"].score == 20


def test_without_a_state_the_recorded_validation_freshness_is_used():
    body = ready()
    assert score(body)["freshness"].score == 100  # heads equal and stale false in the record
    body["validation"]["freshness"]["stale"] = True
    assert score(body)["freshness"].score == 0
    body["validation"]["freshness"] = {"state": "partially_stale"}
    assert score(body)["freshness"].score == 50
    del body["validation"]["freshness"]
    assert score(body)["freshness"].score == 40


def test_ready_fixture_score_matches_the_golden_file(update_golden):
    got = orjson.dumps(score(ready(), freshness_state="fresh").to_json(), option=orjson.OPT_INDENT_2) + b"\n"
    update_golden("quality-ready.json", got)


@pytest.fixture
def update_golden():
    import os

    def check(name: str, got: bytes) -> None:
        path = FIXTURE.parent / name
        if os.environ.get("BATON_UPDATE_GOLDEN") == "1":
            path.write_bytes(got)
        assert path.exists(), f"{name} missing: run with BATON_UPDATE_GOLDEN=1 to create it"
        assert path.read_bytes() == got, f"{name} differs: review, then BATON_UPDATE_GOLDEN=1 to accept"

    return check


@given(st.lists(st.integers(-1000, 1000), min_size=1, max_size=40))
def test_the_means_round_half_up_as_exact_decimal_arithmetic_does(scores):
    from decimal import ROUND_HALF_UP, Decimal

    from baton.domain.quality import _mean_int

    exact = Decimal(sum(scores)) / Decimal(len(scores))
    assert mean_one_decimal(scores) == float(exact.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
    assert _mean_int(scores) == int(exact.quantize(Decimal("1"), rounding=ROUND_HALF_UP))
