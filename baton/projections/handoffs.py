"""The ``handoffs`` projection: one document per handoff, the current record.

Each ``handoff/<id>`` stream folds into the canonical record of §7.2 (status,
flags, validation, lineage...) through the handoff aggregate's ``evolve``
(``baton.domain.aggregates.handoff``) — the same function the application
object uses to check a command, so the projection and the commands cannot
disagree about what a transition does.

Materialized as ``.baton/handoffs/<created>--<short-id>.json``: sorted,
indented JSON, a pure function of the record, so ``baton rebuild`` restores
the files byte for byte. A secondary FTS5 table (``handoff_search``) indexes
title, objective and summary for ``handoff list --work``, and ``handoff_rows``
holds one indexed row per record (status, times, title, short id...), so
lists, ``latest``, id prefixes and the bootstrap brief read the rows they
return, not every document.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from baton.model import frozen
from baton.events.names import HANDOFF, HANDOFF_TYPES, split_stream
from baton.ledger.envelope import Event
from baton.projections.base import STREAM_ORDER, Doc

SEARCH_TABLE = "handoff_search"
ROWS_TABLE = "handoff_rows"
_ADDED_COLUMNS = (("branch", "TEXT"), ("worktree", "TEXT"), ("baton", "INTEGER"))
MODELS_KEPT = 256
"""How many record models ``Handoffs`` keeps between events (a bound on memory, not on correctness)."""
_TYPES = frozenset(HANDOFF_TYPES)


class Handoffs:
    name = "handoffs"
    version = 4
    order = STREAM_ORDER
    """3: rows gained ``branch``, ``worktree`` and ``baton`` (branch-aware ``latest``,
    ``handoff list --kind``); 4: ``handoff.forgotten`` removes the record."""

    def keys(self, event: Event) -> Iterable[str]:
        if event.type in _TYPES:
            family, key = split_stream(event.stream)
            if family == HANDOFF:
                return (key,)
        return ()

    def __init__(self) -> None:
        self._models: dict[str, tuple[Doc, Any]] = {}
        """The record model of each document this projection last returned
        (held with the document, so identity can be trusted): the next event
        of the same handoff — validate after capture, promote after validate —
        folds without reading the document back into a model (half of a
        replay's time)."""

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        from baton.domain.aggregates import handoff as aggregate
        from baton.domain.handoff import handoff_from_json, handoff_to_json
        from baton.errors import HandoffInputError

        known = self._models.get(key)
        like = None
        if doc is None:
            state = None
        elif known is not None and known[0] is doc:
            state = known[1]
            like = (state, doc)  # the model that wrote ``doc``: unchanged sections are reused
        else:
            try:
                state = handoff_from_json(doc)
            except HandoffInputError:
                return doc
        new = aggregate.evolve(state, event)
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

    # -- materialized files ------------------------------------------------
    def materialize(self, key: str, doc: Doc) -> dict[str, bytes]:
        from baton.canonical import pretty_bytes
        from baton.domain.handoff import handoff_file_name

        return {f"handoffs/{handoff_file_name(doc['created_at'], doc['id'])}": pretty_bytes(doc)}

    # -- secondary tables: rows to query, and the full-text index ------------
    def setup_index(self, db: Any) -> None:
        db.execute(
            f"CREATE TABLE IF NOT EXISTS {ROWS_TABLE} (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, "
            "short TEXT, created_at TEXT, updated_at TEXT, status TEXT, flags TEXT, title TEXT, validation TEXT, "
            "relation TEXT, parents TEXT, brief INTEGER)"
        )
        present = {row[1] for row in db.execute(f"PRAGMA table_info({ROWS_TABLE})").fetchall()}
        for column, kind in _ADDED_COLUMNS:  # an index made by version 2 of this projection
            if column not in present:
                db.execute(f"ALTER TABLE {ROWS_TABLE} ADD COLUMN {column} {kind}")
        db.execute(f"CREATE INDEX IF NOT EXISTS {ROWS_TABLE}_by_branch ON {ROWS_TABLE} (branch, created_at, id)")
        db.execute(f"CREATE INDEX IF NOT EXISTS {ROWS_TABLE}_by_created ON {ROWS_TABLE} (created_at, id)")
        db.execute(f"CREATE INDEX IF NOT EXISTS {ROWS_TABLE}_by_status ON {ROWS_TABLE} (status, created_at, id)")
        db.execute(f"CREATE INDEX IF NOT EXISTS {ROWS_TABLE}_by_short ON {ROWS_TABLE} (short)")
        db.execute(f"CREATE INDEX IF NOT EXISTS {ROWS_TABLE}_for_briefs ON {ROWS_TABLE} (brief, created_at, id)")
        _create_search(db)

    def reset_index(self, db: Any) -> None:
        db.execute(f"DELETE FROM {ROWS_TABLE}")
        # Dropped and made again, not emptied: an FTS5 ``DELETE`` without
        # ``WHERE`` removes each row's terms one row at a time (5x slower).
        db.execute(f"DROP TABLE IF EXISTS {SEARCH_TABLE}")
        _create_search(db)

    def index(self, db: Any, changed: list[tuple[str, Doc | None]]) -> None:
        """One row per record (what lists, ``latest``, id prefixes and briefs
        query, with indexes, instead of reading every document), and its
        full-text entry under the same rowid (an FTS5 delete by rowid is a
        lookup; by an ``UNINDEXED`` column it scans the whole table).

        A batch at a time: the rowids of the records already present are
        looked up in one query per 500 ids, their full-text entries deleted in
        one ``executemany``, and rows and entries written in one each. A new
        record gets the rowid SQLite would have given it (one past the
        largest), in key order."""
        conn = db.conn
        found: dict[str, int] = {}
        keys = [key for key, _doc in changed]
        for at in range(0, len(keys), 500):
            part = keys[at:at + 500]
            found.update(conn.execute(f"SELECT id, rowid FROM {ROWS_TABLE} WHERE id IN "
                                      f"({', '.join('?' * len(part))})", part).fetchall())
        conn.executemany(f"DELETE FROM {SEARCH_TABLE} WHERE rowid = ?", [(rowid,) for rowid in found.values()])
        conn.executemany(f"DELETE FROM {ROWS_TABLE} WHERE rowid = ?",
                         [(found[key],) for key, doc in changed if doc is None and key in found])
        next_rowid = conn.execute(f"SELECT COALESCE(MAX(rowid), 0) FROM {ROWS_TABLE}").fetchone()[0] + 1
        inserts, updates, search = [], [], []
        for key, doc in changed:
            if doc is None:
                continue
            values = row_values(key, doc)
            rowid = found.get(key)
            if rowid is None:
                rowid, next_rowid = next_rowid, next_rowid + 1
                inserts.append((rowid, key, *values))
            else:
                updates.append((*values, rowid))
            work = doc.get("work") or {}
            search.append((rowid, key, _text(work.get("title")), _text(work.get("objective")), summary_text(doc)))
        conn.executemany(
            f"INSERT INTO {ROWS_TABLE} (rowid, id, short, created_at, updated_at, status, flags, title, validation, "
            "relation, parents, brief, branch, worktree, baton) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            inserts)
        conn.executemany(
            f"UPDATE {ROWS_TABLE} SET short = ?, created_at = ?, updated_at = ?, status = ?, flags = ?, "
            "title = ?, validation = ?, relation = ?, parents = ?, brief = ?, branch = ?, worktree = ?, baton = ? "
            "WHERE rowid = ?", updates)
        conn.executemany(f"INSERT INTO {SEARCH_TABLE} (rowid, id, title, objective, summary) VALUES (?, ?, ?, ?, ?)",
                         search)


def _create_search(db: Any) -> None:
    db.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {SEARCH_TABLE} "
        "USING fts5(id UNINDEXED, title, objective, summary, tokenize = 'unicode61 remove_diacritics 2')"
    )


def row_values(key: str, doc: Doc) -> list[Any]:
    """The queryable columns of one record (after ``id``): short id, times,
    status, flags and parents (JSON), title, validation status, relation, and
    whether a bootstrap brief may use its content (``brief``); then the branch
    and worktree it was captured on, and whether it is a session baton."""
    import orjson

    from baton.domain.batons import brief_may_use, is_session_baton
    from baton.domain.handoff import record_branch, record_worktree, short_id

    work = doc["work"] if isinstance(doc.get("work"), dict) else {}
    lineage = doc["lineage"] if isinstance(doc.get("lineage"), dict) else {}
    validation = doc["validation"] if isinstance(doc.get("validation"), dict) else {}
    return [
        short_id(key), _text(doc.get("created_at")), _text(doc.get("updated_at")), _text(doc.get("status")),
        orjson.dumps(list(doc.get("flags") or ())).decode(), _text(work.get("title")),
        _text(validation.get("status")), _text(lineage.get("relation")) or "root",
        orjson.dumps(list(lineage.get("parents") or ())).decode(),
        int(brief_may_use(doc) and doc.get("status") != "archived"),
        record_branch(doc) or "", record_worktree(doc) or "", int(is_session_baton(doc)),
    ]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def summary_text(doc: Doc) -> str:
    """The searchable text of a record's summary."""
    summary = doc.get("summary") or {}
    parts: list[str] = []
    for key in ("current_state", "why_it_matters"):
        parts.append(_text(summary.get(key)))
    for key in ("completed", "in_progress", "discoveries"):
        parts.extend(_text(item) for item in summary.get(key) or ())
    return "\n".join(p for p in parts if p)


# -- typed queries over the rows ------------------------------------------------------

@frozen
class HandoffSummary:
    """One record as its row holds it: what lists and id lookups show."""

    id: str
    status: str
    flags: tuple[str, ...]
    title: str
    created_at: str
    updated_at: str
    validation: str
    relation: str
    parents: tuple[str, ...]
    branch: str = ""
    worktree: str = ""
    baton: bool = False

    @property
    def file(self) -> str:
        """The materialized file, relative to ``.baton/``."""
        from baton.domain.handoff import HANDOFFS_DIR, handoff_file_name

        return f"{HANDOFFS_DIR}/{handoff_file_name(self.created_at, self.id)}"

    def to_json(self) -> dict[str, Any]:
        from baton.domain.handoff import HANDOFFS_DIR, handoff_file_name, short_id  # one import: a list has many rows

        short = short_id(self.id)
        return {"id": self.id, "short_id": short, "status": self.status, "flags": list(self.flags),
                "title": self.title, "created_at": self.created_at, "updated_at": self.updated_at,
                "validation": self.validation, "relation": self.relation, "parents": list(self.parents),
                "file": f"{HANDOFFS_DIR}/{handoff_file_name(self.created_at, self.id, short=short)}",
                "branch": self.branch or None, "worktree": self.worktree or None,
                "kind": "baton" if self.baton else "handoff"}


_COLUMNS = "id, status, flags, title, created_at, updated_at, validation, relation, parents, branch, worktree, baton"
_NEWEST = "ORDER BY created_at DESC, id DESC"


def _summary(row: tuple) -> HandoffSummary:
    import orjson

    ident, status, flags, title, created, updated, validation, relation, parents, branch, worktree, baton = row
    return HandoffSummary(ident, status or "", tuple(orjson.loads(flags or "[]")), title or "", created or "",
                          updated or "", validation or "", relation or "root", tuple(orjson.loads(parents or "[]")),
                          branch or "", worktree or "", bool(baton))


KINDS = ("handoff", "baton", "all")
"""What ``handoff list --kind`` selects: handoffs proper, session batons, or both."""


def newest(db: Any, *, status: str | None = None, statuses: tuple[str, ...] = (), search: str | None = None,
           limit: int | None = None, kind: str = "all", branch: str | None = None) -> list[HandoffSummary]:
    """Records newest first, optionally of one status (or any of ``statuses``),
    of one ``kind`` (``KINDS``), on one ``branch``, matching an FTS5 ``search``,
    at most ``limit``."""
    where: list[str] = []
    args: list[Any] = []
    if kind == "handoff":
        where.append("COALESCE(baton, 0) = 0")
    elif kind == "baton":
        where.append("baton = 1")
    if branch is not None:
        where.append("branch = ?")
        args.append(branch)
    if status is not None:
        statuses = (status,)
    if statuses:
        where.append(f"status IN ({', '.join('?' * len(statuses))})")
        args.extend(statuses)
    if search is not None:
        where.append(f"rowid IN (SELECT rowid FROM {SEARCH_TABLE} WHERE {SEARCH_TABLE} MATCH ?)")
        args.append(search)
    sql = f"SELECT {_COLUMNS} FROM {ROWS_TABLE}"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += f" {_NEWEST}"
    if limit is not None:
        sql += " LIMIT ?"
        args.append(limit)
    return [_summary(row) for row in db.execute(sql, args).fetchall()]


def _prefix_range(column: str, prefix: str) -> tuple[str, list[str]]:
    # A range, not LIKE: it uses the index whatever the case-sensitivity pragma says.
    return f"({column} >= ? AND {column} < ?)", [prefix, prefix + "\uffff"]


def named_by(db: Any, token: str, *, limit: int) -> tuple[int, list[HandoffSummary]]:
    """How many records ``token`` names (``domain.handoff.id_matches``: the
    full id, the short id, a 4+ prefix of the short id, an 8+ prefix of the
    full id), and the newest ``limit`` of them."""
    from baton.domain.handoff import MIN_PREFIX, MIN_SHORT_PREFIX

    token = token.strip().lower()
    clauses, args = ["id = ?", "short = ?"], [token, token]
    if len(token) >= MIN_SHORT_PREFIX:
        clause, extra = _prefix_range("short", token)
        clauses.append(clause)
        args.extend(extra)
    if len(token) >= MIN_PREFIX:
        clause, extra = _prefix_range("id", token)
        clauses.append(clause)
        args.extend(extra)
    where = " OR ".join(clauses)
    count = db.execute(f"SELECT COUNT(*) FROM {ROWS_TABLE} WHERE {where}", args).fetchone()[0]
    rows = db.execute(f"SELECT {_COLUMNS} FROM {ROWS_TABLE} WHERE {where} {_NEWEST} LIMIT ?",
                      [*args, limit]).fetchall()
    return count, [_summary(row) for row in rows]


def brief_ids(db: Any) -> Iterator[str]:
    """Ids of the records a bootstrap brief may draw on (``brief_may_use``, not
    archived), newest first, read lazily: the caller stops when its window is full."""
    cursor = db.execute(f"SELECT id FROM {ROWS_TABLE} WHERE brief = 1 {_NEWEST}")
    while True:
        rows = cursor.fetchmany(64)
        if not rows:
            return
        for (ident,) in rows:
            yield ident


def count_by_status(db: Any) -> dict[str, int]:
    return dict(db.execute(f"SELECT status, COUNT(*) FROM {ROWS_TABLE} GROUP BY status").fetchall())
