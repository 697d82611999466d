"""The baton aggregate: one owner/branch (or shared) key, stream ``baton/<key>``.

The state is the key's newest baton (``current``, whatever its status), a
short list of the batons before it, and the stream version folded so far —
the version a claimer names when it appends its claim, so a second claim of
the same baton can never succeed.

    pending ──claim──▶ claimed
       │ ──cancel──▶ cancelled      (one owner and branch; never a shared one)
       │ ──dismiss─▶ dismissed      (any pending baton, by id)
                                    (either: only a baton for or left by whoever ends it,
                                     unless they choose to end another's: ``may_dismiss``)
       └─ a newer baton of the key ─▶ superseded
                                       (unseen, when its writer never read the pending one:
                                        two replicas apart; unread, when another session left
                                        it and none read it; the newer baton names it)

Superseding retires the *baton* only: the handoff it points at keeps its own
status (a ready handoff handed on with ``--from`` stays ready).

Malformed events (hand-written, or from a future version) change nothing but
the version: a bad baton must never stop a session from starting.
"""

from __future__ import annotations

from baton.domain.batons import (
    CANCELLED,
    CLAIMED,
    DISMISSED,
    KEY_SEPARATOR,
    PENDING,
    REPLACED_KEPT,
    SUPERSEDED,
    BatonRecord,
    baton_stream,
    encode_key_part,
    missed_by_claim,
    same_owner,
    shown_name,
    superseded_unread,
    superseded_unseen,
    unseen_summary,
    yours_to_end,
)
from baton.errors import (
    BatonAlreadyClaimed,
    BatonKeyHeld,
    BatonNotPending,
    BatonNotYours,
    BatonSuperseded,
    InputError,
)
from baton.events.base import DomainEvent, decode, derived
from baton.events.baton import BatonCancelled, BatonClaimed, BatonCreated, BatonDismissed
from baton.ledger.envelope import Event
from baton.values import Value, replace  # a BatonRecord, the key's state and the commands are value classes

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a session start claims through here)
if TYPE_CHECKING:
    from typing import Any

PREVIOUS_KEPT = 20
"""How many earlier batons a key's state remembers (the ledger keeps them all)."""

_SUMMARY_FIELDS = ("id", "status", "createdAt", "sessionId", "claimedAt", "claimedBySession", "supersededBy",
                   "endedAt")


class BatonKey(Value):
    key: str
    version: int = 0
    current: BatonRecord | None = None
    previous: tuple[dict[str, Any], ...] = ()
    """Summaries of earlier batons, newest first."""
    conflicts: tuple[dict[str, Any], ...] = ()
    """Claims that lost, newest first: made on another replica while it was
    apart (``baton sync``), after the baton had already been claimed (or
    replaced) in project order. Shown, never silently dropped."""
    last_key: tuple[Any, ...] | None = None
    """The merge key of the newest event folded, kept once the key folded an event of a stream
    other than its own (``baton.domain.batons.index_key``: an e-mail owner's stream in another
    letter case, as older Batons wrote it), so a late event that sorts before it is replayed,
    not folded after it (``BatonsBase.late_bounds``)."""

    def to_doc(self) -> dict[str, Any]:
        doc = {"key": self.key, "version": self.version,
               "current": self.current.to_json() if self.current else None, "previous": list(self.previous)}
        if self.conflicts:
            doc["conflicts"] = list(self.conflicts)
        if self.last_key is not None:
            doc["lastKey"] = list(self.last_key)
        return doc

    @classmethod
    def from_doc(cls, key: str, doc: Any) -> "BatonKey":
        if not isinstance(doc, dict):
            return cls(key)
        version = doc.get("version")
        previous = doc.get("previous")
        conflicts = doc.get("conflicts")
        last_key = doc.get("lastKey")
        return cls(key, version if isinstance(version, int) else 0, BatonRecord.from_json(doc.get("current")),
                   tuple(p for p in previous if isinstance(p, dict)) if isinstance(previous, list) else (),
                   tuple(c for c in conflicts if isinstance(c, dict)) if isinstance(conflicts, list) else (),
                   tuple(last_key) if isinstance(last_key, list) else None)


# -- commands ------------------------------------------------------------------------

class CreateBaton(Value):
    record: BatonRecord
    session: str | None = None
    harness: str | None = None
    reason: str | None = None
    """Why a baton is handed on again (``BatonCreated.reason``)."""


class ClaimBaton(Value):
    handoff_id: str
    session: str
    claimed_at: str


