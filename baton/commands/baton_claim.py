"""Claiming a baton, settling the batons a resume takes up, and appending ``baton.created``:
the baton's write side.

A session start imports this only when a baton waits for it (``bootstrap``,
``session begin``); leaving a baton (``baton_create``, ``baton_cases``) uses
``append_created``, and so does handing on an existing handoff
(``baton_hand_on``); a resume by hand settles with ``settle_carrying``
(``resume_mark``). Reading a baton never needs the baton aggregate, the
event classes or ``record``, which are imported here.

Settling the pending batons that carry a handoff just resumed (``baton.domain.batons.settled_by_resume``):
a resume (``resume --mark-resumed``, the MCP ``handoff_resume`` tool with
``mark_resumed``, a session start's claim of one of its batons) dismisses every
other pending baton carrying the same handoff, ``via: "resumed"``, naming the
resuming session, in the resume's own batch. The keys to look at come from the
``baton_scopes`` projection (every scope the handoff was given as a baton): a
lookup per scope, nothing that grows with the project.

A session start that meets a pending baton whose handoff was resumed after it
was left (another clone resumed it apart, and ``baton sync`` brought the resume
here: ``taken_up_before``) dismisses it the same way instead of claiming it
(``settle_taken_up``).
"""

from __future__ import annotations

from baton.commands.batons import Peek, as_taken_up, handoff_status, taken_up_in, version_expected
from baton.commands.record import record as record_events
from baton.domain.aggregates import baton as baton_aggregate
from baton.domain.aggregates.baton import BatonKey
from baton.domain.batons import (
    CLAIMED,
    RESUMED_VIA,
    BatonRecord,
    baton_key,
    left_to_their_owner,
    read_command,
    settled_by_resume,
    superseded_unread,
    unseen_summary,
)
from baton.domain.lifecycle_table import resume_of_stored
from baton.events.names import handoff_stream
from baton.ledger.clock import rfc3339_micros
from baton.values import Value, replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a session start claims through here)
if TYPE_CHECKING:
    from typing import Any

    from baton.commands.context import WriteScope
    from baton.events.baton import BatonCreated


class CreatedBaton(Value):
    """A baton left (``baton_create``, ``baton_hand_on``): its record as stored, the
    pending baton it superseded, and what redaction changed in its payload."""

    record: BatonRecord
    superseded: str | None
    redactions: list
    unread: dict[str, Any] | None = None
    """The superseded baton, when another session left it and none read it (``superseded_unread``):
    its ``unseen_summary``, which the new baton names too, with ``handoffStatus``, the status of
    its handoff as this one was left (an archived or superseded one is read with ``baton handoff
    show``: ``domain.batons.read_command``)."""

    def unread_json(self) -> dict[str, Any] | None:
        """``unread`` as ``--json`` gives it, with the command that reads it (``readCommand``)."""
        if not self.unread:
            return None
        return {**self.unread, "readCommand": read_command(str(self.unread.get("id")), self.unread.get("handoffStatus"))}

    def to_json(self) -> dict[str, Any]:
        return {"handoff": self.record.to_json(), "superseded": self.superseded, "redactions": self.redactions,
                "supersededUnread": self.unread_json()}


def key_state(scope: WriteScope, key: str) -> BatonKey:
    """The baton aggregate's state of ``key``, from the baton index under the lock."""
    return BatonKey.from_doc(key, scope.runner.get("batons", key))


def claim_in_scope(scope: WriteScope, peek: Peek, *, session: str | None, harness: str | None = None,
                   claimer: str | None = None, left: list[BatonRecord] | None = None) -> BatonRecord:
    """Claim the baton ``peek`` read, exactly once — unless its handoff was resumed elsewhere
    after it was left (``taken_up_here``): then it is dismissed instead, and returned
    dismissed (the caller delivers nothing).

    ``claimer``: the owner the session starts as (its ``--owner``, else this clone's git identity:
    ``SessionContext.owner``), recorded as the claim's ``actor`` and the one whose batons of the
    handoff it settles; None: the baton's owner. A teammate's pending baton of the same handoff is
    left pending, and goes to ``left`` (the start names it: ``batons.waits_for_them_line``).

    Decides on the baton index as it is under the lock, then appends
    ``baton.claimed`` expecting the stream version ``peek`` saw (fsynced).

    Raises:
        InputError: no session named (a claim always names its session).
        BatonSuperseded: a newer baton replaced it since it was read (id mismatch).
        BatonAlreadyClaimed: another session claimed it first.
        BatonNotPending: it was cancelled or dismissed.
        StreamVersionConflict: its stream moved on in any other way.
    """
    record = peek.record
    state = key_state(scope, record.key)
    if state.current is not None and state.current.id == record.id and taken_up_here(scope, state):
        return settle_taken_up(scope, state, session=session)  # resumed elsewhere since it was left
    claimed_at = rfc3339_micros(scope.project.clock())
    decided = baton_aggregate.decide(state, baton_aggregate.ClaimBaton(record.id, session or "", claimed_at))
    assert state.current is not None  # decide claims only a pending baton of the key
    claimer = claimer or state.current.owner
    record_events(scope, decided, version=version_expected(scope, decided, record.key, peek.version), durable=True,
                  actor=claimer, session=session)
    _resume_handoff(scope, record.id, session=session, harness=harness)
    # any other baton carrying the same handoff (a private and a shared one) that is the claimer's to
    # end is settled by this claim; a teammate's stays pending, theirs to receive (``yours_to_end``)
    settle_carrying(scope, record.id, session=session, actor=claimer, skip_key=record.key, resumer=claimer,
                    left=left)
    # Inside a batch() nothing is folded yet: the index still shows it pending, so it is not read again.
    claimed = key_state(scope, record.key).current if scope.gathered is None else None
    return claimed if claimed is not None and claimed.id == record.id and claimed.status == CLAIMED else \
        replace(state.current, status=CLAIMED, claimed_at=claimed_at, claimed_by_session=session)


