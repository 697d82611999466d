"""The baton index and the baton scopes folded by the baton aggregate
(``baton.projections.batons``: routing, files and queries)."""

from __future__ import annotations

from typing import Any

import orjson

from baton.domain.aggregates.baton import BatonKey, Folded, fold, record_of_created
from baton.events.base import decode
from baton.events.baton import BatonCreated
from baton.ledger.envelope import Event
from baton.projections.base import Doc
from baton.projections.batons import OPERATIONS, BatonsBase, BatonScopesBase

TELEMETRY_RECENT = 20
"""How many telemetry records each key's document keeps for ``baton metrics``."""


def _telemetry_record(event: Event, operation: str) -> dict[str, Any]:
    data = event.data if isinstance(event.data, dict) else {}
    return {"operation": operation, "at": event.at, "hlc": event.hlc, "sessionId": data.get("session"),
            "branch": data.get("branch"), "owner": data.get("owner"), "shared": data.get("shared"),
            "handoffId": data.get("handoff_id")}


class Batons(BatonsBase):
    """The baton index, and the local telemetry of each key (``baton metrics``):
    counts of the events the aggregate accepted, by the spec's operation
    names, and the newest few of them."""

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        return self.fold(key, doc, event)[0]

    def fold(self, key: str, doc: Doc | None, event: Event) -> tuple[Doc, Folded]:
        """``apply``, with the aggregate's verdict (``accepted``, ``superseded``):
        ``baton metrics`` counts only accepted events."""
        folded = fold(BatonKey.from_doc(key, doc), event)
        out = folded.state.to_doc()
        telemetry = dict((doc or {}).get("telemetry") or {})
        recent = list((doc or {}).get("recent") or [])
        operation = OPERATIONS.get(event.type)
        if folded.accepted and operation is not None:
            telemetry[operation] = telemetry.get(operation, 0) + 1
            if folded.superseded is not None:
                telemetry["handoff_superseded"] = telemetry.get("handoff_superseded", 0) + 1
            recent = ([_telemetry_record(event, operation)] + recent)[:TELEMETRY_RECENT]
        out["telemetry"] = telemetry
        out["recent"] = recent
        return out, folded


class BatonScopes(BatonScopesBase):
    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        created = decode(event)
        if not isinstance(created, BatonCreated):
            return doc
        record = record_of_created(created.key, created, event.at)
        if record is None or record.id != key:
            return doc
        scope = {"owner": record.owner, "branch": record.branch, "shared": record.shared}
        scopes = list((doc or {}).get("scopes") or [])
        if scope in scopes:
            return doc
        return {"handoff_id": key, "scopes": sorted(scopes + [scope],
                                                    key=lambda s: orjson.dumps(s, option=orjson.OPT_SORT_KEYS))}
