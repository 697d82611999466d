"""The status page's Lineage panel and the status API's lineage graph (spec §14 views)."""

from __future__ import annotations

from baton.web.page import SCRIPT, render_page
from tests.app_support import _call, promote_handoff, status_overview, validate_handoff_command
from tests.handoff_support import payload


def _branches(project):
    parent = _call(project, "capture", payload()).handoff_id
    validate_handoff_command(project, parent)
    promote_handoff(project, parent, accept_warnings="synthetic test record")
    a = _call(project, "capture", payload(decisions=[{"id": "D-001", "decision": "Queue: SQS"}]), parent=parent)
    b = _call(project, "capture", payload(decisions=[{"id": "D-001", "decision": "Queue: Kafka"}]), parent=parent)
    return parent, a.handoff_id, b.handoff_id


def test_the_status_api_carries_the_graph_of_the_latest_handoffs_and_its_conflicts(project):
    parent, a, b = _branches(project)
    body = status_overview(project).to_json()
    graph = body["lineage"]
    assert {n["id"] for n in graph["nodes"]} == {parent, a, b}
    assert {(e["parent"], e["child"]) for e in graph["edges"]} == {(parent, a), (parent, b)}
    assert [c["key"] for c in graph["conflicts"]] == ["D-001"]
    flagged = {h["id"] for h in body["latestHandoffs"] if h["conflicts"]}
    assert flagged == {a, b}


def test_the_status_api_spells_the_lineage_graph_in_camel_case_like_the_rest(project):
    _branches(project)
    graph = status_overview(project).to_json()["lineage"]

    def keys(value):
        if isinstance(value, dict):
            for k, v in value.items():
                yield k
                yield from keys(v)
        elif isinstance(value, list):
            for v in value:
                yield from keys(v)

    assert {"shortId", "graphRelation", "createdAt"} <= set(keys(graph))
    assert not [k for k in keys(graph) if "_" in k]


def test_baton_status_text_names_the_conflict_candidates(project):
    _branches(project)
    text = status_overview(project).render()
    assert "conflict candidate" in text and "Conflict candidates: 1" in text


def test_the_page_holds_a_lineage_panel_drawn_by_its_own_script():
    page = render_page(project_id="p", token="t").decode()
    assert 'id="lineage-panel"' in page and 'id="lineage-tree"' in page
    assert "renderLineage(body.lineage)" in SCRIPT and "innerHTML" not in SCRIPT
