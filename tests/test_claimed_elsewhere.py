"""A session start that receives no baton because another session claimed it is told so.

Claiming stays single-use: a second ``--fork-session`` of one conversation (or
any other session on the same owner and branch) receives no baton, and its
brief says which session claimed the newest one, when, and how to read it,
instead of "no active session handoff yet". The rule is
``baton.domain.claimed_elsewhere``; here as a table, then through the command
line and a harness's start hook.
"""

from __future__ import annotations

import json

import pytest

from baton.domain.batons import baton_key
from baton.domain.claimed_elsewhere import WINDOW_HOURS, beside_left, claimed_elsewhere, claimed_elsewhere_notice
from baton.values import replace
from tests.cli_support import run, run_json
from tests.harness_support import fixture, hook, injected
from tests.test_batons_domain import rec

CLAIMED_AT = "2026-09-02T14:30:00.000000Z"
SOON = "2026-09-02T16:30:00.000000Z"
LATE = "2026-09-03T14:30:00.000001Z"  # one microsecond past the window


def claimed(by="fork-1", at=CLAIMED_AT, **fields):
    return replace(rec("0193-baton", status="claimed", **fields), claimed_by_session=by, claimed_at=at,
                  session_id="s-left")


def told(record, *, owner="alice@example.com", branch="main", session_id="fork-2", now=SOON, claimer_ended=False,
         continues=False):
    return claimed_elsewhere(record, owner=owner, branch=branch, session_id=session_id, now=now,
                             claimer_ended=claimer_ended, continues=continues)


# -- the rule --------------------------------------------------------------------------------------

def test_a_baton_another_session_claimed_within_the_window_is_told_with_who_when_and_how_to_read_it():
    fact = told(claimed())
    assert fact is not None
    assert (fact.handoff_id, fact.claimed_by_session, fact.claimed_at, fact.left_by_session) == \
        ("0193-baton", "fork-1", CLAIMED_AT, "s-left")
    assert fact.to_json()["readCommand"] == "baton resume 0193-baton"


def test_the_sessions_own_claim_is_not_told():
    assert told(claimed(by="fork-2"), session_id="fork-2") is None


def test_a_start_that_names_no_session_is_told_of_any_claim():
    assert told(claimed(), session_id=None) is not None


def test_a_claim_at_the_end_of_the_window_is_told_and_one_past_it_is_not():
    assert WINDOW_HOURS == 24
    assert told(claimed(), now="2026-09-03T14:30:00.000000Z") is not None
    assert told(claimed(), now=LATE) is None


def test_a_claim_stamped_after_this_starts_clock_is_told():
    assert told(claimed(at="2026-09-02T17:00:00.000000Z")) is not None


@pytest.mark.parametrize("status", ["pending", "cancelled", "dismissed", "superseded"])
def test_a_baton_that_is_not_claimed_is_not_told(status):
    assert told(replace(claimed(), status=status)) is None


def test_no_baton_on_the_key_is_not_told():
    assert told(None) is None


def test_a_baton_of_a_name_that_shares_the_key_is_not_told():
    other = claimed(branch="feature_x")
    assert other.key == baton_key("alice@example.com", "feature/x", False)
    assert told(other, branch="feature/x") is None
    assert told(claimed(owner="bob@example.com"), owner="alice@example.com") is None


def test_a_shared_baton_is_not_told():
    assert told(claimed(shared=True)) is None


def test_a_claim_by_a_session_that_has_ended_is_not_told_to_a_fresh_start():
    assert told(claimed(), claimer_ended=True) is None


def test_a_claim_by_a_session_that_has_ended_is_told_to_a_start_that_continues_a_conversation():
    assert told(claimed(), claimer_ended=True, continues=True) is not None


def test_a_claim_time_that_cannot_be_read_is_not_told():
    assert told(claimed(at=None)) is None
    assert told(claimed(at="yesterday")) is None


def test_the_notice_is_one_line_naming_the_claimer_the_time_and_the_command():
    notice = claimed_elsewhere_notice(told(claimed()))
    assert "\n" not in notice
    assert "claimed by session fork-1 at 2026-09-02T14:30:00.000000Z" in notice
    assert notice.endswith("read it with `baton resume 0193-baton`.")


