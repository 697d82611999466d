"""Two revisions of one ready handoff can both become ready; the second says so."""

from __future__ import annotations

from baton.app import Baton
from tests.app_support import promote_handoff, validate_handoff_command
from tests.handoff_support import payload


def _ready(project, handoff_id):
    validate_handoff_command(project, handoff_id)
    return promote_handoff(project, handoff_id, accept_warnings="synthetic test record")


def _two_amendments(project):
    with Baton.open(project) as app:
        parent = app.capture(payload()).handoff_id
    _ready(project, parent)
    with Baton.open(project) as app:
        first = app.amend(parent, changes={"summary": {"current_state": "First correction"}}).handoff_id
        second = app.amend(parent, changes={"summary": {"current_state": "Second correction"}}).handoff_id
    return parent, first, second


def test_the_second_ready_revision_of_a_parent_names_the_first_and_suggests_a_merge(project):
    parent, first, second = _two_amendments(project)
    assert _ready(project, first).superseded == (parent,)
    result = _ready(project, second)
    assert result.superseded == () and result.split_from == ((parent, first),)
    assert result.to_json()["split_from"] == [{"parent": parent, "other": first}]
    assert f"baton merge {first[-8:]} {second[-8:]}" in result.render().replace("-", "")


def test_a_single_revision_reports_no_split(project):
    parent, first, _ = _two_amendments(project)
    assert _ready(project, first).split_from == ()
