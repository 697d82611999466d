"""Session batons, the pure rules: payload, keys, eligibility, rendering, the budgeted brief."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.domain import batons as batons_module
from baton.domain.baton_payload import BatonPayload, handoff_payload_for_baton, parse_payload
from baton.domain.batons import (
    HANDOFF_HEADING,
    KEY_PART_MAX,
    SHARED_KEY,
    STEPS_REQUIRED,
    BatonRecord,
    active_for_context,
    assemble_brief,
    baton_content_of_handoff,
    baton_key,
    collect_decisions,
    collect_traps,
    context_key,
    encode_key_part,
    recent_handoffs,
    render_baton_markdown,
    select_eligible,
)
from baton.domain.quality import order_open_items
from baton.errors import InputError
from baton.values import replace


def rec(id, owner="alice@example.com", branch="main", shared=False, created="2026-01-01T00:00:00.000000Z",
        status="pending", steps=("do the thing",)):
    return BatonRecord(id=id, key=baton_key(owner, branch, shared), owner=owner, branch=branch, shared=shared,
                       next_steps=tuple(steps), created_at=created, status=status)


# -- payload -------------------------------------------------------------------------

def test_payload_filters_empty_entries():
    p = parse_payload({"nextSteps": ["a", "  ", "", "b"], "failedApproaches": ["", "x"], "openQuestions": [" q "]})
    assert p.next_steps == ("a", "b")
    assert p.failed_approaches == ("x",)
    assert p.open_questions == ("q",)
    assert p.shared is False


def test_payload_without_a_non_empty_step_is_the_exact_error():
    with pytest.raises(InputError) as caught:
        parse_payload({"nextSteps": [" ", ""], "failedApproaches": ["x"]})
    assert caught.value.message == "handoff.nextSteps must contain at least one non-empty step."
    assert caught.value.exit_code == 2


def test_payload_with_only_failed_approaches_still_needs_a_step():
    with pytest.raises(InputError, match="^handoff.nextSteps must contain at least one non-empty step.$"):
        parse_payload({"failedApproaches": ["x"]})


@pytest.mark.parametrize("raw", [None, {}, {"nextSteps": []}, {"nextSteps": [], "shared": True, "owner": "o"}])
def test_an_empty_payload_is_no_baton_not_an_error(raw):
    assert parse_payload(raw) is None


def test_an_empty_payload_is_an_error_when_a_baton_is_asked_for():
    with pytest.raises(InputError, match=STEPS_REQUIRED.replace(".", r"\.")):
        parse_payload({}, allow_empty=False)


def test_payload_reports_every_malformed_field_at_once():
    with pytest.raises(InputError) as caught:
        parse_payload({"nextSteps": "a", "failedApproaches": [1], "shared": "yes", "owner": 3})
    problems = caught.value.details["problems"]
    assert len(problems) == 4


def test_payload_accepts_snake_case_and_keeps_owner_branch_shared():
    p = parse_payload({"next_steps": ["a"], "owner": " bob ", "branch": "feat/x", "shared": True})
    assert p == BatonPayload(next_steps=("a",), owner="bob", branch="feat/x", shared=True)


# -- keys -----------------------------------------------------------------------------

def test_key_replaces_slashes_and_percent_encodes():
    assert encode_key_part("feature/login") == "feature_login"
    assert encode_key_part("alice@example.com") == "alice%40example.com"
    assert context_key("a b", "x/y") == "a%20b__x_y"


def test_shared_batons_use_the_one_fixed_key():
    assert baton_key("anyone", "any/branch", True) == SHARED_KEY == "_shared"


def test_long_names_are_capped_at_120_characters_and_stay_distinct():
    a = encode_key_part("feature/" + "x" * 300 + "a")
    b = encode_key_part("feature/" + "x" * 300 + "b")
    assert len(a) <= KEY_PART_MAX and len(b) <= KEY_PART_MAX
    assert a != b


@given(st.text(min_size=1, max_size=400))
def test_every_encoded_part_is_a_safe_file_name_component(value):
    part = encode_key_part(value)
    assert 0 < len(part) <= KEY_PART_MAX
    assert "/" not in part and "\\" not in part and "\x00" not in part
    assert part.isascii()


@given(st.text(min_size=1, max_size=100), st.text(min_size=1, max_size=100))
def test_encoding_is_deterministic(owner, branch):
    assert context_key(owner, branch) == context_key(owner, branch)


@given(st.text(max_size=60))
def test_a_remembered_encoding_is_what_encodeuricomponent_gives(value):
    first = batons_module._encode_uri_component(value)
    assert batons_module._encode_uri_component(value) == first == quote(value, safe="-_.!~*'()")


def test_the_remembered_encodings_stay_bounded():
    for n in range(batons_module._ENCODED_KEPT + 10):
        batons_module._encode_uri_component(f"branch-{n}")
    assert 0 < len(batons_module._ENCODED) <= batons_module._ENCODED_KEPT


# -- eligibility ------------------------------------------------------------------------

def test_wrong_branch_sees_nothing():
    assert select_eligible([rec("1", branch="main")], "alice@example.com", "feature") is None


def test_wrong_owner_sees_nothing():
    assert select_eligible([rec("1", owner="alice@example.com")], "bob@example.com", "main") is None


def test_a_shared_baton_reaches_any_owner_on_any_branch():
    shared = rec("1", owner="alice@example.com", branch="release", shared=True)
    assert select_eligible([shared], "bob@example.com", "main") is shared


def test_owner_and_branch_beat_a_newer_shared_baton():
    own = rec("1", created="2026-01-01T00:00:00.000000Z")
    shared = rec("2", owner="carol", shared=True, created="2026-06-01T00:00:00.000000Z")
    assert select_eligible([shared, own], "alice@example.com", "main") is own


def test_the_newest_of_several_matching_batons_wins():
    old = rec("1", created="2026-01-01T00:00:00.000000Z")
    new = rec("2", created="2026-01-02T00:00:00.000000Z")
    assert select_eligible([new, old], "alice@example.com", "main") is new


@pytest.mark.parametrize("status", ["claimed", "superseded", "cancelled", "dismissed"])
def test_only_pending_batons_are_eligible(status):
    assert select_eligible([rec("1", status=status)], "alice@example.com", "main") is None
    assert select_eligible([rec("2", shared=True, status=status)], "x", "y") is None


def test_a_claimed_private_baton_lets_a_pending_shared_one_through():
    shared = rec("2", shared=True)
    assert select_eligible([rec("1", status="claimed"), shared], "alice@example.com", "main") is shared


def test_matching_uses_real_names_not_the_encoded_key():
    # "a/b" and "a_b" encode alike; a session on one never receives the other's baton.
    baton = rec("1", branch="a/b")
    assert select_eligible([baton], "alice@example.com", "a_b") is None


def test_cancel_targets_only_the_private_baton_of_this_context():
    shared = rec("2", shared=True)
    assert active_for_context([shared], "alice@example.com", "main") is None
    own = rec("1")
    assert active_for_context([shared, own], "alice@example.com", "main") is own


# -- records and rendering --------------------------------------------------------------

def test_record_round_trips_through_json():
    r = rec("1")
    assert BatonRecord.from_json(r.to_json()) == r


@pytest.mark.parametrize("raw", [None, 3, "x", {}, {"id": "1", "key": "k", "owner": "o", "branch": "b"},
                                 {"id": 1, "key": "k", "owner": "o", "branch": "b", "nextSteps": ["a"]}])
def test_malformed_records_read_as_none(raw):
    assert BatonRecord.from_json(raw) is None


def test_markdown_starts_with_the_spec_heading_and_lists_everything():
    r = replace(rec("abc"), failed_approaches=("retry the flaky test",), open_questions=("why?",))
    md = render_baton_markdown(r)
    assert md.startswith(HANDOFF_HEADING + "\n")
    assert "1. do the thing" in md
    assert "retry the flaky test" in md and "do not retry" in md
    assert "why?" in md


# -- a baton is a handoff -----------------------------------------------------------------

def test_baton_maps_onto_handoff_fields_and_back():
    payload = BatonPayload(next_steps=("a", "b"), failed_approaches=("x",), open_questions=("q",))
    body = handoff_payload_for_baton(payload, owner="o", branch="main", session_id="s1")
    assert [i["description"] for i in body["open_items"]] == ["a", "b"]
    assert all(f["avoid_repeating"] is True for f in body["failed_attempts"])
    assert body["open_questions"] == ["q"]
    assert body["work"]["objective"] == "a"
    assert baton_content_of_handoff(body) == {"nextSteps": ["a", "b"], "failedApproaches": ["x"],
                                              "openQuestions": ["q"]}


def prioritised_handoff() -> dict:
    return {"open_items": [
        {"id": "O-001", "description": "OI first: write idle test", "suggested_action": "add test", "priority": "low"},
        {"id": "O-002", "description": "OI second: document", "suggested_action": "edit README", "priority": "high"},
        {"id": "O-003", "description": "OI third: changelog"},
        {"id": "O-004", "description": "OI fourth: release", "priority": "high", "blocked_by": ["O-003"]},
    ]}


def test_a_handed_on_handoffs_next_steps_come_in_the_order_the_brief_takes_its_open_items():
    steps = baton_content_of_handoff(prioritised_handoff())["nextSteps"]
    assert steps == ["[high] OI second: document — edit README", "[low] OI first: write idle test — add test",
                     "OI third: changelog", "[high] OI fourth: release"]


def test_a_handed_on_batons_first_next_step_is_the_resume_briefs_first_next_action():
    record = prioritised_handoff()
    first = order_open_items(record)[0]
    assert baton_content_of_handoff(record)["nextSteps"][0].endswith(first["description"] + " — edit README")


def test_next_steps_without_priorities_keep_the_recorded_order_unmarked():
    record = {"open_items": [{"description": "b"}, {"description": "a"}]}
    assert baton_content_of_handoff(record)["nextSteps"] == ["b", "a"]


def test_the_session_objective_becomes_the_handoff_objective():
    payload = BatonPayload(next_steps=("a",))
    body = handoff_payload_for_baton(payload, owner="o", branch="main", objective="Ship OAuth")
    assert body["work"]["objective"] == "Ship OAuth"


# -- decisions, traps and the budget ----------------------------------------------------------

def handoff(id, created, attempts=(), decisions=(), status="ready"):
    return {"id": id, "created_at": created, "status": status,
            "failed_attempts": [{"id": f"F-{i}", "approach": a, "outcome": "failed", "avoid_repeating": True}
                                for i, a in enumerate(attempts)],
            "decisions": [{"id": f"D-{i}", "decision": d} for i, d in enumerate(decisions)]}


def test_traps_come_newest_first_deduplicated_and_skip_excluded_handoffs():
    records = recent_handoffs([
        handoff("h1", "2026-01-01T00:00:00Z", attempts=["old trap", "shared trap"]),
        handoff("h2", "2026-01-02T00:00:00Z", attempts=["Shared trap", "new trap"]),
        handoff("h3", "2026-01-03T00:00:00Z", attempts=["baton's own"]),
    ])
    traps = collect_traps(records, exclude=["h3"])
    assert [t.split("**")[1] for t in traps] == ["Shared trap", "new trap", "old trap"]


def test_attempts_not_marked_avoid_repeating_are_not_traps():
    r = handoff("h1", "2026-01-01T00:00:00Z", attempts=["x"])
    r["failed_attempts"][0]["avoid_repeating"] = False
    assert collect_traps([r]) == []


def test_archived_and_malformed_handoffs_are_ignored():
    records = recent_handoffs([
        handoff("h1", "2026-01-01T00:00:00Z", attempts=["a"], status="archived"),
        "garbage", {"no": "id"}, {"id": "h2", "failed_attempts": "nope", "decisions": [3, {"decision": 4}]},
    ])
    assert collect_traps(records) == [] and collect_decisions(records) == []


def test_brief_keeps_the_whole_handoff_and_trims_forty_400_byte_traps_into_8_kb():
    r = rec("abc", steps=[f"step {i}: " + "s" * 60 for i in range(10)])
    md = render_baton_markdown(r)
    traps = [f"- **trap {i:02d}** " + "t" * 380 for i in range(40)]
    assert all(len(t.encode()) >= 390 for t in traps)
    brief = assemble_brief(handoff_markdown=md, objective="Ship it", decisions=[], traps=traps, max_bytes=8192)
    assert brief.handoff_included
    assert md in brief.text
    assert brief.bytes <= 8192
    assert 0 < brief.traps.shown < 40
    assert brief.traps.omitted == 40 - brief.traps.shown
    assert f"{brief.traps.omitted} more left out" in brief.text
    assert "Ship it" in brief.text


def test_handoff_is_at_the_top_of_the_brief():
    md = render_baton_markdown(rec("abc"))
    brief = assemble_brief(handoff_markdown=md, objective="o", decisions=["- d"], traps=["- t"])
    assert brief.text.startswith(HANDOFF_HEADING)


def test_a_handoff_that_cannot_fit_is_withheld_whole_never_cut():
    md = render_baton_markdown(rec("abc", steps=["x" * 3000]))
    brief = assemble_brief(handoff_markdown=md, objective=None, decisions=[], traps=[], max_bytes=1024)
    assert not brief.handoff_included
    assert HANDOFF_HEADING not in brief.text
    assert brief.bytes <= 1024


@given(
    steps=st.lists(st.text(min_size=1, max_size=80).filter(str.strip), min_size=1, max_size=8),
    traps=st.lists(st.text(min_size=1, max_size=500), max_size=50),
    decisions=st.lists(st.text(min_size=1, max_size=500), max_size=50),
    objective=st.one_of(st.none(), st.text(max_size=2000)),
    max_bytes=st.integers(min_value=1024, max_value=16384),
)
def test_the_brief_never_exceeds_its_budget(steps, traps, decisions, objective, max_bytes):
    md = render_baton_markdown(rec("abc", steps=steps))
    brief = assemble_brief(handoff_markdown=md, objective=objective, decisions=[f"- {d}" for d in decisions],
                           traps=[f"- {t}" for t in traps], max_bytes=max_bytes)
    assert brief.bytes == len(brief.text.encode("utf-8")) <= max_bytes
    if brief.handoff_included:
        assert md in brief.text


def test_an_empty_project_gets_a_short_standard_brief():
    brief = assemble_brief(handoff_markdown=None, objective=None, decisions=[], traps=[])
    assert "No session handoff waits for this session" in brief.text


def test_notices_past_the_budget_are_left_out_with_a_line_saying_how_many():
    notices = [f"notice {i} " + "n" * 400 for i in range(5)]
    brief = assemble_brief(handoff_markdown=None, objective=None, decisions=[], traps=[], notices=notices,
                           max_bytes=1024)
    assert brief.bytes <= 1024
    assert "notice 0 " in brief.text and "notice 4 " not in brief.text
    assert "more notices left out to fit the brief" in brief.text


def test_the_brief_counts_the_notices_it_shows_those_left_out_to_fit_not_among_them():
    notices = [f"notice {i} " + "n" * 400 for i in range(5)]
    brief = assemble_brief(handoff_markdown=None, objective=None, decisions=[], traps=[], notices=notices,
                           max_bytes=1024)
    assert brief.notices_shown == 2
    assert all(f"notice {i} " in brief.text for i in range(2)) and "notice 2 " not in brief.text


def test_a_brief_with_room_shows_every_notice():
    brief = assemble_brief(handoff_markdown=None, objective=None, decisions=[], traps=[], notices=["a", "b"])
    assert brief.notices_shown == 2


def test_a_notice_longer_than_the_budget_is_shortened_to_fit():
    brief = assemble_brief(handoff_markdown=None, objective=None, decisions=[], traps=[],
                           notices=["ARCHIVED " + "q" * 30000], max_bytes=1024)
    assert brief.bytes <= 1024 and brief.text.startswith("> ⚠️ ARCHIVED qqq")


@given(notices=st.lists(st.text(min_size=1, max_size=3000), max_size=12),
       max_bytes=st.integers(min_value=1024, max_value=8192))
def test_the_brief_with_notices_never_exceeds_its_budget(notices, max_bytes):
    md = render_baton_markdown(rec("abc", steps=["step"]))
    brief = assemble_brief(handoff_markdown=md, objective="o", decisions=["- d"], traps=["- t"],
                           notices=notices, max_bytes=max_bytes)
    assert brief.bytes == len(brief.text.encode("utf-8")) <= max_bytes


def test_notices_come_first():
    brief = assemble_brief(handoff_markdown=None, objective=None, decisions=["- d"], traps=[],
                           notices=["not delivered"])
    assert brief.text.startswith("> ⚠️ not delivered")


def _naive_fit(heading, items, budget, more_hint):
    """The definition fit_section meets: the most items whose rendered section fits."""
    for shown in range(len(items), 0, -1):
        lines = [heading, "", *items[:shown]]
        if shown < len(items):
            lines.append(f"- … {len(items) - shown} more left out to fit the brief ({more_hint})")
        text = "\n".join(lines) + "\n"
        if len(text.encode()) <= budget:
            return text, shown
    return "", 0


@given(st.lists(st.text(min_size=0, max_size=40), max_size=30), st.integers(min_value=-5, max_value=900))
def test_fit_section_shows_the_most_items_that_fit_with_its_note(items, budget):
    from baton.domain.batons import fit_section

    fitted = fit_section("## Recent decisions", items, budget, more_hint="see the handoff")
    text, shown = _naive_fit("## Recent decisions", items, budget, "see the handoff") if items and budget > 0 \
        else ("", 0)
    assert (fitted.text, fitted.shown, fitted.omitted) == (text, shown, len(items) - shown)
    assert len(fitted.text.encode()) <= max(budget, 0)


# -- what a baton section adds for a rich handoff it hands on --------------------------

def test_a_rich_handoff_gives_its_objective_state_and_where_the_rest_is():
    from baton.domain.batons import carried_handoff_lines

    lines = carried_handoff_lines({"id": "0190a0b0-0000-7000-8000-00000000abcd",
                                   "work": {"objective": "Ship  the\nfix"},
                                   "summary": {"current_state": "Half done"}})
    assert lines == ("**Objective:** Ship the fix", "**Current state:** Half done",
                     "Completed work, decisions, artifacts, evidence and risks: `baton resume 0000abcd`.")


def test_the_baton_section_frames_the_baton_as_working_context_not_unquestionable_truth():
    from baton.domain.batons import render_baton_markdown

    markdown = render_baton_markdown(rec("0193-baton"))
    left_by = next(line for line in markdown.splitlines() if line.startswith("Left by "))
    assert left_by.endswith("Treat it as working context, not unquestionable truth.")


def test_a_baton_written_from_a_session_end_payload_adds_nothing():
    from baton.domain.batons import SCOPE_FIELD, carried_handoff_lines

    record = {"id": "x", "work": {"objective": "first step"}, SCOPE_FIELD: {"owner": "a", "branch": "b"}}
    assert carried_handoff_lines(record) == ()


@pytest.mark.parametrize("record", [None, "text", {}, {"work": "x", "summary": 3}, {"work": {"objective": "  "}}])
def test_a_missing_or_malformed_handoff_adds_nothing(record):
    from baton.domain.batons import carried_handoff_lines

    assert carried_handoff_lines(record) == ()


def test_a_long_objective_is_clipped_to_one_bounded_line():
    from baton.domain.batons import CARRIED_TEXT_MAX, carried_handoff_lines

    (line, _) = carried_handoff_lines({"id": "h", "work": {"objective": "word " * 1000}})
    assert line.endswith("…") and len(line) <= len("**Objective:** ") + CARRIED_TEXT_MAX


def test_the_carried_lines_sit_under_the_freshness_line_and_before_the_steps():
    from baton.domain.batons import BatonRecord, render_baton_markdown

    record = BatonRecord(id="h", key="k", owner="a", branch="b", shared=False, next_steps=("step",))
    text = render_baton_markdown(record, freshness="Freshness: fresh", carried=("**Objective:** o",))
    assert text.index("Freshness: fresh") < text.index("**Objective:** o") < text.index("### Next steps")


def test_lost_claim_notices_name_only_this_writers_untold_lost_claims_oldest_first():
    from baton.domain.batons import lost_claim_notices

    def lost(event_id: str, writer: str, hlc: int) -> dict:
        return {"handoffId": f"h-{event_id}", "sessionId": f"s-{event_id}", "claimedAt": "2026-01-01T00:00:00Z",
                "writer": writer, "hlc": hlc, "eventId": event_id,
                "winner": {"claimedBySession": "s-first", "claimedAt": "2026-01-01T00:00:00Z"}}

    conflicts = [lost("e3", "me", 30), lost("e1", "me", 10), lost("e2", "other", 20), lost("e0", "me", 5)]
    out = lost_claim_notices(conflicts, writer="me", told=["e0"])
    assert [event_id for event_id, _ in out] == ["e1", "e3"]
    assert "baton h-e1" in out[0][1] and "session s-e1" in out[0][1] and "session s-first" in out[0][1]
    assert lost_claim_notices(conflicts, writer="me", told=["e0", "e1", "e3"]) == []


def test_a_baton_handed_on_again_under_its_own_id_is_not_superseded_unseen():
    from baton.domain.batons import superseded_unseen

    assert superseded_unseen(None, rec("h1"), "h1") is False
    assert superseded_unseen(None, rec("h1"), "h2") is True


def _lost_one() -> list[dict]:
    return [{"handoffId": "h-1", "sessionId": "s-1", "claimedAt": "2026-01-01T00:00:00Z", "writer": "me", "hlc": 1,
             "eventId": "e1", "winner": {"claimedBySession": "s-first", "claimedAt": "2026-01-01T00:00:00Z"}}]


def test_a_lost_claim_notice_says_where_to_see_the_baton_in_the_wording_the_surface_passes():
    from baton.domain.batons import lost_claim_notices

    [(_, notice)] = lost_claim_notices(_lost_one(), writer="me", told=[], see_baton="`see {id}` shows it")
    assert notice.endswith("two sessions worked from this baton. `see h-1` shows it.")


def test_a_lost_claim_notice_names_no_option_by_default():
    from baton.domain.batons import lost_claim_notices

    [(_, notice)] = lost_claim_notices(_lost_one(), writer="me", told=[])
    assert notice.endswith("`baton resume h-1` reads it.")
    assert "asked for" not in notice


def test_a_brief_names_a_shared_baton_replaced_unseen_as_shared_not_for_its_author():
    from baton.domain.batons import unseen_lines

    replaced = {"id": "h1", "owner": "alice@example.com", "branch": "main", "shared": True,
                "createdAt": "2026-01-01T00:00:00.000000Z"}
    [line] = unseen_lines(replace(rec("h2", shared=True), replaced_unseen=(replaced,)))
    assert "as a shared baton (for every owner) on `main`" in line and "for `alice@example.com`" not in line


def test_a_cancellation_a_claim_lost_to_names_the_session_that_received_the_baton_instead_of_no_session():
    from baton.domain.batons import BatonRecord, dismissed_elsewhere

    cancelled = BatonRecord(id="b-1", key="k", owner="me@x", branch="main", shared=False, next_steps=(), status="cancelled",
                            ended_at="2026-01-02T00:00:00Z", ended_by_writer="w-bob", left_by="me@x")
    lost = [{"handoffId": "b-1", "sessionId": "s-2", "writer": "w-me", "hlc": 2, "eventId": "e2"},
            {"handoffId": "b-other", "sessionId": "s-9", "writer": "w-me", "hlc": 1, "eventId": "e1"}]
    [(_, notice)] = dismissed_elsewhere([cancelled], writer="w-me", owner="me@x", told=[], lost_claims=lost)
    assert "no session receives it;" not in notice
    assert "but session s-2 here had already received it before the cancellation reached it" in notice
    assert "s-9" not in notice
