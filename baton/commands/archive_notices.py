"""Handoffs of this clone's user that a teammate's archive reached by ``baton sync``: what the sync
names, and what the next ``baton status`` and session-start brief tell once (docs/sync.md, "A
teammate archived your handoff"; ``baton.domain.teammate_archive`` decides).

Read as the sync imported, before the index folds the import: the ``handoff.archived`` events the
import brought (each imported feed's events after the hybrid logical clock the index had read of it
as the sync began), and the records they archive as the index held them then. The notices are kept
with a teammate's forgets (``forget_notices.keep_lines``) until a brief tells them.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any, Iterable

from baton.commands import forget_notices
from baton.commands.identity import context_of
from baton.domain.concurrent_edits import READIED
from baton.domain.teammate_archive import ForeignArchive, foreign_archives
from baton.errors import BatonError
from baton.events.names import HANDOFF_ARCHIVED, HANDOFF_CAPTURED
from baton.ledger.tail import TailWant
from baton.projections.handoffs import authors_of

if TYPE_CHECKING:
    from baton.commands.context import Project

KIND = "archived"
"""The ``kind`` of a kept notice of a teammate's archive (beside a forget's, which has none)."""


def collect(project: "Project", seen: dict[str, int], imported: Iterable[str]) -> list[ForeignArchive]:
    """The archives another writer recorded of this user's handoffs that the sync imported (of a feed
    in ``imported``, after the hybrid logical clock ``seen`` held for it as the sync began), judged
    against the index as it stood before folding them; kept for ``status`` and the next brief."""
    since = {feed: seen.get(feed, 0) for feed in imported if feed != project.writer}
    if not since:  # nothing imported
        return []
    first = not any(feed != project.writer for feed in seen)  # the first sync: no teammate's event was here
    kinds = (HANDOFF_ARCHIVED, HANDOFF_CAPTURED) if first else (HANDOFF_ARCHIVED,)  # then: who captured it
    try:
        read = [e for e in project.ledger.iter_tail(TailWant(lambda kind, _name, _hlc: kind in kinds,
                                                             after_hlc=min(since.values()) - 1))
                if e.type in kinds and e.writer in since and e.hlc > since[e.writer]]
        events = [e for e in read if e.type == HANDOFF_ARCHIVED and e.writer in since]
        if not events:
            return []
        ids = [e.stream.partition("/")[2] for e in events]
        found = foreign_archives(events, {**(_captured(read, ids) if first else {}), **_held(project, ids)},
                                 my_writer=project.writer, my_owner=context_of(project).owner)
        keep(project, found)
    except (BatonError, sqlite3.Error, OSError):  # the notice is lost, never the sync
        return []
    return found


def _held(project: "Project", ids: list[str]) -> dict[str, dict[str, Any]]:
    """Per handoff id the index holds (not caught up with the import yet): its status, who captured
    it and who made it ready (``READIED``)."""
    runner = project.runner
    out = {}
    for ident, (writer, owner) in authors_of(runner.db, list(dict.fromkeys(ids))).items():
        doc = runner.get("handoffs", ident)
        if isinstance(doc, dict):
            out[ident] = {"status": doc.get("status"), "writer": writer, "owner": owner, "readied": doc.get(READIED)}
    return out


def _captured(read: list[Any], ids: list[str]) -> dict[str, dict[str, Any]]:
    """Per handoff id, who captured it (its ``handoff.captured`` event's feed and git identity), for
    a clone's first sync (its index held no teammate's event): a record it did not hold was never
    here, so an archive of this user's handoff is told as new to the clone (``status`` ``""``)."""
    wanted = set(ids)
    out: dict[str, dict[str, Any]] = {}
    for event in read:
        ident = event.stream.partition("/")[2]
        if event.type == HANDOFF_CAPTURED and ident in wanted and ident not in out:
            out[ident] = {"status": "", "writer": event.writer,
                          "owner": event.actor if isinstance(event.actor, str) else "", "readied": None}
    return out


def keep(project: "Project", found: list[ForeignArchive]) -> None:
    """Keep the notices for ``status`` and the next brief (``bootstrap.erased_by_teammates`` tells them)."""
    forget_notices.keep_lines(project, [{**a.to_json(), "kind": KIND, "notice": a.line()} for a in found])


def pending(project: "Project") -> tuple[list[str], list[str]]:
    """The kept notices no brief has told yet (``baton status``, the status page): a teammate's forgets
    of the reader's handoffs, then a teammate's archives of them."""
    kept = forget_notices.pending(project)
    return [n["notice"] for n in kept if n.get("kind") != KIND], [n["notice"] for n in kept if n.get("kind") == KIND]