class CancelBaton(Value):
    session: str | None = None
    by: str | None = None
    """Who cancels it (this clone's git identity); None: not checked (a caller that already knows)."""
    not_mine: bool = False
    """Cancel it even when it is neither ``by``'s nor left by ``by`` (the user's explicit choice)."""


class DismissBaton(Value):
    handoff_id: str
    session: str | None = None
    via: str = "cli"
    by: str | None = None
    """Who dismisses it (this clone's git identity); None: not checked (a caller that already knows)."""
    not_mine: bool = False
    """Dismiss it even when it is neither ``by``'s nor left by ``by`` (the user's explicit choice)."""
    with_resume: bool = False
    """Recorded in the batch of the resume that settles it (``settle_carrying``)."""


Command = CreateBaton | ClaimBaton | CancelBaton | DismissBaton


def _telemetry(operation: str, record: BatonRecord, session: str | None) -> dict[str, Any]:
    """What every baton event carries (the spec's sessionId, branch, owner, shared, handoffId)."""
    return {"key": record.event_key, "operation": operation, "handoff_id": record.id, "owner": record.owner,
            "branch": record.branch, "shared": record.shared, "session": session}


def decide(state: BatonKey, command: Command) -> list[DomainEvent]:
    """The events that record ``command`` on this key.

    Raises:
        InputError: a claim that names no session.
        BatonKeyHeld: a new private baton whose key holds another owner's or branch's pending
            baton (``check_key_free``).
        BatonSuperseded: the baton to claim is no longer the key's current one.
        BatonAlreadyClaimed: another session claimed it first.
        BatonNotPending: it was cancelled, dismissed or superseded.
        BatonNotYours: a dismissal or cancellation, by ``by``, of a baton left for another owner
            by someone else, without ``not_mine`` (``may_dismiss``).
    """
    current = state.current
    match command:
        case CreateBaton(record=record, session=session, harness=harness, reason=reason):
            check_key_free(state, record.owner, record.branch, record.shared)
            superseded = current.id if current is not None and current.pending else None
            return [BatonCreated(
                **_telemetry("handoff_created", record, session), harness=harness, supersedes=superseded,
                payload={"nextSteps": list(record.next_steps), "failedApproaches": list(record.failed_approaches),
                         "openQuestions": list(record.open_questions)},
                reason=reason,
            )]
        case ClaimBaton(handoff_id=handoff_id, session=session, claimed_at=claimed_at):
            if not isinstance(session, str) or not session.strip():
                raise InputError("a claim must name the session that receives the baton")
            if current is None or current.id != handoff_id:
                by = f" by baton {current.id}" if current is not None else ""
                raise BatonSuperseded(
                    f"baton {handoff_id} was superseded{by} before it could be claimed",
                    details={"handoff_id": handoff_id, "superseded_by": current.id if current else None},
                )
            _require_pending(current, "claimed")
            return [BatonClaimed(**_telemetry("handoff_claimed", current, session), claimed_at=claimed_at,
                                 named_unseen=[str(u.get("id")) for u in current.replaced_unseen])]
        case CancelBaton(session=session, by=by, not_mine=not_mine):
            if current is None or not current.pending:
                return []
            _require_yours(current, by, not_mine, "cancel")
            return [BatonCancelled(**_telemetry("handoff_cancelled", current, session))]
        case DismissBaton(handoff_id=handoff_id, session=session, via=via, by=by, not_mine=not_mine,
                          with_resume=with_resume):
            if current is None or current.id != handoff_id:
                earlier = next((p for p in state.previous if p.get("id") == handoff_id), {})
                status = earlier.get("status") or SUPERSEDED
                raise BatonNotPending(f"baton {handoff_id} is {status}, not pending; nothing to dismiss",
                                      details={"handoff_id": handoff_id, "status": status})
            _require_pending(current, "dismissed", claimed_note="; a claimed baton cannot be dismissed")
            _require_yours(current, by, not_mine, "dismiss")
            return [BatonDismissed(**_telemetry("handoff_dismissed", current, session), via=via,
                                   with_resume=True if with_resume else None)]
    raise TypeError(f"not a baton command: {command!r}")


