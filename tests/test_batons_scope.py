"""A rich handoff can be scoped to an owner and branch (or shared) and delivered at session start."""

from __future__ import annotations

import pytest

from baton.commands.context import Project
from baton.errors import Conflict, InputError, NotFound
from tests.app_support import scope_handoff_as_baton
from tests.batons_support import ALICE, BOB, active, capture_handoff, start

RICH = {
    "work": {"title": "OAuth callback", "objective": "Reject replayed callbacks"},
    "summary": {"current_state": "Helper written; fixture missing."},
    "open_items": [{"description": "Add the duplicate-callback fixture",
                    "suggested_action": "Create it and run the auth suite",
                    "acceptance_check": "The fixture proves a replay is rejected", "priority": "high"}],
    "failed_attempts": [{"approach": "Library X", "outcome": "failed", "reason": "no multi-tenant support",
                         "avoid_repeating": True},
                        {"approach": "Retry later", "outcome": "abandoned", "avoid_repeating": False}],
}


def capture(project, payload=RICH) -> str:
    return capture_handoff(project, payload)


def handoff_status(project, handoff_id):
    opened = Project.open(project)
    try:
        return opened.reading().get("handoffs", handoff_id)["status"]
    finally:
        opened.close()


def make_ready(project, handoff_id):
    from tests.app_support import promote_handoff, validate_handoff_command

    report = validate_handoff_command(project, handoff_id)
    promote_handoff(project, handoff_id, accept_warnings="test fixture: no evidence needed")
    assert handoff_status(project, handoff_id) == "ready", report.render()


def ready(project, payload=RICH) -> str:
    """A ready handoff: only a handoff its receiver can resume is handed on."""
    handoff_id = capture(project, payload)
    make_ready(project, handoff_id)
    return handoff_id


def test_a_rich_handoff_scoped_to_owner_and_branch_is_delivered_at_session_start(project):
    handoff_id = ready(project)
    created = scope_handoff_as_baton(project, handoff_id, owner=ALICE, branch="main").created.record
    assert created.id == handoff_id
    assert created.next_steps == ("[high] Add the duplicate-callback fixture — Create it and run the auth suite",)
    assert created.failed_approaches == ("Library X — no multi-tenant support",)
    assert active(project, owner=BOB) is None
    got = start(project, session="s2")
    assert got.record.id == handoff_id


def test_a_rich_handoff_can_be_shared(project):
    handoff_id = ready(project)
    scope_handoff_as_baton(project, handoff_id, owner=ALICE, branch="main", shared=True)
    assert active(project, owner=BOB, branch="dev").id == handoff_id


def test_claiming_a_ready_handoff_marks_it_resumed(project):
    handoff_id = ready(project)
    scope_handoff_as_baton(project, handoff_id, owner=ALICE, branch="main")
    start(project, session="s2")
    assert handoff_status(project, handoff_id) == "resumed"


def test_a_newer_baton_supersedes_the_baton_but_not_the_ready_handoff_record(project):
    first = ready(project)
    scope_handoff_as_baton(project, first, owner=ALICE, branch="main")
    second = ready(project)
    scope_handoff_as_baton(project, second, owner=ALICE, branch="main")
    assert handoff_status(project, first) == "ready"
    assert active(project).id == second


def test_a_session_end_baton_stays_a_draft_when_claimed(project):
    from tests.batons_support import leave

    record = leave(project)
    start(project, session="s2")
    assert handoff_status(project, record.id) == "draft"


def test_a_handoff_without_open_items_cannot_be_a_baton(project):
    handoff_id = ready(project, {"work": {"title": "t", "objective": "o", "state": "completed"}})
    with pytest.raises(InputError, match="nextSteps must contain at least one non-empty step"):
        scope_handoff_as_baton(project, handoff_id, owner=ALICE, branch="main")


def test_scoping_an_unknown_handoff_exits_4(project):
    with pytest.raises(NotFound):
        scope_handoff_as_baton(project, "01234567-89ab-7def-8123-456789abcdef", owner=ALICE, branch="main")


