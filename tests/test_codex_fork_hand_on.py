"""A Codex ``exec fork`` (harness15 G3): the fork runs no SessionStart, so its agent sees
only the parent's brief and passes the parent's session id — an id whose session has
already ended. The fork's end (its first ``Stop``, of a session Baton never saw begin)
hands on the ready handoff captured under that ended id since its end, instead of
leaving it ready and undelivered."""

from __future__ import annotations

from baton.app import Baton
from tests.app_support import promote_handoff, validate_handoff_command
from tests.handoff_support import payload
from tests.harness_support import codex_start, codex_stop


def _ready(repo, session):
    with Baton.open(repo) as app:
        handoff_id = app.capture(payload(), session=session).handoff_id
    validate_handoff_command(repo, handoff_id)
    promote_handoff(repo, handoff_id, accept_warnings="tests")
    return handoff_id


def test_a_forks_first_stop_hands_on_the_handoff_captured_under_its_ended_parents_id(repo):
    codex_start(repo, "parent")
    codex_stop(repo, "parent")
    handoff_id = _ready(repo, "parent")  # the fork's agent passes the only id its context names
    ended = codex_stop(repo, "fork")
    assert ended.result.ended and ended.result.baton == handoff_id


def test_a_handoff_captured_under_a_session_before_it_ended_is_not_a_forks(repo):
    codex_start(repo, "parent")
    handoff_id = _ready(repo, "parent")
    assert codex_stop(repo, "parent").result.baton == handoff_id
    assert codex_stop(repo, "fork").result.baton is None


def test_a_session_begun_as_usual_does_not_take_an_ended_sessions_handoff(repo):
    codex_start(repo, "parent")
    codex_stop(repo, "parent")
    _ready(repo, "parent")
    codex_start(repo, "other")
    assert codex_stop(repo, "other").result.baton is None


def test_the_parents_later_stop_does_not_hand_on_what_the_fork_handed_on(repo):
    codex_start(repo, "parent")
    codex_stop(repo, "parent")
    handoff_id = _ready(repo, "parent")
    assert codex_stop(repo, "fork").result.baton == handoff_id
    assert codex_stop(repo, "parent").result.baton is None
