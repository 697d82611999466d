"""The ``handoffs`` projection's fold (``baton.projections.handoffs``: routing,
tables and queries): each ``handoff/<id>`` stream through the handoff
aggregate's ``evolve``, the record materialized as
``.baton/handoffs/<created>--<short-id>.json``, and its row and full-text
entry written in batches."""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable

import orjson

from baton.canonical import pretty_bytes
from baton.domain.aggregates import handoff as aggregate
from baton.domain.batons import brief_may_use, is_session_baton
from baton.domain.handoff import handoff_file_name, handoff_to_json, record_branch, record_worktree, stored_handoff
from baton.domain.short_ids import short_id
from baton.errors import HandoffInputError
from baton.events.names import HANDOFF_RESUMED
from baton.ledger.envelope import Event
from baton.projections.base import Doc
from baton.projections.handoffs import (
    BATON_COUNTS_TABLE,
    COUNTS_TABLE,
    ROWS_TABLE,
    SEARCH_TABLE,
    HandoffsBase,
    summary_text,
    text_of,
)

MODELS_KEPT = 256
"""How many record models ``Handoffs`` keeps between events (a bound on memory, not on correctness)."""


class Handoffs(HandoffsBase):
    def __init__(self) -> None:
        self._models: dict[str, tuple[Doc, Any]] = {}
        """The record model of each document this projection last returned
        (held with the document, so identity can be trusted): the next event
        of the same handoff — validate after capture, promote after validate —
        folds without reading the document back into a model (half of a
        replay's time)."""
        self._authors: dict[str, tuple[str, str, int]] = {}
        """Per record captured in the batch being folded: the writer and owner
        of its capture event (``captured_by``), which ``index`` writes into its
        new row (then forgets); a later event of the record leaves them be."""
        self._resumed: dict[str, str] = {}
        """Per record resumed in the batch being folded: its newest accepted
        ``handoff.resumed`` event's ``at`` (microseconds), which ``index``
        writes into its row's ``resumed`` (then forgets)."""

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        return self.apply_all(key, doc, (event,))

    def apply_all(self, key: str, doc: Doc | None, events: Iterable[Event]) -> Doc | None:
        """``apply`` over ``events`` in turn: the record folds through the
        aggregate's ``evolve`` event by event, and is written (unstructured)
        once, from the last state — like the state it was read from, whose
        unchanged sections are reused — not once per event."""
        known = self._models.get(key)
        like = None
        if doc is None:
            state = None
        elif known is not None and known[0] is doc:
            state = known[1]
            like = (state, doc)  # the model that wrote ``doc``: unchanged sections are reused
        else:
            try:
                state = stored_handoff(doc)
            except HandoffInputError:
                return doc  # unreadable: every event leaves it as it is
        new = state
        for event in events:
            before, new = new, aggregate.evolve(new, event)
            if before is None and new is not None:
                self._authors[key] = captured_by(event, new)
            elif event.type == HANDOFF_RESUMED and new is not before and getattr(new, "status", None) == "resumed":
                self._resumed[key] = max(self._resumed.get(key, ""), event.at)
        if new is state:
            return doc
        if new is None:
            self._models.pop(key, None)
            return None
        out = handoff_to_json(new, like=like)
        if len(self._models) >= MODELS_KEPT:
            self._models.clear()
        self._models[key] = (out, new)
        return out

    def materialize(self, key: str, doc: Doc) -> dict[str, bytes]:
        return {f"handoffs/{handoff_file_name(doc['created_at'], doc['id'])}": pretty_bytes(doc)}

    def index(self, db: Any, changed: list[tuple[str, Doc | None]]) -> None:
        """One row per record (what lists, ``latest``, id prefixes and briefs
        query, with indexes, instead of reading every document), and its
        full-text entry under the same rowid (an FTS5 delete by rowid is a
        lookup; by an ``UNINDEXED`` column it scans the whole table).

        A batch at a time: the rowids of the records already present are
        looked up in one query per 500 ids, their full-text entries deleted in
        one ``executemany``, and rows and entries written in one each. A new
        record gets the rowid SQLite would have given it (one past the
        largest), in key order. The status counts move by what the batch
        changed (``count_statuses``)."""
        conn = db.conn
        found: dict[str, int] = {}
        tally: Counter[str] = Counter()  # what this batch changes in each status's count
        batons: Counter[str] = Counter()  # the same, of session batons' records
        keys = [key for key, _doc in changed]
        for at in range(0, len(keys), 500):
            part = keys[at:at + 500]
            for ident, rowid, status, baton in conn.execute(
                    f"SELECT id, rowid, status, baton FROM {ROWS_TABLE} WHERE id IN ({', '.join('?' * len(part))})",
                    part):
                found[ident] = rowid
                tally[status or ""] -= 1
                if baton:
                    batons[status or ""] -= 1
        conn.executemany(f"DELETE FROM {SEARCH_TABLE} WHERE rowid = ?", [(rowid,) for rowid in found.values()])
        conn.executemany(f"DELETE FROM {ROWS_TABLE} WHERE rowid = ?",
                         [(found[key],) for key, doc in changed if doc is None and key in found])
        next_rowid = conn.execute(f"SELECT COALESCE(MAX(rowid), 0) FROM {ROWS_TABLE}").fetchone()[0] + 1
        inserts, updates, search, authors = [], [], [], []
        for key, doc in changed:
            if doc is None:
                continue
            values = row_values(key, doc)
            tally[values[3]] += 1  # the row's status
            if values[12]:  # a session baton's record
                batons[values[3]] += 1
            rowid = found.get(key)
            author = self._authors.pop(key, None)
            if rowid is None:
                rowid, next_rowid = next_rowid, next_rowid + 1
                inserts.append((rowid, key, *values, *(author or ("", "", 0))))
            else:
                updates.append((*values, rowid))
                if author is not None:
                    authors.append((*author, rowid))
            work = doc.get("work") or {}
            search.append((rowid, key, text_of(work.get("title")), text_of(work.get("objective")), summary_text(doc)))
        conn.executemany(
            f"INSERT INTO {ROWS_TABLE} (rowid, id, short, created_at, updated_at, status, flags, title, validation, "
            "relation, parents, brief, branch, worktree, baton, writer, owner, hlc) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", inserts)
        conn.executemany(
            f"UPDATE {ROWS_TABLE} SET short = ?, created_at = ?, updated_at = ?, status = ?, flags = ?, "
            "title = ?, validation = ?, relation = ?, parents = ?, brief = ?, branch = ?, worktree = ?, baton = ? "
            "WHERE rowid = ?", updates)
        conn.executemany(f"UPDATE {ROWS_TABLE} SET writer = ?, owner = ?, hlc = ? WHERE rowid = ?", authors)
        conn.executemany(f"UPDATE {ROWS_TABLE} SET resumed = MAX(COALESCE(resumed, ''), ?) WHERE id = ?",
                         [(at, key) for key, at in self._resumed.items()])
        self._resumed.clear()
        conn.executemany(f"INSERT INTO {SEARCH_TABLE} (rowid, id, title, objective, summary) VALUES (?, ?, ?, ?, ?)",
                         search)
        count_statuses(conn, tally)
        count_statuses(conn, batons, BATON_COUNTS_TABLE)


