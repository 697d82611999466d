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
return, not every document. ``handoff_status_counts`` holds how many rows
have each status, kept by the same writes as the rows (in their
transaction), so ``baton_status`` reads a few rows however many handoffs
there are.

This module routes events and makes the tables, and holds the typed queries;
the fold, the file and the rows are in ``baton.projections.folds.handoffs``.
"""

from __future__ import annotations

import heapq
import itertools
import sqlite3
from datetime import datetime, timezone

import orjson

from baton.domain.batons import owner_match_key
from baton.domain.short_ids import HANDOFFS_DIR, MIN_PREFIX, MIN_SHORT_PREFIX, file_name, short_id
from baton.errors import BatonError
from baton.events.names import HANDOFF, HANDOFF_TYPES, split_stream
from baton.ledger.envelope import Event
from baton.projections.base import STREAM_ORDER, Doc
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook path's modules need none)
if TYPE_CHECKING:
    from typing import Any, Iterable, Iterator

SEARCH_TABLE = "handoff_search"
ROWS_TABLE = "handoff_rows"
COUNTS_TABLE = "handoff_status_counts"
"""One row per status present in ``ROWS_TABLE`` and how many rows have it
(never a zero): equal to ``SELECT status, COUNT(*) ... GROUP BY status``."""
BATON_COUNTS_TABLE = "handoff_baton_status_counts"
"""The same over ``ROWS_TABLE``'s session batons' records (``baton = 1``) alone."""
RESUMABLE = ("ready", "resumed")
"""The statuses ``latest`` may name (``baton.commands.latest``), and a session start's pointer to it."""
LATEST_WINDOW = 50
"""How many of a branch's newest ready handoffs ``latest`` looks at (bounded whatever the project's age)."""
_ADDED_COLUMNS = (("branch", "TEXT"), ("worktree", "TEXT"), ("baton", "INTEGER"), ("writer", "TEXT"), ("owner", "TEXT"),
                  ("hlc", "INTEGER"), ("resumed", "TEXT"))
_TYPES = frozenset(HANDOFF_TYPES)
CONFLICTED = "flags LIKE '%conflicted%'"
"""The rows flagged ``conflicted`` (a partial index holds just them: a read of them stays flat)."""