def may_dismiss(record: BatonRecord, by: str) -> bool:
    """Whether ``by`` may dismiss or cancel ``record`` without overriding: one left for ``by``, or
    one ``by`` left (``same_owner``). A shared baton is no exception: any session may take it up,
    but ending it unclaimed ends it for everyone, so it is its owner's (the owner it was left
    under: whoever left it, or the ``owner`` they named) and its leaver's, as a private one is
    (docs/batons.md, "Dismissing a baton"; tester25 T4)."""
    return yours_to_end(record.owner, record.left_by, by)


_GERUND = {"cancel": "cancelling", "dismiss": "dismissing"}


def _require_yours(current: BatonRecord, by: str | None, not_mine: bool, verb: str) -> None:
    """The one rule a dismissal and a cancellation are held to (``may_dismiss``): a baton left for
    a teammate is theirs; ending it anyway is the explicit choice ``not_mine``.

    Raises:
        BatonNotYours: it is for another owner and left by someone else (exit 4).
    """
    if by is None or not_mine or may_dismiss(current, by):
        return
    left = f"left by {shown_name(current.left_by)}" if current.left_by else "left by someone else"
    anyway = f"({_GERUND[verb]} it anyway is a deliberate choice: `not_mine`)"
    raise BatonNotYours(
        f"baton {current.id} is shared, {left} as {shown_name(current.owner)} on {shown_name(current.branch)}: "
        f"any session may take it up at its start, but it is not yours ({shown_name(by)}) to {verb} for "
        f"everyone; its owner or whoever left it may {verb} it {anyway}" if current.shared else
        f"baton {current.id} is for {shown_name(current.owner)} on {shown_name(current.branch)}, {left}: "
        f"not yours ({shown_name(by)}) "
        f"to {verb}; its owner claims it at their next session start, or dismisses it, as can "
        f"whoever left it {anyway}",
        details={"handoff_id": current.id, "owner": current.owner, "left_by": current.left_by,
                 "you": by})


def check_key_free(state: BatonKey, owner: str, branch: str, shared: bool) -> None:
    """Refuse a new private baton for ``owner`` on ``branch`` whose key holds a pending baton of
    another exact owner or branch.

    A key encodes ``/`` as ``_`` (the spec's file names) and joins owner and branch with ``__``, so
    ``feature/x`` and ``feature_x`` share one, as do owner ``erin`` on ``_x`` and ``erin_`` on ``x``; a session on one never receives the other's baton (``select_eligible`` compares the real
    names), but a new baton on the key would supersede the other's — a baton nobody on its branch
    would ever see. The key format is kept (stream names are in the ledger); instead the second
    baton is refused while the first is pending, and the message says why the names share the key
    and how to free it (never by dismissing another owner's baton: that is their work). (Names
    are quoted, never backquoted: an adapter rewrites a backquoted word as its own option's name.)

    Raises:
        BatonKeyHeld: as above (exit 4): nothing is written.
    """
    current = state.current
    if shared or current is None or not current.pending or current.shared:
        return
    same = same_owner(current.owner, owner)  # an e-mail owner in any letter case: one key, one person
    if same and current.branch == branch:
        return
    if same:
        theirs, ours = f"on {current.branch!r}", f"on {branch!r}"
        free = (f"let a session on {current.branch!r} claim it, dismiss it (`dismiss` {current.id} in `baton session "
                "handoff`, or the status page's Dismiss button), or make this baton `shared`")
    else:
        # Another owner's pending baton is their work: never suggest discarding it.
        theirs, ours = f"for {shown_name(current.owner)} on {current.branch!r}", f"for {shown_name(owner)} on {branch!r}"
        free = (f"make this baton `shared`, or wait until a session of {shown_name(current.owner)} on "
                f"{current.branch!r} "
                "claims theirs")
    raise BatonKeyHeld(
        f"cannot leave a baton {ours}: baton {current.id} is pending {theirs}, and the two names share one baton key "
        f"({state.key}: {_why_shared(current.owner, current.branch, owner, branch)}), so this baton would "
        "supersede it and no session would ever receive it. "
        f"Nothing was written. To leave this one, {free}; then try again.",
        details={"key": state.key, "owner": owner, "branch": branch,
                 "pending": {"handoff_id": current.id, "owner": current.owner, "branch": current.branch,
                             "created_at": current.created_at, "session_id": current.session_id}},
    )


def _why_shared(owner: str, branch: str, other_owner: str, other_branch: str) -> str:
    """Why two owner/branch pairs share one baton key: each name encodes alike (a ``/`` is stored
    as ``_``), or the ``__`` that joins owner and branch falls elsewhere in the two pairs."""
    if encode_key_part(owner) != encode_key_part(other_owner):
        return (f"owner and branch are joined by `{KEY_SEPARATOR}`, so owner {owner!r} with branch {branch!r} and "
                f"owner {other_owner!r} with branch {other_branch!r} give the same key")
    if "/" in owner + branch + other_owner + other_branch:
        return "a `/` is stored as `_`"
    return "the names encode alike"


