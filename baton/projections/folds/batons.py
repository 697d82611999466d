"""The baton index and the baton scopes folded by the baton aggregate
(``baton.projections.batons``: routing, files and queries)."""

from __future__ import annotations

import orjson

from baton.domain.aggregates.baton import BatonKey, Folded, fold, record_of_created
from baton.events.base import decode
from baton.events.baton import BatonCreated
from baton.ledger.envelope import Event
from baton.projections.base import Doc
from baton.projections.batons import OPERATIONS, BatonsBase, BatonScopesBase

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a session start folds its claim here)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

TELEMETRY_RECENT = 20
"""How many telemetry records each key's document keeps for ``baton metrics``."""


def _telemetry_record(event: Event, operation: str) -> dict[str, Any]:
    data = event.data if isinstance(event.data, dict) else {}
    return {"operation": operation, "at": event.at, "hlc": event.hlc, "sessionId": data.get("session"),
            "branch": data.get("branch"), "owner": data.get("owner"), "shared": data.get("shared"),
            "handoffId": data.get("handoff_id"), "writer": event.writer}


STATES_KEPT = 256
"""How many key states ``Batons`` keeps between events (a bound on memory, not on correctness)."""


class Batons(BatonsBase):
    """The baton index, and the local telemetry of each key (``baton metrics``):
    counts of the events the aggregate accepted, by the spec's operation
    names, and the newest few of them."""

    def __init__(self) -> None:
        self._states: dict[str, tuple[Doc, BatonKey]] = {}
        """The key state behind each document this projection last returned
        (held with the document, so identity can be trusted): the next event
        of the same key — a claim after its creation — folds without reading
        the document back (``BatonKey.from_doc`` gives an equal state)."""

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        return self.apply_all(key, doc, (event,))

    def fold(self, key: str, doc: Doc | None, event: Event) -> tuple[Doc, Folded]:
        """``apply``, with the aggregate's verdict (``accepted``, ``superseded``):
        ``baton metrics`` counts only accepted events."""
        verdicts: list[Folded] = []
        out = self.apply_all(key, doc, (event,), verdicts)
        return out, verdicts[0]

    def apply_all(self, key: str, doc: Doc | None, events: Iterable[Event],
                  verdicts: list[Folded] | None = None) -> Doc:
        """``apply`` over ``events`` in turn: the key's state folds through the
        aggregate event by event, its telemetry counts each accepted one, and
        the document is built once, at the end (a key takes many events in a
        batch of a replay). ``verdicts``: gets each event's ``Folded``."""
        known = self._states.get(key)
        state = known[1] if known is not None and known[0] is doc else BatonKey.from_doc(key, doc)
        telemetry = dict((doc or {}).get("telemetry") or {})
        recent = list((doc or {}).get("recent") or [])
        for event in events:
            folded = fold(state, event)
            state = folded.state
            if verdicts is not None:
                verdicts.append(folded)
            operation = OPERATIONS.get(event.type)
            if folded.accepted and operation is not None:
                telemetry[operation] = telemetry.get(operation, 0) + 1
                if folded.superseded is not None:
                    telemetry["handoff_superseded"] = telemetry.get("handoff_superseded", 0) + 1
                recent.insert(0, _telemetry_record(event, operation))
                del recent[TELEMETRY_RECENT:]
        out = state.to_doc()
        out["telemetry"] = telemetry
        out["recent"] = recent
        if len(self._states) >= STATES_KEPT:
            self._states.clear()
        self._states[key] = (out, state)
        return out


class BatonScopes(BatonScopesBase):
    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        created = decode(event)
        if not isinstance(created, BatonCreated):
            return doc
        record = record_of_created(created.key, created, event.at, event.actor)
        if record is None or record.id != key:
            return doc
        scope = {"owner": record.owner, "branch": record.branch, "shared": record.shared}
        scopes = list((doc or {}).get("scopes") or [])
        if scope in scopes:
            return doc
        return {"handoff_id": key, "scopes": sorted(scopes + [scope],
                                                    key=lambda s: orjson.dumps(s, option=orjson.OPT_SORT_KEYS))}
