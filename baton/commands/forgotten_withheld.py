"""The edits of a forgotten handoff that no forget named (tester-team23b T10; docs/sync.md
"Forgetting across replicas").

An amend made on another clone before a ``baton forget`` reached it is a ``handoff.revised`` on
the forgotten handoff's own stream that the forget's plan could not list: after ``baton sync``
brings the two together its payload is still in the ledger (and on the remote). The fold keeps the
handoff gone (``handoff.forgotten`` leaves no record, and nothing after it brings one back), so no
record, brief, listing or status page shows it; this names it, so ``baton sync`` can tell it once
and ``baton forget`` of the handoff again erases it. Read-only: the handoff streams without a
record (one query of the index), then, only when there are some, the events the sync brought
(``brought_edits``).
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any, Callable, Iterable

import orjson

from baton.domain.withheld_view import withheld_from_log
from baton.errors import BatonError
from baton.events.names import HANDOFF_FORGOTTEN
from baton.ledger.envelope import Event
from baton.ledger.tail import TailWant
from baton.projections.handoffs import ROWS_TABLE

if TYPE_CHECKING:
    from baton.domain.forgetting import WithheldEdit

_PREFIX = "handoff/"


def without_record(runner: Any) -> dict[str, int]:
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


def brought_edits(project: Any, seen: dict[str, int], imported: Iterable[str],
                  forgotten_now: Iterable[str]) -> list[WithheldEdit]:
    """The events of forgotten handoffs' own streams still holding a payload that a sync brought
    together with their forget: those it imported (of a feed in ``imported``, after the hybrid
    logical clock ``seen`` held for that feed as it began; a feed new here, all of it), and every one
    of the handoffs whose forget it imported and erased here (``forgotten_now``). Read from the
    oldest of those points on, only when some handoff was forgotten: a sync with nothing of the
    kind reads nothing for this."""
    from baton.domain.forgetting import withheld_edits  # the events catalogue: not for `baton log`

    forgotten = without_record(project.runner)
    if not forgotten:
        return []
    now = {h for h in forgotten_now if h in forgotten}
    since = {feed: seen.get(feed, 0) for feed in imported}
    bounds = [*since.values(), *(forgotten[h] for h in now)]
    if not bounds:
        return []
    streams = {_PREFIX + h for h in forgotten}
    events = project.ledger.iter_tail(TailWant(lambda _kind, name, _hlc: name in streams,
                                               after_hlc=min(bounds) - 1))
    brought = (e for e in events if e.stream in streams and (
        e.stream[len(_PREFIX):] in now or (e.writer in since and e.hlc > since[e.writer])))
    return withheld_edits(brought, forgotten)


def log_withholding(project: Any) -> Callable[[Event], Event]:
    """What ``baton log`` shows of each event (``forgetting.withheld_from_log``): when the index counts
    some ``handoff.forgotten`` (one lookup), one query of it for the handoff streams without a record;
    none, and each event is shown as it is."""
    runner = getattr(project, "runner", None)  # a bare ledger: none
    if runner is None or ("event_counts" in runner.by_name and not runner.has("event_counts", HANDOFF_FORGOTTEN)):
        return as_it_is
    forgotten = {_PREFIX + h: h for h in without_record(runner)}
    if not forgotten:
        return as_it_is
    return lambda event: withheld_from_log(event, forgotten)


def as_it_is(event: Event) -> Event:
    """Each event as it is (``log_withholding`` when no handoff was forgotten)."""
    return event