class HandoffsBase:
    """What routes an event to a handoff's document, and the query tables'
    shape; the fold (``baton.projections.folds.handoffs.Handoffs``) adds
    ``apply``, the materialized file and the rows it writes (``index``)."""

    name = "handoffs"
    keeps_before_loss = True
    """A rebuild over lost events keeps a handoff file it rewrote as it was (``ProjectionRunner._keep_before``):
    it may be the only whole copy of the handoff's last state (a revision cut off the feed)."""
    version = 13
    order = STREAM_ORDER
    """3: rows gained ``branch``, ``worktree`` and ``baton`` (branch-aware ``latest``,
    ``handoff list --kind``); 4: ``handoff.forgotten`` removes the record; 5: the
    status counts (``COUNTS_TABLE``), so an older Baton that opens the index
    (and would write rows without counting them) rebuilds it to its version,
    and this one rebuilds it back, counts and all; 6: rows gained ``writer``
    and ``owner``, who captured each record (the capture event's feed and
    owner: ``handoff list --by``), so an index built before is replayed once;
    7: rows gained ``hlc``, the capture event's hybrid logical clock, and
    "newest" is by it (causal order), no longer by the wall clock's
    ``created_at``: a teammate whose clock runs fast no longer owns ``latest``
    over handoffs captured after theirs (docs/sync.md, "Clocks");
    8: rows gained ``resumed``, the newest ``handoff.resumed`` event's own
    time (microseconds; the record keeps whole seconds), so a session start
    tells a resume made in the same second as a baton, but after it, from one
    made before it (``baton.domain.batons.settled_by_resume``); 9: edits made apart on two
    clones fold by ``baton.domain.concurrent_edits`` (a validation or promotion
    keeps the body it read; a revision it did not read is listed, the record
    flagged), so an index folded before is replayed once; 10: a validation or
    promotion finds the body it read through a chain of revisions made apart,
    one of a body the record no longer holds is listed, and a revision resolves
    only the edits made apart it read listed; 11: an archive made apart folds by
    the same rule (it keeps the body it read, and stands over a validation,
    promotion or supersede made apart, which are listed), so an index folded
    before is replayed once; 12: a ready record keeps who made it ready
    (``concurrent_edits.READIED``), an archive made apart that sorts after that
    promotion lists it, and a resume that reaches an archived record is listed
    as not applied (notice25), so an index folded before is replayed once; 13: ``archived_by``
    names the archiver as ``actor`` too (tester25 T9), and a record keeps who validated and who
    resumed it, so an archive made apart that sorts after either lists it, so an index folded before
    is replayed once."""
    index_tables = (ROWS_TABLE, COUNTS_TABLE, BATON_COUNTS_TABLE)
    types = _TYPES
    folds_runs = True
    """A batch's events of one handoff fold through ``evolve`` one by one and
    the record is written once, at the end (``Handoffs.apply_all``)."""

    def keys(self, event: Event) -> Iterable[str]:
        if event.type in _TYPES:
            family, key = split_stream(event.stream)
            if family == HANDOFF:
                return (key,)
        return ()

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
        for old in ("by_branch", "by_status", "by_branch_status", "by_owner", "for_briefs"):  # by created_at (6)
            db.execute(f"DROP INDEX IF EXISTS {ROWS_TABLE}_{old}")
        db.execute(f"CREATE INDEX IF NOT EXISTS {ROWS_TABLE}_by_created ON {ROWS_TABLE} (created_at, id)")
        db.execute(f"CREATE INDEX IF NOT EXISTS {ROWS_TABLE}_newest ON {ROWS_TABLE} (hlc, id)")
        db.execute(f"CREATE INDEX IF NOT EXISTS {ROWS_TABLE}_newest_by_branch ON {ROWS_TABLE} (branch, hlc, id)")
        db.execute(f"CREATE INDEX IF NOT EXISTS {ROWS_TABLE}_newest_by_status ON {ROWS_TABLE} (status, hlc, id)")
        db.execute(f"CREATE INDEX IF NOT EXISTS {ROWS_TABLE}_newest_by_branch_status ON {ROWS_TABLE} "
                   "(branch, status, hlc, id)")
        db.execute(f"CREATE INDEX IF NOT EXISTS {ROWS_TABLE}_by_short ON {ROWS_TABLE} (short)")
        db.execute(f"CREATE INDEX IF NOT EXISTS {ROWS_TABLE}_newest_by_owner ON {ROWS_TABLE} (owner, hlc, id)")
        db.execute(f"CREATE INDEX IF NOT EXISTS {ROWS_TABLE}_newest_for_briefs ON {ROWS_TABLE} (brief, hlc, id)")
        db.execute(f"CREATE INDEX IF NOT EXISTS {ROWS_TABLE}_conflicted ON {ROWS_TABLE} (id) WHERE {CONFLICTED}")
        _create_search(db)
        _create_counts(db)

    def reset_index(self, db: Any) -> None:
        db.execute(f"DELETE FROM {ROWS_TABLE}")
        db.execute(f"DELETE FROM {COUNTS_TABLE}")
        db.execute(f"DELETE FROM {BATON_COUNTS_TABLE}")
        # Dropped and made again, not emptied: an FTS5 ``DELETE`` without
        # ``WHERE`` removes each row's terms one row at a time (5x slower).
        db.execute(f"DROP TABLE IF EXISTS {SEARCH_TABLE}")
        _create_search(db)


def _create_search(db: Any) -> None:
    db.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {SEARCH_TABLE} "
        "USING fts5(id UNINDEXED, title, objective, summary, tokenize = 'unicode61 remove_diacritics 2')"
    )


