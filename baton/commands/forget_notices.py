"""Handoffs another replica's forget erased here: what ``baton sync`` names, and what the next
``baton status`` and session-start brief each tell once (docs/sync.md, "Forgetting across replicas").

A ``handoff.forgotten`` recorded by another writer erases payloads in this clone's feeds at its
next sync (``baton.sync.erasures``). Before the scrub deletes the index, the sync reads who
recorded each forget (its writer and actor, as claimed) and who captured the handoff, from the
index as it stood (``collect``; never its title: the forget may be for a secret it holds); the ones this clone's user captured are kept in
``.baton/forgotten-here.json`` until the next session-start brief tells them (``tell``);
``baton status`` shows them until then, writing nothing. The brief pays one
``stat`` when there is nothing to tell.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any, Iterable

import orjson

from baton.commands.bootstrap import FORGOTTEN_HERE
from baton.commands.identity import context_of
from baton.config import read_json, write_json_atomic
from baton.domain.authorship import wrote
from baton.domain.forgetting import ForeignForget, foreign_forgets
from baton.errors import BatonError, EnvelopeError
from baton.ledger.envelope import Event
from baton.projections.handoffs import ROWS_TABLE

if TYPE_CHECKING:
    from baton.commands.context import Project

_NEEDLE = b'"handoff.forgotten"'
KEPT = 50
"""Notices kept at most (the oldest go first)."""


def _forget_events(project: "Project") -> list[Event]:
    """Every sound-looking ``handoff.forgotten`` event in the local feeds (read only after a sync erased)."""
    out = []
    for path in sorted(project.paths.ledger_dir.glob("*.jsonl")):
        try:
            raw = path.read_bytes()
        except OSError:
            continue
        for line in raw.split(b"\n"):
            if _NEEDLE not in line:
                continue
            try:
                out.append(Event.from_dict(orjson.loads(line)))
            except (orjson.JSONDecodeError, EnvelopeError, ValueError, TypeError):
                continue
    return out


def _indexed(project: "Project", ids: list[str]) -> dict[str, tuple[str, str]]:
    """Per handoff id the index still holds (not caught up: the erasing events are not folded yet):
    who captured it, ``(writer, owner)``. Never its title: the forget may be for what it says."""
    if not ids:
        return {}
    try:
        db = project.runner.db
        rows = db.execute(f"SELECT id, writer, owner FROM {ROWS_TABLE} WHERE id IN "
                          f"({', '.join('?' * len(ids))})", ids).fetchall()
    except (BatonError, sqlite3.Error):  # a damaged or missing index: the notice names the id alone
        return {}
    return {ident: (writer or "", owner or "") for ident, writer, owner in rows}


def collect(project: "Project", erased_ids: Iterable[str]) -> list[ForeignForget]:
    """The handoffs another writer's forget erased here this sync (before the scrub)."""
    erased = list(erased_ids)
    if not erased:
        return []
    events = foreign_forgets(_forget_events(project), erased, my_writer=project.writer)
    handoffs = [str(e.data.get("handoff")) for e in events if isinstance(e.data, dict)]
    known = _indexed(project, handoffs)
    owner = context_of(project).owner
    out: dict[str, ForeignForget] = {}
    for event, handoff in zip(events, handoffs):
        writer, captured_by = known.get(handoff, ("", ""))
        reason = event.data.get("reason") if isinstance(event.data, dict) else None
        yours = handoff in known and wrote(captured_by, writer, my_owner=owner, my_writer=project.writer)
        out.setdefault(handoff, ForeignForget(handoff, event.writer, event.actor,
                                              reason if isinstance(reason, str) else None, yours))
    return list(out.values())


def keep(project: "Project", forgets: list[ForeignForget]) -> None:
    """Keep the notices of the reader's own handoffs for ``status`` and the next brief
    (``baton.commands.bootstrap.erased_by_teammates``), each with the line it is told with."""
    mine = [f.to_json() | {"notice": f"Your handoff{f.line().removeprefix('your handoff')} (`baton forget` on "
                                     "another clone; this clone's copy went at its last sync)."}
            for f in forgets if f.yours]
    keep_lines(project, mine)


def keep_lines(project: "Project", notices: list[dict[str, Any]]) -> None:
    """Keep ``notices`` (each with the line it is told with, ``notice``) after those kept, until a brief
    tells them: a teammate's forget (``keep``) or archive (``archive_notices.keep``) of the reader's handoffs."""
    if not notices:
        return
    write_json_atomic(_path(project), {"notices": (pending(project) + notices)[-KEPT:]})


def pending(project: "Project") -> list[dict[str, Any]]:
    """The notices kept and not told by a brief yet (what ``baton status`` shows, writing nothing)."""
    try:
        raw = read_json(_path(project))
    except (FileNotFoundError, BatonError, OSError):
        return []
    notices = raw.get("notices") if isinstance(raw, dict) else None
    return [n for n in notices if isinstance(n, dict) and isinstance(n.get("notice"), str)] \
        if isinstance(notices, list) else []


def _path(project: "Project") -> Any:
    return project.paths.baton_dir / FORGOTTEN_HERE