def _require_pending(current: BatonRecord, verb: str, *, claimed_note: str = "") -> None:
    if current.status == CLAIMED:
        raise BatonAlreadyClaimed(
            f"baton {current.id} was already claimed by session {current.claimed_by_session or '(unnamed)'}"
            f" at {current.claimed_at}{claimed_note}",
            details={"handoff_id": current.id, "claimed_by_session": current.claimed_by_session,
                     "claimed_at": current.claimed_at},
        )
    if current.status != PENDING:
        tail = "" if verb == "claimed" else "; nothing to dismiss"
        raise BatonNotPending(f"baton {current.id} is {current.status}, not pending{tail}",
                              details={"handoff_id": current.id, "status": current.status})


# -- evolve --------------------------------------------------------------------------

class Folded(Value):
    """One event folded into a key's state."""

    state: BatonKey
    accepted: bool
    """The event changed the key's baton (a malformed or out-of-turn event only moves ``version``)."""
    superseded: str | None = None
    """The pending baton a ``baton.created`` replaced."""


def record_of_created(key: str, event: BatonCreated, at: str, actor: str | None = None) -> BatonRecord | None:
    """The pending baton a ``baton.created`` event describes (None when malformed):
    built once per event while a batch folds (the baton index and the baton
    scopes both ask for it; a ``BatonRecord`` is a frozen value)."""
    return derived(event, "baton record", (key, at, actor), lambda: _record_of_created(key, event, at, actor))


def _record_of_created(key: str, event: BatonCreated, at: str, actor: str | None) -> BatonRecord | None:
    payload = event.payload if isinstance(event.payload, dict) else {}
    return BatonRecord.from_json({
        "id": event.handoff_id, "key": key, "owner": event.owner, "branch": event.branch,
        "shared": event.shared is True, "nextSteps": payload.get("nextSteps"),
        "failedApproaches": payload.get("failedApproaches"), "openQuestions": payload.get("openQuestions"),
        "harness": event.harness, "sessionId": event.session, "createdAt": at, "status": PENDING,
        "leftBy": actor,
    })


def fold(state: BatonKey, recorded: Event) -> Folded:
    """``evolve``, also saying whether the event changed the baton and which
    pending baton a ``baton.created`` superseded (``baton metrics`` counts
    only accepted events)."""
    event = decode(recorded)
    current, previous = state.current, state.previous
    moved = _moved(state, recorded)
    if recorded.erased and recorded.type == BatonCreated.TYPE:
        return _forgotten_created(moved)
    if isinstance(event, BatonCreated):
        record = record_of_created(state.key, event, recorded.at, recorded.actor)
        if record is None:
            return Folded(moved, False)
        if recorded.stream != baton_stream(state.key):  # an older Baton's stream for one spelling
            record = replace(record, stream_key=recorded.stream.partition("/")[2])
        superseded = None
        if current is not None and current.missed_unseen:
            # superseded unseen by a baton claimed before they arrived, and not named yet: the new
            # baton names them, so the brief that delivers it does (docs/batons.md)
            record = replace(record, replaced_unseen=tuple(
                u for u in current.missed_unseen if u.get("id") != record.id)[:REPLACED_KEPT])
        if current is not None:
            old = current
            unseen = superseded_unseen(event.supersedes, current, record.id)
            unread = not unseen and superseded_unread(current, record)
            if old.pending:
                old = replace(old, status=SUPERSEDED, superseded_by=record.id)
                superseded = old.id
                # left apart on another replica, or by another session and read by none: the new
                # baton names it, and keeps naming those the replaced one named (docs/batons.md)
                named = ((unseen_summary(current, unread=unread),) if unseen or unread else ()) \
                    + tuple(u for u in current.replaced_unseen if u.get("id") != record.id)
                if named:
                    record = replace(record, replaced_unseen=named[:REPLACED_KEPT])
            summary = old.to_json()
            flag = {"unseen": True} if unseen else {"unread": True} if unread else {}
            previous = ({**{k: summary.get(k) for k in _SUMMARY_FIELDS}, **flag},) + previous
        return Folded(replace(moved, current=record, previous=previous[:PREVIOUS_KEPT]), True, superseded)
    pending = current is not None and current.pending and isinstance(event, (BatonClaimed, BatonCancelled,
                                                                              BatonDismissed)) \
        and current.id == event.handoff_id
    if not pending or current is None:  # (pending already says it is not None: for type checkers)
        if isinstance(event, BatonClaimed):
            conflict = _lost_claim(state, event, recorded)
            if conflict is not None:
                moved = replace(moved, conflicts=((conflict,) + state.conflicts)[:PREVIOUS_KEPT])
        return Folded(moved, False)
    if isinstance(event, BatonClaimed):
        claimed_at = event.claimed_at if isinstance(event.claimed_at, str) else recorded.at
        session = event.session if isinstance(event.session, str) and event.session else None
        record = replace(current, status=CLAIMED, claimed_at=claimed_at or None, claimed_by_session=session,
                         missed_unseen=missed_by_claim(current, event.named_unseen))
    else:
        status = CANCELLED if isinstance(event, BatonCancelled) else DISMISSED
        via = by_session = None
        with_resume = False
        if isinstance(event, BatonDismissed):
            via = event.via if isinstance(event.via, str) and event.via else None
            by_session = event.session if via is not None and isinstance(event.session, str) and event.session \
                else None
            with_resume = event.with_resume is True
        record = replace(current, status=status, ended_at=recorded.at, ended_by=recorded.actor,
                         ended_by_writer=recorded.writer, ended_via=via, ended_by_session=by_session,
                         ended_with_resume=with_resume)
    return Folded(replace(moved, current=record), True)


