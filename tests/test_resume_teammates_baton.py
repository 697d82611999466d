"""A teammate's ``resume --mark-resumed`` leaves your pending baton pending (tester26 T9).

Batons are owner/branch isolated, so that teammates cannot take each other's context
(session-handoff-baton.txt: "A session ... under a different owner never sees or consumes a
private baton"). Bob resuming the handoff Alice's baton carries records his resume, and says
that her baton stays pending; her next session start receives it. Her own resume (on any of her
clones), or the resume of whoever left the baton, settles it as before
(``tests/test_resume_settles_batons.py``, ``tests/test_sync_resume_settles_batons.py``).
"""

from __future__ import annotations

from baton.domain.batons import BatonRecord, left_pending_line
from tests.batons_support import ALICE
from tests.cli_support import run, run_json
from tests.sync_support import make_team
from tests.test_batons_supersede_handoff import HERE, ready_handoff
from tests.test_sync_baton_owners import as_user


def _alices_baton_bobs_clone(capsys, tmp_path):
    """Alice hands her ready handoff on to her next session on clone ``a``; Bob's clone ``b`` has it."""
    _remote, a, b = make_team(tmp_path)
    as_user(a, ALICE)
    as_user(b, "bob@example.com")
    handoff_id = ready_handoff(capsys, a)
    run_json(capsys, a, "session", "handoff", "--from", handoff_id, *HERE)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    return a, b, handoff_id


def test_a_teammates_resume_leaves_your_pending_baton_pending(capsys, tmp_path):
    a, b, handoff_id = _alices_baton_bobs_clone(capsys, tmp_path)

    resumed = run_json(capsys, b, "resume", handoff_id, "--mark-resumed", "--session", "bob-1")

    assert resumed["marked_resumed"] is True and resumed["status"] == "resumed"
    (line,) = resumed["left_pending"]
    assert handoff_id in line and ALICE in line and "stays pending" in line
    assert [i["id"] for i in run_json(capsys, b, "session", "handoff", "--all")["items"]] == [handoff_id]


def test_a_teammates_resume_tells_on_the_command_line_that_your_baton_stays_pending(capsys, tmp_path):
    a, b, handoff_id = _alices_baton_bobs_clone(capsys, tmp_path)

    out = run(capsys, b, "resume", handoff_id, "--mark-resumed", "--session", "bob-1")[1]

    assert f"Note: The pending baton {handoff_id} for {ALICE} on main" in out


def test_your_next_start_receives_the_baton_a_teammate_resumed_on_his_clone(capsys, tmp_path):
    a, b, handoff_id = _alices_baton_bobs_clone(capsys, tmp_path)
    run_json(capsys, b, "resume", handoff_id, "--mark-resumed", "--session", "bob-1")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")

    brief = run_json(capsys, a, "bootstrap", "--session-id", "a-2", *HERE)

    assert brief["claimed"] is True and brief["handoff"]["id"] == handoff_id
    assert not [n for n in brief["notices"] if "Taken up elsewhere" in n]


def test_a_teammates_resume_made_apart_does_not_set_your_baton_aside_at_your_start(capsys, tmp_path):
    """Bob's clone never saw the baton: his resume, brought by sync, is not one that takes it up."""
    _remote, a, b = make_team(tmp_path)
    as_user(a, ALICE)
    as_user(b, "bob@example.com")
    handoff_id = ready_handoff(capsys, a)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "session", "handoff", "--from", handoff_id, *HERE)
    run_json(capsys, b, "resume", handoff_id, "--mark-resumed", "--session", "bob-1")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")

    assert run_json(capsys, a, "bootstrap", "--peek", *HERE)["handoff"]["id"] == handoff_id
    brief = run_json(capsys, a, "bootstrap", "--session-id", "a-2", *HERE)
    assert brief["claimed"] is True and brief["handoff"]["id"] == handoff_id


def test_whoever_left_the_baton_settles_it_by_resuming_its_handoff(capsys, tmp_path):
    """Bob hands the work on to Alice, then takes it up himself: the baton he left is his to end."""
    _remote, _a, b = make_team(tmp_path)
    as_user(b, "bob@example.com")
    handoff_id = ready_handoff(capsys, b)
    run_json(capsys, b, "session", "handoff", "--from", handoff_id, *HERE)

    resumed = run_json(capsys, b, "resume", handoff_id, "--mark-resumed", "--session", "bob-1")

    assert "left_pending" not in resumed
    assert run_json(capsys, b, "session", "handoff", "--all")["items"] == []


def test_the_left_pending_line_names_the_baton_its_owner_and_who_left_it():
    record = BatonRecord(id="0193c2", key="k", owner=ALICE, branch="main", shared=False, next_steps=("go",),
                         left_by="carol@example.com", created_at="2026-12-07T18:00:00.000000Z")
    line = left_pending_line(record)
    assert line.startswith(f"The pending baton 0193c2 for {ALICE} on main, left by carol@example.com ")
