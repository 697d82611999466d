"""After `baton forget` of a parent, every edge of the lineage graph still resolves:
the parent stays as a placeholder node, status `erased` (its record, title and
decisions erased), so `lineage --format json`, `status --json`'s `lineage` (the
page's Lineage panel) and the text, mermaid and dot views agree with each other.

Without this, the JSON kept an edge to a node that was no longer in `nodes`,
mermaid dropped the edge silently and the text showed the fork as a top-level line.
"""

from __future__ import annotations

import pytest

from baton.domain.lineage import ERASED, MISSING, Node, with_placeholders
from tests.cli_support import forked_twice, run, run_json


def _capture(capsys, project, title: str) -> str:
    return run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", title,
                    "--objective", f"{title} objective here")["id"]


@pytest.fixture
def forgotten(capsys, project):
    """Parent P forked twice (two branches), then P forgotten: (P's id, the forks' ids)."""
    parent, forks = forked_twice(capsys, project)
    run_json(capsys, project, "forget", parent, "--yes")
    return parent, forks


def _dangling(view: dict) -> list[dict]:
    ids = {node["id"] for node in view["nodes"]}
    return [edge for edge in view["edges"] if edge["parent"] not in ids or edge["child"] not in ids]


def test_lineage_json_after_forgetting_a_parent_has_no_edge_to_a_missing_node(capsys, project, forgotten):
    view = run_json(capsys, project, "lineage", "--format", "json")
    assert view["edges"] and _dangling(view) == []


def test_a_forgotten_parent_stays_in_lineage_as_an_erased_placeholder(capsys, project, forgotten):
    parent, forks = forgotten
    view = run_json(capsys, project, "lineage", "--format", "json")
    [placeholder] = [node for node in view["nodes"] if node["id"] == parent]
    assert placeholder["status"] == ERASED and placeholder["relation"] == ERASED
    assert placeholder["title"] == "" and placeholder["parents"] == []  # nothing of the erased record
    assert sorted(edge["child"] for edge in view["edges"] if edge["parent"] == parent) == sorted(forks)


def test_lineage_of_one_fork_after_forgetting_its_parent_resolves_every_edge(capsys, project, forgotten):
    _, forks = forgotten
    view = run_json(capsys, project, "lineage", forks[0], "--format", "json")
    assert _dangling(view) == [] and {node["status"] for node in view["nodes"]} >= {ERASED}


def test_status_json_lineage_after_forgetting_a_parent_resolves_every_edge(capsys, project, forgotten):
    view = run_json(capsys, project, "status")["lineage"]
    assert view["edges"] and _dangling(view) == []


def test_lineage_text_shows_the_forks_under_the_erased_parent(capsys, project, forgotten):
    parent, forks = forgotten
    code, out, err = run(capsys, project, "lineage")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == f"{parent[-8:]} (erased by `baton forget`)"
    assert all(any(line.startswith(f"  {fork[-8:]} fork") for line in lines) for fork in forks)


def test_lineage_mermaid_keeps_the_edges_from_the_erased_parent(capsys, project, forgotten):
    parent, forks = forgotten
    code, out, _ = run(capsys, project, "lineage", "--format", "mermaid")
    assert code == 0
    assert f'n{parent[-8:]}["{parent[-8:]} erased: erased by baton forget"]' in out
    assert all(f"n{parent[-8:]} -->|fork| n{fork[-8:]}" in out for fork in forks)


def test_lineage_dot_declares_the_erased_parent_its_edges_leave(capsys, project, forgotten):
    parent, _ = forgotten
    code, out, _ = run(capsys, project, "lineage", "--format", "dot")
    assert code == 0
    assert f'"{parent}" [label="{parent[-8:]} erased\\nerased by baton forget"];' in out


def test_lineage_as_of_after_the_forget_shows_the_erased_placeholder_too(capsys, project, forgotten):
    parent, _ = forgotten
    view = run_json(capsys, project, "lineage", "--format", "json", "--as-of", "2999-01-01T00:00:00Z")
    assert _dangling(view) == [] and parent in {node["id"] for node in view["nodes"]}


def test_a_parent_no_record_or_stream_names_is_a_missing_placeholder():
    child = Node("c", "fork", ("p",), None, "child", "2026-12-06T10:00:00Z", ())
    nodes = with_placeholders([child], erased=())
    assert [(node.id, node.status, node.parents) for node in nodes] == [("c", "", ("p",)), ("p", MISSING, ())]



@pytest.mark.parametrize("as_shown", [lambda ident: ident[-8:], lambda ident: ident, lambda ident: ident[-8:-4]],
                         ids=["short-id", "full-id", "short-prefix"])
def test_lineage_of_an_erased_placeholders_id_shows_the_graph_around_it(capsys, project, forgotten, as_shown):
    parent, forks = forgotten
    view = run_json(capsys, project, "lineage", as_shown(parent), "--format", "json")
    assert view["root"] == parent and _dangling(view) == []
    assert {node["id"] for node in view["nodes"]} == {parent, *forks}


def test_handoff_show_of_an_erased_handoff_says_baton_forget_erased_it(capsys, project, forgotten):
    parent, _ = forgotten
    code, out, err = run(capsys, project, "handoff", "show", parent[-8:])
    assert code == 4 and out == ""
    assert err.strip().count("\n") == 0 and "was erased by `baton forget`" in err and parent in err


def test_lineage_of_an_erased_handoff_no_handoff_names_says_it_was_erased(capsys, project):
    lone = _capture(capsys, project, "Lone")
    run_json(capsys, project, "forget", lone, "--yes")
    code, _out, err = run(capsys, project, "lineage", lone[-8:])
    assert code == 4 and "was erased by `baton forget`" in err
