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

from typing import Any, Iterable

from baton.domain.forgetting import WithheldEdit, withheld_edits
from baton.ledger.tail import TailWant
from baton.projections.handoffs import HANDOFF_PREFIX as _PREFIX
from baton.projections.handoffs import without_record


def brought_edits(project: Any, seen: dict[str, int], imported: Iterable[str],
                  forgotten_now: Iterable[str]) -> list[WithheldEdit]:
    """The events of forgotten handoffs' own streams still holding a payload that a sync brought
    together with their forget: those it imported (of a feed in ``imported``, after the hybrid
    logical clock ``seen`` held for that feed as it began; a feed new here, all of it), and every one
    of the handoffs whose forget it imported and erased here (``forgotten_now``). Read from the
    oldest of those points on, only when some handoff was forgotten: a sync with nothing of the
    kind reads nothing for this."""
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

