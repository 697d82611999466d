"""Forgetting the newest baton of an owner/branch leaves the baton it had superseded superseded:
the supersede is a fact of the ledger (the erased ``baton.created`` keeps its envelope), not of the
erased payload, so the older baton is never delivered again as if current (docs/security.md "Audit
and forget", docs/batons.md). On one clone, and across clones through ``baton sync``."""

from __future__ import annotations

import pytest

from tests.batons_support import BOB
from tests.cli_support import run_json
from tests.sync_support import leave_baton_for, make_team


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def two_batons(capsys, project) -> tuple[str, str]:
    """Two batons for bob on main, the second superseding the first: (older, newer)."""
    older = leave_baton_for(capsys, project, "s-1", "old plan: rewrite the parser")
    newer = leave_baton_for(capsys, project, "s-2", "new plan with a leaked key in it")
    return older, newer


def bob_brief(capsys, project, session: str) -> dict:
    return run_json(capsys, project, "bootstrap", "--session-id", session, "--owner", BOB, "--branch", "main")


def test_forgetting_the_newest_baton_leaves_the_one_it_superseded_superseded(capsys, team):
    _remote, a, _b = team
    _older, newer = two_batons(capsys, a)
    run_json(capsys, a, "forget", newer, "--yes")
    assert run_json(capsys, a, "session", "handoff", "--all")["items"] == []
    brief = bob_brief(capsys, a, "bob-next")
    assert brief["handoff"] is None and "old plan" not in brief["brief"]


def test_the_older_baton_is_delivered_to_no_later_session_after_the_newest_was_forgotten(capsys, team):
    _remote, a, _b = team
    older, newer = two_batons(capsys, a)
    run_json(capsys, a, "forget", newer, "--yes")
    bob_brief(capsys, a, "bob-next")
    again = bob_brief(capsys, a, "bob-later")
    assert again["handoff"] is None  # nobody ever receives the older baton as current
    assert older not in str(again.get("notices"))


def test_a_forget_of_the_newest_baton_synced_to_another_clone_leaves_the_older_superseded_there(capsys, team):
    _remote, a, b = team
    _older, newer = two_batons(capsys, a)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    run_json(capsys, b, "forget", newer, "--yes")  # a teammate forgets it on the other clone
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    for clone in (a, b):
        assert run_json(capsys, clone, "session", "handoff", "--all")["items"] == []
        assert bob_brief(capsys, clone, f"bob-{clone.name}")["handoff"] is None