def _create_counts(db: Any) -> None:
    """The status counts, all records' and session batons' records'; an index
    of this version without one (made while it was being added) gets it from
    its rows, once, without a replay."""
    for table, where in ((COUNTS_TABLE, ""), (BATON_COUNTS_TABLE, "WHERE baton = 1 ")):
        known = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [table]).fetchone()
        db.execute(f"CREATE TABLE IF NOT EXISTS {table} (status TEXT PRIMARY KEY, n INTEGER NOT NULL)")
        if known is None:
            # Emptied then filled in one transaction: two processes upgrading at once leave the same counts.
            db.execute(f"DELETE FROM {table}")
            db.execute(f"INSERT INTO {table} (status, n) SELECT COALESCE(status, ''), COUNT(*) FROM {ROWS_TABLE} "
                       f"{where}GROUP BY COALESCE(status, '')")


def origin_session(doc: Doc) -> str | None:
    """The session a handoff's record names as the one that made it (``origin.session_id``), or None.
    Here, beside the documents it reads, for a session's start and end alike."""
    origin = doc.get("origin")
    value = origin.get("session_id") if isinstance(origin, dict) else None
    return value if isinstance(value, str) and value else None


def text_of(value: Any) -> str:
    return value if isinstance(value, str) else ""


def summary_text(doc: Doc) -> str:
    """The searchable text of a record's summary."""
    summary = doc.get("summary") or {}
    parts: list[str] = []
    for key in ("current_state", "why_it_matters"):
        parts.append(text_of(summary.get(key)))
    for key in ("completed", "in_progress", "discoveries"):
        parts.extend(text_of(item) for item in summary.get(key) or ())
    return "\n".join(p for p in parts if p)


# -- typed queries over the rows ------------------------------------------------------

class HandoffSummary(Value):
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
    writer: str = ""
    """The feed (writer id) whose event captured the record."""
    owner: str = ""
    """Who captured it: the owner the capture was made under (git ``user.email``,
    else ``user.name``...; ``baton.commands.identity``), "" when the ledger
    does not say (a capture recorded before Baton kept it)."""
    hlc: int = 0
    """The capture event's hybrid logical clock: what "newest" orders by (causal, not the wall clock)."""

    @property
    def file(self) -> str:
        """The materialized file, relative to ``.baton/``."""
        return f"{HANDOFFS_DIR}/{file_name(self.created_at, self.id)}"

    def to_json(self) -> dict[str, Any]:
        short = short_id(self.id)
        return {"id": self.id, "short_id": short, "status": self.status, "flags": list(self.flags),
                "title": self.title, "created_at": self.created_at, "updated_at": self.updated_at,
                "validation": self.validation, "relation": self.relation, "parents": list(self.parents),
                "file": f"{HANDOFFS_DIR}/{file_name(self.created_at, self.id, short=short)}",
                "branch": self.branch or None, "worktree": self.worktree or None,
                "kind": "baton" if self.baton else "handoff",
                "writer": self.writer or None, "owner": self.owner or None}


_COLUMNS = ("id, status, flags, title, created_at, updated_at, validation, relation, parents, branch, worktree, baton, "
            "writer, owner, hlc")
_NEWEST = "ORDER BY hlc DESC, id DESC"
"""Newest first: by the capture's hybrid logical clock (a capture made after importing another
is ordered after it, whatever either wall clock said), not by ``created_at``."""


def _summary(row: tuple) -> HandoffSummary:
    ident, status, flags, title, created, updated, validation, relation, parents, branch, worktree, baton, \
        writer, owner, hlc = row
    return HandoffSummary(ident, status or "", tuple(orjson.loads(flags or "[]")), title or "", created or "",
                          updated or "", validation or "", relation or "root", tuple(orjson.loads(parents or "[]")),
                          branch or "", worktree or "", bool(baton), writer or "", owner or "",
                          hlc or 0)