# -- the command line ------------------------------------------------------------------------------

def _left(capsys, project) -> str:
    return run_json(capsys, project, "session", "end", "s-left", "--handoff-steps", "Wire the parser,Run the suite",
                    "--owner", "alice@example.com", "--branch", "main")["handoffId"]


WHO = ("--owner", "alice@example.com", "--branch", "main")


def _claims(capsys, project) -> list[tuple[str, str]]:
    code, out, err = run(capsys, project, "log", "--type", "baton.claimed", "--json")
    assert code == 0, err
    return [(e["data"]["handoff_id"], e["data"]["session"]) for e in map(json.loads, out.splitlines()) if e]


def test_a_second_bootstrap_is_told_which_session_claimed_the_baton_and_claims_nothing(project, capsys):
    baton_id = _left(capsys, project)
    first = run_json(capsys, project, "bootstrap", "--session-id", "fork-1", *WHO)
    second = run_json(capsys, project, "bootstrap", "--session-id", "fork-2", *WHO)

    assert first["claimed"] is True and first["claimedElsewhere"] is None
    assert second["claimed"] is False and second["handoff"] is None
    fact = second["claimedElsewhere"]
    assert (fact["handoffId"], fact["claimedBySession"], fact["owner"], fact["branch"]) == \
        (baton_id, "fork-1", "alice@example.com", "main")
    assert fact["claimedAt"] == first["handoff"]["claimedAt"]
    assert fact["readCommand"] == f"baton resume {baton_id}"
    assert f"claimed by session fork-1 at {fact['claimedAt']}" in second["brief"]
    assert f"`baton resume {baton_id}`" in second["brief"]
    assert "No session handoff waits" not in second["brief"]
    assert _claims(capsys, project) == [(baton_id, "fork-1")]


def test_the_command_the_notice_names_shows_the_batons_next_steps(project, capsys):
    _left(capsys, project)
    run_json(capsys, project, "bootstrap", "--session-id", "fork-1", *WHO)
    command = run_json(capsys, project, "bootstrap", "--session-id", "fork-2", *WHO)["claimedElsewhere"]["readCommand"]
    code, out, err = run(capsys, project, *command.split()[1:])
    assert code == 0, err
    assert "Wire the parser" in out and "Run the suite" in out


def test_the_claiming_session_and_another_branch_are_not_told(project, capsys):
    _left(capsys, project)
    run_json(capsys, project, "bootstrap", "--session-id", "fork-1", *WHO)
    assert run_json(capsys, project, "bootstrap", "--session-id", "fork-1", *WHO)["claimedElsewhere"] is None
    elsewhere = run_json(capsys, project, "bootstrap", "--session-id", "other", "--owner", "alice@example.com",
                         "--branch", "feature")
    assert elsewhere["claimedElsewhere"] is None and "claimed by session" not in elsewhere["brief"]


def test_a_newer_baton_is_delivered_instead_of_the_notice(project, capsys):
    _left(capsys, project)
    run_json(capsys, project, "bootstrap", "--session-id", "fork-1", *WHO)
    newer = run_json(capsys, project, "session", "end", "fork-1", "--handoff-steps", "Ship it", *WHO)["handoffId"]
    second = run_json(capsys, project, "bootstrap", "--session-id", "fork-2", *WHO)
    assert second["claimed"] is True and second["handoff"]["id"] == newer
    assert second["claimedElsewhere"] is None and "claimed by session" not in second["brief"]


def test_a_peek_is_told_too(project, capsys):
    baton_id = _left(capsys, project)
    run_json(capsys, project, "bootstrap", "--session-id", "fork-1", *WHO)
    peeked = run_json(capsys, project, "bootstrap", "--peek", *WHO)
    assert peeked["claimedElsewhere"]["handoffId"] == baton_id


