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
from collections import deque
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
    """``handoff``, a record made from ``forgotten`` (``relation``), whose record was erased; or,
    ``via`` set, made (``relation``) from ``via``, itself made from ``forgotten`` at any depth (a fork
    of a fork): each copied its parent's content, so it holds the forgotten one's too."""

    handoff: str
    forgotten: str
    relation: str | None
    via: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"handoff": self.handoff, "forgotten": self.forgotten, "relation": self.relation, "via": self.via}

    def line(self) -> str:
        what = _RELATIONS.get(self.relation or "")
        if self.via is not None:
            made = f"{what} of {short_id(self.via)}" if what else f"derived from {short_id(self.via)}"
            what = f" ({made}, itself derived from {short_id(self.forgotten)})"
        else:
            what = f" ({what})" if what else ""
        return (f"FORGOTTEN: handoff {short_id(self.handoff)}{what} still holds content of the forgotten handoff "
                f"{short_id(self.forgotten)}: `baton forget {short_id(self.handoff)}` erases it")


def held_copies(runner: Any, forgotten: str | None = None) -> list[DerivedCopy]:
    """Every record whose parent ``baton forget`` erased (only ``forgotten``'s, when given), by
    child then parent: one indexed join over the lineage edges, then one lookup per such parent;
    then, when there is any, every record made from those at any depth (``DerivedCopy.via``: a
    fork of a fork made apart), walked breadth first over the edges read once (no recursion: a
    chain of any length)."""
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
    try:
        return out + _made_from(runner, out) if out else out
    except (sqlite3.Error, BatonError):
        return out


def _made_from(runner: Any, direct: list[DerivedCopy]) -> list[DerivedCopy]:
    """The records made from ``direct``'s at any depth, each with the forgotten handoff it
    descends from and the parent it was made from (a record erased on the way is walked through,
    not named); each (record, forgotten) once, breadth first, by record."""
    children: dict[str, list[tuple[str, str | None]]] = {}
    for parent, child, relation in runner.db.execute(f"SELECT parent, child, relation FROM {EDGES_TABLE}"):
        children.setdefault(parent, []).append((child, relation))
    found: list[DerivedCopy] = []
    for forgotten in sorted({d.forgotten for d in direct}):
        seen = {forgotten} | {d.handoff for d in direct if d.forgotten == forgotten}
        todo = deque(sorted(d.handoff for d in direct if d.forgotten == forgotten))
        while todo:
            parent = todo.popleft()
            for child, relation in sorted(children.get(parent, ()), key=lambda c: c[0]):
                if child not in seen:
                    seen.add(child)
                    todo.append(child)
                    found.append(DerivedCopy(child, forgotten, relation, parent))
    return _with_records(runner, found)


def _with_records(runner: Any, copies: list[DerivedCopy]) -> list[DerivedCopy]:
    """``copies`` whose handoff has a record (one erased holds nothing), by handoff then forgotten."""
    ids = sorted({c.handoff for c in copies})
    live: set[str] = set()
    for at in range(0, len(ids), 500):
        chunk = ids[at:at + 500]
        live.update(row[0] for row in runner.db.execute(
            f"SELECT id FROM {ROWS_TABLE} WHERE id IN ({','.join('?' * len(chunk))})", chunk))
    return sorted((c for c in copies if c.handoff in live), key=lambda c: (c.handoff, c.forgotten))
