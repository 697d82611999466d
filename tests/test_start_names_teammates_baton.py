"""A session start that claims its baton says, in one line, that a teammate's baton of the same
handoff waits for them; and a start given ``--owner`` claims as that owner.

Batons are owner/branch isolated (session-handoff-baton.txt: "so concurrent sessions or teammates
cannot steal each other's context"; "A session ... under a different owner never sees or consumes
a private baton"). Alice's start claiming her baton leaves Bob's baton of the same handoff pending
(``tests/test_claim_teammates_baton.py``); it now says so — whose baton, that it waits for them, not
claimed and not shown — in the brief of every start that claims (a harness's ``SessionStart``,
``bootstrap``, ``session begin``), with ``leftPending`` under ``--json``, and says nothing when no
teammate's baton waits. Its steps are never shown.

The owner a start claims as is the session's owner — the spec's "owner = payload owner, else git
config user.email, ...": ``bootstrap --owner bob`` run on Alice's clone claims as Bob, so the batons
of the handoff that are Bob's to end are settled and Alice's own stays pending for her. Two clones
of a real bare remote, each with its own ``git config user.email``, synced with ``baton sync``.
"""

from __future__ import annotations

import io
import json
import subprocess

import pytest
from dulwich import porcelain

from tests.app_support import init_project
from tests.batons_support import ALICE
from tests.cli_support import run, run_json
from tests.conftest import run_baton
from tests.sync_support import make_team
from tests.test_batons_supersede_handoff import ready_handoff
from tests.test_brief_names_the_objectives_session import start_hook
from tests.test_claim_teammates_baton import BOB, _both_hold_a_baton_of_one_handoff, _pending_of
from tests.test_objective_of_an_open_session import STARTS
from tests.test_sync_baton_owners import as_user

WAITS = f"A baton for {BOB} on main carries this handoff too and waits for them: it is theirs, so this start " \
        "neither claimed it nor shows it."
def _on_main(clone) -> None:
    """``git checkout -b main`` in ``clone`` (``make_team``'s clones are on ``master``): the batons
    here are for ``main``, and a start without ``--branch`` reads git's branch."""
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", "-b", "main"], check=True)


def _alice_and_bob(capsys, tmp_path):
    a, b, handoff_id = _both_hold_a_baton_of_one_handoff(capsys, tmp_path)
    _on_main(a)
    _on_main(b)
    return a, b, handoff_id


CAROL = "carol@example.com"
STEP = "Add the duplicate-callback fixture"  # the handoff's step, which both batons carry


def test_bootstrap_claiming_your_baton_says_a_teammates_baton_of_that_handoff_waits_for_them(capsys, tmp_path):
    a, _b, _handoff_id = _alice_and_bob(capsys, tmp_path)

    r = run_baton("bootstrap", "--session-id", "alice-2", "--project", str(a))

    assert r.returncode == 0, r.stderr
    assert r.stdout.count(WAITS) == 1 and r.stdout.index(WAITS) < r.stdout.index("Active Session Handoff")


def test_bootstrap_json_names_the_teammates_baton_left_pending_without_its_steps(capsys, tmp_path):
    a, _b, handoff_id = _alice_and_bob(capsys, tmp_path)

    brief = run_json(capsys, a, "bootstrap", "--session-id", "alice-2")

    assert brief["claimed"] is True and WAITS in brief["notices"]
    assert brief["leftPending"] == [{"id": handoff_id, "owner": BOB, "branch": "main", "shared": False,
                                     "leftBy": BOB}]
    assert STEP not in json.dumps(brief["leftPending"])


@pytest.mark.parametrize("harness", sorted(STARTS))
def test_a_harness_session_start_claiming_your_baton_says_the_teammates_waits_for_them(capsys, tmp_path, harness):
    a, _b, _handoff_id = _alice_and_bob(capsys, tmp_path)
    r = start_hook(harness, a, "alice-2")

    assert r.returncode == 0, r.stderr
    assert WAITS in r.stdout and "Active Session Handoff" in r.stdout
    assert _pending_of(capsys, a, BOB) != []


def test_session_begin_claiming_your_baton_says_the_teammates_waits_for_them(capsys, tmp_path):
    a, _b, handoff_id = _alice_and_bob(capsys, tmp_path)

    begun = run_json(capsys, a, "session", "begin", "alice-2")

    assert begun["receivedBaton"] == handoff_id and begun["notices"] == [WAITS]
    assert [b["owner"] for b in begun["leftPending"]] == [BOB]


