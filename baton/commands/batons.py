"""Session batons: peek, claim, create, show (and, in ``baton_cases``, leave, list, cancel, dismiss, scope).

A baton is a handoff record (captured through the lifecycle's
``capture_in_scope``) plus a ``baton.created`` event on stream
``baton/<key>`` that scopes it to an owner and branch, or shares it. Every
change is an event; nothing is deleted.

Claiming is the heart of it: a claim is an append of ``baton.claimed`` to the
baton's stream that names the stream version the claimer read, under the
ledger lock, fsynced. If anything landed on that stream since (another claim,
a newer baton, a cancel), the append fails — a claimer holding a stale record
can never overwrite a newer baton or deliver one twice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from baton.model import frozen
from baton.domain.batons import (
    CLAIMED, PENDING, BatonPayload, BatonRecord,
    baton_content_of_handoff, baton_key, baton_stream, freshness_line,
    carried_handoff_lines, handoff_payload_for_baton, parse_payload, render_baton_markdown, select_eligible,
)
from baton.commands.identity import SessionContext, context_of
from baton.errors import Conflict
from baton.events.names import handoff_stream
from baton.ledger.clock import rfc3339_micros

if TYPE_CHECKING:
    from baton.commands.context import Project
    from baton.domain.aggregates.baton import BatonKey

# Writing imports the baton aggregate and ``record`` (and with them the event
# classes) in the functions that write: reading a baton never needs them.


# -- reading ---------------------------------------------------------------------

@frozen
class Peek:
    """A baton as a claimer read it, with the version of its stream at that moment."""

    record: BatonRecord
    version: int

    @property
    def stream(self) -> str:
        return baton_stream(self.record.key)


def current_batons(runner) -> list[Peek]:
    """The newest baton of every key that reads back cleanly (any status)."""
    from baton.projections.batons import baton_records

    return [Peek(record, version) for record, version in baton_records(runner.docs("batons"))]


def peek_eligible(runner, ctx: SessionContext) -> Peek | None:
    """The baton a session of ``ctx`` would receive, without claiming it.

    Only two keys can hold it — this owner and branch's, and the shared one —
    so only their two documents are read, however many keys the project has.
    """
    from baton.projections.batons import baton_records

    keys = (baton_key(ctx.owner, ctx.branch, False), baton_key(ctx.owner, ctx.branch, True))
    peeks = [Peek(record, version) for record, version in
             baton_records((key, runner.get("batons", key)) for key in keys)]
    chosen = select_eligible((p.record for p in peeks), ctx.owner, ctx.branch)
    return next((p for p in peeks if p.record is chosen), None)


def baton_freshness(opened, runner, record: BatonRecord) -> str | None:
    """The one-line freshness of the handoff a baton carries (``domain.batons.freshness_line``).

    None when that handoff recorded no repository head. Reads git and the
    artifacts of the current worktree now, as ``baton resume`` does.
    """
    from baton.commands.handoff_facts import live_freshness
    from baton.domain.handoff import handoff_from_json

    doc = runner.get("handoffs", record.id) if "handoffs" in runner.by_name else None
    if not isinstance(doc, dict):
        return None
    handoff = handoff_from_json(doc)
    repo = handoff.project.repository
    if repo is None or not repo.head:
        return None
    report = live_freshness(opened.paths.worktree, handoff, opened.policy.allowed_roots)
    return freshness_line(report, record.id)


def quiet_freshness(opened, runner, record: BatonRecord | None) -> str | None:
    """``baton_freshness`` for views that must never fail on it (session begin, show): None on any error."""
    if record is None:
        return None
    try:
        return baton_freshness(opened, runner, record)
    except Exception:  # noqa: BLE001 - a freshness we cannot compute is left out, never an error
        return None


def carried_lines(runner, record: BatonRecord | None) -> tuple[str, ...]:
    """The objective and state of the rich handoff a baton hands on
    (``domain.batons.carried_handoff_lines``); nothing on any error: a view
    never fails on them."""
    if record is None or "handoffs" not in runner.by_name:
        return ()
    try:
        return carried_handoff_lines(runner.get("handoffs", record.id))
    except Exception:  # noqa: BLE001 - an unreadable record adds nothing to the section
        return ()


def pending_batons(runner) -> list[BatonRecord]:
    records = [p.record for p in current_batons(runner) if p.record.pending]
    return sorted(records, key=lambda r: (r.created_at, r.id), reverse=True)


def _find_by_id(runner, token: str) -> tuple[str, dict[str, Any]] | None:
    """The key and record (current or earlier) of the baton ``token`` names."""
    from baton.domain.handoff import id_matches

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
    return (pending or hits or [None])[0]


# -- writing -----------------------------------------------------------------------

def _key_state(scope, key: str) -> BatonKey:
    from baton.domain.aggregates.baton import BatonKey

    return BatonKey.from_doc(key, scope.runner.get("batons", key))


def claim_in_scope(scope, peek: Peek, *, session: str | None, harness: str | None = None) -> BatonRecord:
    """Claim the baton ``peek`` read, exactly once.

    Decides on the baton index as it is under the lock, then appends
    ``baton.claimed`` expecting the stream version ``peek`` saw (fsynced).

    Raises:
        InputError: no session named (a claim always names its session).
        BatonSuperseded: a newer baton replaced it since it was read (id mismatch).
        BatonAlreadyClaimed: another session claimed it first.
        BatonNotPending: it was cancelled or dismissed.
        StreamVersionConflict: its stream moved on in any other way.
    """
    from baton.commands.record import record as record_events
    from baton.domain.aggregates import baton as baton_aggregate

    record = peek.record
    state = _key_state(scope, record.key)
    claimed_at = rfc3339_micros(scope.project.clock())
    decided = baton_aggregate.decide(state, baton_aggregate.ClaimBaton(record.id, session or "", claimed_at))
    record_events(scope, decided, version=peek.version, durable=True, actor=state.current.owner, session=session)
    _resume_handoff(scope, record.id, session=session, harness=harness)
    claimed = _key_state(scope, record.key).current  # inside a batch(): not folded yet, still pending
    return claimed if claimed is not None and claimed.id == record.id and claimed.status == CLAIMED else \
        attrs.evolve(state.current, status=CLAIMED, claimed_at=claimed_at, claimed_by_session=session)


@frozen
class CreatedBaton:
    record: BatonRecord
    superseded: str | None
    redactions: list

    def to_json(self) -> dict[str, Any]:
        return {"handoff": self.record.to_json(), "superseded": self.superseded, "redactions": self.redactions}


def _append_created(scope, record: BatonRecord, *, session: str | None, harness: str | None) -> str | None:
    """Append ``baton.created`` for ``record``; returns the pending baton it supersedes.

    Superseding retires the old *baton* only: the handoff it pointed at keeps
    its status (a ready handoff handed on with ``--from`` stays ready).
    """
    from baton.commands.record import record as record_events
    from baton.domain.aggregates import baton as baton_aggregate

    state = _key_state(scope, record.key)
    (created,) = baton_aggregate.decide(state, baton_aggregate.CreateBaton(record, session=session, harness=harness))
    record_events(scope, [created], version=scope.txn.stream_version(created.stream), actor=record.owner,
                  session=session)
    return created.supersedes


def _resume_handoff(scope, handoff_id: str, *, session: str | None, harness: str | None) -> None:
    """A claim is its handoff's resume when the lifecycle allows one.

    A baton left at session end is a *draft* handoff (a checkpoint nobody has
    validated), and a draft cannot be resumed; for it the baton index is the
    record of its fate. A ready handoff handed on with ``--from`` is marked
    ``resumed`` like any other.
    """
    from baton.commands.record import record as record_events
    from baton.domain.aggregates import handoff as handoff_aggregate
    from baton.domain.handoff import handoff_from_json

    doc = scope.runner.get("handoffs", handoff_id) if "handoffs" in scope.runner.by_name else None
    if not isinstance(doc, dict):
        return
    handoff = handoff_from_json(doc)
    command = handoff_aggregate.Resume(session=session, harness=harness)
    if handoff_aggregate.allows(handoff, command):
        decided = handoff_aggregate.decide(handoff, command, now=doc.get("updated_at") or "")
        record_events(scope, decided, version=scope.txn.stream_version(handoff_stream(handoff_id)),
                      session=session)


def create_in_scope(
    scope,
    payload: BatonPayload,
    ctx: SessionContext,
    *,
    session: str | None = None,
    harness: str | None = None,
    objective: str | None = None,
) -> CreatedBaton:
    """Capture the baton's handoff record and scope it (``baton.created``), in one locked scope.

    ``ctx`` is the resolved owner and branch (the payload's own owner/branch
    already applied). The text stored in the baton is the handoff's after
    redaction, so a secret in a next step never reaches the ledger.
    """
    from baton.commands.capture import capture_in_scope

    owner, branch = ctx.owner, ctx.branch
    key = baton_key(owner, branch, payload.shared)
    scope.project.check_streams(baton_stream(key))  # before the capture: nothing appended if refused
    body = handoff_payload_for_baton(payload, owner=owner, branch=branch, objective=objective, session_id=session)
    origin = {"harness": harness, "session_id": session} if (harness or session) else None
    captured = capture_in_scope(scope, body, trigger="manual", origin=origin, session=session, actor=owner)
    content = baton_content_of_handoff(captured.record)
    record = BatonRecord(
        id=captured.handoff_id, key=key, owner=owner, branch=branch, shared=payload.shared,
        next_steps=tuple(content["nextSteps"]) or payload.next_steps,
        failed_approaches=tuple(content["failedApproaches"]),
        open_questions=tuple(content["openQuestions"]),
        harness=harness, session_id=session,
    )
    superseded = _append_created(scope, record, session=session, harness=harness)
    return CreatedBaton(stored_baton(scope.runner, record), superseded,
                        list(getattr(captured, "redactions", []) or []))


def stored_baton(runner, record: BatonRecord) -> BatonRecord:
    """The baton index's record of the baton ``record`` created, or ``record``
    itself while the index does not hold it yet (inside a ``batch()``)."""
    stored = runner.get("batons", record.key) or {}
    final = BatonRecord.from_json(stored.get("current"))
    return final if final is not None and final.id == record.id else record


def _as_payload(handoff: Any, owner: str | None, branch: str | None, shared: bool | None,
                *, allow_empty: bool) -> BatonPayload | None:
    if isinstance(handoff, BatonPayload):
        payload = handoff
    else:
        payload = parse_payload(handoff, allow_empty=allow_empty)
    if payload is None:
        return None
    return attrs.evolve(
        payload,
        owner=owner or payload.owner,
        branch=branch or payload.branch,
        shared=payload.shared if shared is None else (shared or payload.shared),
    )


# -- the active baton (``session handoff``) --------------------------------------------

@frozen
class ActiveBatonResult:
    context: SessionContext
    record: BatonRecord | None
    freshness: str | None = None
    carried: tuple[str, ...] = ()
    exit_code: int = 0

    def markdown(self) -> str | None:
        if self.record is None:
            return None
        return render_baton_markdown(self.record, freshness=self.freshness, carried=self.carried)

    def to_json(self) -> dict[str, Any]:
        return {
            **self.context.to_json(),
            "handoff": self.record.to_json() if self.record else None,
            "handoffMarkdown": self.markdown(),
        }

    def render(self) -> str:
        if self.record is None:
            return f"No active session handoff for {self.context.owner} on {self.context.branch}."
        return (self.markdown() or "").rstrip("\n")


def show_active_baton(project: "Project", *, owner: str | None = None, branch: str | None = None) -> ActiveBatonResult:
    """The baton the next session here would receive (not claimed by looking), with its freshness."""
    opened = project
    ctx = context_of(opened, owner=owner, branch=branch)
    runner = opened.reading()
    peek = peek_eligible(runner, ctx)
    record = peek.record if peek else None
    return ActiveBatonResult(ctx, record, quiet_freshness(opened, runner, record), carried_lines(runner, record))


# -- the other use cases a person (or the MCP server) runs -----------------------------
# Leaving, listing, cancelling, dismissing and scoping batons live in
# ``baton.commands.baton_cases``, with their result classes: a session start
# reads and claims (above) and never needs them. They are importable from
# here as before, on first use.

_CASES = frozenset({"BatonCreateResult", "create_baton", "PendingBatonsResult", "render_claim_conflicts",
                    "list_pending_batons", "CancelResult", "cancel_baton", "DismissResult", "dismiss_baton",
                    "scope_handoff_as_baton"})


def __getattr__(name: str) -> Any:
    if name in _CASES:
        from baton.commands import baton_cases

        return getattr(baton_cases, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
