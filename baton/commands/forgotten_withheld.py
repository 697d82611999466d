"""The edits of a forgotten handoff that no forget named (tester-team23b T10; docs/sync.md
"Forgetting across replicas").

An amend made on another clone before a ``baton forget`` reached it is a ``handoff.revised`` on
the forgotten handoff's own stream that the forget's plan could not list: after ``baton sync``
brings the two together its payload is still in the ledger (and on the remote). The fold keeps the
handoff gone (``handoff.forgotten`` leaves no record, and nothing after it brings one back), so no
record, brief, listing or status page shows it; this names it, so ``baton sync`` can tell it once
and ``baton forget`` of the handoff again erases it. Read-only: the handoff streams without a
record (one query of the index), then those streams' events, read from the oldest one's first
event on (none when no handoff was forgotten).
"""

from __future__ import annotations

import sqlite3
from typing import Any

import orjson

from baton.domain.forgetting import WithheldEdit, withheld_edits
from baton.errors import BatonError
from baton.ledger.tail import TailWant
from baton.projections.handoffs import ROWS_TABLE

_PREFIX = "handoff/"


def _without_record(runner: Any) -> dict[str, int]:
    """Handoff id → the hybrid logical clock of its stream's first event, for each handoff stream
    the index holds without a record (forgotten, most often)."""
    if not {"handoffs", "streams"} <= set(getattr(runner, "by_name", ())):
        return {}
    try:
        rows = runner.db.execute(
            f"SELECT key, doc FROM docs WHERE projection = 'streams' AND key >= ? AND key < ? "
            f"AND NOT EXISTS (SELECT 1 FROM {ROWS_TABLE} r WHERE r.id = substr(docs.key, ?))",
            [_PREFIX, _PREFIX[:-1] + chr(ord("/") + 1), len(_PREFIX) + 1]).fetchall()
    except (sqlite3.Error, BatonError):  # no index yet, or damaged: nothing to say from it
        return {}
    out: dict[str, int] = {}
    for key, doc in rows:
        try:
            out[key[len(_PREFIX):]] = int(orjson.loads(doc)["first_key"][0])
        except (KeyError, TypeError, ValueError, IndexError, orjson.JSONDecodeError):
            out[key[len(_PREFIX):]] = 0  # begun by a Baton that kept no first_key: read from the start
    return out


def held_edits(project: Any) -> list[WithheldEdit]:
    """The events of forgotten handoffs' own streams that still hold a payload here."""
    forgotten = _without_record(project.runner)
    if not forgotten:
        return []
    streams = {_PREFIX + h for h in forgotten}
    events = project.ledger.iter_tail(TailWant(lambda _kind, name, _hlc: name in streams,
                                               after_hlc=min(forgotten.values()) - 1))
    return withheld_edits((e for e in events if e.stream in streams), forgotten)


def told_keys(held: list[WithheldEdit]) -> set[tuple[str, str]]:
    """(handoff, event) of each withheld event: what a sync compares before and after."""
    return {(w.handoff, e) for w in held for e in w.events}


def newly_held(project: Any, before: set[tuple[str, str]]) -> list[WithheldEdit]:
    """``held_edits`` now, each with only the events not in ``before`` (``told_keys`` as the sync began)."""
    out = []
    for held in held_edits(project):
        fresh = [i for i, e in enumerate(held.events) if (held.handoff, e) not in before]
        if fresh:
            out.append(WithheldEdit(held.handoff, tuple(held.events[i] for i in fresh), held.types, held.writers))
    return out
