"""A handoff handed on as a baton lists its next steps in the order `resume` takes its open items, each
marked with its priority, so the session that claims it is told to do first what `resume`'s FIRST NEXT
ACTION says (tester-use22 T1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from baton.app import Baton
from tests.app_support import init_project
from tests.handoff_support import git_init, payload

ITEMS = [
    {"description": "OI first: write idle test", "suggested_action": "add test", "acceptance_check": "it passes",
     "priority": "low"},
    {"description": "OI second: document", "suggested_action": "edit README", "acceptance_check": "it reads",
     "priority": "high"},
    {"description": "OI third: changelog"},
]


@pytest.fixture
def handed_on(tmp_path) -> tuple[Path, dict, str]:
    root = tmp_path / "repo"
    root.mkdir()
    git_init(root, {"README.md": "hello\n"})
    init_project(root)
    with Baton.open(root) as app:
        handoff_id = app.capture(payload(open_items=ITEMS)).handoff_id
        app.validate(handoff_id)
        app.promote(handoff_id, accept_warnings="synthetic test data")
        created = app.hand_on(handoff_id, owner="alice", branch="main").to_json()
        brief = app.resume(handoff_id, format="prompt").render()
    return root, created, brief


def test_a_handed_on_batons_next_steps_come_in_the_order_resume_takes_its_open_items(handed_on):
    _, created, _ = handed_on
    assert created["handoff"]["nextSteps"] == ["[high] OI second: document — edit README",
                                             "[low] OI first: write idle test — add test", "OI third: changelog"]


def test_a_handed_on_batons_first_next_step_is_resumes_first_next_action(handed_on):
    _, created, brief = handed_on
    first_action = brief.split("FIRST NEXT ACTION:\n", 1)[1].splitlines()[0]
    assert first_action.endswith("[high]: OI second: document")
    assert created["handoff"]["nextSteps"][0].startswith("[high] OI second: document")
