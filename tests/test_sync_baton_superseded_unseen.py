"""A baton left for someone while they were offline, replaced by their own newer baton written
apart, is never lost from sight after ``baton sync`` (docs/batons.md "Superseding", docs/sync.md):
the newer baton's brief names it and how to read it, and ``session handoff --all`` and ``status``
list it as superseded-unseen. Real clones and a real remote (``tests/sync_support``)."""

from __future__ import annotations

import pytest

from tests.batons_support import ALICE, BOB
from tests.cli_support import run, run_json
from tests.sync_support import batons_left_apart, leave_baton_for, make_team, writer_of


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def test_a_baton_written_apart_that_replaces_one_its_writer_never_saw_names_it_in_the_brief(capsys, team):
    _a, b, alices, bobs = batons_left_apart(capsys, team)
    brief = run_json(capsys, b, "bootstrap", "--session-id", "bob-next", "--owner", BOB, "--branch", "main")
    markdown = brief["handoffMarkdown"]
    assert f"`{bobs}`" in markdown  # bob's own, newer baton is the one delivered
    assert f"replaced baton `{alices}`" in markdown and "never seen here" in markdown
    assert f"baton resume {alices}" in markdown and f"baton handoff show {alices}" in markdown
    assert "writer `" in markdown  # who left it
    code, out, _err = run(capsys, b, "handoff", "show", alices)
    assert code == 0 and "alice's step for bob" in out  # the way the brief names reads it


def test_showing_the_session_handoff_names_the_baton_it_replaced_unseen(capsys, team):
    _a, b, alices, _bobs = batons_left_apart(capsys, team)
    code, out, _err = run(capsys, b, "session", "handoff", "--owner", BOB, "--branch", "main")
    assert code == 0 and f"replaced baton `{alices}`" in out and f"baton resume {alices}" in out


def test_the_baton_a_newer_one_replaced_unseen_is_listed_as_superseded_unseen(capsys, team):
    _a, b, alices, bobs = batons_left_apart(capsys, team)
    listed = run_json(capsys, b, "session", "handoff", "--all")
    [unseen] = listed["supersededUnseen"]
    assert (unseen["id"], unseen["status"], unseen["supersededBy"]) == (alices, "superseded-unseen", bobs)
    assert unseen["owner"] == BOB and unseen["branch"] == "main"
    code, out, _ = run(capsys, b, "session", "handoff", "--all")
    assert code == 0 and f"SUPERSEDED-UNSEEN baton {alices}" in out
    status = run_json(capsys, b, "status")
    assert [(u["id"], u["status"]) for u in status["supersededUnseen"]] == [(alices, "superseded-unseen")]
    assert f"SUPERSEDED-UNSEEN baton {alices}" in run(capsys, b, "status")[1]


def test_both_clones_agree_on_the_unseen_baton_once_synced_both_ways(capsys, team):
    a, b, alices, bobs = batons_left_apart(capsys, team)
    run_json(capsys, a, "sync")
    for clone in (a, b):
        [unseen] = run_json(capsys, clone, "session", "handoff", "--all")["supersededUnseen"]
        assert (unseen["id"], unseen["supersededBy"]) == (alices, bobs)


def test_a_baton_that_replaces_one_its_writer_saw_but_nobody_read_names_it_unread_not_unseen(capsys, team):
    _remote, a, b = team
    alices = leave_baton_for(capsys, a, "alice-s", "alice's step for bob")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")  # bob's clone sees alice's baton before he leaves his own
    leave_baton_for(capsys, b, "bob-s", "bob's own step")
    [listed] = run_json(capsys, b, "session", "handoff", "--all")["supersededUnseen"]
    assert listed["id"] == alices and listed["unread"] is True  # no session received it: never lost silently
    brief = run_json(capsys, b, "bootstrap", "--session-id", "bob-next", "--owner", BOB, "--branch", "main")
    assert "never seen here" not in brief["handoffMarkdown"]
    assert "replaced an unread baton from session `alice-s`" in brief["handoffMarkdown"]


def test_alices_own_baton_for_herself_is_not_concerned(capsys, team):
    _remote, a, b = team
    run_json(capsys, a, "session", "end", "alice-s", "--handoff-steps", "for me", "--owner", ALICE,
             "--branch", "main")
    run_json(capsys, a, "sync")
    leave_baton_for(capsys, b, "bob-s", "bob's own step")
    run_json(capsys, b, "sync")  # other keys: nothing superseded at all
    assert "supersededUnseen" not in run_json(capsys, b, "session", "handoff", "--all")


def test_status_says_who_left_the_unseen_baton_what_for_and_how_to_read_it(capsys, team):
    a, b, alices, bobs = batons_left_apart(capsys, team)
    [unseen] = run_json(capsys, b, "status")["supersededUnseen"]
    assert (unseen["writer"], unseen["sessionId"], unseen["objective"]) == (
        writer_of(a), "alice-s", "alice's step for bob")
    [line] = [line for line in run(capsys, b, "status")[1].splitlines() if line.startswith("SUPERSEDED-UNSEEN")]
    assert f"left by writer {writer_of(a)} (session alice-s), objective: alice's step for bob;" in line
    assert f"replaced by baton {bobs}" in line and f"`baton resume {alices}`" in line
    assert f"`baton handoff show {alices}`" in line
