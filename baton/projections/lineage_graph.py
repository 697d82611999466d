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
from baton.ledger import erase
from baton.projections.handoffs import ROWS_TABLE
from baton.projections.lineage import NODES_TABLE, component_ids


def load_graph(runner: Any) -> Graph:
    """The whole graph, each node with its record's status and flags; a node whose record the
    ``handoffs`` projection no longer holds (``handoff.forgotten`` removed it, and a forget
    interrupted before its rewrite leaves the node folded) is a placeholder (``_resolved``). The records session
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
        if key not in states:
            continue  # its record removed by a `baton forget` (one interrupted: the node is still folded)
        status, flags = states[key]
        nodes.append(Node.from_doc(doc, status=status, flags=flags))
    linked = {parent for node in nodes for parent in node.parents}
    return Graph(_resolved(runner, [node for node in nodes
                                    if not (node.id in lone_batons and not node.parents and node.id not in linked)]))


def load_component(runner: Any, ids: Iterable[str]) -> Graph:
    """The part of the graph connected to ``ids``, with statuses and flags."""
    return Graph(_resolved(runner, _nodes(runner, sorted(component_ids(runner.db, ids)))))


def load_merges(runner: Any) -> Graph:
    """The merge nodes alone, with statuses and flags (their parents are not nodes): what
    ``lineage.duplicate_merges`` reads, found in the ``lineage_nodes`` table without loading the
    rest of the graph (a sync asks it before and after its import). Empty without the projection."""
    if "lineage" not in runner.by_name:
        return Graph(())
    return Graph(_nodes(runner, [ident for (ident,) in runner.db.execute(
        f"SELECT id FROM {NODES_TABLE} WHERE relation = 'merge' ORDER BY id")]))


def _nodes(runner: Any, wanted: list[str]) -> list[Node]:
    """The nodes of ``wanted`` that have a record, each with its status and flags."""
    nodes = []
    for i in range(0, len(wanted), 500):
        chunk = wanted[i:i + 500]
        marks = ", ".join("?" * len(chunk))
        states = {ident: (status or "", tuple(orjson.loads(flags or "[]"))) for ident, status, flags in
                  runner.db.execute(f"SELECT id, status, flags FROM {ROWS_TABLE} WHERE id IN ({marks})", chunk)}
        for ident in chunk:
            doc = runner.get("lineage", ident)
            if doc is not None and ident in states:  # no record: removed by a forget (``load_graph``)
                status, flags = states[ident]
                nodes.append(Node.from_doc(doc, status=status, flags=flags))
    return nodes


def _resolved(runner: Any, nodes: list[Node]) -> list[Node]:
    """``nodes``, with a placeholder for each parent they name that has no node
    (``with_placeholders``), so every edge of the graph resolves: ``erased`` when
    its capture was erased by ``baton forget`` (its stream, and its
    ``handoff.forgotten``, stay), ``erasing`` while that forget is unfinished,
    else ``missing``. One indexed lookup each."""
    absent = absent_parents(nodes)
    if not absent:
        return nodes
    streams = "streams" in runner.by_name
    erased = {ident for ident in absent if streams and runner.has("streams", handoff_stream(ident))}
    return with_placeholders(nodes, erased, _unfinished(runner, erased))


def _unfinished(runner: Any, erased: set[str]) -> set[str]:
    """Those of ``erased`` whose ``baton forget`` was interrupted before its rewrite (the ledger
    still holds payloads its ``handoff.forgotten`` names: ``erase.unerased_by_handoff``), so a
    view says ``erasing``, never that they were erased. One pass over the feeds, only when a
    parent has no record."""
    feed_paths = getattr(getattr(runner, "ledger", None), "feed_paths", None)
    if not erased or feed_paths is None:
        return set()
    return set(erase.unerased_by_handoff(feed_paths(), sorted(erased)))
