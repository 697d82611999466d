"""Conflict candidates as every reader sees them (spec §14): the graph (all of
it, or the part connected to some handoffs) and its unresolved candidates.

Read-only: ``handoff list``, ``validate``, ``resume`` (through
``baton.commands.lineage.conflicts_for``, only when the project has a branch)
and ``merge`` ask it; it imports no write command.
"""

from __future__ import annotations

from typing import Any, Sequence

from baton.domain.lineage import ConflictCandidate, Graph, conflict_candidates, conflicts_touching
from baton.projections.lineage import branched
from baton.projections.lineage_graph import load_component, load_graph


def current_conflicts(runner: Any, around: Sequence[str] | None = None) -> tuple[Graph, list[ConflictCandidate]]:
    """The graph (all of it, or the part connected to ``around``) and its
    unresolved conflict candidates — none, cheaply, when no handoff has two
    children."""
    if not branched(runner):
        return Graph(()), []
    graph = load_graph(runner) if around is None else load_component(runner, around)
    return graph, conflict_candidates(graph)


def conflicts_around(runner: Any, handoff_id: str) -> list[dict[str, Any]]:
    """The conflict candidates a record carries (on it or an ancestor), as JSON."""
    graph, candidates = current_conflicts(runner, [handoff_id])
    return [c.to_json() for c in conflicts_touching(candidates, graph, handoff_id)] if candidates else []


def ready_successors(runner: Any, handoff_id: str) -> list[str]:
    """The amendments and continuations of ``handoff_id`` that were made ready
    (or resumed since): more than one when clones apart each superseded it."""
    graph = load_component(runner, [handoff_id])
    return [child for child in graph.children.get(handoff_id, ())
            if graph.nodes[child].relation in ("amend", "continue")
            and graph.nodes[child].status in ("ready", "resumed")]
