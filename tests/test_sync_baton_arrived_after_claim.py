"""A teammate's baton that a sync brings in after the newer baton on that owner/branch was already
claimed is never lost from sight (docs/sync.md "Batons left apart on one owner/branch", docs/batons.md
"Superseded unseen"): ``session handoff --all`` and ``status`` list it as superseded-unseen until a
brief here names it, and the next brief for that owner and branch names it, once. Real clones and a
path remote (``tests/sync_support``)."""

from __future__ import annotations

import pytest

from tests.batons_support import BOB
from tests.cli_support import run, run_json
from tests.sync_support import leave_baton_for, make_team, writer_of


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def arrived_after_claim(capsys, team):
    """Alice, offline, leaves a baton for bob on main; bob leaves his own newer one there and a
    session of his claims it; then alice syncs, then bob. (a, b, alice's baton, bob's baton)."""
    _remote, a, b = team
    alices = leave_baton_for(capsys, a, "alice-s", "alice's step for bob")
    bobs = leave_baton_for(capsys, b, "bob-s", "bob's own step")
    claimed = run_json(capsys, b, "bootstrap", "--session-id", "bob-1", "--owner", BOB, "--branch", "main")
    assert f"`{bobs}`" in claimed["handoffMarkdown"]  # bob's own baton, claimed before alice's arrives
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    return a, b, alices, bobs


def test_a_baton_that_arrives_after_the_newer_one_was_claimed_is_listed_as_superseded_unseen(capsys, team):
    a, b, alices, bobs = arrived_after_claim(capsys, team)
    [unseen] = run_json(capsys, b, "session", "handoff", "--all")["supersededUnseen"]
    assert (unseen["id"], unseen["status"], unseen["supersededBy"]) == (alices, "superseded-unseen", bobs)
    assert unseen["arrivedAfterClaim"] is True and unseen["writer"] == writer_of(a)
    [line] = [x for x in run(capsys, b, "session", "handoff", "--all")[1].splitlines()
              if x.startswith("SUPERSEDED-UNSEEN")]
    assert f"SUPERSEDED-UNSEEN baton {alices}" in line and "claimed before this one arrived" in line
    assert f"`baton resume {alices}`" in line
    assert [u["id"] for u in run_json(capsys, b, "status")["supersededUnseen"]] == [alices]


def test_the_next_brief_for_that_owner_and_branch_names_the_baton_that_arrived_after_the_claim(capsys, team):
    a, b, alices, bobs = arrived_after_claim(capsys, team)
    brief = run_json(capsys, b, "bootstrap", "--session-id", "bob-2", "--owner", BOB, "--branch", "main")
    [notice] = [n for n in brief["notices"] if alices in n]
    assert f"after the newer baton `{bobs}` had been claimed" in notice
    assert f"writer `{writer_of(a)}`" in notice and "alice's step for bob" in notice
    assert f"baton resume {alices}" in notice


def test_session_begin_names_the_baton_that_arrived_after_the_claim_once(capsys, team):
    a, b, alices, bobs = arrived_after_claim(capsys, team)
    begun = run_json(capsys, b, "session", "begin", "bob-2", "--owner", BOB, "--branch", "main")
    assert begun["receivedBaton"] is None
    [notice] = [n for n in begun["notices"] if alices in n]
    assert f"after the newer baton `{bobs}` had been claimed" in notice and f"baton resume {alices}" in notice
    text = run(capsys, b, "session", "begin", "bob-3", "--owner", BOB, "--branch", "main")[1]
    assert alices not in text  # named once: the start before told it
    brief = run_json(capsys, b, "bootstrap", "--session-id", "bob-4", "--owner", BOB, "--branch", "main")
    assert not [n for n in brief["notices"] if alices in n]


def test_the_baton_that_arrived_after_the_claim_is_named_once(capsys, team):
    _a, b, alices, _bobs = arrived_after_claim(capsys, team)
    run_json(capsys, b, "bootstrap", "--session-id", "bob-2", "--owner", BOB, "--branch", "main")
    again = run_json(capsys, b, "bootstrap", "--session-id", "bob-3", "--owner", BOB, "--branch", "main")
    assert not [n for n in again["notices"] if alices in n]
    assert "supersededUnseen" not in run_json(capsys, b, "session", "handoff", "--all")  # read: no longer listed


def test_a_peek_does_not_use_up_the_naming_of_the_baton_that_arrived_after_the_claim(capsys, team):
    _a, b, alices, _bobs = arrived_after_claim(capsys, team)
    run_json(capsys, b, "bootstrap", "--peek", "--owner", BOB, "--branch", "main")
    brief = run_json(capsys, b, "bootstrap", "--session-id", "bob-2", "--owner", BOB, "--branch", "main")
    assert [n for n in brief["notices"] if alices in n]


def test_both_clones_fold_the_baton_that_arrived_after_the_claim_alike(capsys, team):
    a, b, alices, _bobs = arrived_after_claim(capsys, team)
    run_json(capsys, a, "sync")
    for clone in (a, b):
        [unseen] = run_json(capsys, clone, "session", "handoff", "--all")["supersededUnseen"]
        assert unseen["id"] == alices and unseen["arrivedAfterClaim"] is True


def test_a_newer_baton_on_that_owner_and_branch_names_the_baton_that_arrived_after_the_claim(capsys, team):
    _a, b, alices, _bobs = arrived_after_claim(capsys, team)
    newest = leave_baton_for(capsys, b, "bob-s2", "bob's next step")
    brief = run_json(capsys, b, "bootstrap", "--session-id", "bob-2", "--owner", BOB, "--branch", "main")
    assert f"`{newest}`" in brief["handoffMarkdown"] and f"baton resume {alices}" in brief["handoffMarkdown"]


def test_the_sync_that_brings_it_in_names_it_to_the_clone_whose_owner_it_was_left_for(capsys, team):
    _remote, a, b = team
    here = run_json(capsys, b, "session", "handoff")  # clone b's own owner and branch
    mine = ("--owner", here["owner"], "--branch", here["branch"])
    alices = run_json(capsys, a, "session", "end", "alice-s", "--handoff-steps", "alice's step", *mine)["handoffId"]
    bobs = run_json(capsys, b, "session", "end", "bob-s", "--handoff-steps", "bob's own step", *mine)["handoffId"]
    run_json(capsys, b, "bootstrap", "--session-id", "bob-1", *mine)
    run_json(capsys, a, "sync")
    synced = run_json(capsys, b, "sync")
    [named] = synced["arrivedAfterClaim"]
    assert (named["id"], named["supersededBy"]) == (alices, bobs)
    run_json(capsys, a, "session", "end", "alice-s2", "--handoff-steps", "more", "--owner", "x@example.com")
    run_json(capsys, a, "sync")
    code, out, _err = run(capsys, b, "sync")
    assert code == 0 and f"(baton {alices}) arrived after the newer baton {bobs} was claimed" in out
    assert f"`baton resume {alices}`" in out
