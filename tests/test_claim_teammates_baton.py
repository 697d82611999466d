"""A session start claiming its baton leaves a teammate's baton of the same handoff pending.

Batons are owner/branch isolated (session-handoff-baton.txt lines 5 and 86: "so concurrent
sessions or teammates cannot steal each other's context"; "A session ... under a different owner
never sees or consumes a private baton"). When Alice's start claims her baton, the claim settles
the other batons carrying that handoff that are hers to end (left for her, or left by her:
``domain.batons.yours_to_end``, the rule a resume by hand follows,
``tests/test_resume_teammates_baton.py``). Bob's baton of the same handoff, on his clone, stays
pending through the sync, and his next start receives it. Two clones of a real bare remote,
each with its own ``git config user.email``.
"""

from __future__ import annotations

from tests.batons_support import ALICE
from tests.cli_support import run_json
from tests.sync_support import make_team
from tests.test_batons_supersede_handoff import HERE, ready_handoff
from tests.test_sync_baton_owners import as_user

BOB = "bob@example.com"
BOBS = ("--owner", BOB, "--branch", "main")


def _both_hold_a_baton_of_one_handoff(capsys, tmp_path):
    """Alice's ready handoff, synced to Bob's clone, then handed on as a baton to Alice on her
    clone ``a`` and, apart, to Bob on his clone ``b`` (one clone refuses a handoff that is already
    a pending baton); synced both ways: each clone holds both batons."""
    _remote, a, b = make_team(tmp_path)
    as_user(a, ALICE)
    as_user(b, BOB)
    handoff_id = ready_handoff(capsys, a)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "session", "handoff", "--from", handoff_id, *HERE)
    run_json(capsys, b, "session", "handoff", "--from", handoff_id, *BOBS)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    assert _pending_of(capsys, a, BOB) == [handoff_id] and _pending_of(capsys, a, ALICE) == [handoff_id]
    return a, b, handoff_id


def _pending_of(capsys, clone, owner: str) -> list[str]:
    """The pending batons for ``owner`` that ``clone`` lists."""
    items = run_json(capsys, clone, "session", "handoff", "--all")["items"]
    return [i["id"] for i in items if i.get("owner") == owner and i.get("status", "pending") == "pending"]


def test_your_start_claiming_your_baton_leaves_a_teammates_baton_of_that_handoff_pending(capsys, tmp_path):
    a, _b, handoff_id = _both_hold_a_baton_of_one_handoff(capsys, tmp_path)

    brief = run_json(capsys, a, "bootstrap", "--session-id", "alice-2", *HERE)

    assert brief["claimed"] is True and brief["handoff"]["id"] == handoff_id
    assert _pending_of(capsys, a, BOB) == [handoff_id]


def test_the_teammate_receives_his_baton_at_his_next_start_after_the_sync(capsys, tmp_path):
    a, b, handoff_id = _both_hold_a_baton_of_one_handoff(capsys, tmp_path)
    run_json(capsys, a, "bootstrap", "--session-id", "alice-2", *HERE)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")

    brief = run_json(capsys, b, "bootstrap", "--session-id", "bob-2", *BOBS)

    assert brief["claimed"] is True and brief["handoff"]["id"] == handoff_id
    assert not [n for n in brief["notices"] if "Taken up elsewhere" in n]