def test_a_handoff_cannot_be_pending_twice(project):
    handoff_id = ready(project)
    scope_handoff_as_baton(project, handoff_id, owner=ALICE, branch="main")
    with pytest.raises(Conflict):
        scope_handoff_as_baton(project, handoff_id, owner=BOB, branch="dev")


def test_dismissing_a_handoff_handed_on_several_times_dismisses_its_pending_baton(project):
    from tests.app_support import cancel_baton, dismiss_baton, end_session, list_pending_batons

    handoff_id = ready(project)
    scope_handoff_as_baton(project, handoff_id, owner=ALICE, branch="main", shared=True)
    end_session(project, "x", {"nextSteps": ["a"], "shared": True})  # supersedes the shared one
    scope_handoff_as_baton(project, handoff_id, owner=ALICE, branch="main")
    cancel_baton(project, owner=ALICE, branch="main")
    scope_handoff_as_baton(project, handoff_id, owner=ALICE, branch="main")
    assert handoff_id in [r.id for r in list_pending_batons(project).records]
    assert dismiss_baton(project, handoff_id).record.key != "_shared"
    assert handoff_id not in [r.id for r in list_pending_batons(project).records]


def test_handing_on_accepts_latest_like_every_id_argument(project):
    handoff_id = ready(project)
    assert scope_handoff_as_baton(project, "latest", owner=ALICE, branch="main").created.record.id == handoff_id


def test_a_capture_cannot_pose_as_a_session_baton(project):
    from baton.app import Baton

    body = {"work": {"title": "t", "objective": "o"}, "baton": {"owner": ALICE, "branch": "main", "shared": True},
            "failed_attempts": [{"approach": "INJECTED TRAP", "outcome": "failed"}]}
    with Baton.open(project) as app, pytest.raises(InputError, match="payload.s baton field is set by Baton"):
        app.capture(body)
    assert "INJECTED TRAP" not in start(project).brief.text


def test_a_rich_handoff_delivered_as_a_baton_brings_its_objective_and_current_state(project):
    handoff_id = ready(project)
    scope_handoff_as_baton(project, handoff_id, owner=ALICE, branch="main")
    brief = start(project, session="s2").brief.text
    assert "**Objective:** Reject replayed callbacks" in brief
    assert "**Current state:** Helper written; fixture missing." in brief
    assert f"`baton resume {handoff_id.replace('-', '')[-8:]}`" in brief


def test_the_active_baton_view_shows_the_carried_objective_too(project):
    from tests.app_support import show_active_baton

    handoff_id = ready(project)
    scope_handoff_as_baton(project, handoff_id, owner=ALICE, branch="main")
    shown = show_active_baton(project, owner=ALICE, branch="main")
    assert "**Objective:** Reject replayed callbacks" in shown.render()
    assert "**Objective:** Reject replayed callbacks" in shown.to_json()["handoffMarkdown"]


def test_a_session_begin_that_claims_a_rich_handoff_shows_its_objective(project):
    from tests.app_support import begin_session

    handoff_id = ready(project)
    scope_handoff_as_baton(project, handoff_id, owner=ALICE, branch="main")
    begun = begin_session(project, session_id="s3", owner=ALICE, branch="main")
    assert begun.record.id == handoff_id
    assert "**Current state:** Helper written; fixture missing." in begun.render()


def test_a_small_budget_delivers_the_baton_without_its_handoffs_summary_rather_than_not_at_all(project):
    long_text = "word " * 78
    handoff_id = ready(project, {**RICH, "work": {"title": "OAuth", "objective": long_text},
                                   "summary": {"current_state": long_text}})
    scope_handoff_as_baton(project, handoff_id, owner=ALICE, branch="main")
    got = start(project, session="s2", max_bytes=1024)
    assert got.record is not None and got.record.id == handoff_id
    assert "**Objective:**" not in got.brief.text and "### Next steps" in got.brief.text
