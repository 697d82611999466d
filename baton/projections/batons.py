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

from typing import Any, Iterable

import attrs

from baton.canonical import pretty_bytes
from baton.domain.batons import (
    CANCELLED, CLAIMED, DISMISSED, PENDING, SUPERSEDED, BatonRecord, baton_file,
)
from baton.ledger.envelope import Event
from baton.projections.base import Doc

PREVIOUS_KEPT = 20
"""How many earlier batons a key's document remembers (the ledger keeps them all)."""


def _record_from_created(key: str, event: Event) -> BatonRecord | None:
    data = event.data or {}
    payload = data.get("payload") if isinstance(data.get("payload"), dict) else {}
    return BatonRecord.from_json({
        "id": data.get("handoff_id"),
        "key": key,
        "owner": data.get("owner"),
        "branch": data.get("branch"),
        "shared": data.get("shared") is True,
        "nextSteps": payload.get("nextSteps"),
        "failedApproaches": payload.get("failedApproaches"),
        "openQuestions": payload.get("openQuestions"),
        "harness": data.get("harness"),
        "sessionId": data.get("session"),
        "createdAt": event.at,
        "status": PENDING,
    })


def _summary(record: dict[str, Any]) -> dict[str, Any]:
    keep = ("id", "status", "createdAt", "sessionId", "claimedAt", "claimedBySession", "supersededBy", "endedAt")
    return {k: record.get(k) for k in keep}


@attrs.frozen
class Folded:
    """One event folded into a baton key's document."""

    doc: Doc
    accepted: bool
    """The event changed the key's baton (a malformed or out-of-turn event only moves ``version``)."""
    superseded: str | None = None
    """The pending baton a ``baton.created`` replaced."""


class Batons:
    name = "batons"
    version = 2

    def keys(self, event: Event) -> Iterable[str]:
        # Every event of the stream, known type or not, so ``version`` always
        # equals the stream's version and a claim can name it.
        if event.stream.startswith("baton/"):
            return (event.stream[len("baton/"):],)
        return ()

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        return self.fold(key, doc, event).doc

    def fold(self, key: str, doc: Doc | None, event: Event) -> "Folded":
        """``apply``, also saying whether the event changed the baton (``accepted``)
        and which pending baton a ``baton.created`` superseded. ``baton metrics``
        counts only accepted events."""
        doc = doc or {"key": key, "version": 0, "current": None, "previous": []}
        current = doc.get("current")
        previous = list(doc.get("previous") or [])
        data = event.data if isinstance(event.data, dict) else {}
        target = data.get("handoff_id")
        matches = isinstance(current, dict) and current.get("id") == target
        pending = matches and current.get("status") == PENDING
        accepted = False
        superseded = None

        if event.type == "baton.created":
            record = _record_from_created(key, event)
            if record is not None:
                accepted = True
                if isinstance(current, dict):
                    old = dict(current)
                    if old.get("status") == PENDING:
                        old["status"] = SUPERSEDED
                        old["supersededBy"] = record.id
                        old["claimed"] = False
                        superseded = old.get("id")
                    previous = ([_summary(old)] + previous)[:PREVIOUS_KEPT]
                current = record.to_json()
        elif event.type == "baton.claimed" and pending:
            accepted = True
            current = dict(current)
            claimed_at = data.get("claimed_at")
            current.update(
                status=CLAIMED, claimed=True,
                claimedAt=claimed_at if isinstance(claimed_at, str) else event.at,
                claimedBySession=data.get("session") if isinstance(data.get("session"), str) else None,
            )
        elif event.type in ("baton.cancelled", "baton.dismissed") and pending:
            accepted = True
            current = dict(current)
            current.update(status=CANCELLED if event.type == "baton.cancelled" else DISMISSED, endedAt=event.at)
        out = {"key": key, "version": event.stream_version, "current": current, "previous": previous}
        return Folded(out, accepted, superseded)

    def materialize(self, key: str, doc: Doc) -> dict[str, bytes]:
        current = doc.get("current")
        if isinstance(current, dict) and current.get("status") in (PENDING, CLAIMED):
            return {baton_file(key): pretty_bytes(current)}
        return {}


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
    shared}, ...]}``, from the ``baton.created`` events the baton index
    accepts. The bootstrap brief asks it whose eyes a handoff's traps and
    decisions are for — a rich handoff scoped with ``session handoff --from``
    carries no scope in its own record — and it remembers every scoping, not
    only the newest batons of a key.
    """

    name = "baton_scopes"
    version = 1

    def keys(self, event: Event) -> Iterable[str]:
        if event.type == "baton.created" and event.stream.startswith("baton/") and isinstance(event.data, dict):
            handoff_id = event.data.get("handoff_id")
            if isinstance(handoff_id, str) and handoff_id:
                return (handoff_id,)
        return ()

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        record = _record_from_created(event.stream[len("baton/"):], event)
        if record is None or record.id != key:
            return doc
        scope = {"owner": record.owner, "branch": record.branch, "shared": record.shared}
        scopes = list((doc or {}).get("scopes") or [])
        if scope in scopes:
            return doc
        return {"handoff_id": key, "scopes": scopes + [scope]}


def baton_scopes(docs: Iterable[tuple[str, Doc]]) -> dict[str, list[dict[str, Any]]]:
    """Handoff id → the scopes it was given as a baton (see ``BatonScopes``)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for key, doc in docs:
        scopes = doc.get("scopes") if isinstance(doc, dict) else None
        # A document that cannot be read still says "this handoff is a baton":
        # an unreadable scope admits nobody (see domain.batons.handoff_visible).
        out[key] = list(scopes) if isinstance(scopes, list) else [None]
    return out
