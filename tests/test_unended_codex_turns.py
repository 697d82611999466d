"""A Codex session killed in a later turn after readying a handoff (harness16).

Codex has no session end: Baton records a session's end at its first ``Stop``
(the end of a turn), and a later turn's ``Stop`` hands on a handoff readied
since. A session killed in a later turn, after it readied a handoff, is
therefore as unended as a Claude Code session killed before its
``SessionEnd`` (``baton.domain.unended.unended_for``): the next start of the
same owner, branch and clone is told, or, once the session is taken for
over, receives the handoff as that turn's end would have left it. Through
``baton hook codex …``, as Codex runs the hooks; the real Codex CLI in
``tests/e2e/test_codex.py``.
"""

from __future__ import annotations

import time

import pytest

from baton.app import Baton
from baton.domain.unended import SILENT, UNENDED_HOURS, unended_for
from tests.app_support import ready_handoff
from tests.batons_support import events
from tests.handoff_support import git_init
from tests.harness_support import codex_interrupt, codex_start, codex_stop, fixture, hook, injected

LONG_AGO = time.time_ns() - (UNENDED_HOURS + 1) * 3600 * 10**9


@pytest.fixture
def repo(project, monkeypatch):
    """A git project; the machine's boot time unknown, so "over" is decided by silence alone (a
    machine booted within the horizon would take every session begun before it for ended)."""
    monkeypatch.setattr("baton.commands.unended_sessions.booted_at", lambda now_ns: None)
    git_init(project, {"src/app.py": "x = 1\n"})
    return project





def _a_first_turn_long_ago(repo, session):
    """A Codex session started and through its first turn's ``Stop`` (its end recorded), long ago."""
    with Baton.open(repo, clock=lambda: LONG_AGO) as app:
        app.start_harness_session(session, harness="codex", source="startup")
        app.finish_harness_session(session, harness="codex", reason="turn")


def test_the_next_start_is_told_of_a_handoff_a_codex_session_readied_after_its_first_turn(repo):
    codex_start(repo, "killed")
    codex_stop(repo, "killed")  # the first turn's end: the session's end is recorded
    handoff_id = ready_handoff(repo, "killed")  # a later turn readies it, and Codex is killed before its Stop
    told = injected("codex", codex_start(repo, "next").answer)
    assert "Session `killed` (codex, begun " in told
    assert (f"has not reported the end of the turn in which it readied handoff `{handoff_id}` for the next "
            "session (codex reports an end at every turn), which no baton carries yet") in told
    assert "If it still runs (another terminal on this branch), leave it: the end of that turn hands it on." in told


def test_nothing_is_claimed_from_a_codex_session_that_may_still_be_in_its_turn(repo):
    codex_start(repo, "running")
    codex_stop(repo, "running")
    handoff_id = ready_handoff(repo, "running")
    started = codex_start(repo, "next")
    assert started.result.delivered.record is None
    assert codex_stop(repo, "running").result.baton == handoff_id  # its turn's end hands it on after all


def test_a_codex_session_silent_past_the_horizon_after_a_later_turn_hands_its_handoff_on(repo):
    _a_first_turn_long_ago(repo, "killed")
    handoff_id = ready_handoff(repo, "killed", clock=lambda: LONG_AGO + 60 * 10**9)
    started = codex_start(repo, "next")
    assert started.result.delivered.record.id == handoff_id
    told = injected("codex", started.answer)
    assert ("Session `killed` (codex, begun " in told
            and f"readied handoff `{handoff_id}` for the next session in a turn whose end it never reported "
                f"({SILENT}; codex reports an end at every turn)" in told)


@pytest.mark.parametrize("turn_end", [codex_stop, codex_interrupt], ids=["Stop", "Interrupt"])
def test_a_handoff_a_later_turns_end_handed_on_is_received_without_a_word_of_it(repo, turn_end):
    """A later turn's ``Stop``, or its ``Interrupt`` when the person stopped it (Ctrl-C and "Exit", or
    Esc: no ``Stop`` runs for it), hands on the handoff readied in that turn."""
    codex_start(repo, "s1")
    codex_stop(repo, "s1")
    handoff_id = ready_handoff(repo, "s1")
    assert turn_end(repo, "s1").result.baton == handoff_id
    started = codex_start(repo, "s2")
    assert started.result.delivered.record.id == handoff_id
    told = injected("codex", started.answer)
    assert "reported the end" not in told and "never reported" not in told


def test_a_first_turn_the_person_stopped_records_the_sessions_end_once_with_its_baton(repo):
    codex_start(repo, "s1")
    handoff_id = ready_handoff(repo, "s1")
    assert codex_interrupt(repo, "s1").result.baton == handoff_id
    assert codex_stop(repo, "s1").result.baton is None  # a later turn's end: no second end, no second baton
    assert [e.stream for e in events(repo, "session.ended")] == ["session/s1"]


def test_a_handoff_readied_before_the_first_turns_end_is_that_ends_baton(repo):
    codex_start(repo, "s1")
    handoff_id = ready_handoff(repo, "s1")
    assert codex_stop(repo, "s1").result.baton == handoff_id
    told = injected("codex", codex_start(repo, "s2").answer)
    assert "reported the end" not in told


def test_an_ended_claude_code_session_is_not_looked_for_whatever_is_readied_naming_it_later(repo):
    hook(repo, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.startup", repo, session_id="c1"))
    hook(repo, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", repo, session_id="c1"))
    ready_handoff(repo, "c1")
    told = injected("codex", codex_start(repo, "next").answer) or ""
    assert "reported its end" not in told and "reported the end" not in told


# -- the rule --------------------------------------------------------------------------------------

def test_a_session_that_never_ended_is_unended():
    assert unended_for(status="open", harness="claude-code", ended_at=None, left_baton=None,
                       readied="2026-09-02T14:00:00Z")


def test_a_codex_session_whose_end_was_recorded_before_it_readied_the_handoff_is_unended():
    assert unended_for(status="ended", harness="codex", ended_at="2026-09-02T14:00:00.000001Z", left_baton=None,
                       readied="2026-09-02T14:05:00.000001Z")


def test_a_codex_session_whose_end_was_recorded_after_it_readied_the_handoff_is_over():
    assert not unended_for(status="ended", harness="codex", ended_at="2026-09-02T14:06:00Z", left_baton=None,
                           readied="2026-09-02T14:05:00Z")


def test_a_handoff_readied_in_the_second_of_the_last_turns_end_counts_as_readied_after_it():
    """A handoff's times are kept to the second; one readied before that end would have been handed on by it."""
    assert unended_for(status="ended", harness="codex", ended_at="2026-09-02T14:05:00.900000Z", left_baton=None,
                       readied="2026-09-02T14:05:00Z")


def test_a_session_of_a_harness_with_a_session_end_that_ended_is_over_whenever_the_handoff_was_readied():
    assert not unended_for(status="ended", harness="claude-code", ended_at="2026-09-02T14:00:00Z",
                           left_baton=None, readied="2026-09-02T14:05:00Z")


def test_an_earlier_turns_baton_does_not_make_a_later_turns_handoff_handed_on():
    assert unended_for(status="ended", harness="codex", ended_at="2026-09-02T14:00:00Z",
                       left_baton="0193-earlier", readied="2026-09-02T14:05:00Z")
