"""``baton session begin`` and ``baton session end``: sessions, objectives and batons.

A session begins (``session.begun``), optionally records an objective bound to
its owner and branch, and claims the baton waiting for it. It ends
(``session.ended``), optionally leaving a baton for the next session, and its
objective is cleared.

Claiming a baton (``baton_claim``) and leaving one (``baton_create``) are not
imported here: a session that begins with no baton waiting, or ends leaving
none, never loads them. ``begin_session`` and ``end_session`` answer None,
with nothing written, when they need that step; the application then loads
its module and calls them again with the step (``claim_in_scope``,
``create_in_scope``). What a start that receives no baton is told waits
elsewhere is the session-start brief's decision (``bootstrap``), passed in
the same way (``left_elsewhere``).
"""

from __future__ import annotations

from collections.abc import Callable

from baton.commands.batons import (
    claim_told,
    claimed_by_another,
    peek_at_start,
    redaction_lines,
    stored_baton,
    where_it_went,
)
from baton.commands.identity import SessionContext, context_of, owner_notice, project_owner, recorded_owner
from baton.commands.objectives import check_objective, check_session_id, get_session_objective
from baton.commands.record import record
from baton.commands.session_records import kept_objective, objective_events, record_begin, started_before
from baton.domain.aggregates import session as aggregate
from baton.domain.baton_payload import as_payload
from baton.domain.baton_payload import leaves_own_baton as leaves_own_baton  # the application asks it here
from baton.domain.batons import (
    BatonRecord,
    context_key,
    objective_stands_notice,
    objective_stream,
    render_baton_markdown,
    replaced_unread_notice,
    same_owner,
    session_stream,
    shown_name,
    unseen_lines,
    waiting_for_them_json,
    waits_for_them_line,
)
from baton.domain.claimed_elsewhere import ClaimedElsewhere, beside_left, claimed_elsewhere_notice
from baton.domain.repeated_start import received_baton, repeated_start_notice
from baton.domain.short_ids import short_id
from baton.errors import BatonError
from baton.ledger.clock import rfc3339_micros
from baton.ledger.ids import uuid7
from baton.projections.batons import unseen_sources
from baton.projections.sessions import session_doc
from baton.values import Value, replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any

    from baton.commands.baton_claim import CreatedBaton
    from baton.commands.context import Project
    from baton.domain.feed_vouch import FeedVouch

ClaimInScope = Callable[..., BatonRecord]
"""``baton_claim.claim_in_scope``: a waiting baton claimed, inside a write scope."""
VouchOf = Callable[["Any", "Any", BatonRecord], "FeedVouch | None"]
"""``feed_vouch.baton_vouch``: whether the waiting baton's feed is vouched for (the rule every
path that delivers a baton asks: the session-start brief, ``session handoff``, ``session begin``)."""
LeftElsewhere = Callable[["Project", "Any", SessionContext], list[str]]
"""``bootstrap.waiting_elsewhere``, its wording bound: the notices of a teammate's baton that
arrived after this owner and branch's claim, and of batons this clone left that wait elsewhere
(another owner, a branch gone, a detached HEAD at this branch's tip), as a session start that
receives none is told — each once."""
CreateInScope = Callable[..., "CreatedBaton"]
"""``baton_create.create_in_scope``: a baton left (its handoff captured and scoped), inside a write scope."""


# -- begin ----------------------------------------------------------------------------