def append_created(scope: WriteScope, record: BatonRecord, *, session: str | None,
                   harness: str | None, actor: str, reason: str | None = None) -> tuple[str | None, dict[str, Any] | None]:
    """Append ``baton.created`` for ``record``; returns the pending baton it supersedes, and its
    ``unseen_summary`` when another session left it and none read it (``superseded_unread``).
    ``actor``: who leaves it, this clone's git identity (``identity.recorded_owner``), never
    ``record.owner``, whom it is for (``session end --owner bob`` run by Alice is Alice's).
    ``reason``: why a baton is handed on again (``unprompted``), recorded with it.

    Superseding retires the old *baton* only: the handoff it pointed at keeps
    its status (a ready handoff handed on with ``--from`` stays ready).
    """
    state = key_state(scope, record.key)
    (created,) = baton_aggregate.decide(state, baton_aggregate.CreateBaton(record, session=session, harness=harness,
                                                                         reason=reason))
    current = state.current
    unread = {**unseen_summary(current, unread=True), "handoffStatus": handoff_status(scope.runner, current.id)} \
        if current is not None and superseded_unread(current, replace(record, session_id=session)) else None
    record_events(scope, [created], version=scope.txn.stream_version(created.stream), actor=actor,
                  session=session)
    made: BatonCreated = created  # type: ignore[assignment]  # ``decide`` makes one, of a create
    return made.supersedes, unread


def _resume_handoff(scope: WriteScope, handoff_id: str, *, session: str | None, harness: str | None) -> None:
    """A claim is its handoff's resume when the lifecycle allows one.

    A baton left at session end is a *draft* handoff (a checkpoint nobody has
    validated), and a draft cannot be resumed; for it the baton index is the
    record of its fate. A ready handoff handed on with ``--from`` is marked
    ``resumed`` like any other.
    """
    doc = scope.runner.get("handoffs", handoff_id) if "handoffs" in scope.runner.by_name else None
    if not isinstance(doc, dict):
        return
    decided = resume_of_stored(doc, session=session, harness=harness)  # the lifecycle's table, without the model
    if decided:
        record_events(scope, decided, version=scope.txn.stream_version(handoff_stream(handoff_id)),
                      session=session)


# -- settling the batons a resume takes up ------------------------------------------

def keys_carrying(runner, handoff_id: str) -> list[str]:
    """The baton keys ``handoff_id`` was ever given to as a baton (``baton_scopes``), sorted."""
    if "baton_scopes" not in runner.by_name or "batons" not in runner.by_name:
        return []
    doc = runner.get("baton_scopes", handoff_id)
    scopes = doc.get("scopes") if isinstance(doc, dict) else None
    keys = set()
    for s in scopes if isinstance(scopes, list) else ():
        if isinstance(s, dict) and isinstance(s.get("owner"), str) and isinstance(s.get("branch"), str):
            keys.add(baton_key(s["owner"], s["branch"], s.get("shared") is True))
    return sorted(keys)


def settle_carrying(scope: WriteScope, handoff_id: str, *, session: str | None, actor: str | None,
                    skip_key: str | None = None, resumer: str | None = None,
                    left: list[BatonRecord] | None = None) -> list[BatonRecord]:
    """Dismiss (``via: "resumed"``) each pending baton carrying ``handoff_id``, but the one on
    ``skip_key`` (the baton a claim takes), and, for a resume by hand (``resumer``: who resumes),
    but a teammate's (``batons.settled_by_resume``), which go to ``left``; returns those dismissed
    as they were. Call inside the resume's batch."""
    settled = []
    for key in keys_carrying(scope.runner, handoff_id):
        if key == skip_key:
            continue
        state = BatonKey.from_doc(key, scope.runner.get("batons", key))
        if not settled_by_resume(state.current, handoff_id, resumer):
            if resumer is not None and left is not None and left_to_their_owner(state.current, handoff_id, resumer):
                assert state.current is not None  # left_to_their_owner: it is pending
                left.append(state.current)
            continue
        decided = baton_aggregate.decide(state, baton_aggregate.DismissBaton(handoff_id, session=session,
                                                                             via=RESUMED_VIA, with_resume=True))
        record_events(scope, decided, version=version_expected(scope, decided, key, state.version), actor=actor,
                      session=session)
        assert state.current is not None  # settled_by_resume: it is pending
        settled.append(state.current)
    return settled


def taken_up_here(scope: WriteScope, state: BatonKey) -> bool:
    """Whether the key's current baton, pending, carries a handoff resumed after it was left
    (``batons.taken_up_in``, on the index as it stands under the lock)."""
    return taken_up_in(scope.runner, state.current)


def settle_taken_up(scope: WriteScope, state: BatonKey, *, session: str | None) -> BatonRecord:
    """Dismiss the key's current baton (``via: "resumed"``) instead of claiming it: its handoff was
    resumed elsewhere after it was left; returns it as dismissed. ``session``: the start that met it
    (the envelope's; the event names no resuming session: the resume did not see this baton)."""
    current = state.current
    assert current is not None  # taken_up_here: it is pending
    decided = baton_aggregate.decide(state, baton_aggregate.DismissBaton(current.id, via=RESUMED_VIA))
    record_events(scope, decided, version=version_expected(scope, decided, state.key, state.version), session=session)
    return as_taken_up(scope.project, current)