Authors = tuple[str, "str | None"]
"""Whose records a list keeps (``handoff list --by`` / ``--mine``): ``(owner,
None)``, those captured under ``owner`` or by the writer id ``owner``;
``(owner, writer)``, the reader's own — captured under ``owner``, or, when
the capture recorded no owner (before Baton kept it), by the feed ``writer``
(as ``baton.domain.authorship.wrote`` decides). An e-mail owner matches in
any letter case, as baton owners do (``owner_spellings``)."""


def owner_spellings(db: Any, owner: str) -> list[str]:
    """``owner`` and every other spelling of that person the records were captured under:
    an e-mail owner is one person in any letter case (``batons.same_owner``), any other owner
    only as it is. The index's distinct e-mail owners (a few per team) are compared in Python,
    so the match is ``same_owner``'s own, non-ASCII letters included."""
    if "@" not in owner:
        return [owner]
    wanted = owner_match_key(owner)
    found = {owner}
    for (stored,) in db.execute(f"SELECT DISTINCT owner FROM {ROWS_TABLE} WHERE owner LIKE '%@%'"):
        if isinstance(stored, str) and owner_match_key(stored) == wanted:
            found.add(stored)
    return sorted(found)


def _authors_where(db: Any, by: Authors) -> tuple[str, list[str]]:
    owner, writer = by
    owners = owner_spellings(db, owner)
    among = f"owner IN ({', '.join('?' * len(owners))})"
    if writer is None:
        return f"({among} OR writer = ?)", [*owners, owner]
    return f"({among} OR (COALESCE(owner, '') = '' AND writer = ?))", [*owners, writer]


KINDS = ("handoff", "baton", "all")
"""What ``handoff list --kind`` selects: handoffs proper, session batons, or both."""


def newest(db: Any, *, status: str | None = None, statuses: tuple[str, ...] = (), search: str | None = None,
           limit: int | None = None, kind: str = "all", branch: str | None = None,
           since: str | None = None, by: "Authors | None" = None,
           contains: tuple[str, ...] = (), before: tuple[int, str] | None = None) -> list[HandoffSummary]:
    """Records newest first, optionally of one status (or any of ``statuses``),
    of one ``kind`` (``KINDS``), on one ``branch``, matching an FTS5 ``search``,
    created at or after ``since`` (a prefix of an RFC 3339 UTC time: ``created_at``
    compares as text), captured ``by`` someone (``Authors``), holding each of
    ``contains`` in its title, objective or summary, at most ``limit``.
    ``before``: only rows after the row ``(hlc, id)`` in this order — the next page
    of a listing (keyset paging: the ``(…, hlc, id)`` index is entered at that row,
    so a page deep in 100,000 rows costs what the first does).

    Several ``statuses`` with a ``limit`` (``latest``: ready or resumed) are
    one query per status, merged: each walks its index in order and stops at
    ``limit``, where one ``IN`` query would sort every row of those statuses."""
    if status is None and len(statuses) > 1 and limit is not None:
        parts = [newest(db, status=one, search=search, limit=limit, kind=kind, branch=branch, since=since, by=by,
                        contains=contains, before=before)
                 for one in statuses]
        merged = heapq.merge(*parts, key=lambda row: (row.hlc, row.id), reverse=True)
        return list(itertools.islice(merged, limit))
    where, args = _filters(db, statuses=(status,) if status is not None else statuses, search=search, contains=contains,
                           kind=kind,
                           branch=branch, since=since, by=by)
    if before is not None:
        where += (" AND " if where else " WHERE ") + "(hlc, id) < (?, ?)"
        args.extend(before)
    sql = f"SELECT {_COLUMNS} FROM {ROWS_TABLE}{where} {_NEWEST}"
    if limit is not None:
        sql += " LIMIT ?"
        args.append(limit)
    return [_summary(row) for row in db.execute(sql, args).fetchall()]