class SessionBeginResult(Value):
    session_id: str
    context: SessionContext
    harness: str | None
    objective: str | None
    objective_cleared: bool
    record: BatonRecord | None
    freshness: str | None = None
    carried: tuple[str, ...] = ()
    exit_code: int = 0
    claimed_elsewhere: ClaimedElsewhere | None = None
    """No baton was waiting, and the newest one of this owner and branch was claimed by another
    session recently (``domain.claimed_elsewhere``)."""
    before: dict[str, Any] | None = None
    """A repeated start: the session's document, whose start was recorded before (nothing was
    claimed or recorded now but the ``objective`` given)."""
    unverified: "FeedVouch | None" = None
    """The baton claimed comes from a feed no trusted key vouches for (``baton.domain.feed_vouch``)."""
    withheld: str = ""
    """The baton waiting came from such a feed while signatures are required: it was not claimed,
    and this notice says why (``FeedVouch.withheld_notice``)."""
    owner_notice: str = ""
    """git's identity broke the owner rule and was passed over for the default owner: which
    setting, and what Baton uses instead (``identity.owner_notice``)."""
    unseen: tuple[str, ...] = ()
    """The lines naming the batons the one received replaced unseen or unread (``unseen_lines``,
    with who left each, its objective and its handoff's status now: ``unseen_sources``)."""
    notices: tuple[str, ...] = ()
    """No baton was received: the batons this clone left that wait elsewhere (``LeftElsewhere``)."""
    objective_kept: str | None = None
    """Started without an objective, the session left standing the objective another session, still
    open, set on this owner and branch (that session's id: ``session_records.kept_objective``)."""
    left_pending: tuple[BatonRecord, ...] = ()
    """A teammate's pending batons of the handoff received, which the claim left pending (theirs);
    ``notices`` says each waits for them (``waits_for_them_line``)."""

    @property
    def received(self) -> str | None:
        """The baton the session received with its start (this one, or the one recorded before)."""
        return self.record.id if self.record is not None else received_baton(self.before)

    def markdown(self) -> str | None:
        if self.record is None:
            return None
        claimed = self.record.owner if self.record.shared else None  # a shared baton's owner left it
        return render_baton_markdown(self.record, freshness=self.freshness, carried=self.carried,
                                     unseen=self.unseen,
                                     unverified=self.unverified.line(claimed) if self.unverified else "")

    def to_json(self) -> dict[str, Any]:
        out = {
            "sessionId": self.session_id,
            **self.context.to_json(),
            "harness": self.harness,
            "objective": self.objective,
            "objectiveCleared": self.objective_cleared,
            "objectiveKept": self.objective_kept,
            "handoff": self.record.to_json() if self.record else None,
            "handoffMarkdown": self.markdown(),
            "claimedElsewhere": self.claimed_elsewhere.to_json() if self.claimed_elsewhere else None,
            "repeated": self.before is not None,
            "receivedBaton": self.received,
            "notices": list(self.notices),
            "leftPending": [waiting_for_them_json(b) for b in self.left_pending],
        }
        if self.unverified is not None:  # only then, as ``session handoff``: its feed is not vouched for
            out["feed"] = self.unverified.to_json()
        if self.withheld:
            out["withheld"] = self.withheld
        if self.owner_notice:
            out["ownerNotice"] = self.owner_notice
        return out

    def render(self) -> str:
        if self.before is not None:
            lines = [f"Session {self.session_id} already began, for "
                     f"{shown_name(self.before.get('owner') or self.context.owner)}"
                     f" on {shown_name(self.before.get('branch') or self.context.branch)}.",
                     repeated_start_notice(self.session_id, self.before)]
            if self.objective:
                lines.append(f"Objective: {self.objective}")
            return "\n".join(lines)
        lines = [f"Session {self.session_id} began for {shown_name(self.context.owner)} on "
                 f"{shown_name(self.context.branch)}."]
        if self.owner_notice:
            lines.append(f"Note: {self.owner_notice}")
        if self.objective:
            lines.append(f"Objective: {self.objective}")
        elif self.objective_cleared:
            lines.append("The earlier session objective for this owner and branch was cleared "
                         "(give --objective to set this session's).")
        elif self.objective_kept:
            lines.append(objective_stands_notice(self.objective_kept))
        if self.record is not None:
            lines += [*self.notices, "", (self.markdown() or "").rstrip("\n")]
        elif self.withheld:
            lines.append(self.withheld)
        else:
            lines.append("No session handoff was waiting.")
            if self.claimed_elsewhere is not None:
                lines.append(claimed_elsewhere_notice(self.claimed_elsewhere))
            lines += list(self.notices)
        return "\n".join(lines)


