"""The baton use cases a person (or the MCP server) runs: leave a baton, list
the pending ones, cancel, dismiss, and scope an existing handoff as a baton;
with their result classes.

Reading and claiming a baton, which every session start does, are in
``baton.commands.batons`` and ``baton.commands.baton_claim``: a session start
defines none of these classes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from baton.commands.baton_claim import CreatedBaton, key_state
from baton.commands.baton_create import create_in_scope
from baton.commands.baton_hand_on import hand_on_in_scope
from baton.commands.batons import (
    claimed_by_another,
    current_batons,
    redaction_lines,
    stored_baton,
    version_expected,
    where_it_went,
)
from baton.commands.bootstrap import missed_mark, read_told
from baton.commands.feed_vouch import batons_judged, check_copy
from baton.commands.identity import SessionContext, context_of, recorded_owner
from baton.commands.ids import place_of, resolve_handoff_id
from baton.commands.record import record as record_events
from baton.domain.aggregates import baton as baton_aggregate
from baton.domain.baton_payload import as_payload
from baton.domain.batons import (
    PENDING,
    SUPERSEDED_UNSEEN,
    BatonRecord,
    active_for_context,
    clipped_text,
    lost_claim_reason,
    read_words,
    replaced_unread_notice,
    scope_words,
    shown_name,
    unseen_left_by,
)
from baton.domain.claimed_elsewhere import ClaimedElsewhere, beside_left, claimed_elsewhere_notice
from baton.domain.feed_vouch import FeedVouch
from baton.domain.short_ids import id_matches
from baton.errors import Conflict, InputError, NotFound
from baton.ledger.clock import rfc3339_micros
from baton.model import frozen
from baton.projections.batons import baton_records, claim_conflicts, unseen_details
from baton.values import replace

if TYPE_CHECKING:
    from baton.commands.context import Project


# -- use cases -----------------------------------------------------------------------

@frozen
class BatonCreateResult:
    created: CreatedBaton
    exit_code: int = 0
    claimed_elsewhere: ClaimedElsewhere | None = None
    """With no baton pending for this owner and branch before this one was left: their newest
    baton, claimed by another session that has not ended (``domain.claimed_elsewhere``, as a
    session start and ``session handoff`` tell it)."""
    unverified: tuple[str, ...] = ()
    """A handoff handed on (``--from``) from a feed no trusted key vouches for: the line that says
    so (``baton.domain.feed_vouch.copy_rule``); the session that receives it is told as well."""

    def to_json(self) -> dict[str, Any]:
        return {**self.created.to_json(), "notices": where_it_went(self.created.record),
                "claimedElsewhere": self.claimed_elsewhere.to_json() if self.claimed_elsewhere else None,
                **({"unverified": list(self.unverified)} if self.unverified else {})}

    def render(self) -> str:
        r = self.created.record
        scope = "shared baton" if r.shared else f"baton for {shown_name(r.owner)} on {shown_name(r.branch)}"
        text = f"Left a {scope}: {r.id}"
        if self.created.superseded:
            text += f" (supersedes {self.created.superseded})"
        told = where_it_went(r) + ([replaced_unread_notice(self.created.unread)] if self.created.unread else [])
        told += [claimed_elsewhere_notice(self.claimed_elsewhere)] if self.claimed_elsewhere else []
        return "\n".join([text, *redaction_lines(self.created.redactions), *told, *self.unverified])


def create_baton(
    project: "Project",
    handoff: Any = None,
    *,
    session: str | None = None,
    harness: str | None = None,
    owner: str | None = None,
    branch: str | None = None,
    shared: bool | None = None,
) -> BatonCreateResult:
    """Leave a baton (the spec's createHandoff): a payload without a non-empty step is an error.

    Raises:
        InputError: the payload is malformed or has no non-empty next step (exit 2).
    """
    payload = as_payload(handoff, owner, branch, shared, allow_empty=False)
    assert payload is not None
    opened = project
    ctx = context_of(opened, owner=payload.owner, branch=payload.branch)
    # Who captures: this clone's owner (resolved once when the baton is for it), before the lock.
    actor = recorded_owner(opened, None if (payload.owner or "").strip() else ctx.owner)
    with opened.writing() as scope:
        elsewhere = claimed_by_another(scope.runner, ctx, session_id=session, now=rfc3339_micros(opened.clock()))
        with scope.batch():  # the handoff and its baton.created: one append, all or nothing
            created = create_in_scope(scope, payload, ctx, actor=actor, session=session, harness=harness)
        return BatonCreateResult(replace(created, record=stored_baton(scope.runner, created.record)),
                                 claimed_elsewhere=elsewhere)


@frozen
class PendingBatonsResult:
    records: list[BatonRecord]
    conflicts: list[dict[str, Any]] = attrs.field(factory=list)
    """Claims that lost to an earlier claim of the same baton on another
    replica (``baton sync``), newest first."""
    unseen: list[dict[str, Any]] = attrs.field(factory=list)
    """Batons superseded unseen (``domain.batons.superseded_unseen``) by a baton still pending:
    each its summary, ``status`` ``superseded-unseen``, ``supersededBy``, and who left it and what
    for (``writer``, ``objective``: ``projections.batons.unseen_details``)."""
    exit_code: int = 0
    feeds: dict[str, FeedVouch] = attrs.field(factory=dict)
    """Per pending baton from a feed no trusted key vouches for (``feed_vouch.baton_vouch``, the rule
    a session start asks): why; its row says so, and a withheld one's steps are not shown."""

    def to_json(self) -> dict[str, Any]:
        items = [r.to_json() | ({"feed": self.feeds[r.id].to_json()} if r.id in self.feeds else {})
                 for r in self.records]
        out: dict[str, Any] = {"items": items, "total": len(self.records)}
        if self.conflicts:  # the spec's shape is {items, total}; conflicts only arise with sync
            out["conflicts"] = list(self.conflicts)
        if self.unseen:  # as conflicts: only batons left on replicas apart
            out["supersededUnseen"] = list(self.unseen)
        return out

    def render(self) -> str:
        lines = [] if self.records else ["No pending session handoffs."]
        for r in self.records:
            scope = "shared" if r.shared else f"{shown_name(r.owner)} on {shown_name(r.branch)}"
            found = self.feeds.get(r.id)
            step = WITHHELD_STEPS if found is not None and found.withheld else r.next_steps[0]
            lines.append(f"{r.id}  {r.created_at}  {scope}{found.mark if found else ''}  — {step}")
        if self.records:
            lines.append(f"{len(self.records)} pending")
        lines.extend(render_unseen(self.unseen))
        lines.extend(render_claim_conflicts(self.conflicts))
        return "\n".join(lines)


def render_unseen(unseen: list[dict[str, Any]]) -> list[str]:
    """One line per baton superseded unseen (``session handoff --all``, ``status``, the MCP
    ``baton_status``): its id, when and for whom, who left it (``unseen_left_by``), its
    objective, what replaced it and how to read it."""
    lines = []
    for u in unseen:
        ident = u.get("id")
        about = f", objective: {clipped_text(u['objective'])}" if u.get("objective") else ""
        how = "claimed before this one arrived (by `baton sync`), so no brief named it" \
            if u.get("arrivedAfterClaim") else "left by another session before any session read it" \
            if u.get("unread") else "left apart without seeing it"
        other = u.get("supersededFor")
        if isinstance(other, dict):  # another name's baton, sharing the key (docs/batons.md "Names that share a key")
            how = (f"for {scope_words(other)}, whose names share its key, {how}: no session of "
                   f"{scope_words(u)} receives it")
        lines.append(f"SUPERSEDED-UNSEEN baton {ident}  {u.get('createdAt')}  {scope_words(u)}: "
                     f"left by {unseen_left_by(u)}{about}; replaced by baton {u.get('supersededBy')}, "
                     f"{how}; {read_words(str(ident), u.get('handoffStatus'))}")
    return lines


def render_claim_conflicts(conflicts: list[dict[str, Any]]) -> list[str]:
    """One line per lost claim (``session handoff --all``, ``verify``)."""
    lines = []
    for c in conflicts:
        winner = c.get("winner") or {}
        held = "the earlier claim holds everywhere" if winner.get("status") == "claimed" else \
            "the claim changed nothing"
        lines.append(f"CONFLICT baton {c.get('handoffId')}: claimed by session {c.get('sessionId')} "
                     f"(writer {c.get('writer')}) at {c.get('claimedAt')}, but on another clone "
                     f"{lost_claim_reason(winner)}; {held}")
    return lines


def missed_after_claim(project: "Project", runner, records: list[BatonRecord]) -> list[dict[str, Any]]:
    """The batons each claimed baton of ``records`` superseded unseen after its claim
    (``BatonRecord.missed_unseen``) that no brief on this clone has named yet (the told marks of
    ``bootstrap``), as ``unseen_details`` gives them, with ``status`` ``superseded-unseen``,
    ``supersededBy`` and ``arrivedAfterClaim``. The told marks are read only when there is one."""
    claimed = [r for r in records if r.claimed and r.missed_unseen]
    if not claimed:
        return []
    told = set(read_told(project))
    return [{**u, "status": SUPERSEDED_UNSEEN, "supersededBy": r.id, "arrivedAfterClaim": True} for r in claimed
            for u in unseen_details(runner, r, [m for m in r.missed_unseen if missed_mark(str(m.get("id"))) not in told])]


WITHHELD_STEPS = "its steps are withheld (`baton session handoff` for its owner and branch says why)"
"""What a pending baton's row shows in place of its first step when it is withheld."""


def list_pending_batons(project: "Project") -> PendingBatonsResult:
    """Every pending (unclaimed, not superseded, cancelled or dismissed) baton,
    newest first, every claim that lost to another replica's, and every baton a
    pending one superseded unseen (left apart on another replica); each judged by
    its feed as a session start judges it (``feed_vouch.batons_judged``)."""
    runner = project.reading()
    docs = list(runner.docs("batons"))
    records = sorted((record for record, _version in baton_records(docs) if record.pending),
                     key=lambda r: (r.created_at, r.id), reverse=True)
    unseen = [{**u, "status": SUPERSEDED_UNSEEN, "supersededBy": r.id} for r in records
              for u in unseen_details(runner, r)]
    unseen += missed_after_claim(project, runner, [record for record, _version in baton_records(docs)])
    return PendingBatonsResult(records, claim_conflicts(docs), unseen, feeds=batons_judged(project, runner, records))


@frozen
class CancelResult:
    context: SessionContext
    record: BatonRecord | None
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"cancelled": self.record is not None, **self.context.to_json()}
        if self.record is not None:
            out["handoffId"] = self.record.id
            out["key"] = self.record.key
        return out

    def render(self) -> str:
        whom = f"{shown_name(self.context.owner)} on {shown_name(self.context.branch)}"
        if self.record is None:
            return f"Nothing to cancel: no pending baton for {whom}."
        return f"Cancelled baton {self.record.id} for {whom}."


