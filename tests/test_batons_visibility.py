"""Traps and decisions in the bootstrap brief come only from handoffs the caller may see.

The spec's invariant: "A session on a different branch or under a different
owner never sees or consumes a private baton. Only shared: true crosses those
boundaries." A private baton's content — its failed approaches, and the
decisions of a rich handoff scoped privately — stays with its owner and
branch, pending or claimed. Ordinary handoffs and shared batons reach every
brief. (Ordinary handoffs count only once validated — tests/test_brief_validation.py
— so the rich handoff here is validated: the isolation is what is under test.)
"""

from __future__ import annotations

from baton.domain.batons import SCOPE_FIELD, visible_handoffs
from tests.app_support import scope_handoff_as_baton
from tests.batons_support import ALICE, BOB, capture_handoff, leave, start

ALICE_TRAP = "alice private failed approach"


def capture(project, payload) -> str:
    """Capture and validate (pass): only validated handoffs reach a brief."""
    from tests.app_support import validate_handoff_command

    handoff_id = capture_handoff(project, payload)
    assert validate_handoff_command(project, handoff_id).report["status"] == "pass"
    return handoff_id


def _ready(project) -> str:
    """The rich handoff made ready: only a handoff its receiver can resume is handed on."""
    from tests.app_support import promote_handoff

    handoff_id = capture(project, RICH)
    promote_handoff(project, handoff_id, accept_warnings="test fixture")
    return handoff_id


RICH = {
    "work": {"title": "OAuth callback", "objective": "Reject replayed callbacks"},
    "open_items": [{"description": "Add the duplicate-callback fixture", "suggested_action": "Write it",
                    "acceptance_check": "A replayed callback is rejected"}],
    "decisions": [{"decision": "Compare state values in constant time", "rationale": "timing leaks"}],
    "failed_attempts": [{"approach": "Library X", "outcome": "failed", "avoid_repeating": True}],
}


# -- through bootstrap --------------------------------------------------------------------

def test_another_owner_on_another_branch_never_sees_a_pending_private_batons_failed_approaches(project):
    leave(project, "s1", steps=["alice private step"], failed=[ALICE_TRAP], owner="alice", branch="main")
    result = start(project, owner="bob", branch="other", session="s2")
    assert ALICE_TRAP not in result.brief.text
    assert "Traps" not in result.brief.text


def test_another_owner_on_the_same_branch_never_sees_a_private_batons_failed_approaches(project):
    leave(project, "s1", failed=[ALICE_TRAP], owner=ALICE, branch="main")
    result = start(project, owner=BOB, branch="main", session="s2")
    assert ALICE_TRAP not in result.brief.text


def test_the_same_owner_on_another_branch_never_sees_a_private_batons_failed_approaches(project):
    leave(project, "s1", failed=[ALICE_TRAP], owner=ALICE, branch="main")
    result = start(project, owner=ALICE, branch="feature/x", session="s2")
    assert ALICE_TRAP not in result.brief.text


def test_a_claimed_private_batons_failed_approaches_still_never_cross_owners(project):
    leave(project, "s1", failed=[ALICE_TRAP], owner=ALICE, branch="main")
    assert start(project, owner=ALICE, branch="main", session="s2").record is not None
    result = start(project, owner=BOB, branch="main", session="s3")
    assert ALICE_TRAP not in result.brief.text


def test_the_owner_on_the_same_branch_keeps_the_traps_of_her_claimed_baton(project):
    leave(project, "s1", failed=[ALICE_TRAP], owner=ALICE, branch="main")
    start(project, owner=ALICE, branch="main", session="s2")
    result = start(project, owner=ALICE, branch="main", session="s3")
    assert "## ⚠️ Traps — do not retry" in result.brief.text
    assert ALICE_TRAP in result.brief.text


def test_a_shared_batons_failed_approaches_reach_every_owner_and_branch(project):
    leave(project, "s1", failed=["shared trap"], owner=ALICE, branch="main", shared=True)
    start(project, owner=BOB, branch="dev", session="s2")  # claims it
    result = start(project, owner="carol", branch="other", session="s3")
    assert "shared trap" in result.brief.text


def test_an_ordinary_handoffs_traps_and_decisions_reach_every_owner_and_branch(project):
    capture(project, RICH)
    result = start(project, owner=BOB, branch="other", session="s1")
    assert "Library X" in result.brief.text
    assert "Compare state values in constant time" in result.brief.text


def test_a_rich_handoff_scoped_privately_keeps_its_traps_and_decisions_from_other_owners(project):
    handoff_id = _ready(project)
    scope_handoff_as_baton(project, handoff_id, owner=ALICE, branch="main")
    result = start(project, owner=BOB, branch="main", session="s1")
    assert "Library X" not in result.brief.text
    assert "Compare state values in constant time" not in result.brief.text


def test_a_rich_handoff_scoped_as_a_shared_baton_still_reaches_every_brief(project):
    handoff_id = _ready(project)
    scope_handoff_as_baton(project, handoff_id, owner=ALICE, branch="main", shared=True)
    start(project, owner=ALICE, branch="main", session="s1")  # claims it
    result = start(project, owner=BOB, branch="dev", session="s2")
    assert "Library X" in result.brief.text


# -- the rule itself ------------------------------------------------------------------------

def record(ident, created, scope=None):
    out = {"id": ident, "created_at": created, "status": "draft",
           "failed_attempts": [{"approach": f"trap of {ident}", "outcome": "failed", "avoid_repeating": True}]}
    if scope is not None:
        out[SCOPE_FIELD] = scope
    return out


def test_a_handoff_without_any_baton_scope_is_visible_to_everyone():
    assert [r["id"] for r in visible_handoffs([record("h1", "t1")], {}, owner=BOB, branch="x")] == ["h1"]


def test_a_handoff_the_baton_index_scoped_privately_is_visible_only_to_that_owner_and_branch():
    scopes = {"h1": [{"owner": ALICE, "branch": "main", "shared": False}]}
    assert visible_handoffs([record("h1", "t1")], scopes, owner=BOB, branch="main") == []
    assert len(visible_handoffs([record("h1", "t1")], scopes, owner=ALICE, branch="main")) == 1


def test_any_shared_scoping_makes_a_handoff_visible_to_everyone():
    scopes = {"h1": [{"owner": ALICE, "branch": "main", "shared": False},
                     {"owner": ALICE, "branch": "main", "shared": True}]}
    assert len(visible_handoffs([record("h1", "t1")], scopes, owner=BOB, branch="dev")) == 1


def test_a_malformed_baton_scope_hides_the_handoff_from_every_brief():
    for bad in ("alice", {"owner": 3, "branch": None}, {"shared": "yes"}, []):
        r = record("h1", "t1", scope=bad)
        assert visible_handoffs([r], {}, owner=ALICE, branch="main") == [], bad


def test_private_batons_hidden_from_the_caller_do_not_crowd_out_the_recent_window():
    hidden = [record(f"a{i:02d}", f"2026-01-02T00:00:{i:02d}Z",
                     scope={"owner": ALICE, "branch": "main", "shared": False}) for i in range(30)]
    ordinary = record("old", "2026-01-01T00:00:00Z")
    out = visible_handoffs(hidden + [ordinary], {}, owner=BOB, branch="main", limit=20)
    assert [r["id"] for r in out] == ["old"]
