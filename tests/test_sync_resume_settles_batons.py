"""A handoff resumed on another clone settles the pending baton carrying it here, after
``baton sync`` (docs/batons.md, "A handoff resumed while its baton waits"; tester use16 U9).

Alice (clone ``a``) hands her ready handoff on to her next session; Bob (clone ``b``) resumes
it by hand. Whether or not ``b`` had the baton when Bob resumed, Alice's next session start
receives no baton and is told once, in one line, that the handoff was taken up elsewhere.
"""

from __future__ import annotations

import time

import pytest

from tests.cli_support import run, run_json
from tests.sync_support import make_team
from tests.test_batons_supersede_handoff import HERE, ready_handoff
from tests.test_sync_baton_owners import as_user


def _next_second() -> None:
    """Wait for the clock's next whole second: the handoff record keeps its resume time to the
    second, and a resume in the same second as the baton counts as made before it."""
    start = int(time.time())
    while int(time.time()) == start:
        time.sleep(0.05)


def test_a_resume_on_another_clone_that_had_the_baton_settles_it_here(capsys, tmp_path):
    _remote, a, b = make_team(tmp_path)
    as_user(a, "alice@example.com")
    as_user(b, "bob@example.com")
    handoff_id = ready_handoff(capsys, a)
    run_json(capsys, a, "session", "handoff", "--from", handoff_id, *HERE)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")

    run_json(capsys, b, "resume", handoff_id, "--mark-resumed", "--session", "bob-1")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")

    brief = run_json(capsys, a, "bootstrap", "--session-id", "a-2", *HERE)
    assert brief["handoff"] is None and brief["claimed"] is False
    (told,) = [n for n in brief["notices"] if "Taken up elsewhere" in n]
    assert handoff_id in told and "session bob-1 (bob@example.com" in told
    assert "Taken up elsewhere" not in run(capsys, a, "bootstrap", "--session-id", "a-3", *HERE)[1]


@pytest.mark.slow
def test_a_resume_made_apart_on_a_clone_without_the_baton_settles_it_at_the_next_start(capsys, tmp_path):
    _remote, a, b = make_team(tmp_path)
    as_user(a, "alice@example.com")
    as_user(b, "bob@example.com")
    handoff_id = ready_handoff(capsys, a)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "session", "handoff", "--from", handoff_id, *HERE)  # b never sees it before the resume
    _next_second()
    run_json(capsys, b, "resume", handoff_id, "--mark-resumed", "--session", "bob-1")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")

    brief = run_json(capsys, a, "bootstrap", "--session-id", "a-2", *HERE)
    assert brief["handoff"] is None and brief["claimed"] is False
    (told,) = [n for n in brief["notices"] if "Taken up elsewhere" in n]
    assert handoff_id in told and "another clone" in told
    assert run_json(capsys, a, "session", "handoff", "--all")["items"] == []