def test_session_begin_says_which_session_claimed_the_baton(project, capsys):
    baton_id = _left(capsys, project)
    run_json(capsys, project, "session", "begin", "--session-id", "fork-1", *WHO)
    code, out, err = run(capsys, project, "session", "begin", "--session-id", "fork-2", *WHO)
    assert code == 0, err
    assert "No session handoff was waiting." in out
    assert f"(baton {baton_id}) was already claimed by session fork-1 at " in out
    as_json = run_json(capsys, project, "session", "begin", "--session-id", "fork-3", *WHO)
    assert as_json["handoff"] is None and as_json["claimedElsewhere"]["claimedBySession"] == "fork-1"
    assert _claims(capsys, project) == [(baton_id, "fork-1")]


# -- a harness's start hook ------------------------------------------------------------------------

def test_a_second_forked_claude_code_session_is_told_who_claimed_the_baton(project, capsys):
    baton_id = run_json(capsys, project, "session", "end", "s-left", "--handoff-steps", "Wire the parser")["handoffId"]

    first = hook(project, "claude-code", "SessionStart",
                 fixture("claude-code", "SessionStart.fork", project, session_id="fork-1"))
    second = hook(project, "claude-code", "SessionStart",
                  fixture("claude-code", "SessionStart.fork", project, session_id="fork-2"))

    assert f"(baton `{baton_id}`)" in injected("claude-code", first.answer)
    context = injected("claude-code", second.answer)
    assert "Active Session Handoff" not in context and "No session handoff waits" not in context
    assert f"(baton {baton_id}) was already claimed by session fork-1 at " in context
    assert f"`baton resume {baton_id}`" in context
    assert second.result.to_json()["claimedElsewhere"]["claimedBySession"] == "fork-1"
    assert _claims(capsys, project) == [(baton_id, "fork-1")]


