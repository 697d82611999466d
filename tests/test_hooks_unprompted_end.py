"""A session whose start claimed the waiting baton and that ends before any prompt: its brief
reached no model (Claude Code and Gemini CLI run ``SessionStart`` when their TUI opens, before
anything is typed; Codex runs it with the first prompt, so a Codex claim is always followed by a
request). Run headless at the hook level, as the harnesses send the events: start, end, no
prompt hook between.

A known defect, not fixed yet (docs/batons.md, "A baton spent without reaching a model"): the
claim spends the baton, and the next session is given nothing of it but the one-line "Latest
ready handoff" pointer. The tests of the promise are marked ``xfail(strict=True)``, so they
fail the day it is kept. What holds today, and must keep holding: a session that made a
request after its claim spends the baton (its model was given it), the next start is pointed
at the handoff, and ``session handoff --from`` hands it on again by hand.
"""

from __future__ import annotations

import pytest

from baton.app import Baton
from baton.domain.short_ids import short_id
from tests.app_support import promote_handoff, validate_handoff_command
from tests.cli_support import run_json
from tests.handoff_support import git_init, payload
from tests.harness_support import fixture, hook, injected

# harness: (start, prompt, end) — the hooks the harness runs, in that order, when a prompt is made
EVENTS = {
    "claude-code": ("SessionStart", "UserPromptSubmit", "SessionEnd"),
    "gemini-cli": ("SessionStart", "BeforeAgent", "SessionEnd"),
}
DEFECT = ("Baton defect (reported, not fixed): the start claims the waiting baton before any prompt; "
          "an end with no request made leaves no baton, so the next session is given nothing")


@pytest.fixture
def repo(project):
    git_init(project, {"src/app.py": "x = 1\n"})
    return project


def _left_by_an_earlier_session(repo) -> str:
    """An earlier Claude Code session readies a handoff and ends: its baton waits."""
    with Baton.open(repo) as app:
        handoff_id = app.capture(payload(), session="earlier").handoff_id
    validate_handoff_command(repo, handoff_id)
    promote_handoff(repo, handoff_id, accept_warnings="tests")
    hook(repo, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", repo, session_id="earlier"))
    return handoff_id


def _ended_before_any_prompt(repo, harness) -> str:
    handoff_id = _left_by_an_earlier_session(repo)
    _fresh_start_claims(repo, harness, handoff_id)
    _run(repo, harness, 2, "fresh")
    return handoff_id


def _run(repo, harness, which, session, **changes):
    event = EVENTS[harness][which]
    name = f"{event}.startup" if which == 0 else event
    return hook(repo, harness, event, fixture(harness, name, repo, session_id=session, **changes))


def _fresh_start_claims(repo, harness, handoff_id) -> None:
    started = _run(repo, harness, 0, "fresh")
    assert "Active Session Handoff" in injected(harness, started.answer)
    assert started.result.to_json()["handoffId"] == handoff_id  # claimed at the start, before any prompt


def _next_start(repo):
    return hook(repo, "claude-code", "SessionStart",
                fixture("claude-code", "SessionStart.startup", repo, session_id="next"))


@pytest.mark.xfail(strict=True, reason=DEFECT)
@pytest.mark.parametrize(("harness", "reason"), [("claude-code", "prompt_input_exit"), ("claude-code", "resume"),
                                                 ("gemini-cli", "exit")])
def test_a_session_that_ends_before_any_prompt_leaves_the_baton_it_claimed_to_the_next_session(
        repo, harness, reason):
    handoff_id = _left_by_an_earlier_session(repo)
    _fresh_start_claims(repo, harness, handoff_id)
    _run(repo, harness, 2, "fresh", reason=reason)
    following = _next_start(repo)
    assert "Active Session Handoff" in (injected("claude-code", following.answer) or "")
    assert following.result.to_json()["handoffId"] == handoff_id


@pytest.mark.parametrize("harness", EVENTS)
def test_a_session_that_made_a_request_after_its_claim_spends_the_baton(repo, harness):
    handoff_id = _left_by_an_earlier_session(repo)
    _fresh_start_claims(repo, harness, handoff_id)
    _run(repo, harness, 1, "fresh")
    _run(repo, harness, 2, "fresh")
    following = _next_start(repo)
    assert "Active Session Handoff" not in (injected("claude-code", following.answer) or "")
    with Baton.open(repo) as app:
        assert app.pending_batons().to_json()["items"] == []


@pytest.mark.parametrize("harness", EVENTS)
def test_the_next_start_after_a_baton_spent_before_any_prompt_is_pointed_at_its_handoff(repo, harness):
    handoff_id = _ended_before_any_prompt(repo, harness)
    brief = injected("claude-code", _next_start(repo).answer) or ""
    assert "## Latest ready handoff" in brief
    assert f"`baton resume {short_id(handoff_id)}`" in brief


def test_a_baton_spent_before_any_prompt_is_handed_on_again_with_session_handoff_from(repo, capsys):
    handoff_id = _ended_before_any_prompt(repo, "claude-code")
    run_json(capsys, repo, "session", "handoff", "--from", handoff_id)
    following = _next_start(repo)
    assert "Active Session Handoff" in (injected("claude-code", following.answer) or "")
    assert following.result.to_json()["handoffId"] == handoff_id
