"""The handoffs that still hold content of a forgotten one (tester-team23 T1; docs/cli.md "forget").

A ``baton forget`` erases one handoff; a fork, amendment, continuation or merge of it copied its
content into its own record when it was made. The forget's plan lists those it knows (``derived``),
but a child made on another clone before the forget reached it is known only after a sync brings
the two together, on either clone. Read-only, from the index: a child with a record whose parent
has none but a handoff stream (a ``handoff.forgotten`` removed the record; the stream stays, as
``baton lineage`` shows it: an ``erased`` placeholder). ``baton sync`` names those it brought,
``baton status`` every one still held, and ``baton forget`` of the erased handoff lists them.
Never a title: the forget may be for what it says.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from baton.domain.short_ids import short_id
from baton.errors import BatonError
from baton.events.names import handoff_stream
from baton.model import frozen
from baton.projections.handoffs import ROWS_TABLE
from baton.projections.lineage import EDGES_TABLE

_RELATIONS = {"fork": "a fork", "continue": "a continuation", "amend": "an amendment", "merge": "a merge"}


@frozen
class DerivedCopy:
    """``handoff``, a record made from ``forgotten`` (``relation``), whose record was erased."""

    handoff: str
    forgotten: str
    relation: str | None

    def to_json(self) -> dict[str, Any]:
        return {"handoff": self.handoff, "forgotten": self.forgotten, "relation": self.relation}

    def line(self) -> str:
        what = f" ({_RELATIONS[self.relation]})" if self.relation in _RELATIONS else ""
        return (f"FORGOTTEN: handoff {short_id(self.handoff)}{what} still holds content of the forgotten handoff "
                f"{short_id(self.forgotten)}: `baton forget {short_id(self.handoff)}` erases it")


def held_copies(runner: Any, forgotten: str | None = None) -> list[DerivedCopy]:
    """Every record whose parent ``baton forget`` erased (only ``forgotten``'s, when given), by
    child then parent: one indexed join over the lineage edges, then one lookup per such parent."""
    if not {"lineage", "handoffs", "streams"} <= set(getattr(runner, "by_name", ())):
        return []
    where, args = ("AND e.parent = ?", [forgotten]) if forgotten else ("", [])
    try:
        rows = runner.db.execute(
            f"SELECT e.child, e.parent, e.relation FROM {EDGES_TABLE} e "
            f"JOIN {ROWS_TABLE} c ON c.id = e.child "
            f"WHERE NOT EXISTS (SELECT 1 FROM {ROWS_TABLE} p WHERE p.id = e.parent) {where} "
            "ORDER BY e.child, e.parent", args).fetchall()
    except (sqlite3.Error, BatonError):  # an index not built yet, or damaged: nothing to say from it
        return []
    erased: dict[str, bool] = {}
    out = []
    for child, parent, relation in rows:
        if parent not in erased:
            erased[parent] = bool(runner.has("streams", handoff_stream(parent)))
        if erased[parent]:
            out.append(DerivedCopy(child, parent, relation))
    return out
