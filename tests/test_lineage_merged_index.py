"""Whether a live merge joined two nodes, answered from one bitmask per node
(the live merges below it) instead of an ancestry test per merge per pair:
equal to the plain definition on any graph, damaged ones with cycles included."""

from __future__ import annotations

from collections import deque

from hypothesis import given
from hypothesis import strategies as st

from baton.domain.lineage import Graph, Node


def _ident(i: int) -> str:
    return f"01900000-0000-7000-8000-{i:012d}"


@st.composite
def graphs(draw):
    """Parents drawn from any node, later ones too (a cycle is damaged data, still answered)."""
    n = draw(st.integers(1, 12))
    nodes = []
    for i in range(n):
        parents = list(dict.fromkeys(_ident(p) for p in draw(st.lists(st.integers(0, n + 1), max_size=3))))
        relation = "merge" if len(parents) > 1 else ("continue" if parents else "root")
        status = "archived" if draw(st.integers(0, 5)) == 0 else "ready"
        nodes.append(Node(_ident(i), relation, tuple(parents), None, "t", f"2026-01-01T00:00:{i:02d}Z", (), status))
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


@given(graphs())
def test_merged_equals_a_live_merge_having_both_among_its_strict_ancestors(graph):
    lines = {m.id: _ancestors(graph, m.id) - {m.id} for m in graph.nodes.values()
             if m.relation == "merge" and m.status != "archived"}
    everyone = set(graph.nodes) | {p for n in graph.nodes.values() for p in n.parents}
    for a in everyone:
        for b in everyone:
            assert graph.merged(a, b) == any({a, b} <= line for line in lines.values()), (a, b)


@given(graphs())
def test_two_nodes_in_different_parts_never_share_an_ancestor(graph):
    parts = graph.parts()
    for a in graph.nodes:
        for b in graph.nodes:
            if parts[a] != parts[b]:
                up_a, up_b = _ancestors(graph, a) | {a}, _ancestors(graph, b) | {b}
                assert not up_a & up_b
        assert all(parts[p] == parts[a] for p in graph.nodes[a].parents)


def test_separate_lines_each_deciding_d_001_otherwise_are_never_compared(monkeypatch):
    """Two handoffs with no path between them cannot diverge: no pair across parts is even tested."""
    from baton.domain.lineage import conflict_candidates

    nodes = []
    for line in range(300):  # 300 separate root + continuation pairs, every record deciding D-001 its own way
        root, child = _ident(2 * line), _ident(2 * line + 1)
        for ident, parents, choice in ((root, (), f"redis {line}"), (child, (root,), f"postgres {line}")):
            nodes.append(Node(ident, "continue" if parents else "root", parents, None, "t",
                              f"2026-01-01T00:{line // 60:02d}:{line % 60:02d}Z",
                              ({"id": "D-001", "subject": "token store", "choice": choice, "text": choice,
                                "kind": None},), "ready"))
    graph = Graph(nodes)
    calls = []
    real = Graph.divergent
    monkeypatch.setattr(Graph, "divergent", lambda self, a, b: calls.append((a, b)) or real(self, a, b))

    assert conflict_candidates(graph) == []
    assert calls == []
