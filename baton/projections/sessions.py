"""Sessions and their objectives.

``sessions``: one document per writer and session id (``session_doc_key``:
``<writer>/<id>``; the events are on stream ``session/<id>``, which a
teammate's session of the same id shares): harness, owner, branch, when it began and ended, the baton it received and the one it
left. ``objectives``: one document per exact owner and branch
(``objective_doc_key``; their events are on stream ``objective/<owner__branch>``,
which ``feature/x`` and ``feature_x`` share): the objective of the session
working there, removed when cleared or when a session event retires it (a
document may then keep only when that was, ``endedKey``). Whether an
objective still counts (its session must exist and be open) is decided when
it is read, not here.
"""

from __future__ import annotations

import orjson

from baton.domain.batons import objective_doc_key, session_doc_key
from baton.events.names import OBJECTIVE, OBJECTIVE_TYPES, SESSION, SESSION_ENDED, SESSION_TYPES, split_stream
from baton.ledger.envelope import Event
from baton.projections.base import STREAM_ORDER

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Iterable

_SESSION_TYPES = frozenset(SESSION_TYPES)
_OBJECTIVE_TYPES = frozenset(OBJECTIVE_TYPES)


def _key_in(event: Event, family: str, types: frozenset[str]) -> tuple[str, ...]:
    stream_family, key = split_stream(event.stream)
    return (key,) if stream_family == family and event.type in types else ()


class SessionsBase:
    """What routes an event to a session's document; the fold
    (``baton.projections.folds.sessions.Sessions``) adds ``apply``."""

    name = "sessions"
    version = 3
    """2: one document per writer and id (``session_doc_key``), no longer per id:
    a teammate's session with the same id is another session (its end no
    longer ends yours, its start is not your repeated start).
    3: a document keeps the harness process its start recorded (``harnessProcess``),
    which tells a session whose harness was killed (``baton.domain.unended``)."""
    order = STREAM_ORDER

    types = _SESSION_TYPES

    def keys(self, event: Event) -> Iterable[str]:
        return tuple(session_doc_key(event.writer, key) for key in _key_in(event, SESSION, _SESSION_TYPES))


class ObjectivesBase:
    """What routes an event to an objective's document; the fold
    (``baton.projections.folds.sessions.Objectives``) adds ``apply``."""

    name = "objectives"
    version = 4
    """2: one document per exact owner and branch (``objective_doc_key``), no
    longer per stream key: setting the objective of ``feature/x`` no longer
    replaces ``feature_x``'s. An event without both names (none is written so)
    folds under its stream's key, as every event did in 1.
    3: a document also folds the session events that retire its objective (a
    session's end, a start without an objective: ``retires_objective``), keeping
    the newest one's merge key (``endedKey``) and each objective's own
    (``setKey``): on a ledger written by 1, whose clear was skipped where the
    other name's objective held the key, the objective no longer comes back.
    4: an objective keeps the writer of the session that set it (``sessionWriter``):
    sessions are their writer's (``session_doc_key``)."""
    order = STREAM_ORDER
    """Every document folds the objective events of one stream (its names' key) in their
    order; the session events it also folds only raise ``endedKey`` to the newest, which
    commutes (``baton.domain.aggregates.session``)."""

    types = _OBJECTIVE_TYPES | _SESSION_TYPES

    def keys(self, event: Event) -> Iterable[str]:
        data = event.data
        if event.type in _SESSION_TYPES:
            if split_stream(event.stream)[0] != SESSION or not isinstance(data, dict):
                return ()
            owner, branch = data.get("owner"), data.get("branch")
            if (isinstance(owner, str) and owner and isinstance(branch, str) and branch
                    and (event.type == SESSION_ENDED or not data.get("objective"))):
                return (objective_doc_key(owner, branch),)
            return ()
        routed = _key_in(event, OBJECTIVE, _OBJECTIVE_TYPES)
        if routed and isinstance(data, dict):
            owner, branch = data.get("owner"), data.get("branch")
            if isinstance(owner, str) and owner and isinstance(branch, str) and branch:
                return (objective_doc_key(owner, branch),)
        return routed


def session_doc(runner, writer: str, session_id: str) -> dict | None:
    """The document of the session ``session_id`` of the clone ``writer``, or None."""
    doc = runner.get("sessions", session_doc_key(writer, session_id))
    return doc if isinstance(doc, dict) else None


def sessions_named(db, session_id: str) -> list[dict]:
    """The documents of every writer's session ``session_id`` (a teammate may have used the id too):
    one keyed read per feed the index follows (a writer is its feed), not a scan of every session
    (at 100k events, 13,000 documents read through ``json_extract``: 30 ms of a session's end)."""
    keys = [session_doc_key(row[0], session_id) for row in db.execute("SELECT feed FROM cursors").fetchall()]
    if not keys:
        return []
    rows = db.execute(f"SELECT doc FROM docs WHERE projection = 'sessions' AND key IN ({', '.join('?' * len(keys))}) "
                      "ORDER BY key", keys).fetchall()
    return [doc for doc in (orjson.loads(row[0]) for row in rows) if isinstance(doc, dict)]


def open_at(db, *, owner: str, branch: str | None, at: str, since: str, exclude: str,
            writer: str | None = None) -> list[str]:
    """The ids of the sessions of ``owner`` on ``branch`` (on any branch when
    None; but ``exclude``, a session id) that had begun by ``at`` (not before
    ``since``) and had not ended before it: the sessions that were working
    there at that moment. Timestamps are compared to the second (RFC 3339, UTC).
    ``writer``: only that clone's sessions, read by their keys' range (``<writer>/…``),
    not every session's document."""
    on_branch = "AND json_extract(doc, '$.branch') = ? " if branch is not None else ""
    of_writer = "AND key >= ? AND key < ? " if writer is not None else ""
    rows = db.execute(
        "SELECT json_extract(doc, '$.id') FROM docs WHERE projection = 'sessions' " + of_writer +
        "AND json_extract(doc, '$.id') != ? "
        "AND json_extract(doc, '$.owner') = ? " + on_branch +
        "AND substr(json_extract(doc, '$.beganAt'), 1, 19) BETWEEN ? AND ? "
        "AND (json_extract(doc, '$.endedAt') IS NULL OR substr(json_extract(doc, '$.endedAt'), 1, 19) >= ?) "
        "ORDER BY key",
        [*([writer + "/", writer + "0"] if writer is not None else []), exclude, owner,
         *([branch] if branch is not None else []), since[:19], at[:19], at[:19]]).fetchall()
    return sorted({row[0] for row in rows})


def begun_near(db, session_id: str, writer: str) -> list[str]:
    """The ids of the sessions of ``writer`` recorded as begun whose length is
    within one of ``session_id``'s: those one edit away from it are among them."""
    rows = db.execute(
        "SELECT json_extract(doc, '$.id') FROM docs WHERE projection = 'sessions' "
        "AND json_extract(doc, '$.beganAt') IS NOT NULL AND json_extract(doc, '$.writer') = ? "
        "AND length(json_extract(doc, '$.id')) BETWEEN ? AND ? ORDER BY key",
        [writer, len(session_id) - 1, len(session_id) + 1]).fetchall()
    return [row[0] for row in rows]


def begun_since(db, since: str) -> bool:
    """Whether a session was recorded as begun at ``since`` or later (RFC 3339, UTC; to the second)."""
    row = db.execute(
        "SELECT 1 FROM docs WHERE projection = 'sessions' "
        "AND substr(json_extract(doc, '$.beganAt'), 1, 19) >= ? LIMIT 1", [since[:19]]).fetchone()
    return row is not None