def begin_session(
    project: "Project",
    *,
    session_id: str | None = None,
    harness: str | None = None,
    objective: str | None = None,
    owner: str | None = None,
    branch: str | None = None,
    claim: bool = True,
    received_baton: str | None = None,
    claim_in_scope: ClaimInScope | None = None,
    vouch_of: VouchOf | None = None,
    left_elsewhere: LeftElsewhere | None = None,
) -> SessionBeginResult | None:
    """Begin a session: record it, set (or clear a stale) objective, claim the eligible baton.

    ``received_baton``: with ``claim`` False, the baton the session already
    claimed (the bootstrap brief delivered it), recorded with its start.
    A session whose recorded start received a baton (``started_before``: by
    any entry point, decided under the lock) claims nothing and records no
    second start; only an ``objective`` given is set.
    None, with nothing written, when a baton waits to be claimed and no
    ``claim_in_scope`` and ``vouch_of`` were given. The waiting baton's feed is judged
    (``vouch_of``, the rule the session-start brief asks) under the lock: one no trusted key
    vouches for is claimed with the line that says so, or, when signatures are required,
    withheld — not claimed, the start recorded without it, and ``withheld`` says why. The
    result shows the baton claimed without its freshness (``handoff_facts.shown`` adds it).
    A start that receives none is told of the batons this clone left that wait elsewhere
    (``left_elsewhere``: the rule a harness's start hook tells them by), once recorded.

    Raises:
        InputError: a malformed session id or an over-long objective.
    """
    session_id = check_session_id(session_id) or uuid7()
    objective = check_objective(objective)
    harness = harness.strip() if harness and harness.strip() else None
    opened = project
    ctx = context_of(opened, owner=owner, branch=branch)
    with opened.writing() as scope:
        opened.check_streams(session_stream(session_id))  # before a claim: nothing appended if refused
        before = started_before(scope.runner, opened.writer, session_id)
        if before is not None and before.get("receivedBaton"):  # a repeated start: one baton a session
            if objective is not None:
                with scope.batch():
                    objective_events(scope, ctx, objective, session_id, reason="session_begin")
            return SessionBeginResult(session_id, ctx, harness or before.get("harness"), objective, False, None,
                                      before=before)
        peek, own = peek_at_start(scope.runner, ctx) if claim else (None, None)
        if peek is not None and (claim_in_scope is None or vouch_of is None):
            return None
        unverified = vouch_of(opened, scope.runner, peek.record) if peek is not None and vouch_of else None
        withheld = ""
        if peek is not None and unverified is not None and unverified.withheld:
            withheld, peek, unverified = unverified.withheld_notice("baton", peek.record.id), None, None
        elsewhere = claim_told(scope.runner, ctx, own, session_id=session_id,
                               now=rfc3339_micros(opened.clock())) if peek is None and not withheld else None
        with scope.batch():  # the claim and the start: one append, all or nothing
            received = None
            left: list[BatonRecord] = []  # a teammate's pending baton of its handoff, which the claim leaves
            if peek is not None and claim_in_scope is not None:
                received = claim_in_scope(scope, peek, session=session_id, harness=harness, claimer=ctx.owner,
                                          left=left)
                if not received.claimed:  # resumed elsewhere since it was left: dismissed, not received
                    received = None
            changed, kept = record_begin(scope, ctx, session_id, harness=harness, objective=objective,
                                         received_baton=received.id if received else received_baton)
        told: list[str] = []
        if received is None and not withheld and left_elsewhere is not None:
            try:
                told = left_elsewhere(opened, scope.runner, ctx)
            except BatonError:  # what cannot be read never stops a start: the brief leaves it out too
                told = []
        unseen = unseen_lines(received, *unseen_sources(scope.runner, received)) \
            if received is not None and received.replaced_unseen else ()
    return SessionBeginResult(session_id, ctx, harness, objective, changed and objective is None, received,
                              claimed_elsewhere=elsewhere if received is None else None, unseen=unseen,
                              unverified=unverified if received is not None else None, withheld=withheld,
                              owner_notice=(None if owner and owner.strip() else owner_notice(opened)) or "",
                              notices=(*told, *(waits_for_them_line(b) for b in left if received is not None)),
                              objective_kept=kept, left_pending=tuple(left) if received is not None else ())


# -- end --------------------------------------------------------------------------------

