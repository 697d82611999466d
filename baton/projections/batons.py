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

from baton.canonical import pretty_bytes
from baton.domain.batons import (
    CLAIMED,
    PENDING,
    BatonRecord,
    baton_file,
    baton_stream,
    clipped_text,
    collided_unseen,
    handoff_objective,
    index_key,
)
from baton.events.names import BATON, BATON_CANCELLED, BATON_CLAIMED, BATON_CREATED, BATON_DISMISSED, split_stream
from baton.ledger.envelope import Event
from baton.projections.base import ANY_ORDER, STREAM_ORDER, Doc

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any, Iterable

OPERATIONS = {
    BATON_CREATED: "handoff_created",
    BATON_CLAIMED: "handoff_claimed",
    BATON_CANCELLED: "handoff_cancelled",
    BATON_DISMISSED: "handoff_dismissed",
}
"""The spec's telemetry operation of each baton event type."""


class BatonsBase:
    """What routes an event to a key's document, and its file; the fold
    (``baton.projections.folds.batons.Batons``) adds ``apply``: the baton
    index, and the local telemetry of each key (``baton metrics``)."""

    name = "batons"
    version = 14
    order = STREAM_ORDER
    """4: a claim that lost to an earlier one (replicas apart, ``baton sync``) is kept as a conflict.
    5: a key's ``version`` is the highest its stream reached, as the ledger's (an event
    imported by sync can sort after a higher version written apart).
    6: each ``recent`` record names the writer of its event (``baton_creators``: a baton this
    clone left for another owner is told of at its next session start).
    7: a baton that supersedes a pending one its writer never saw (left on another replica
    while it was apart) names it (``replacedUnseen``), and its ``previous`` summary says ``unseen``.
    8: a baton that supersedes a pending one another session left on this clone and none read
    names it too (``unread``, with its ``firstStep``), and keeps naming those the replaced one named.
    9: a baton names who left it (``leftBy``: its ``baton.created``'s actor) and who cancelled or
    dismissed it (``endedBy``, ``endedByWriter``).
    10: a dismissed baton names how (``endedVia``: ``resumed`` when its handoff was resumed another
    way, ``baton.domain.batons.settled_by_resume``) and by which session (``endedBySession``).
    11: a baton dismissed in the batch of its handoff's resume says so (``endedWithResume``), so a
    resume that named no session is told as one on that writer's clone, not as one met after a sync.
    12: a baton superseded unseen by one already claimed is named by the claim (``missedUnseen``).
    13: one document per e-mail owner in any letter case (``index_key``): the streams older Batons
    wrote per spelling (``baton/Bob%40Ex.com__main``, ``baton/bob%40ex.com__main``) fold into one,
    so a newer baton for one person and branch supersedes the older whatever its spelling.
    14: the owner side is folded in its ASCII letters only (``owner_match_key``): ``straße@…`` and
    ``strasse@…`` are two owners, two documents; a baton folded from another spelling's stream
    names it (``streamKey``), where its claim, cancellation or dismissal is written."""
    folds_runs = True
    """A batch's events of one key fold in turn, the document built once (``Batons.apply_all``)."""

    def keys(self, event: Event) -> Iterable[str]:
        # Every event of the stream, known type or not, so ``version`` always
        # equals the stream's version and a claim can name it.
        # An e-mail owner's key in any letter case folds into one document (``index_key``).
        family, key = split_stream(event.stream)
        return (index_key(key),) if family == BATON else ()

    def late_bounds(self, event: Event, get: Any) -> list[tuple]:
        """What a late event of a baton stream must sort after beyond its own stream's last event
        (the runner's ``_late_foldable``): a document that folded a stream other than its own
        (``lastKey``, the newest event it folded), and, for an event of such a stream, the last
        event of the document's own stream — so a late event folds incrementally only when a
        replay would fold it last too."""
        family, key = split_stream(event.stream)
        if family != BATON:
            return []
        doc_key = index_key(key)
        doc = get(self.name, doc_key)
        out = [tuple(doc["lastKey"])] if isinstance(doc, dict) and isinstance(doc.get("lastKey"), list) else []
        if doc_key != key:
            own = get("streams", baton_stream(doc_key))
            if isinstance(own, dict) and isinstance(own.get("last_key"), list):
                out.append(tuple(own["last_key"]))
        return out

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


def baton_creators(docs: Iterable[tuple[str, Doc]]) -> dict[str, str]:
    """The writer that created each baton the keys' ``recent`` records still name."""
    return {r["handoffId"]: r["writer"] for _key, doc in docs if isinstance(doc, dict)
            for r in doc.get("recent") or () if isinstance(r, dict) and r.get("operation") == OPERATIONS[BATON_CREATED]
            and isinstance(r.get("handoffId"), str) and isinstance(r.get("writer"), str)}


