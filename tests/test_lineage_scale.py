"""Lineage at scale: the graph's answers equal the plain definitions on any DAG, and no
question recurses or compares every pair (spec §14; a chain can be 100,000 deep)."""

from __future__ import annotations

from collections import deque

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.domain.lineage import (
    Graph,
    Node,
    conflict_candidates,
    conflicts_touching,
    render_dot,
    render_mermaid,
    render_text,
    to_json,
)

SUBJECTS = ("token store", "cache", "queue")
CHOICES = ("redis", "postgres", "memory")


def _ident(i: int) -> str:
    return f"01900000-0000-7000-8000-{i:012d}"


@st.composite
def dags(draw):
    """Random lineage graphs: continuations, forks, merges, erased parents, archived nodes."""
    n = draw(st.integers(1, 14))
    nodes = []
    for i in range(n):
        parents: list[str] = []
        if i and draw(st.integers(0, 4)):
            parents.append(_ident(draw(st.integers(0, i - 1))))
            if i > 1 and draw(st.integers(0, 4)) == 0:
                second = _ident(draw(st.integers(0, i - 1)))
                if second not in parents:
                    parents.append(second)
        if draw(st.integers(0, 9)) == 0:
            parents.append(_ident(1000 + i))  # a parent that was erased
        relation = "merge" if len(parents) > 1 else ("continue" if parents else "root")
        decisions = tuple(
            {"id": f"D-{draw(st.integers(1, 2))}" if draw(st.booleans()) else None,
             "subject": draw(st.sampled_from(SUBJECTS)), "choice": draw(st.sampled_from(CHOICES)),
             "text": "t", "kind": None}
            for _ in range(draw(st.integers(0, 2))))
        status = "archived" if draw(st.integers(0, 7)) == 0 else "ready"
        nodes.append(Node(_ident(i), relation, tuple(parents), None, "t", f"2026-01-01T00:00:{i:02d}Z",
                          decisions, status))
    return Graph(nodes)


def _ancestors(graph: Graph, ident: str) -> set[str]:
    seen: set[str] = set()
    queue = deque(graph.nodes[ident].parents)
    while queue:
        x = queue.popleft()
        if x not in seen:
            seen.add(x)
            if x in graph.nodes:
                queue.extend(graph.nodes[x].parents)
    return seen


def _divergent(graph: Graph, a: str, b: str) -> bool:
    up_a, up_b = _ancestors(graph, a), _ancestors(graph, b)
    return a != b and a not in up_b and b not in up_a and bool(up_a & up_b)


def _merged(graph: Graph, a: str, b: str) -> bool:
    return any(n.relation == "merge" and n.status != "archived" and {a, b} <= _ancestors(graph, n.id)
               for n in graph.nodes.values())


def _candidates(graph: Graph) -> set[tuple[str, str, str, str]]:
    """Every pair, compared: the definition the indexed search must equal."""
    out = set()
    for a in graph.nodes.values():
        for b in graph.nodes.values():
            if a.id >= b.id or "archived" in (a.status, b.status):
                continue
            for da in a.decisions:
                for db in b.decisions:
                    if da["choice"] == db["choice"] or not _divergent(graph, a.id, b.id) or _merged(graph, a.id, b.id):
                        continue
                    if da["id"] and da["id"] == db["id"]:
                        out.add((a.id, b.id, "id", da["id"]))
                    if da["subject"] == db["subject"]:
                        out.add((a.id, b.id, "subject", da["subject"]))
    return out


@given(dags())
def test_ancestry_and_divergence_equal_their_definitions_on_any_graph(graph):
    for a in graph.nodes:
        for b in graph.nodes:
            assert graph.is_ancestor(a, b) == (a in _ancestors(graph, b))
            assert graph.divergent(a, b) == _divergent(graph, a, b)
            assert graph.merged(a, b) == _merged(graph, a, b)


@given(dags())
def test_conflict_candidates_found_by_index_equal_every_pair_compared(graph):
    found = {(c.a, c.b, c.basis, c.key) for c in conflict_candidates(graph)}
    expected = _candidates(graph)
    # A pair contradicting by id and by subject on the same two decisions is reported once (by id).
    assert {(a, b) for a, b, _, _ in found} == {(a, b) for a, b, _, _ in expected}
    assert found <= expected


@given(dags())
def test_the_candidates_a_record_carries_are_those_on_its_line_not_yet_merged(graph):
    candidates = conflict_candidates(graph)
    for ident in graph.nodes:
        line = {ident} | _ancestors(graph, ident)
        expected = [c for c in candidates if (c.a in line or c.b in line) and not (c.a in line and c.b in line)]
        assert conflicts_touching(candidates, graph, ident) == expected


def _chain(depth: int, fork_at: int | None = None) -> Graph:
    nodes = [Node(_ident(0), "root", (), None, "t", "2026-01-01T00:00:00Z", (), "ready")]
    for i in range(1, depth):
        choice = "redis" if i % 2 else "postgres"
        nodes.append(Node(_ident(i), "continue", (_ident(i - 1),), None, "t", f"2026-01-01T00:00:00.{i:06d}Z",
                          ({"id": "D-1", "subject": "token store", "choice": choice, "text": choice, "kind": None},),
                          "ready"))
    if fork_at is not None:
        nodes.append(Node(_ident(depth), "fork", (_ident(fork_at),), "b", "t", "2026-01-02T00:00:00Z",
                          ({"id": "D-1", "subject": "token store", "choice": "memory", "text": "memory",
                            "kind": None},), "ready"))
    return Graph(nodes)


AT_SCALE = pytest.mark.slow(reason="a chain 100,000 deep, rendered in four formats")
"""Run by the README's slow command (CI runs it). The main suite keeps the deep chain's
candidates (20,000 deep) and the graph's answers on any DAG."""


@AT_SCALE
def test_a_chain_one_hundred_thousand_deep_renders_in_every_format_without_recursion():
    graph = _chain(100_000)
    view = to_json(graph, set(graph.nodes), conflict_candidates(graph))
    text = render_text(view)
    assert len(text.splitlines()) == 100_000
    assert max(len(line) - len(line.lstrip()) for line in text.splitlines()) == 0  # a chain keeps its column
    assert render_mermaid(view).count("-->") == 99_999
    assert render_dot(view).count("->") == 99_999


def test_a_deep_chain_that_changes_its_mind_has_no_candidates_and_a_fork_off_it_has_one_per_differing_node():
    assert conflict_candidates(_chain(20_000)) == []
    forked = conflict_candidates(_chain(2_000, fork_at=1_000))
    # The fork's "memory" contradicts each node of the chain after the fork point (its divergent branch).
    assert len(forked) == 999 and all(_ident(2_000) in (c.a, c.b) for c in forked)


@given(dags(), st.integers(0, 3))
def test_the_candidates_each_record_carries_found_at_once_equal_those_found_one_by_one(graph, keep):
    from baton.domain.lineage import conflicts_touching_each

    candidates = conflict_candidates(graph)
    idents = [*graph.nodes, "01900000-0000-7000-8000-999999999999"]  # and one that is not in the graph
    for used in (candidates, candidates[:keep]):  # few candidates: a longer line tests them one by one
        each = conflicts_touching_each(used, graph, idents)
        assert all(each[ident] == conflicts_touching(used, graph, ident) for ident in idents)
