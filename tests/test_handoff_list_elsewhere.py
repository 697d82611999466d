"""``handoff list`` lists handoffs (``--kind handoff``, the default) apart
from the session batons ``session end`` leaves (``--kind baton``): when none
of the listed kind match but records of the other kind do, the text says so
in one line, and which command lists them, so that a baton just left is not
taken for lost (docs/cli.md, ``handoff list``). ``--json`` is unchanged."""

from __future__ import annotations

from baton.app import Baton
from tests.app_support import end_session
from tests.cli_support import run, run_json
from tests.handoff_support import payload


def _leave_batons(project, n: int) -> None:
    for i in range(n):
        end_session(project, f"s{i}", {"nextSteps": ["carry on"]})


def test_an_empty_handoff_list_names_the_one_session_baton_a_session_end_left(capsys, project):
    _leave_batons(project, 1)
    code, out, err = run(capsys, project, "handoff", "list")
    assert (code, err) == (0, "")
    assert out == "No handoffs yet; 1 session baton: `baton handoff list --kind baton`.\n"


def test_the_hint_counts_several_batons_in_the_plural(capsys, project):
    _leave_batons(project, 2)
    _code, out, _err = run(capsys, project, "handoff", "list")
    assert out == "No handoffs yet; 2 session batons: `baton handoff list --kind baton`.\n"


def test_the_command_the_hint_names_lists_the_baton(capsys, project):
    _leave_batons(project, 1)
    listed = run_json(capsys, project, "handoff", "list", "--kind", "baton")
    assert listed["count"] == 1 and listed["handoffs"][0]["kind"] == "baton"


def test_an_empty_project_says_only_no_handoffs_yet(capsys, project):
    _code, out, _err = run(capsys, project, "handoff", "list")
    assert out == "No handoffs yet.\n"


def test_an_empty_baton_listing_names_the_handoffs_the_default_lists(capsys, project):
    with Baton.open(project) as app:
        app.capture(payload())
    _code, out, _err = run(capsys, project, "handoff", "list", "--kind", "baton")
    assert out == "No session batons yet; 1 handoff: `baton handoff list`.\n"


def test_with_a_filter_the_hint_counts_only_the_other_kinds_matches(capsys, project):
    _leave_batons(project, 1)
    _code, draft, _err = run(capsys, project, "handoff", "list", "--status", "draft")  # a baton's record is a draft
    _code, ready, _err = run(capsys, project, "handoff", "list", "--status", "ready")
    assert draft == "No handoffs match; 1 session baton does: add `--kind baton`.\n"
    assert ready == "No handoffs match.\n"


def test_a_filtered_empty_baton_listing_says_to_drop_kind_baton_to_list_the_handoffs(capsys, project):
    with Baton.open(project) as app:
        app.capture(payload())
    _code, out, _err = run(capsys, project, "handoff", "list", "--kind", "baton", "--status", "draft")
    assert out == "No session batons match; 1 handoff does: drop `--kind baton`.\n"


def test_the_json_listing_is_unchanged_by_the_hint(capsys, project):
    _leave_batons(project, 1)
    listed = run_json(capsys, project, "handoff", "list")
    assert listed == {"handoffs": [], "count": 0, "more": False, "total": 0, "next_cursor": None,
                      "filters": {"status": None, "work": None, "kind": "handoff", "branch": None,
                                  "by": None, "mine": False, "cursor": None}}