def test_an_ordinary_relay_is_quiet_the_session_after_the_claimer_ended(project, capsys):
    """A leaves a baton, B claims it and ends, C starts fresh: C is no sibling of B, and gets no
    "already claimed" warning (the "Latest ready handoff" pointer is its way to the record)."""
    run_json(capsys, project, "session", "end", "s-left", "--handoff-steps", "Wire the parser")
    hook(project, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.startup", project, session_id="s-b"))
    hook(project, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", project, session_id="s-b"))

    after = hook(project, "codex", "SessionStart", fixture("codex", "SessionStart.startup", project, session_id="s-c"))

    assert "already claimed" not in injected("codex", after.answer)
    assert after.result.to_json()["claimedElsewhere"] is None


def test_a_second_fork_started_after_the_first_fork_ended_is_still_told(project, capsys):
    """Headless forks run one after the other: the first fork's end does not hide its claim from the
    second fork, which goes on from the same conversation (source ``fork``)."""
    baton_id = run_json(capsys, project, "session", "end", "s-left", "--handoff-steps", "Wire the parser")["handoffId"]
    hook(project, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.fork", project, session_id="fork-1"))
    hook(project, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", project, session_id="fork-1"))

    second = hook(project, "claude-code", "SessionStart",
                  fixture("claude-code", "SessionStart.fork", project, session_id="fork-2"))

    assert f"(baton {baton_id}) was already claimed by session fork-1 at " in injected("claude-code", second.answer)


def test_bootstrap_after_the_claiming_session_ended_is_not_told(project, capsys):
    _left(capsys, project)
    run_json(capsys, project, "bootstrap", "--session-id", "s-b", *WHO)
    run_json(capsys, project, "session", "end", "s-b", *WHO)

    assert run_json(capsys, project, "bootstrap", "--session-id", "s-c", *WHO)["claimedElsewhere"] is None


# -- a start that loses the claim at the same instant ----------------------------------------------

def _losing_the_race(monkeypatch, project, capsys, claim_first):
    """A start that peeked the baton, and whose claim is refused because ``claim_first`` (another
    session's start) claimed it while this one was building its brief."""
    import baton.commands.bootstrap as bootstrap_module

    real_render = bootstrap_module.render_baton_markdown
    raced: dict = {}

    def render_while_the_sibling_claims(record, **kwargs):
        if not raced:
            raced["started"] = True
            raced["first"] = claim_first()
        return real_render(record, **kwargs)

    monkeypatch.setattr(bootstrap_module, "render_baton_markdown", render_while_the_sibling_claims)
    return raced


def test_a_bootstrap_that_loses_the_claim_at_the_same_instant_is_told_as_a_later_start_is(
        project, capsys, monkeypatch):
    baton_id = _left(capsys, project)
    raced = _losing_the_race(monkeypatch, project, capsys,
                             lambda: run_json(capsys, project, "bootstrap", "--session-id", "fork-1", *WHO))
    loser = run_json(capsys, project, "bootstrap", "--session-id", "fork-2", *WHO)
    assert raced["first"]["claimed"] is True
    monkeypatch.undo()
    later = run_json(capsys, project, "bootstrap", "--session-id", "fork-3", *WHO)

    assert loser["claimed"] is False and loser["handoff"] is None
    assert loser["claimedElsewhere"] is not None and loser["claimedElsewhere"] == later["claimedElsewhere"]
    assert loser["claimedElsewhere"]["claimedBySession"] == "fork-1"
    assert loser["notices"] == later["notices"]
    assert f"`baton resume {baton_id}`" in loser["brief"]
    assert "was not delivered" not in loser["brief"]
    assert _claims(capsys, project) == [(baton_id, "fork-1")]


def test_a_harness_start_that_loses_the_claim_at_the_same_instant_is_told_who_claimed_the_baton(
        project, capsys, monkeypatch):
    baton_id = run_json(capsys, project, "session", "end", "s-left", "--handoff-steps", "Wire the parser")["handoffId"]
    _losing_the_race(monkeypatch, project, capsys, lambda: hook(
        project, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.fork", project,
                                                        session_id="fork-1")))
    loser = hook(project, "claude-code", "SessionStart",
                 fixture("claude-code", "SessionStart.fork", project, session_id="fork-2"))
    context = injected("claude-code", loser.answer)
    assert f"(baton {baton_id}) was already claimed by session fork-1 at " in context
    assert f"`baton resume {baton_id}`" in context and "was not delivered" not in context
    assert loser.result.to_json()["claimedElsewhere"]["claimedBySession"] == "fork-1"
    assert _claims(capsys, project) == [(baton_id, "fork-1")]


# -- ``session handoff``: the baton here, seen by a sibling that did not receive it ------------------

def test_session_handoff_says_which_session_took_the_baton_a_sibling_did_not_receive(project, capsys):
    baton_id = _left(capsys, project)
    run_json(capsys, project, "session", "begin", "--session-id", "fork-1", *WHO)  # the sibling claims it
    run_json(capsys, project, "session", "begin", "--session-id", "fork-2", *WHO)  # this one receives none

    code, out, err = run(capsys, project, "session", "handoff", *WHO)
    assert code == 0, err
    first, notice = out.rstrip("\n").split("\n")
    assert first == "No active session handoff for alice@example.com on main."
    assert f"(baton {baton_id}) was already claimed by session fork-1 at " in notice
    assert notice.endswith(f"read it with `baton resume {baton_id}`.")
    as_json = run_json(capsys, project, "session", "handoff", *WHO)
    assert as_json["handoff"] is None
    assert (as_json["claimedElsewhere"]["handoffId"], as_json["claimedElsewhere"]["claimedBySession"]) == \
        (baton_id, "fork-1")


def test_session_handoff_with_a_baton_waiting_or_none_ever_left_tells_no_claim(project, capsys):
    assert run_json(capsys, project, "session", "handoff", *WHO)["claimedElsewhere"] is None
    _left(capsys, project)
    waiting = run_json(capsys, project, "session", "handoff", *WHO)
    assert waiting["handoff"] is not None and waiting["claimedElsewhere"] is None


# -- a session about to leave a baton (``session end``, ``session handoff --from``) ----------------

def _sibling_took_it(capsys, project) -> str:
    """A baton left; fork-1 claims it; fork-2 starts beside it and receives none."""
    baton_id = _left(capsys, project)
    run_json(capsys, project, "session", "begin", "--session-id", "fork-1", *WHO)
    run_json(capsys, project, "session", "begin", "--session-id", "fork-2", *WHO)
    return baton_id


def _a_handoff(capsys, project) -> str:
    """A ready handoff with an open item (only a handoff its receiver can resume is handed on)."""
    item = '{"description": "Wire the parser", "suggested_action": "Edit it", "acceptance_check": "It parses"}'
    handoff_id = run_json(capsys, project, "checkpoint", "create", "--title", "Parser", "--objective", "Parse",
                          "--open-item", item, "--session", "fork-2")["id"]
    run_json(capsys, project, "handoff", "validate", handoff_id)
    run_json(capsys, project, "handoff", "ready", handoff_id, "--accept-warnings", "synthetic test data")
    return handoff_id


def test_session_end_leaving_a_baton_says_which_session_took_the_previous_one(project, capsys):
    baton_id = _sibling_took_it(capsys, project)
    code, out, err = run(capsys, project, "session", "end", "fork-2", "--handoff-steps", "Ship it", *WHO)
    assert code == 0, err
    assert f"(baton {baton_id}), before baton " in out and "left now, was already claimed by session fork-1 at " in out
    assert "The newest session handoff" not in out
    assert f"read it with `baton resume {baton_id}`." in out


def test_session_end_json_carries_the_claim_a_sibling_made(project, capsys):
    baton_id = _sibling_took_it(capsys, project)
    ended = run_json(capsys, project, "session", "end", "fork-2", "--handoff-steps", "Ship it", *WHO)
    assert ended["handoffId"] != baton_id
    assert (ended["claimedElsewhere"]["handoffId"], ended["claimedElsewhere"]["claimedBySession"]) == \
        (baton_id, "fork-1")
    assert ended["claimedElsewhere"]["newerBaton"] == ended["handoffId"]


def test_session_end_leaving_no_baton_is_told_of_the_siblings_claim_too(project, capsys):
    baton_id = _sibling_took_it(capsys, project)
    ended = run_json(capsys, project, "session", "end", "fork-2", *WHO)
    assert ended["handoff"] is None and ended["claimedElsewhere"]["handoffId"] == baton_id


def test_the_claiming_session_ending_is_not_told_of_its_own_claim(project, capsys):
    _sibling_took_it(capsys, project)
    code, out, err = run(capsys, project, "session", "end", "fork-1", "--handoff-steps", "Ship it", *WHO)
    assert code == 0, err
    assert "already claimed" not in out
    assert run_json(capsys, project, "session", "end", "fork-1", *WHO)["claimedElsewhere"] is None


def test_an_ordinary_relay_ending_is_quiet_once_the_claimer_ended(project, capsys):
    """A leaves a baton, B claims it and ends, C ends leaving one: C is no sibling of B."""
    _left(capsys, project)
    run_json(capsys, project, "session", "begin", "--session-id", "s-b", *WHO)
    run_json(capsys, project, "session", "end", "s-b", *WHO)
    run_json(capsys, project, "session", "begin", "--session-id", "s-c", *WHO)
    code, out, err = run(capsys, project, "session", "end", "s-c", "--handoff-steps", "Ship it", *WHO)
    assert code == 0, err
    assert "already claimed" not in out


def test_session_end_with_a_baton_pending_here_tells_no_claim(project, capsys):
    _sibling_took_it(capsys, project)
    run_json(capsys, project, "session", "end", "s-other", "--handoff-steps", "Newer", *WHO)  # pending now
    assert run_json(capsys, project, "session", "end", "fork-2", "--handoff-steps", "Ship it",
                    *WHO)["claimedElsewhere"] is None


def test_session_handoff_from_says_which_session_took_the_previous_baton(project, capsys):
    baton_id = _sibling_took_it(capsys, project)
    handoff_id = _a_handoff(capsys, project)
    code, out, err = run(capsys, project, "session", "handoff", "--from", handoff_id, *WHO)
    assert code == 0, err
    assert out.startswith(f"Left a baton for alice@example.com on main: {handoff_id}")
    assert f"(baton {baton_id}), before baton {handoff_id} left now, was already claimed by session fork-1 at " in out


def test_session_handoff_from_json_carries_the_claim_a_sibling_made(project, capsys):
    baton_id = _sibling_took_it(capsys, project)
    handed = run_json(capsys, project, "session", "handoff", "--from", _a_handoff(capsys, project), *WHO)
    assert handed["claimedElsewhere"]["handoffId"] == baton_id
    assert handed["claimedElsewhere"]["claimedBySession"] == "fork-1"


def test_session_handoff_from_after_the_claimer_ended_is_quiet(project, capsys):
    _sibling_took_it(capsys, project)
    run_json(capsys, project, "session", "end", "fork-1", *WHO)
    handed = run_json(capsys, project, "session", "handoff", "--from", _a_handoff(capsys, project), *WHO)
    assert handed["claimedElsewhere"] is None


def test_a_claimed_baton_handed_on_again_is_not_told_as_claimed_beside_itself():
    fact = told(claimed())
    assert beside_left(fact, "0193-baton") is None
    assert beside_left(fact, None) == fact


def test_beside_a_newer_baton_just_left_the_claimed_one_is_named_as_the_previous_not_the_newest():
    # tester-team24 T4: once this end left baton 0194-other, the claimed one is no longer the newest.
    fact = beside_left(told(claimed()), "0194-other")
    assert fact is not None and fact.newer_baton == "0194-other"
    notice = claimed_elsewhere_notice(fact)
    assert notice.startswith("The previous session handoff for alice@example.com on main (baton 0193-baton), "
                             "before baton 0194-other left now, was already claimed by session fork-1 at ")
    assert "newest" not in notice


def test_session_handoff_from_the_claimed_baton_says_nothing_of_its_earlier_claim(project, capsys):
    """The documented way to hand a spent baton on again (tester-use22b T5): the baton it leaves is pending."""
    baton_id = _left(capsys, project)
    run_json(capsys, project, "session", "begin", "--session-id", "fork-1", *WHO)
    code, out, err = run(capsys, project, "session", "handoff", "--from", baton_id, *WHO)
    assert code == 0, err
    assert out.startswith(f"Left a baton for alice@example.com on main: {baton_id}")
    assert "already claimed" not in out
    waiting = run_json(capsys, project, "session", "handoff", *WHO)
    assert waiting["handoff"]["id"] == baton_id and waiting["claimedElsewhere"] is None


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_session_end_says_which_session_took_the_previous_baton(project, capsys):
    from mcp import Client

    from baton.mcp_server import build_server

    baton_id = _sibling_took_it(capsys, project)
    async with Client(build_server(project)) as client:
        ended = await client.call_tool("baton_session", {
            "action": "session_end", "session_id": "fork-2", "handoff": {"nextSteps": ["Ship it"]},
            "owner": "alice@example.com", "branch": "main"})
    fact = ended.structured_content["claimedElsewhere"]
    assert (fact["handoffId"], fact["claimedBySession"]) == (baton_id, "fork-1")


def test_session_end_handing_on_the_sessions_handoff_is_told_of_the_siblings_claim(project, capsys):
    """No payload, no --owner or --branch: the end hands on the session's handoff, as the end hook does."""
    baton_id = run_json(capsys, project, "session", "end", "s-left", "--handoff-steps", "Wire the parser")["handoffId"]
    run_json(capsys, project, "session", "begin", "--session-id", "fork-1")
    run_json(capsys, project, "session", "begin", "--session-id", "fork-2")
    ended = run_json(capsys, project, "session", "end", "fork-2")
    assert ended["claimedElsewhere"]["handoffId"] == baton_id


def test_session_end_leaving_a_baton_for_another_owner_is_not_told_of_their_claim(project, capsys):
    bob = ("--owner", "bob@example.com", "--branch", "main")
    run_json(capsys, project, "session", "end", "s-a1", "--handoff-steps", "first for bob", *bob)
    run_json(capsys, project, "session", "begin", "s-bob1", *bob)  # bob's session takes it up
    code, out, err = run(capsys, project, "session", "end", "s-a2", "--handoff-steps", "second for bob", *bob)
    assert code == 0, err
    assert "Left a baton for bob@example.com on main" in out and "already claimed" not in out
    run_json(capsys, project, "session", "begin", "s-bob2", *bob)
    ended = run_json(capsys, project, "session", "end", "s-a3", "--handoff-steps", "third for bob", *bob)
    assert ended["claimedElsewhere"] is None