def unseen_details(runner, record: BatonRecord, summaries: Iterable[dict[str, Any]] | None = None
                   ) -> list[dict[str, Any]]:
    """Each baton ``record`` superseded unseen: its summary (``replacedUnseen``), ``writer``, the
    feed that created it (from the key's ``recent`` records; None once they no longer name it),
    ``handoffStatus``, the status of the handoff it carries now (None when the index holds none: an
    archived or superseded one is read with ``baton handoff show``, ``domain.batons.read_command``),
    and ``objective``, the objective of the handoff it carries (None without one), on one line and
    clipped as a baton section clips it (``clipped_text``), so every listing that passes it on —
    ``baton status --json``, ``session handoff --all --json``, the status page, the MCP
    ``baton_status`` — carries the same bounded text. Reads the key's document and each such
    handoff's row: nothing that grows with the project. ``summaries``: those to detail instead
    (``record.missed_unseen``: those it superseded unseen after its claim)."""
    chosen = tuple(record.replaced_unseen if summaries is None else summaries)
    if not chosen:
        return []
    doc = runner.get("batons", record.key)
    creators = baton_creators([(record.key, doc)]) if isinstance(doc, dict) else {}
    indexed = "handoffs" in runner.by_name
    out = []
    for u in chosen:
        ident = str(u.get("id"))
        row = runner.get("handoffs", ident) if indexed else None
        objective = handoff_objective(row)
        if objective is not None:
            objective = clipped_text(objective)
        status = row.get("status") if isinstance(row, dict) and isinstance(row.get("status"), str) else None
        other = collided_with(record, u)
        out.append({**u, "writer": creators.get(ident), "objective": objective, "handoffStatus": status, **other})
    return out


def collided_with(record: BatonRecord, unseen: dict[str, Any]) -> dict[str, Any]:
    """``{"supersededFor": {owner, branch}}`` when ``record``, which replaced ``unseen``, is for
    another owner or branch whose names share its key (``domain.batons.collided_unseen``: left on
    clones apart), so a listing says the baton was replaced by another name's; else nothing."""
    owner = unseen.get("owner")
    if unseen.get("shared") is True or not isinstance(owner, str) or not collided_unseen(record, owner,
                                                                                       str(unseen.get("branch"))):
        return {}
    return {"supersededFor": {"owner": record.owner, "branch": record.branch}}


def unseen_sources(runner, record: BatonRecord, summaries: Iterable[dict[str, Any]] | None = None
                   ) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """For each baton ``record`` superseded unseen (or each of ``summaries``: ``unseen_details``): who
    left it (the writer that created it, from the key's ``recent`` records), the objective of the
    handoff it carries and that handoff's status now (the handoff index)."""
    left_by, objectives, statuses = {}, {}, {}
    for u in unseen_details(runner, record, summaries):
        ident = str(u.get("id"))
        if u["writer"]:
            left_by[ident] = f"writer `{u['writer']}`" + (f" (session `{u['sessionId']}`)" if u.get("sessionId") else "")
        if u["objective"]:
            objectives[ident] = u["objective"]
        if u["handoffStatus"]:
            statuses[ident] = u["handoffStatus"]
    return left_by, objectives, statuses


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


class BatonScopesBase:
    """What routes a ``baton.created`` event to its handoff's document; the fold
    (``baton.projections.folds.batons.BatonScopes``) adds ``apply``.

    Every owner/branch (or shared) scope each handoff was ever given as a baton.
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

    types = frozenset((BATON_CREATED,))

    def keys(self, event: Event) -> Iterable[str]:
        if event.type == BATON_CREATED and isinstance(event.data, dict):
            handoff_id = event.data.get("handoff_id")
            if isinstance(handoff_id, str) and handoff_id and split_stream(event.stream)[0] == BATON:
                return (handoff_id,)
        return ()


def baton_scopes(docs: Iterable[tuple[str, Doc]]) -> dict[str, list[dict[str, Any] | None]]:
    """Handoff id → the scopes it was given as a baton (see ``BatonScopes``)."""
    out: dict[str, list[dict[str, Any] | None]] = {}
    for key, doc in docs:
        scopes = doc.get("scopes") if isinstance(doc, dict) else None
        # A document that cannot be read still says "this handoff is a baton":
        # an unreadable scope admits nobody (see domain.batons.handoff_visible).
        out[key] = list(scopes) if isinstance(scopes, list) else [None]
    return out
