"""The ``detector`` projection's fold (``baton.projections.detector``): each
session's cooldown state through ``baton.domain.detector.evolve_state``."""

from __future__ import annotations

from baton.domain.detector import evolve_state
from baton.ledger.envelope import Event
from baton.projections.base import Doc
from baton.projections.detector import MATERIAL, DetectorBase


class Detector(DetectorBase):
    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        if key == MATERIAL:
            if doc is not None and tuple(doc.get("key") or ()) > event.merge_key:
                return doc  # a late event: the newest material event stays
            return {"at": event.at, "event": event.id, "key": list(event.merge_key)}
        data = event.data if isinstance(event.data, dict) else {}
        return evolve_state(doc, event.type, data, event.at)
