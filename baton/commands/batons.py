"""Session batons as every session start reads them: the shared baton logic.

A baton is a handoff record (captured through the lifecycle's
``capture_in_scope``) plus a ``baton.created`` event on stream
``baton/<key>`` that scopes it to an owner and branch, or shares it. Every
change is an event; nothing is deleted.

This module reads: the newest baton of each key (``current_batons``), the
one a session would receive (``peek_eligible``), and the helpers the baton
use cases share. The rest is split along what a hook needs:

- ``baton_claim``: claiming a baton and appending ``baton.created`` (the
  baton aggregate and ``record``: only when a baton is claimed or left);
- ``baton_create``: leaving a baton (a capture, then ``baton_claim``);
- ``handoff_facts``: with the worktree's facts, the handoff a baton carries
  as a session is shown it (its freshness line and summary; read only when
  there is a baton);
- ``baton_view``: ``session handoff``;
- ``baton_hand_on``: an existing handoff handed on as a baton;
- ``baton_cases``: the use cases a person runs (leave, list, cancel,
  dismiss, scope a handoff as a baton).

Claiming is the heart of it: a claim is an append of ``baton.claimed`` to the
baton's stream that names the stream version the claimer read, under the
ledger lock, fsynced. If anything landed on that stream since (another claim,
a newer baton, a cancel), the append fails — a claimer holding a stale record
can never overwrite a newer baton or deliver one twice.
"""

from __future__ import annotations

from baton.commands.identity import DETACHED_BRANCH, SessionContext
from baton.domain.batons import (
    DISMISSED,
    RESUMED_VIA,
    BatonRecord,
    baton_key,
    baton_stream,
    detached_left_notice,
    select_eligible,
    taken_up_before,
)
from baton.domain.claimed_elsewhere import ClaimedElsewhere, as_recorded, claimed_elsewhere
from baton.ledger.clock import rfc3339_micros
from baton.projections.batons import baton_records
from baton.projections.handoffs import resumed_at
from baton.projections.sessions import sessions_named
from baton.values import Value, replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook path's modules need none)
if TYPE_CHECKING:
    from typing import Any


# -- reading ---------------------------------------------------------------------

class Peek(Value):
    """A baton as a claimer read it, with the version of its stream at that moment."""

    record: BatonRecord
    version: int

    @property
    def stream(self) -> str:
        return baton_stream(self.record.key)


def version_expected(scope, decided: list, key: str, version: int) -> int:
    """The stream version an append of ``decided`` (events about one baton of ``key``) names:
    ``version``, the key's own stream's as read, or — for a baton an older Baton left on the
    stream of an e-mail as spelled (``BatonRecord.stream_key``), where its events go — that
    stream's under the lock (the decider read the key's document under the same lock)."""
    stream = decided[0].stream if decided else baton_stream(key)
    return version if stream == baton_stream(key) else scope.txn.stream_version(stream)


def where_it_went(record: BatonRecord | None) -> list[str]:
    """What leaving ``record`` says of where it went, beyond its owner and branch: for a private
    baton left on a plain detached ``HEAD`` (``DETACHED_BRANCH``), who receives it and how
    (``detached_left_notice``); nothing otherwise."""
    if record is None or record.shared or record.branch != DETACHED_BRANCH:
        return []
    return [detached_left_notice(record.owner, record.branch)]


def current_batons(runner) -> list[Peek]:
    """The newest baton of every key that reads back cleanly (any status)."""
    return [Peek(record, version) for record, version in baton_records(runner.docs("batons"))]


def peek_eligible(runner, ctx: SessionContext) -> Peek | None:
    """The baton a session of ``ctx`` would receive, without claiming it."""
    return peek_at_start(runner, ctx)[0]


def peek_at_start(runner, ctx: SessionContext) -> tuple[Peek | None, BatonRecord | None]:
    """The baton a session of ``ctx`` would receive (``peek_eligible``), and the
    current baton of this owner and branch's key, whatever its status (what a
    start that receives none is told of: ``domain.claimed_elsewhere``).

    Only a few keys can hold them — this owner and branch's (an e-mail owner's in any letter
    case: ``same_owner``), and the shared one — so only their documents are read, however many
    keys the project has.
    """
    own_key = baton_key(ctx.owner, ctx.branch, False)
    keys = _own_keys(runner, ctx) + (baton_key(ctx.owner, ctx.branch, True),)
    peeks = [Peek(record, version) for record, version in
             baton_records((key, runner.get("batons", key)) for key in keys)]
    chosen = select_eligible((p.record for p in peeks), ctx.owner, ctx.branch)
    own = next((p.record for p in peeks if p.record.key == own_key and not p.record.shared), None)
    return next((p for p in peeks if p.record is chosen), None), own


def _own_keys(runner, ctx: SessionContext) -> tuple[str, ...]:
    """The private keys a baton for ``ctx``'s owner and branch may sit under: its own, and for an
    e-mail owner those that differ from it only in letter case (a baton left for ``bob@ex.com``
    reaches ``Bob@Ex.com``: ``same_owner``; ``select_eligible`` then checks owner and branch)."""
    own = baton_key(ctx.owner, ctx.branch, False)
    if "@" not in ctx.owner or not hasattr(runner, "keys_alike"):
        return (own,)
    return (own, *(key for key in runner.keys_alike("batons", own) if key != own))


