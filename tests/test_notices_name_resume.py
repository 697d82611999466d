"""A notice that sends a session to a handoff it may continue names ``baton resume ID`` (the brief,
with live freshness); ``baton handoff show ID`` (the full record) is named where the record is the
point: the budget left something out, the work is archived or taken up by another session, or the
baton is the next session's (tester-use22 T8; docs/batons.md "Where a notice sends you")."""

from __future__ import annotations

from baton.domain.batons import (
    BatonRecord,
    baton_key,
    carried_handoff_lines,
    dismissed_elsewhere,
    left_at_this_tip_notice,
    lost_claim_notices,
    replaced_unread_notice,
    taken_up_notice,
    unread_line,
)
from baton.domain.claimed_elsewhere import ClaimedElsewhere
from baton.domain.repeated_start import continued_notice, repeated_start_notice

ALICE = "alice@example.com"


def rec(id: str, **kw) -> BatonRecord:
    fields = {"owner": ALICE, "branch": "main", "shared": False, "next_steps": ("wire the retry queue",),
              "created_at": "2026-01-01T00:00:00.000000Z"} | kw
    return BatonRecord(id=id, key=baton_key(fields["owner"], fields["branch"], fields["shared"]), **fields)


UNREAD = {"id": "b-old", "sessionId": "t1", "createdAt": "2026-01-01T00:00:00Z", "unread": True,
          "firstStep": "parse the dates"}


def test_the_line_naming_an_unread_replaced_baton_names_resume_first():
    line = unread_line(UNREAD)
    assert line.index("`baton resume b-old`") < line.index("`baton handoff show b-old`")


def test_leaving_a_baton_over_an_unread_one_names_resume_to_read_it():
    assert replaced_unread_notice(UNREAD).endswith("`baton resume b-old` reads it.")


def test_a_lost_claim_names_resume_to_read_the_baton():
    conflicts = [{"eventId": "e-1", "writer": "me", "handoffId": "h-1", "sessionId": "s-1",
                  "claimedAt": "2026-01-01T00:00:00Z", "winner": {"claimedBySession": "s-first"}}]
    [(_, notice)] = lost_claim_notices(conflicts, writer="me", told=[])
    assert notice.endswith("`baton resume h-1` reads it.") and "handoff show" not in notice


def test_a_baton_dismissed_by_a_teammate_names_resume_to_read_it():
    dismissed = rec("b-1", status="dismissed", ended_at="2026-01-02T00:00:00Z", ended_by_writer="w-bob",
                    left_by=ALICE)
    [(_, notice)] = dismissed_elsewhere([dismissed], writer="w-me", owner=ALICE, told=[])
    assert notice.endswith("`baton resume b-1` reads it.")


def test_a_baton_waiting_on_a_detached_head_at_this_tip_names_resume_to_read_it():
    notice = left_at_this_tip_notice(rec("b-1", branch="(detached)"), "main", "a" * 40)
    assert notice.endswith("`baton resume b-1` reads it.")


def test_a_baton_another_session_claimed_is_read_with_resume():
    fact = ClaimedElsewhere(handoff_id="b-1", owner=ALICE, branch="main", claimed_by_session="s-2",
                            claimed_at=None, left_by_session=None, created_at="2026-01-01T00:00:00Z")
    assert fact.read_command == "baton resume b-1"


def test_a_repeated_start_names_resume_to_read_the_baton_it_received():
    notice = repeated_start_notice("s-1", {"beganAt": "2026-01-01T00:00:00Z", "receivedBaton": "b-1"})
    assert "`baton resume b-1` reads it" in notice and "handoff show" not in notice


def test_a_continued_conversation_names_resume_for_the_rest_of_the_baton_it_received():
    told = continued_notice({"beganAt": "2026-01-01T00:00:00Z", "receivedBaton": "b-1"}, rec("b-1"), None)
    assert told is not None and "`baton resume b-1` reads the rest of it" in told


def test_a_continued_conversation_whose_baton_is_gone_from_the_index_names_resume():
    told = continued_notice({"beganAt": "2026-01-01T00:00:00Z", "receivedBaton": "b-1"}, None, None)
    assert told is not None and "`baton resume b-1` reads it." in told


def test_a_continued_conversation_names_resume_for_the_baton_it_left_before():
    newer = rec("b-2", session_id="s-1", created_at="2026-01-02T00:00:00.000000Z")
    told = continued_notice({"beganAt": "2026-01-01T00:00:00Z"}, None, newer, session_id="s-1")
    assert told is not None and "`baton resume b-2` reads it" in told


def test_a_newer_baton_for_the_next_session_is_named_by_its_record_not_to_be_continued_here():
    newer = rec("b-2", session_id="s-other", created_at="2026-01-02T00:00:00.000000Z")
    told = continued_notice({"beganAt": "2026-01-01T00:00:00Z"}, None, newer, session_id="s-1")
    assert told is not None and "`baton handoff show b-2` reads it" in told and "baton resume" not in told


def test_a_baton_taken_up_elsewhere_is_named_by_its_record_not_to_be_continued_again():
    taken = rec("b-1", status="dismissed", ended_via="resumed", ended_by_session="s-9")
    notice = taken_up_notice(taken)
    assert notice.endswith("`baton handoff show b-1` reads it.") and "baton resume" not in notice


def test_an_archived_handed_on_handoff_is_named_by_its_record():
    lines = carried_handoff_lines({"id": "h1", "status": "archived", "work": {"objective": "ship it"}})
    assert "`baton handoff show h1`" in lines[-1] and "baton resume" not in lines[-1]