def test_a_start_with_no_teammates_baton_pending_says_nothing_of_one(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    as_user(a, ALICE)
    _on_main(a)
    handoff_id = ready_handoff(capsys, a)
    run_json(capsys, a, "session", "handoff", "--from", handoff_id)

    brief = run_json(capsys, a, "bootstrap", "--session-id", "alice-2")

    assert brief["claimed"] is True and brief["leftPending"] == []
    assert "waits for them" not in brief["brief"]


def test_the_teammate_is_told_nothing_of_alices_claimed_baton_at_his_start(capsys, tmp_path):
    a, b, _handoff_id = _alice_and_bob(capsys, tmp_path)
    run_json(capsys, a, "bootstrap", "--session-id", "alice-2")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")

    brief = run_json(capsys, b, "bootstrap", "--session-id", "bob-2")

    assert brief["claimed"] is True and brief["leftPending"] == []


# -- the owner a start claims as -------------------------------------------------------------

def _a_shared_baton_beside_bobs_and_alices_of_one_handoff(capsys, tmp_path):
    """Alice's ready handoff handed on three times, apart (a clone refuses a handoff already a
    pending baton there): as Alice's private baton on ``feature`` (Alice, on her clone ``a``), as
    Bob's on ``feature`` (Bob, on ``b``) and as the shared baton (Carol, on a third clone ``c``);
    synced, so Alice's clone holds all three."""
    remote, a, b = make_team(tmp_path)
    c = tmp_path / "c"
    porcelain.clone(str(remote), str(c), errstream=io.BytesIO()).close()
    init_project(c)
    for clone, who in ((a, ALICE), (b, BOB), (c, CAROL)):
        as_user(clone, who)
    handoff_id = ready_handoff(capsys, a)
    for clone in (a, b, c):
        run_json(capsys, clone, "sync")
    run_json(capsys, a, "session", "handoff", "--from", handoff_id, "--branch", "feature")
    run_json(capsys, b, "session", "handoff", "--from", handoff_id, "--branch", "feature")
    run_json(capsys, c, "session", "handoff", "--from", handoff_id, "--shared", "--branch", "main")
    for clone in (a, b, c, a):
        run_json(capsys, clone, "sync")
    assert _pending_of(capsys, a, ALICE) == _pending_of(capsys, a, BOB) == _pending_of(capsys, a, CAROL) \
        == [handoff_id]
    return a, handoff_id


def test_a_start_given_an_owner_claims_a_shared_baton_as_that_owner(capsys, tmp_path):
    a, handoff_id = _a_shared_baton_beside_bobs_and_alices_of_one_handoff(capsys, tmp_path)

    brief = run_json(capsys, a, "bootstrap", "--session-id", "bob-on-a", "--owner", BOB, "--branch", "main")

    assert brief["claimed"] is True and brief["handoff"]["shared"] is True
    assert _pending_of(capsys, a, BOB) == [] and _pending_of(capsys, a, ALICE) == [handoff_id]
    assert [b["owner"] for b in brief["leftPending"]] == [ALICE]


def test_the_claim_records_the_owner_the_session_claimed_as_its_actor(capsys, tmp_path):
    a, _handoff_id = _a_shared_baton_beside_bobs_and_alices_of_one_handoff(capsys, tmp_path)

    run_json(capsys, a, "bootstrap", "--session-id", "bob-on-a", "--owner", BOB, "--branch", "main")

    code, out, err = run(capsys, a, "log", "--type", "baton.claimed", "--json")
    assert code == 0, err
    assert [json.loads(line)["actor"] for line in out.splitlines()] == [BOB]


def test_a_start_without_an_owner_claims_a_shared_baton_as_this_clones_git_identity(capsys, tmp_path):
    a, handoff_id = _a_shared_baton_beside_bobs_and_alices_of_one_handoff(capsys, tmp_path)

    brief = run_json(capsys, a, "bootstrap", "--session-id", "alice-2", "--branch", "main")

    assert brief["claimed"] is True and brief["handoff"]["shared"] is True
    assert _pending_of(capsys, a, ALICE) == [] and _pending_of(capsys, a, BOB) == [handoff_id]
    assert [b["owner"] for b in brief["leftPending"]] == [BOB]
