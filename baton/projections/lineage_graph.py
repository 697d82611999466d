"""The lineage graph read from the index (spec §14): the ``lineage``
projection's nodes (``baton.projections.lineage``) as the lineage domain's
``Graph``, each node with its record's status and flags, which the
``handoffs`` projection owns (``handoff_rows``), and a placeholder node for
each parent named that has no record (erased by ``baton forget``, or missing),
so that every edge resolves.

Kept apart from the projection's routing and tables so that a command which
only asks whether the project has a branch at all (``resume``, a session
start) never loads the lineage domain.
"""

from __future__ import annotations

from typing import Any, Iterable

import orjson

from baton.domain.lineage import Graph, Node, absent_parents, with_placeholders
from baton.events.names import handoff_stream
from baton.projections.handoffs import ROWS_TABLE
from baton.projections.lineage import component_ids


def load_graph(runner: Any) -> Graph:
    """The whole graph, each node with its record's status and flags. The records session
    batons carry (``session end`` with handoff steps) are left out when nothing links them to
    another handoff: a day of sessions would otherwise fill the graph with lone roots
    (``handoff list`` hides them too; ``lineage ID`` still shows one asked for)."""
    states: dict[str, tuple[str, tuple[str, ...]]] = {}
    lone_batons: set[str] = set()
    for ident, status, flags, baton in runner.db.execute(f"SELECT id, status, flags, baton FROM {ROWS_TABLE}"):
        states[ident] = (status or "", tuple(orjson.loads(flags or "[]")))
        if baton:
            lone_batons.add(ident)
    nodes = []
    for key, doc in runner.docs("lineage"):
        status, flags = states.get(key, ("", ()))
        nodes.append(Node.from_doc(doc, status=status, flags=flags))
    linked = {parent for node in nodes for parent in node.parents}
    return Graph(_resolved(runner, [node for node in nodes
                                    if not (node.id in lone_batons and not node.parents and node.id not in linked)]))


def load_component(runner: Any, ids: Iterable[str]) -> Graph:
    """The part of the graph connected to ``ids``, with statuses and flags."""
    wanted = sorted(component_ids(runner.db, ids))
    nodes = []
    for i in range(0, len(wanted), 500):
        chunk = wanted[i:i + 500]
        marks = ", ".join("?" * len(chunk))
        states = {ident: (status or "", tuple(orjson.loads(flags or "[]"))) for ident, status, flags in
                  runner.db.execute(f"SELECT id, status, flags FROM {ROWS_TABLE} WHERE id IN ({marks})", chunk)}
        for ident in chunk:
            doc = runner.get("lineage", ident)
            if doc is not None:
                status, flags = states.get(ident, ("", ()))
                nodes.append(Node.from_doc(doc, status=status, flags=flags))
    return Graph(_resolved(runner, nodes))


def _resolved(runner: Any, nodes: list[Node]) -> list[Node]:
    """``nodes``, with a placeholder for each parent they name that has no node
    (``with_placeholders``), so every edge of the graph resolves: ``erased`` when
    its capture was erased by ``baton forget`` (its stream, and its
    ``handoff.forgotten``, stay), else ``missing``. One indexed lookup each."""
    absent = absent_parents(nodes)
    if not absent:
        return nodes
    streams = "streams" in runner.by_name
    erased = {ident for ident in absent if streams and runner.has("streams", handoff_stream(ident))}
    return with_placeholders(nodes, erased)