def _moved(state: BatonKey, recorded: Event) -> BatonKey:
    """``state`` past ``recorded``: ``version`` is the highest its own stream reached (apart:
    docs/sync.md) — the version a claim or a new baton names when it appends there; an event of
    another letter case's stream (``index_key``) moves none, and from it on ``last_key`` follows
    every event folded."""
    own = recorded.stream == baton_stream(state.key)
    version = max(state.version, recorded.stream_version) if own else state.version
    last_key = state.last_key
    if not own or last_key is not None:
        last_key = max(last_key, recorded.merge_key) if last_key is not None else recorded.merge_key
    return replace(state, version=version, last_key=last_key)


def _forgotten_created(moved: BatonKey) -> Folded:
    """A ``baton.created`` whose payload ``baton forget`` erased: its envelope (type, stream, place
    in project order) is still a fact of the ledger, so the pending baton it superseded stays
    superseded — never delivered again as if current (docs/security.md "Audit and forget"). It stays
    the key's current record, ``superseded`` with ``supersededBy`` None (which baton replaced it is
    no longer known); nothing else changes."""
    current = moved.current
    if current is None or not current.pending:
        return Folded(moved, False)
    return Folded(replace(moved, current=replace(current, status=SUPERSEDED)), True, current.id)


def _lost_claim(state: BatonKey, event: BatonClaimed, recorded: Event) -> dict[str, Any] | None:
    """A claim the key's state did not accept, as a conflict to show.

    One replica never appends such a claim (the claim expects the stream
    version it read, under the lock); two replicas apart can each claim the
    same pending baton. In project order ``(hlc, writer, seq)`` the earlier
    claim wins everywhere; this is the later one. None for events that name
    no baton this key ever had (hand-written noise)."""
    handoff_id = event.handoff_id if isinstance(event.handoff_id, str) else None
    if not handoff_id:
        return None
    current = state.current
    if current is not None and current.id == handoff_id:
        winner = {"status": current.status, "claimedBySession": current.claimed_by_session,
                  "claimedAt": current.claimed_at}
    else:
        earlier = next((p for p in state.previous if p.get("id") == handoff_id), None)
        if earlier is None:
            return None
        winner = {"status": earlier.get("status"), "claimedBySession": earlier.get("claimedBySession"),
                  "claimedAt": earlier.get("claimedAt"), "supersededBy": earlier.get("supersededBy")}
    return {"handoffId": handoff_id, "key": state.key,
            "sessionId": event.session if isinstance(event.session, str) else None,
            "claimedAt": event.claimed_at if isinstance(event.claimed_at, str) else recorded.at,
            "writer": recorded.writer, "hlc": recorded.hlc, "eventId": recorded.id,
            "streamVersion": recorded.stream_version, "winner": winner}


def evolve(state: BatonKey, recorded: Event) -> BatonKey:
    return fold(state, recorded).state