def cancel_baton(project: "Project", *, owner: str | None = None, branch: str | None = None,
                 session: str | None = None, not_mine: bool = False) -> CancelResult:
    """Cancel this owner's pending baton on this branch (never a shared one). ``owner`` another
    owner: as a dismissal, only a baton this clone's owner left for them, unless ``not_mine``
    (the aggregate's one rule, ``baton.may_dismiss``).

    Nothing pending is not an error: the answer is ``{"cancelled": false}``.

    Raises:
        BatonNotYours: another owner's baton left by someone else (without ``not_mine``).
    """
    opened = project
    ctx = context_of(opened, owner=owner, branch=branch)
    me = recorded_owner(opened)
    with opened.writing() as scope:
        peeks = current_batons(scope.runner)
        active = active_for_context((p.record for p in peeks), ctx.owner, ctx.branch)
        if active is None:
            return CancelResult(ctx, None)
        peek = next(p for p in peeks if p.record is active)
        decided = baton_aggregate.decide(key_state(scope, active.key),
                                         baton_aggregate.CancelBaton(session, by=me, not_mine=not_mine))
        record_events(scope, decided, version=version_expected(scope, decided, active.key, peek.version), actor=me,
                      session=session)
        return CancelResult(ctx, active)


def find_by_id(runner, token: str) -> tuple[str, dict[str, Any]] | None:
    """The key and record (current or earlier) of the baton ``token`` names."""
    hits: list[tuple[str, dict[str, Any]]] = []
    for key, doc in runner.docs("batons"):
        if not isinstance(doc, dict):
            continue
        candidates = [doc.get("current")] + list(doc.get("previous") or [])
        for record in candidates:
            if isinstance(record, dict) and isinstance(record.get("id"), str) and id_matches(token, record["id"]):
                hits.append((key, record))
                break
    ids = {r["id"] for _, r in hits}
    if len(ids) > 1:
        raise Conflict(f"{token!r} names more than one baton: {', '.join(sorted(ids))}",
                       details={"candidates": sorted(ids)})
    # One handoff handed on several times is the baton of several keys; the
    # pending one (if any) is the one a person means.
    pending = [(key, r) for key, r in hits if r.get("status") == PENDING]
    return (pending or hits)[0] if pending or hits else None