def captured_by(event: Event, record: Any) -> tuple[str, str, int]:
    """Who captured a record, and when in causal order: the capture event's
    writer (feed), its owner, and its hybrid logical clock. The owner is
    the event's ``actor`` (every capture records the owner it was made under),
    else, for a session baton captured before that, the owner it was left for."""
    owner = event.actor if isinstance(event.actor, str) else ""
    if not owner:
        left_for = record.extra.get("baton") if hasattr(record, "extra") else None
        if isinstance(left_for, dict) and isinstance(left_for.get("owner"), str):
            owner = left_for["owner"]
    return event.writer or "", owner, event.hlc


def count_statuses(conn: Any, tally: Counter[str], table: str = COUNTS_TABLE) -> None:
    """Add ``tally`` (status -> change) to the status counts ``table``, in the
    rows' transaction, and drop the statuses no row has any more: the counts
    stay equal to a ``GROUP BY status`` over the rows (``BATON_COUNTS_TABLE``:
    over session batons' rows)."""
    moved = [(status, n) for status, n in tally.items() if n]
    if not moved:
        return
    conn.executemany(f"INSERT INTO {table} (status, n) VALUES (?, ?) "
                     "ON CONFLICT(status) DO UPDATE SET n = n + excluded.n", moved)
    conn.execute(f"DELETE FROM {table} WHERE n <= 0")


def row_values(key: str, doc: Doc) -> list[Any]:
    """The queryable columns of one record (after ``id``): short id, times,
    status, flags and parents (JSON), title, validation status, relation, and
    whether a bootstrap brief may use its content (``brief``); then the branch
    and worktree it was captured on, and whether it is a session baton."""
    work = doc["work"] if isinstance(doc.get("work"), dict) else {}
    lineage = doc["lineage"] if isinstance(doc.get("lineage"), dict) else {}
    validation = doc["validation"] if isinstance(doc.get("validation"), dict) else {}
    return [
        short_id(key), text_of(doc.get("created_at")), text_of(doc.get("updated_at")), text_of(doc.get("status")),
        orjson.dumps(list(doc.get("flags") or ())).decode(), text_of(work.get("title")),
        text_of(validation.get("status")), text_of(lineage.get("relation")) or "root",
        orjson.dumps(list(lineage.get("parents") or ())).decode(),
        int(brief_may_use(doc) and doc.get("status") != "archived"),
        record_branch(doc) or "", record_worktree(doc) or "", int(is_session_baton(doc)),
    ]