def claimer_ended(runner, record: BatonRecord | None) -> bool:
    """Whether the session that claimed ``record`` has ended (its ``session.ended``
    is recorded): one query of the sessions index, whatever the ledger's size.
    The claim does not say which clone's session it was (sessions are their
    writer's): ended when every session recorded under that id has ended."""
    if record is None or record.claimed_by_session is None or "sessions" not in runner.by_name:
        return False
    docs = sessions_named(runner.db, record.claimed_by_session)
    return bool(docs) and all(doc.get("endedAt") is not None for doc in docs)


def claimed_by_another(runner, ctx: SessionContext, *, session_id: str | None, now: str) -> ClaimedElsewhere | None:
    """What a session about to leave a baton for ``ctx`` (``session end``, ``session handoff
    --from``) is told, read before it appends: with no baton pending for it, the newest one of
    this owner and branch, claimed by another session (``domain.claimed_elsewhere``, the rule a
    start and ``session handoff`` tell by; ``session_id``: the session leaving it, None when
    none is named). The same two documents a start reads, and one keyed read of the claimer."""
    peek, own = peek_at_start(runner, ctx)
    return None if peek is not None else claim_told(runner, ctx, own, session_id=session_id, now=now)


def claim_told(runner, ctx: SessionContext, own: BatonRecord | None, *, session_id: str | None,
               now: str) -> ClaimedElsewhere | None:
    """``domain.claimed_elsewhere`` for ``own`` (the current baton of ``ctx``'s key, with none
    pending for it: ``peek_at_start``), whether its claimer ended read from the sessions index."""
    fact = claimed_elsewhere(own, owner=ctx.owner, branch=ctx.branch, session_id=session_id, now=now,
                             claimer_ended=claimer_ended(runner, own))
    return as_recorded(fact, handoff_status(runner, fact.handoff_id)) if fact is not None else None


def handoff_status(runner, handoff_id: str) -> str | None:
    """The status the index holds for ``handoff_id`` (None when it holds no record of it)."""
    doc = runner.get("handoffs", handoff_id) if "handoffs" in runner.by_name else None
    return doc.get("status") if isinstance(doc, dict) else None


def received_at_start(runner, ctx: SessionContext, baton_id: str | None) -> Peek | None:
    """The baton ``baton_id`` a started session of ``ctx`` received (its repeated
    start shows it again), while the index still holds it as the current baton
    of this owner and branch's key or of the shared one (the two documents
    ``peek_at_start`` reads); None once a newer baton replaced it there."""
    if baton_id is None:
        return None
    keys = _own_keys(runner, ctx) + (baton_key(ctx.owner, ctx.branch, True),)
    return next((Peek(record, version) for record, version in
                 baton_records((key, runner.get("batons", key)) for key in keys) if record.id == baton_id), None)


def pending_batons(runner) -> list[BatonRecord]:
    records = [p.record for p in current_batons(runner) if p.record.pending]
    return sorted(records, key=lambda r: (r.created_at, r.id), reverse=True)


def stored_baton(runner, record: BatonRecord) -> BatonRecord:
    """The baton index's record of the baton ``record`` created, or ``record``
    itself while the index does not hold it yet (inside a ``batch()``)."""
    stored = runner.get("batons", record.key) or {}
    final = BatonRecord.from_json(stored.get("current"))
    return final if final is not None and final.id == record.id else record


# -- what the use cases that leave a baton share -------------------------------------------

def redaction_lines(redactions: Any) -> list[str]:
    """What was redacted before the baton was written (field and rule; never the value)."""
    items = [r for r in redactions or () if isinstance(r, dict)]
    if not items:
        return []
    listed = ", ".join(redacted_field(r) for r in items[:5])
    more = f" and {len(items) - 5} more" if len(items) > 5 else ""
    return [f"Redacted before writing: {listed}{more}."]



def redacted_field(redaction: dict) -> str:
    """One redaction as a command's text says it: the field (as the flag the person gave, when an
    adapter named it: ``flag``, then the record path) and the rule; never the value."""
    rule = redaction.get("rule") or redaction.get("reason", "secret")
    flag, field = redaction.get("flag"), redaction.get("field", "?")
    return f"{flag} ({field}, {rule})" if flag else f"{field} ({rule})"


def taken_up_in(runner, current: BatonRecord | None) -> bool:
    """Whether ``current``, pending, carries a handoff resumed after it was left (another clone
    resumed it apart, come by ``baton sync``: ``baton.domain.batons.settled_by_resume``), on the handoff's record
    and its newest resume's time as ``runner``'s index holds them: a start dismisses such a baton
    instead of claiming it (``baton_claim``, under the lock), and a peek shows it so."""
    if current is None or not current.pending or "handoffs" not in runner.by_name:
        return False
    handoff = runner.get("handoffs", current.id)
    if not isinstance(handoff, dict) or handoff.get("status") != "resumed":
        return False  # the common case: one keyed read, no row query
    return taken_up_before(current, handoff, resumed_at(runner.db, current.id))


def as_taken_up(project: "Any", current: BatonRecord) -> BatonRecord:
    """``current`` as a start here dismisses it now (``baton_claim.settle_taken_up``): what a peek
    shows instead of the baton (``bootstrap --peek``, ``session handoff``), appending nothing."""
    return replace(current, status=DISMISSED, ended_via=RESUMED_VIA,
                   ended_at=rfc3339_micros(project.clock()), ended_by_writer=project.writer)
