"""A session start with no baton waiting points at the newest ready handoff (spec §12)."""

from __future__ import annotations

from baton.domain.batons import LATEST_HEADING, render_latest_markdown
from tests.app_support import scope_handoff_as_baton
from tests.batons_support import ALICE, BOB, start
from tests.test_batons_scope import RICH, capture, make_ready


def _ready(project, payload=RICH) -> str:
    handoff_id = capture(project, payload)
    make_ready(project, handoff_id)
    return handoff_id


def test_without_a_baton_the_brief_names_the_newest_ready_handoff_and_how_to_read_it(project):
    handoff_id = _ready(project)
    text = start(project, session="s1").brief.text
    assert text.startswith(LATEST_HEADING)
    assert "**OAuth callback**" in text and f"`baton resume {handoff_id[-8:]}`" in text


def test_an_empty_project_still_gets_the_standard_brief(project):
    text = start(project, session="s1").brief.text
    assert LATEST_HEADING not in text and "No session handoff waits for this session" in text


def test_a_draft_is_never_named_as_the_latest_ready_handoff(project):
    capture(project)
    assert LATEST_HEADING not in start(project, session="s1").brief.text


def test_a_delivered_baton_takes_the_place_of_the_pointer(project):
    _ready(project)
    other = _ready(project)
    scope_handoff_as_baton(project, other, owner=ALICE, branch="main")
    got = start(project, session="s1")
    assert got.record.id == other and LATEST_HEADING not in got.brief.text


def test_another_owners_private_baton_is_never_pointed_at(project):
    handoff_id = _ready(project)
    scope_handoff_as_baton(project, handoff_id, owner=BOB, branch="main")
    assert LATEST_HEADING not in start(project, owner=ALICE, session="s1").brief.text


def test_a_newer_private_baton_of_another_owner_does_not_hide_the_older_ready_handoff(project):
    visible = _ready(project)
    hidden = _ready(project)
    scope_handoff_as_baton(project, hidden, owner=BOB, branch="main")
    text = start(project, owner=ALICE, session="s1").brief.text
    assert text.startswith(LATEST_HEADING)
    assert f"`baton resume {visible[-8:]}`" in text and hidden[-8:] not in text


def test_a_handoff_from_another_branch_is_named_as_the_projects_newest(project):
    _ready(project)
    text = start(project, branch="feature/x", session="s1").brief.text
    assert "this is the project's newest" in text


def test_the_pointer_is_left_out_when_it_does_not_fit_the_budget():
    from baton.domain.batons import assemble_brief

    objective_fills = "x" * 1000
    brief = assemble_brief(handoff_markdown=None, objective=objective_fills, decisions=[], traps=[],
                           max_bytes=1024, latest_markdown="## Latest ready handoff\n\n" + "y" * 200 + "\n")
    assert LATEST_HEADING not in brief.text and not brief.handoff_included


def test_a_malformed_record_renders_no_pointer():
    assert render_latest_markdown(None) == "" and render_latest_markdown({"work": {}}) == ""


def test_a_long_title_is_clipped():
    text = render_latest_markdown({"id": "0190a0b0-0000-7000-8000-00000000abcd", "work": {"title": "w " * 200}})
    assert "…" in text and len(text) < 400


def test_a_start_with_nothing_for_its_owner_beside_anothers_baton_does_not_call_the_project_empty(project):
    handoff_id = _ready(project)
    scope_handoff_as_baton(project, handoff_id, owner=BOB, branch="main")
    text = start(project, owner=ALICE, session="s1").brief.text
    assert "for this project" not in text
    assert "no objective, decisions or traps apply to its owner and branch yet" in text
    assert "`baton handoff list`" in text