class SessionEndResult(Value):
    session_id: str
    context: SessionContext
    created: CreatedBaton | None
    objective_cleared: bool
    exit_code: int = 0
    begun: bool = True
    """Whether a start (``session.begun``) was recorded for this id before its end: a
    harness's end hook may end a session whose start Baton missed (hooks installed
    mid-session), and the end is recorded all the same."""
    told: tuple[str, ...] = ()
    """What an end without a payload did not hand on, and why (``harness_finish.EndNotice``)."""
    handed_on: bool = False
    """``created`` is the session's own ready handoff, handed on (an end without a payload)."""
    claimed_elsewhere: ClaimedElsewhere | None = None
    """With no baton pending for the session's owner and branch before this end: their newest
    baton, claimed by another session that has not ended (``domain.claimed_elsewhere``, as a
    session start and ``session handoff`` tell it) — a sibling has context this session may lack."""
    objective_kept: str | None = None
    """The end left standing the objective another session, still open, set on this owner and
    branch (that session's id: ``session_records.kept_objective``)."""
    ended_before: str | None = None
    """The session had already ended, then (its recorded end's time): this end recorded no
    second ``session.ended`` (``aggregate.decide_session``), only the baton it left, if any."""

    @property
    def not_begun_note(self) -> str | None:
        """One line for the command line when no start was recorded for the id (and this end recorded one)."""
        if self.begun or self.ended_before is not None:
            return None
        return (f"no start was recorded for session {self.session_id}; its end is recorded all the same "
                "(check the id if you meant a session begun here)")

    def to_json(self) -> dict[str, Any]:
        return {
            "sessionId": self.session_id,
            "ended": True,
            "alreadyEnded": self.ended_before is not None,
            "endedBefore": self.ended_before,
            "begun": self.begun,
            **self.context.to_json(),
            "handoff": self.created.record.to_json() if self.created else None,
            "handoffId": self.created.record.id if self.created else None,
            "superseded": self.created.superseded if self.created else None,
            "supersededUnread": self.created.unread_json() if self.created else None,
            "redactions": self.created.redactions if self.created else [],
            "objectiveCleared": self.objective_cleared,
            "objectiveKept": self.objective_kept,
            "handedOn": self.handed_on,
            "notices": [*where_it_went(self.created.record if self.created else None), *self.told],
            "claimedElsewhere": self.claimed_elsewhere.to_json() if self.claimed_elsewhere else None,
        }

    def render(self) -> str:
        if self.ended_before is not None:
            lines = [f"Session {self.session_id} had already ended (at {self.ended_before}): a session's end is "
                     "recorded once, and this one recorded no other."]
        else:
            lines = [f"Session {self.session_id} ended."]
        if self.created is None:
            lines.append("No baton left (empty handoff payload, and no ready handoff of the session to hand on).")
        else:
            r = self.created.record
            scope = "a shared baton" if r.shared else f"a baton for {shown_name(r.owner)} on {shown_name(r.branch)}"
            line = f"Left {scope}: {r.id} ({len(r.next_steps)} next step{'s' if len(r.next_steps) != 1 else ''})"
            if self.handed_on:
                line += ", handing on the session's ready handoff"
            if self.created.superseded:
                line += f", superseding {self.created.superseded}"
            lines.append(line + ".")
            lines.extend(where_it_went(r))
            if self.created.unread:
                lines.append(replaced_unread_notice(self.created.unread))
            lines.extend(redaction_lines(self.created.redactions))
        if self.objective_cleared:
            lines.append("The session objective was cleared.")
        elif self.objective_kept:
            lines.append(objective_stands_notice(self.objective_kept))
        if self.claimed_elsewhere is not None:
            lines.append(claimed_elsewhere_notice(self.claimed_elsewhere))
        lines += list(self.told)
        return "\n".join(lines)


def end_session(
    project: "Project",
    session_id: str | None = None,
    handoff: Any = None,
    *,
    harness: str | None = None,
    owner: str | None = None,
    branch: str | None = None,
    shared: bool | None = None,
    create_in_scope: CreateInScope | None = None,
    points_to: dict[str, Any] | None = None,
) -> SessionEndResult | None:
    """End a session; leave a baton when ``handoff`` has content; clear the objective:
    one batch, all or nothing (``end_in_scope``). None, with nothing written,
    when ``handoff`` leaves a baton and no ``create_in_scope`` was given.

    ``points_to``: the session's own ready handoff (``harness_finish.own_ready_handoff``),
    which a baton of its own leaves behind: the baton gains a last next step naming it
    (``baton resume ID``), and the end says it was not handed on.

    An empty payload (None, ``{}``, or no entries at all) leaves no baton and
    is not an error (the spec's writeHandoffOnSessionEnd).

    Raises:
        InputError: a malformed session id, or a payload with entries but no
            non-empty next step (exit 2; nothing is written).
    """
    session_id = check_session_id(session_id, required=True)
    assert session_id is not None
    payload = as_payload(handoff, owner, branch, shared, allow_empty=True)
    if payload is not None and create_in_scope is None:
        return None
    told: tuple[str, ...] = ()
    if payload is not None and points_to is not None:
        step, notice = left_behind(points_to)
        payload = replace(payload, next_steps=(*payload.next_steps, step))
        told = (notice,)
    actor = recorded_owner(project) if payload is not None else None  # the baton's capturer, before the lock
    with project.writing() as scope:
        with scope.batch():
            ended = end_in_scope(scope, session_id, payload, harness=harness, owner=owner, branch=branch,
                                 create_in_scope=create_in_scope, actor=actor)
        ended = settled(scope, ended)
    return replace(ended, told=told) if told else ended


