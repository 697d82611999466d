"""The baton index: one document per baton key (``owner__branch`` or ``_shared``).

Folds the ``baton.*`` events of stream ``baton/<key>``. The document holds the
key's newest baton (``current``, whatever its status), a short list of the
batons before it, and the stream version folded so far — the version a
claimer names when it appends its claim. A newer baton supersedes the pending
one of the same key; other keys are untouched, because each key is its own
stream.

Materialized as ``.baton/batons/<key>.json`` while the current baton is
pending or claimed (the spec keeps a claimed baton's file, with ``claimed:
true``); a cancelled or dismissed baton has no file, but its events stay in
the ledger.

Malformed events (hand-written, or from a future version) change nothing but
the version: a bad baton must never stop a session from starting.

``baton_scopes`` (``BatonScopes``) is the same events seen from the handoff
side: every owner/branch or shared scope each handoff was given as a baton,
so the bootstrap brief can keep a private baton's traps and decisions out
of other owners' and branches' briefs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from baton.canonical import pretty_bytes
from baton.domain.batons import CLAIMED, PENDING, BatonRecord, baton_file
from baton.events.names import BATON, BATON_CANCELLED, BATON_CLAIMED, BATON_CREATED, BATON_DISMISSED, split_stream
from baton.ledger.envelope import Event
from baton.projections.base import ANY_ORDER, STREAM_ORDER, Doc

if TYPE_CHECKING:
    from baton.domain.aggregates.baton import Folded

# The baton aggregate (and with it the event classes) is imported where an
# event is folded: a command whose feeds gained nothing never loads it.

OPERATIONS = {
    BATON_CREATED: "handoff_created",
    BATON_CLAIMED: "handoff_claimed",
    BATON_CANCELLED: "handoff_cancelled",
    BATON_DISMISSED: "handoff_dismissed",
}
"""The spec's telemetry operation of each baton event type."""

TELEMETRY_RECENT = 20
"""How many telemetry records each key's document keeps for ``baton metrics``."""


def _telemetry_record(event: Event, operation: str) -> dict[str, Any]:
    data = event.data if isinstance(event.data, dict) else {}
    return {"operation": operation, "at": event.at, "hlc": event.hlc, "sessionId": data.get("session"),
            "branch": data.get("branch"), "owner": data.get("owner"), "shared": data.get("shared"),
            "handoffId": data.get("handoff_id")}


class Batons:
    """The baton index, and the local telemetry of each key (``baton metrics``):
    counts of the events the aggregate accepted, by the spec's operation
    names, and the newest few of them."""

    name = "batons"
    version = 4
    order = STREAM_ORDER
    """4: a claim that lost to an earlier one (replicas apart, ``baton sync``) is kept as a conflict."""

    def keys(self, event: Event) -> Iterable[str]:
        # Every event of the stream, known type or not, so ``version`` always
        # equals the stream's version and a claim can name it.
        family, key = split_stream(event.stream)
        return (key,) if family == BATON else ()

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        return self.fold(key, doc, event)[0]

    def fold(self, key: str, doc: Doc | None, event: Event) -> tuple[Doc, Folded]:
        """``apply``, with the aggregate's verdict (``accepted``, ``superseded``):
        ``baton metrics`` counts only accepted events."""
        from baton.domain.aggregates.baton import BatonKey, fold

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

    def materialize(self, key: str, doc: Doc) -> dict[str, bytes]:
        current = doc.get("current")
        if isinstance(current, dict) and current.get("status") in (PENDING, CLAIMED):
            return {baton_file(key): pretty_bytes(current)}
        return {}


def claim_conflicts(docs: Iterable[tuple[str, Doc]]) -> list[dict[str, Any]]:
    """Every lost claim of every key (``BatonKey.conflicts``), newest first."""
    out = [c for _key, doc in docs if isinstance(doc, dict) and isinstance(doc.get("conflicts"), list)
           for c in doc["conflicts"] if isinstance(c, dict)]
    return sorted(out, key=lambda c: (c.get("hlc") or 0, str(c.get("writer"))), reverse=True)


def baton_records(docs: Iterable[tuple[str, Doc]]) -> list[tuple[BatonRecord, int]]:
    """Every current baton that reads back cleanly, with its stream version."""
    out = []
    for _key, doc in docs:
        if not isinstance(doc, dict):
            continue
        record = BatonRecord.from_json(doc.get("current"))
        version = doc.get("version")
        if record is not None and isinstance(version, int):
            out.append((record, version))
    return out


class BatonScopes:
    """Every owner/branch (or shared) scope each handoff was ever given as a baton.

    One document per handoff id: ``{"handoff_id", "scopes": [{owner, branch,
    shared}, ...]}`` (each scope once, sorted), from the ``baton.created`` events the baton index
    accepts. The bootstrap brief asks it whose eyes a handoff's traps and
    decisions are for — a rich handoff scoped with ``session handoff --from``
    carries no scope in its own record — and it remembers every scoping, not
    only the newest batons of a key.
    """

    name = "baton_scopes"
    version = 2
    """2: the scopes kept sorted, so the document is the same whatever order
    the events arrived in (``ANY_ORDER``)."""
    order = ANY_ORDER

    def keys(self, event: Event) -> Iterable[str]:
        if event.type == BATON_CREATED and isinstance(event.data, dict):
            handoff_id = event.data.get("handoff_id")
            if isinstance(handoff_id, str) and handoff_id and split_stream(event.stream)[0] == BATON:
                return (handoff_id,)
        return ()

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        from baton.domain.aggregates.baton import record_of_created
        from baton.events.base import decode
        from baton.events.baton import BatonCreated

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
        import orjson

        return {"handoff_id": key, "scopes": sorted(scopes + [scope],
                                                    key=lambda s: orjson.dumps(s, option=orjson.OPT_SORT_KEYS))}


def baton_scopes(docs: Iterable[tuple[str, Doc]]) -> dict[str, list[dict[str, Any] | None]]:
    """Handoff id → the scopes it was given as a baton (see ``BatonScopes``)."""
    out: dict[str, list[dict[str, Any] | None]] = {}
    for key, doc in docs:
        scopes = doc.get("scopes") if isinstance(doc, dict) else None
        # A document that cannot be read still says "this handoff is a baton":
        # an unreadable scope admits nobody (see domain.batons.handoff_visible).
        out[key] = list(scopes) if isinstance(scopes, list) else [None]
    return out