def _filters(db: Any, *, statuses: tuple[str, ...], search: str | None, kind: str, branch: str | None,
             since: str | None, by: "Authors | None" = None, contains: tuple[str, ...] = ()) -> tuple[str, list[Any]]:
    """The ``WHERE`` clause (or nothing) and its arguments ``newest`` and ``matching`` share."""
    where: list[str] = []
    args: list[Any] = []
    if kind == "handoff":
        where.append("COALESCE(baton, 0) = 0")
    elif kind == "baton":
        where.append("baton = 1")
    if branch is not None:
        where.append("branch = ?")
        args.append(branch)
    if statuses:
        where.append(f"status IN ({', '.join('?' * len(statuses))})")
        args.extend(statuses)
    if since is not None:
        where.append("created_at >= ?")
        args.append(since)
        lower = _hlc_bound(since)
        if lower is not None:
            # The same rows (a capture's hlc is never behind the wall clock its created_at
            # was read from), bounded on the (hlc, id) indexes the newest-first order walks:
            # without it a recent ``since`` (a hook's session window) walked every row.
            where.append("hlc >= ?")
            args.append(lower)
    if by is not None:
        clause, extra = _authors_where(db, by)
        where.append(clause)
        args.extend(extra)
    if search is not None:
        where.append(f"rowid IN (SELECT rowid FROM {SEARCH_TABLE} WHERE {SEARCH_TABLE} MATCH ?)")
        args.append(search)
    for text in contains:
        # A word of a script written without spaces (CJK, Thai): the tokenizer keeps a
        # whole run as one token, so a word inside it is found as a substring.
        where.append(f"rowid IN (SELECT rowid FROM {SEARCH_TABLE} "
                     "WHERE instr(title, ?) OR instr(objective, ?) OR instr(summary, ?))")
        args.extend((text, text, text))
    return (" WHERE " + " AND ".join(where) if where else ""), args


_HLC_SLACK_US = 60_000_000
"""How far below ``since`` the hlc bound is set: a capture's created_at and its event's
hlc are read from the clock apart, and created_at keeps only the second."""


def _hlc_bound(since: str) -> int | None:
    """The least hlc (microseconds since the epoch) a row created at or after ``since``
    (a prefix of an RFC 3339 UTC time) can have, less ``_HLC_SLACK_US``; None when unreadable."""
    try:
        moment = datetime.fromisoformat(since[:19]).replace(tzinfo=timezone.utc)
    except ValueError:
        return None
    return int(moment.timestamp() * 1_000_000) - _HLC_SLACK_US


def matching(db: Any, *, status: str | None = None, search: str | None = None, kind: str = "all",
             branch: str | None = None, by: "Authors | None" = None, contains: tuple[str, ...] = ()) -> int:
    """How many records ``newest`` would list with no limit (``handoff list``'s
    "50 of 13,012"): one ``COUNT`` over the same filters."""
    where, args = _filters(db, statuses=(status,) if status is not None else (), search=search, contains=contains,
                           kind=kind,
                           branch=branch, since=None, by=by)
    return int(db.execute(f"SELECT COUNT(*) FROM {ROWS_TABLE}{where}", args).fetchone()[0])


def _prefix_range(column: str, prefix: str) -> tuple[str, list[str]]:
    # A range, not LIKE: it uses the index whatever the case-sensitivity pragma says.
    return f"({column} >= ? AND {column} < ?)", [prefix, prefix + "\uffff"]


def named_by(db: Any, token: str, *, limit: int) -> tuple[int, list[HandoffSummary]]:
    """How many records ``token`` names (``domain.handoff.id_matches``: the
    full id, the short id, a 4+ prefix of the short id, an 8+ prefix of the
    full id), and the newest ``limit`` of them."""
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


def begins_a_full_id(db: Any, token: str) -> bool:
    """Whether some record's full id begins with ``token``, however short (a
    prefix too short to name a handoff, ``MIN_PREFIX``: for the error's hint)."""
    clause, args = _prefix_range("id", token.strip().lower())
    return db.execute(f"SELECT 1 FROM {ROWS_TABLE} WHERE {clause} LIMIT 1", args).fetchone() is not None


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