def left_behind(doc: dict[str, Any]) -> tuple[str, str]:
    """For a session's ready handoff that a baton of the session's own leaves
    behind: the next step the baton gains, and what the end says."""
    left = short_id(str(doc.get("id")))
    work = doc.get("work")
    title = work.get("title") if isinstance(work, dict) else None
    named = f' "{title}"' if isinstance(title, str) and title.strip() else ""
    step = (f"Read this session's ready handoff{named} (not handed on: this baton was left instead): "
            f"`baton resume {left}`")
    notice = (f"Handoff {left}{named}, this session's ready handoff, was not handed on: this end left a baton of "
              f"its own instead, whose last next step points to it (`baton resume {left}`)")
    return step, notice


def end_in_scope(scope, session_id: str, payload: Any = None, *, harness: str | None = None,
                 owner: str | None = None, branch: str | None = None,
                 left: CreatedBaton | None = None, create_in_scope: CreateInScope | None = None,
                 actor: str | None = None) -> SessionEndResult:
    """Inside a write scope (and its ``batch()``, so that everything a session's
    end records — ``handoff.captured``, ``baton.created``, the objective
    cleared, ``session.ended`` — lands in one write, all or nothing): end
    the session, leaving a baton for ``payload`` (a ``BatonPayload``) when
    given, with ``create_in_scope``. ``left``: the baton already appended in
    this batch for the session (a handoff handed on), named by ``session.ended``.
    ``actor``: who leaves the baton (``identity.recorded_owner``, resolved
    before the lock; left out, resolved here) — not ``payload.owner``, whom it is for.
    """
    opened = scope.project
    session = session_doc(scope.runner, opened.writer, session_id) or {}
    opened.check_streams(session_stream(session_id))
    if harness is None:
        harness = session.get("harness")
    if session.get("owner") and session.get("branch"):
        here = SessionContext(session["owner"], session["branch"])
    else:
        here = context_of(opened, owner=owner, branch=branch)
    objective_doc = get_session_objective(scope.runner, here)
    if objective_doc is not None:  # it will be cleared: refuse now rather than after the baton
        opened.check_streams(objective_stream(context_key(here.owner, here.branch)))
    created = left
    target = context_of(opened, owner=payload.owner, branch=payload.branch) if payload is not None else here
    # Read before this batch is written (a baton it leaves is then the key's current one). Only for
    # the session's own owner (a sibling's claim): a baton left for another owner is theirs to take up.
    recorded = session.get("owner")
    mine = recorded if isinstance(recorded, str) else actor if actor is not None else project_owner(opened)
    elsewhere = claimed_by_another(scope.runner, target, session_id=session_id, now=rfc3339_micros(opened.clock())) \
        if same_owner(target.owner, mine) else None
    if payload is not None:
        assert create_in_scope is not None, "leaving a baton needs baton_create.create_in_scope"
        created = create_in_scope(scope, payload, target, actor=actor or recorded_owner(opened), session=session_id,
                                  harness=harness,
                                  objective=objective_doc.objective if objective_doc else None)
    stream = session_stream(session_id)
    kept = kept_objective(scope, here, session_id) if not aggregate.ended_already(session) else None
    decided = aggregate.decide_session(session, aggregate.EndSession(
        session_id, here.owner, here.branch, harness=harness, left_baton=created.record.id if created else None,
        kept_objective=kept))
    # An end already recorded cleared the session's objective then: one set since is a later session's.
    # Another session's, still open, stands (``kept``): this end names it and clears nothing.
    cleared = objective_events(scope, here, None, session_id, reason="session_end") \
        if decided and kept is None else False
    record(scope, decided, version=scope.txn.stream_version(stream), actor=here.owner, session=session_id,
           durable=True)
    return SessionEndResult(session_id, here, created, cleared, begun=session.get("beganAt") is not None,
                            objective_kept=kept if decided else None,
                            claimed_elsewhere=beside_left(elsewhere, created.record.id if created else None),
                            ended_before=None if decided else str(session.get("endedAt") or "?"))


def settled(scope, ended: SessionEndResult) -> SessionEndResult:
    """``ended`` once its batch is written: the baton as the index now holds it."""
    if ended.created is None:
        return ended
    return replace(ended, created=replace(ended.created, record=stored_baton(scope.runner, ended.created.record)))