@frozen
class DismissResult:
    record: BatonRecord
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"dismissed": True, "handoffId": self.record.id, "key": self.record.key,
                "owner": self.record.owner, "branch": self.record.branch, "shared": self.record.shared}

    def render(self) -> str:
        return f"Dismissed baton {self.record.id}."


def dismiss_baton(project: "Project", handoff_id: str = "", *, via: str = "cli",
                  session: str | None = None, not_mine: bool = False) -> DismissResult:
    """Dismiss one pending baton by id (or unique prefix): one left for this clone's owner, one
    this owner left, or a shared one; another owner's only with ``not_mine``. The event records
    this clone's git identity as its actor.

    Raises:
        NotFound: no baton has that id.
        BatonAlreadyClaimed / BatonNotPending: it is not pending any more.
        BatonNotYours: it is for another owner and left by someone else (without ``not_mine``).
    """
    token = (handoff_id or "").strip()
    if not token:
        raise InputError("dismiss needs a baton id")
    opened = project
    me = recorded_owner(opened)
    with opened.writing() as scope:
        found = find_by_id(scope.runner, token)
        if found is None:
            raise NotFound(f"no baton with id {token!r}", details={"handoff_id": token})
        key, raw = found
        state = key_state(scope, key)
        decided = baton_aggregate.decide(state, baton_aggregate.DismissBaton(raw["id"], session=session, via=via,
                                                                             by=me, not_mine=not_mine))
        record_events(scope, decided, version=version_expected(scope, decided, key, state.version), actor=me,
                      session=session)
        current = state.current
        assert current is not None  # decide dismisses only a baton the key holds
        return DismissResult(current)