def count(db: Any, *, kind: str = "all") -> int:
    """How many records of one ``kind`` (``KINDS``) the index holds."""
    where = {"handoff": " WHERE COALESCE(baton, 0) = 0", "baton": " WHERE baton = 1"}.get(kind, "")
    return db.execute(f"SELECT COUNT(*) FROM {ROWS_TABLE}{where}").fetchone()[0]


def count_by_status(db: Any) -> dict[str, int]:
    """How many records have each status (statuses with none are absent): a
    read of ``COUNTS_TABLE``, a handful of rows whatever the project's size."""
    return dict(db.execute(f"SELECT status, n FROM {COUNTS_TABLE}").fetchall())


def handoff_counts(db: Any) -> dict[str, int]:
    """How many handoffs (not session batons' records: ``handoff list``'s default
    kind) have each status: the status counts less the batons' records' — two
    reads of a handful of rows whatever the project's size."""
    counts = count_by_status(db)
    for status, n in db.execute(f"SELECT status, n FROM {BATON_COUNTS_TABLE}"):
        counts[status] = max(0, counts.get(status, 0) - n)
    return {status: n for status, n in counts.items() if n}


def conflicted_ids(db: Any) -> list[str]:
    """The ids of the records flagged ``conflicted`` (few), through their partial index."""
    return [ident for (ident,) in db.execute(f"SELECT id FROM {ROWS_TABLE} WHERE {CONFLICTED} ORDER BY id")]


def count_baton_records(db: Any) -> int:
    """How many records are session batons' (``handoff list --kind baton``), of all the handoffs."""
    return int(db.execute(f"SELECT COALESCE(SUM(n), 0) FROM {BATON_COUNTS_TABLE}").fetchone()[0])


def resumed_at(db: Any, handoff_id: str) -> str | None:
    """When ``handoff_id`` was last resumed, at its ``handoff.resumed`` event's own precision
    (microseconds), or None (never resumed, or not in the index)."""
    row = db.execute(f"SELECT resumed FROM {ROWS_TABLE} WHERE id = ?", (handoff_id,)).fetchone()
    return row[0] if row is not None and isinstance(row[0], str) and row[0] else None


def authors_of(db: Any, ids: list[str]) -> dict[str, tuple[str, str]]:
    """Per id of ``ids`` the index holds: who captured it, ``(writer, owner)``
    (either "" when unknown). One query per 500 ids."""
    out: dict[str, tuple[str, str]] = {}
    for at in range(0, len(ids), 500):
        part = ids[at:at + 500]
        rows = db.execute(f"SELECT id, writer, owner FROM {ROWS_TABLE} WHERE id IN ({', '.join('?' * len(part))})",
                          part).fetchall()
        out.update((ident, (writer or "", owner or "")) for ident, writer, owner in rows)
    return out


HANDOFF_PREFIX = "handoff/"


def without_record(runner: Any) -> dict[str, int]:
    """Handoff id → the hybrid logical clock of its stream's first event, for each handoff stream
    the index holds without a record (forgotten, most often)."""
    if not {"handoffs", "streams"} <= set(getattr(runner, "by_name", ())):
        return {}
    try:
        rows = runner.db.execute(
            f"SELECT key, doc FROM docs WHERE projection = 'streams' AND key >= ? AND key < ? "
            f"AND NOT EXISTS (SELECT 1 FROM {ROWS_TABLE} r WHERE r.id = substr(docs.key, ?))",
            [HANDOFF_PREFIX, HANDOFF_PREFIX[:-1] + chr(ord("/") + 1), len(HANDOFF_PREFIX) + 1]).fetchall()
    except (sqlite3.Error, BatonError):  # no index yet, or damaged: nothing to say from it
        return {}
    out: dict[str, int] = {}
    for key, doc in rows:
        try:
            out[key[len(HANDOFF_PREFIX):]] = int(orjson.loads(doc)["first_key"][0])
        except (KeyError, TypeError, ValueError, IndexError, orjson.JSONDecodeError):
            out[key[len(HANDOFF_PREFIX):]] = 0  # begun by a Baton that kept no first_key: read from the start
    return out
