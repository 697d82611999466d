"""The ``lineage`` projection's fold (``baton.projections.lineage``: routing,
tables and queries): each handoff's node (``baton.domain.lineage.node_of``)
and the rows of the node, edge and fork tables."""

from __future__ import annotations

from typing import Any

from baton.domain.lineage import iter_edges, node_of
from baton.events.names import HANDOFF_CAPTURED, HANDOFF_REVISED
from baton.ledger.envelope import Event
from baton.projections.base import Doc
from baton.projections.lineage import EDGES_TABLE, FORKS_TABLE, NODES_TABLE, LineageBase, chunks


class Lineage(LineageBase):
    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        data = event.data
        if data is None:
            return None if event.type == HANDOFF_CAPTURED else doc
        record = data.get("handoff") if isinstance(data, dict) else None
        if not isinstance(record, dict):
            return doc
        if event.type == HANDOFF_CAPTURED and doc is not None:
            return doc  # a capture of an id that exists changes nothing (as the handoff fold)
        if event.type == HANDOFF_REVISED and doc is None:
            return None
        node = node_of({**record, "id": key})
        if doc is not None:
            node["created_at"] = doc.get("created_at") or node["created_at"]
        return node

    def index(self, db: Any, changed: list[tuple[str, Doc | None]]) -> None:
        keys = [(key,) for key, _doc in changed]
        # The parents whose children change here: their fork row is decided again below.
        touched = {row[0] for chunk in chunks([k for (k,) in keys])
                   for row in db.execute(f"SELECT parent FROM {EDGES_TABLE} WHERE child IN "
                                         f"({','.join('?' * len(chunk))})", chunk)}
        db.conn.executemany(f"DELETE FROM {EDGES_TABLE} WHERE child = ?", keys)
        db.conn.executemany(f"DELETE FROM {NODES_TABLE} WHERE id = ?",
                            [(key,) for key, doc in changed if doc is None])
        db.conn.executemany(f"INSERT OR REPLACE INTO {NODES_TABLE} (id, relation, branch_label, created_at) "
                            "VALUES (?, ?, ?, ?)",
                            [(key, doc.get("relation"), doc.get("branch_label"), doc.get("created_at"))
                             for key, doc in changed if doc is not None])
        edges = [edge for _key, doc in changed if doc is not None for edge in iter_edges(doc)]
        db.conn.executemany(f"INSERT OR REPLACE INTO {EDGES_TABLE} (parent, child, relation) VALUES (?, ?, ?)",
                            edges)
        touched.update(parent for parent, _child, _relation in edges)
        for chunk in chunks(sorted(touched)):
            marks = ",".join("?" * len(chunk))
            db.execute(f"DELETE FROM {FORKS_TABLE} WHERE parent IN ({marks})", chunk)
            db.execute(f"INSERT INTO {FORKS_TABLE} (parent) SELECT parent FROM {EDGES_TABLE} "
                       f"WHERE parent IN ({marks}) GROUP BY parent HAVING COUNT(*) > 1", chunk)
