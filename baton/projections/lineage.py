"""The ``lineage`` projection: the graph of handoffs (spec §14).

One document per handoff (``baton.domain.lineage.node_of``): relation,
parents, branch label, title, creation time and its decisions reduced to id,
subject and choice. It folds the existing ``handoff.captured`` and
``handoff.revised`` events — the relation lives on the captured record, so
there are no separate lineage events (docs/lineage.md says why). A forgotten
(erased) capture removes its node.

Query tables mirror the documents: ``lineage_nodes`` (one row per node),
``lineage_edges`` (parent, child, relation), indexed both ways, and
``lineage_forks`` (the parents with two or more children, kept as edges
change), so the commands can tell with one row's lookup whether the project
has any branch at all (no parent with two children: no conflict is
possible) before loading the graph (``baton.projections.lineage_graph``,
which needs the lineage domain's classes).
Status and flags are not kept here: they belong to the ``handoffs``
projection, and the graph reads them from its rows.
"""

from __future__ import annotations

from baton.events.names import HANDOFF_CAPTURED, HANDOFF_REVISED
from baton.ledger.envelope import Event
from baton.projections.base import STREAM_ORDER, handoff_key

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any, Iterable

NODES_TABLE = "lineage_nodes"
EDGES_TABLE = "lineage_edges"
FORKS_TABLE = "lineage_forks"
"""The parents with two or more children, kept as edges change, so "is there
any branch?" is one row's lookup, not a scan of every edge."""
_TYPES = frozenset((HANDOFF_CAPTURED, HANDOFF_REVISED))


class LineageBase:
    """What routes an event to a node's document, and the query tables'
    shape; the fold (``baton.projections.folds.lineage.Lineage``) adds
    ``apply`` and the rows it writes (``index``)."""

    name = "lineage"
    version = 1
    order = STREAM_ORDER
    index_tables = (NODES_TABLE, EDGES_TABLE, FORKS_TABLE)

    types = _TYPES

    def keys(self, event: Event) -> Iterable[str]:
        return handoff_key(event, _TYPES)

    # -- query tables ---------------------------------------------------------------
    def setup_index(self, db: Any) -> None:
        db.execute(f"CREATE TABLE IF NOT EXISTS {NODES_TABLE} (id TEXT PRIMARY KEY, relation TEXT, "
                   "branch_label TEXT, created_at TEXT)")
        db.execute(f"CREATE TABLE IF NOT EXISTS {EDGES_TABLE} (parent TEXT NOT NULL, child TEXT NOT NULL, "
                   "relation TEXT, PRIMARY KEY (parent, child))")
        db.execute(f"CREATE INDEX IF NOT EXISTS {EDGES_TABLE}_by_child ON {EDGES_TABLE} (child)")
        known = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [FORKS_TABLE]).fetchone()
        db.execute(f"CREATE TABLE IF NOT EXISTS {FORKS_TABLE} (parent TEXT PRIMARY KEY)")
        if known is None:  # an index from before the table: filled once from the edges it holds
            db.execute(f"INSERT OR IGNORE INTO {FORKS_TABLE} (parent) "
                       f"SELECT parent FROM {EDGES_TABLE} GROUP BY parent HAVING COUNT(*) > 1")

    def reset_index(self, db: Any) -> None:
        db.execute(f"DELETE FROM {NODES_TABLE}")
        db.execute(f"DELETE FROM {EDGES_TABLE}")
        db.execute(f"DELETE FROM {FORKS_TABLE}")


def chunks(items: list[str], size: int = 500) -> Iterable[list[str]]:
    """``items`` in runs short enough for one statement's parameters."""
    for start in range(0, len(items), size):
        yield items[start:start + size]


# -- typed queries --------------------------------------------------------------------

def has_branches(db: Any) -> bool:
    """Whether any node has two or more children, or any node is a merge
    (without either, no two nodes diverge and no conflict is possible)."""
    return db.execute(f"SELECT 1 FROM {FORKS_TABLE} LIMIT 1").fetchone() is not None


def branched(runner: Any) -> bool:
    """``has_branches`` of a runner's index (False without the projection),
    remembered while the index is unchanged when the runner keeps a memo (a
    long-lived server)."""
    if "lineage" not in runner.by_name:
        return False
    memo = getattr(runner, "memo", None)
    return memo("lineage.has_branches", lambda: has_branches(runner.db)) if memo else has_branches(runner.db)


def component_ids(db: Any, ids: Iterable[str]) -> set[str]:
    """Every handoff connected to one of ``ids`` through the edge table (both
    ways), found with indexed lookups: what a conflict question about ``ids``
    needs (two divergent nodes share an ancestor; a merge descends from both)."""
    seen: set[str] = set()
    frontier = set(ids)
    while frontier:
        seen |= frontier
        batch = list(frontier)
        frontier = set()
        for i in range(0, len(batch), 500):
            chunk = batch[i:i + 500]
            marks = ", ".join("?" * len(chunk))
            for parent, child in db.execute(f"SELECT parent, child FROM {EDGES_TABLE} WHERE parent IN ({marks}) "
                                            f"OR child IN ({marks})", [*chunk, *chunk]):
                for ident in (parent, child):
                    if ident not in seen:
                        frontier.add(ident)
    return seen


def descendant_ids(db: Any, handoff_id: str, relations: Iterable[str]) -> list[str]:
    """The handoffs descending from ``handoff_id`` through edges of the given
    ``relations`` only (children, their children…), with indexed lookups, in
    the order found."""
    wanted = list(relations)
    if not wanted:
        return []
    kinds = ", ".join("?" * len(wanted))
    seen = {handoff_id}
    found: list[str] = []
    frontier = [handoff_id]
    while frontier:
        nxt: list[str] = []
        for chunk in chunks(frontier):
            marks = ", ".join("?" * len(chunk))
            for (child,) in db.execute(f"SELECT child FROM {EDGES_TABLE} WHERE parent IN ({marks}) "
                                       f"AND relation IN ({kinds})", [*chunk, *wanted]):
                if child not in seen:
                    seen.add(child)
                    found.append(child)
                    nxt.append(child)
        frontier = nxt
    return found
