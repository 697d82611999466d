"""A long-lived process (the MCP server, the status page) asking ``handoff list``
the same question of an unchanged index gets the answer it computed before,
without a query; any change to the index, by this process or another, makes
the next list a fresh one (``runner.memo``)."""

from __future__ import annotations

import pytest

from baton.app import Baton
from baton.projections import handoffs
from tests.handoff_support import payload


@pytest.fixture
def queries(monkeypatch):
    """Counts the index queries ``handoff list`` makes for its rows."""
    made = []
    newest = handoffs.newest

    def counting(*args, **kwargs):
        made.append(kwargs)
        return newest(*args, **kwargs)

    monkeypatch.setattr(handoffs, "newest", counting)
    return made


def test_the_same_list_of_an_unchanged_index_is_answered_without_a_query(project, queries):
    with Baton.open(project) as app:
        app.capture(payload())
        first = app.list_handoffs(limit=20)
        again = app.list_handoffs(limit=20)
    assert again is first and len(queries) == 1
    assert first.to_json()["count"] == 1


def test_a_list_after_this_process_writes_holds_what_it_wrote(project, queries):
    with Baton.open(project) as app:
        before = app.list_handoffs(limit=20)
        captured = app.capture(payload())
        after = app.list_handoffs(limit=20)
    assert before.to_json()["count"] == 0
    assert [h["id"] for h in after.to_json()["handoffs"]] == [captured.to_json()["id"]]


def test_a_list_after_another_process_writes_holds_what_it_wrote(project, queries):
    with Baton.open(project) as app:
        before = app.list_handoffs()
        with Baton.open(project) as other:
            captured = other.capture(payload())
        after = app.list_handoffs()
    assert before.to_json()["count"] == 0
    assert [h["id"] for h in after.to_json()["handoffs"]] == [captured.to_json()["id"]]


def test_lists_asked_with_different_filters_are_each_answered_for_their_own(project, queries):
    with Baton.open(project) as app:
        app.capture(payload())
        drafts = app.list_handoffs(status="draft")
        ready = app.list_handoffs(status="ready")
        drafts_again = app.list_handoffs(status="draft")
    assert drafts.to_json()["count"] == 1 and ready.to_json()["count"] == 0
    assert drafts_again is drafts and len(queries) == 2


def test_a_limit_past_sqlites_integers_lists_every_handoff(project, baton_cli):
    with Baton.open(project) as app:
        app.capture(payload())
    result = baton_cli("handoff", "list", "--limit", str(2**63), "--json", "--project", str(project))
    assert result.returncode == 0, result.stderr
    assert '"count":1' in result.stdout.replace(" ", "")