def scope_handoff_as_baton(
    project: "Project",
    handoff_id: str = "",
    *,
    owner: str | None = None,
    branch: str | None = None,
    shared: bool = False,
    session: str | None = None,
    harness: str | None = None,
) -> BatonCreateResult:
    """Deliver an existing (rich) handoff at the next session start: scope it as a baton.

    Its open items become the baton's next steps and its failed attempts to
    avoid become failed approaches; the baton points at the same handoff id,
    so ``baton resume`` and ``baton handoff show`` keep working on it.

    A handoff from a feed no trusted key vouches for is handed on with a line saying so (the
    baton carries its mark to the session that receives it: ``feed_vouch.baton_vouch``), and
    refused while signatures are required, in ``resume``'s words (``feed_vouch.check_copy``).

    Raises:
        NotFound: no handoff has that id.
        Conflict: the prefix is ambiguous, the handoff is archived or superseded, or withheld.
        InputError: the handoff has no open item to hand on.
    """
    token = (handoff_id or "").strip()
    if not token:
        raise InputError("`handoff_id` is needed: the handoff to hand on")
    opened = project
    ctx = context_of(opened, owner=owner, branch=branch)
    with opened.writing() as scope:
        elsewhere = claimed_by_another(scope.runner, ctx, session_id=session, now=rfc3339_micros(opened.clock()))
        ident = resolve_handoff_id(scope.runner, token, here=place_of(opened)) \
            if "handoffs" in scope.runner.by_name else None
        unverified = check_copy(opened, scope.runner, [ident]) if ident is not None else ()
        created = hand_on_in_scope(scope, token, ctx, shared=shared, session=session, harness=harness)
        return BatonCreateResult(created, claimed_elsewhere=beside_left(elsewhere, created.record.id),
                                 unverified=unverified)
