"""The handoff aggregate: one record on stream ``handoff/<id>``.

The state is the record (``Handoff``) or None before its capture. The rules
are the lifecycle's (``baton.domain.lifecycle``): ``decide`` asks it whether a
command is allowed and says which event records it; ``evolve`` applies the
recorded event through the same functions. An event the state machine would
refuse (possible only when feeds from two machines are merged after the fact,
or a line was written by hand) is skipped: the record keeps its last legal
state.

Timestamps the fold sets (``updated_at``, ``resumed_at``) come from the
event's own ``at``, cut to whole seconds like every record timestamp, so a
replay always yields the same record.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from baton.domain import concurrent_edits as apart
from baton.domain import lifecycle
from baton.domain.freshness import HASH_SKIPPED, not_hashed_yet
from baton.domain.handoff import Handoff, handoff_from_json, handoff_to_json
from baton.domain.readiness import moved_since_validation, ran_elsewhere, ready_problems, validation_report_from_json
from baton.errors import Conflict, HandoffInputError, PromotionRefused, TransitionError
from baton.events.base import DomainEvent, decode
from baton.events.handoff import (  # the handoff family only: ``decode`` loads another family when one is folded
    HandoffArchived,
    HandoffCaptured,
    HandoffFlagged,
    HandoffForgotten,
    HandoffPromoted,
    HandoffResumed,
    HandoffRevised,
    HandoffSuperseded,
    HandoffValidated,
)
from baton.ledger.envelope import Event
from baton.model import evolve as replace_fields
from baton.model import frozen

State = Handoff | None

EMPTY_HASHES: Mapping[str, str] = MappingProxyType({})
ARTIFACT_HASHES = "artifact_hashes"
"""The member of a ``handoff.validated`` or ``handoff.promoted`` event's data holding the hashes it computed
of artifacts recorded not hashed yet (``{path: hash}``): the fold sets them on the record before the action."""
ARTIFACT_SKIPPED = "artifact_hash_skipped"
"""The member of a ``handoff.validated`` or ``handoff.promoted`` event's data holding why an artifact recorded
not hashed yet cannot be hashed (``{path: reason}``: a file over the secret screen's limit, a folder over the
bounds), the reason a capture outside a hook (an amend) records: the fold sets it in place of "not hashed
yet", so the record says the truth and can become ready with the warning accepted."""


# -- commands ------------------------------------------------------------------------

@frozen
class Capture:
    record: Handoff
    redactions: tuple[Any, ...] = ()
    edits: tuple[dict[str, Any], ...] = ()
    """What an amend took out (``baton.domain.edits.Edit.to_json()``), recorded with the event."""


@frozen
class Revise:
    record: Handoff
    redactions: tuple[Any, ...] = ()
    edits: tuple[dict[str, Any], ...] = ()


@frozen
class RecordValidation:
    report: dict[str, Any]
    """The validation report as stored (``ValidationReport.to_json()``, with ``rechecks``)."""
    artifact_hashes: Mapping[str, str] = EMPTY_HASHES
    """``{path: hash}`` the validation computed of artifacts recorded not hashed yet (``not_hashed_yet``):
    recorded with the event (``ARTIFACT_HASHES``), set on the record it validated."""
    artifact_skipped: Mapping[str, str] = EMPTY_HASHES
    """``{path: reason}`` of those it cannot hash (``ARTIFACT_SKIPPED``), set on the record it validated."""


@frozen
class Promote:
    accepted_warnings: str | None = None
    head_now: str | None = None
    """The repository's head as the promotion is asked for (None: not a git
    repository, or not known): the validation report must describe it."""
    drifted: tuple[str, ...] = ()
    """Artifacts whose content differs now from the hash the record holds."""
    artifact_hashes: Mapping[str, str] = EMPTY_HASHES
    """``{path: hash}`` computed as the promotion is asked for, of artifacts still not hashed yet (a record
    validated before validation hashed them): set on the record first; one left unhashed refuses it."""
    artifact_skipped: Mapping[str, str] = EMPTY_HASHES
    """``{path: reason}`` of those it cannot hash (``ARTIFACT_SKIPPED``): set on the record first."""


@frozen
class Resume:
    session: str | None = None
    harness: str | None = None
    freshness_state: str | None = None


@frozen
class Supersede:
    by: str


@frozen
class Archive:
    reason: str | None = None


@frozen
class FlagConflicted:
    pass


Command = Capture | Revise | RecordValidation | Promote | Resume | Supersede | Archive | FlagConflicted

_ACTION = {
    Revise: lifecycle.REVISE, RecordValidation: lifecycle.VALIDATE, Promote: lifecycle.PROMOTE,
    Resume: lifecycle.RESUME, Supersede: lifecycle.SUPERSEDE, Archive: lifecycle.ARCHIVE,
    FlagConflicted: lifecycle.FLAG_CONFLICTED,
}


def allows(state: State, command: Command) -> bool:
    """Whether ``decide`` would accept ``command`` as far as the state machine goes."""
    if isinstance(command, Capture):
        return state is None
    return state is not None and _ACTION[type(command)] in lifecycle.allowed_actions(state)


def decide(state: State, command: Command, *, now: str) -> list[DomainEvent]:
    """The events that record ``command`` on this record.

    Raises:
        Conflict: a capture of an id that exists.
        TransitionError (exit 4): the action is not allowed from the record's state.
        PromotionRefused (exit 3): promotion of a record whose validation failed,
            or warned without a reason.
    """
    if isinstance(command, Capture):
        if state is not None:
            raise Conflict(f"handoff {command.record.id} already exists", details={"id": command.record.id})
        return [HandoffCaptured(key=command.record.id, handoff=handoff_to_json(apart.without_fold_keys(command.record)),
                                redactions=list(command.redactions), extra=_edits(command.edits))]
    if state is None:
        raise Conflict("no such handoff to change")
    key = state.id
    match command:
        case Revise(record=record, redactions=redactions, edits=edits):
            lifecycle.revise(state, record, now=now)
            return [HandoffRevised(key=key, handoff=handoff_to_json(apart.without_fold_keys(record)),
                                   redactions=list(redactions),
                                   extra={**_edits(edits), **apart.resolving(state)})]
        case RecordValidation(report=report, artifact_hashes=hashes, artifact_skipped=skipped):
            lifecycle.require(state, lifecycle.VALIDATE)
            return [HandoffValidated(key=key, report=report,
                                     extra={**_read(state), **_hashes(state, hashes, skipped)})]
        case Promote(accepted_warnings=reason, head_now=head_now, drifted=drifted, artifact_hashes=hashes,
                     artifact_skipped=skipped):
            read, state = state, with_artifact_hashes(state, hashes, skipped)
            if state.status in ("draft", "validated") and (
                    state.validation.status == "fail" or "invalid" in state.flags):
                # §10: "fail cannot be promoted without amendment" — a validation
                # failure (exit 3), not a wrong state.
                raise PromotionRefused(state.id, ready_problems(state))
            moved = moved_since_validation(state, head_now, drifted) if state.status == "validated" else None
            if moved is not None:
                # §3: repository state and freshness are validated before ready;
                # a report of another head is not that validation.
                raise PromotionRefused(state.id, [moved])
            lifecycle.promote(state, now=now, accepted_warnings=reason)
            return [HandoffPromoted(key=key, accepted_warnings=reason,
                                    extra={**_read(read), **_hashes(read, hashes, skipped)})]
        case Resume(session=session, harness=harness, freshness_state=freshness_state):
            lifecycle.require(state, lifecycle.RESUME)
            return [HandoffResumed(key=key, session=session, harness=harness, freshness_state=freshness_state)]
        case Supersede(by=by):
            lifecycle.supersede(state, by=by, now=now)
            return [HandoffSuperseded(key=key, by=by)]
        case Archive(reason=reason):
            lifecycle.require(state, lifecycle.ARCHIVE)
            return [HandoffArchived(key=key, reason=reason, extra=_read(state))]
        case FlagConflicted():
            lifecycle.require(state, lifecycle.FLAG_CONFLICTED)
            return [HandoffFlagged(key=key, flag="conflicted")]
    raise TypeError(f"not a handoff command: {command!r}")


def _edits(edits: tuple[dict[str, Any], ...]) -> dict[str, Any]:
    return {"edits": [dict(e) for e in edits]} if edits else {}


def _hashes(state: Handoff, hashes: Mapping[str, str], skipped: Mapping[str, str]) -> dict[str, Any]:
    """The ``ARTIFACT_HASHES`` and ``ARTIFACT_SKIPPED`` an event records: those of ``hashes`` and ``skipped``
    that set a hash, or a reason for none, on ``state``."""
    pending = not_hashed_yet(state.artifacts)
    out: dict[str, Any] = {}
    for member, given in ((ARTIFACT_HASHES, hashes), (ARTIFACT_SKIPPED, skipped)):
        kept = {p: h for p, h in given.items() if p in pending and isinstance(h, str) and h
                and not (member == ARTIFACT_SKIPPED and p in hashes)}
        if kept:
            out[member] = kept
    return out


def with_artifact_hashes(state: Handoff, hashes: Any, skipped: Any = None) -> Handoff:
    """``state`` with each artifact recorded not hashed yet (``not_hashed_yet``) that ``hashes`` (``{path:
    hash}``, as an event recorded it) names given that hash in place of its ``content_hash_skipped``, and
    each that ``skipped`` (``{path: reason}``) names given that reason in place of "not hashed yet"; any
    other artifact, and any other member of either, is left as it is (a recorded hash is never replaced)."""
    hashes = hashes if isinstance(hashes, Mapping) else EMPTY_HASHES
    skipped = skipped if isinstance(skipped, Mapping) else EMPTY_HASHES
    if not hashes and not skipped:
        return state
    pending = set(not_hashed_yet(state.artifacts))
    changed = False
    artifacts = []
    for artifact in state.artifacts:
        found = hashes.get(artifact.path) if artifact.path in pending else None
        why = skipped.get(artifact.path) if artifact.path in pending else None
        if isinstance(found, str) and found:
            extra = {k: v for k, v in (artifact.extra or {}).items() if k != HASH_SKIPPED}
            artifact = replace_fields(artifact, content_hash=found, extra=extra)
            changed = True
        elif isinstance(why, str) and why:
            artifact = replace_fields(artifact, extra={**(artifact.extra or {}), HASH_SKIPPED: why})
            changed = True
        artifacts.append(artifact)
    return replace_fields(state, artifacts=tuple(artifacts)) if changed else state


def _read(state: Handoff) -> dict[str, Any]:
    """What a validation or promotion records of the body it read (``concurrent_edits.BODY``)."""
    return {apart.BODY: apart.body_digest(state)}


# -- evolve --------------------------------------------------------------------------

def record_time(at: str) -> str:
    """An envelope time (microseconds) as a record timestamp (whole seconds, ``Z``)."""
    return at[:19] + "Z" if len(at) >= 19 else at


def _later(now: str, current: Handoff) -> str:
    """Never move ``updated_at`` before ``created_at`` (clocks can step back)."""
    return max(now, record_time(current.created_at)) if current.created_at.endswith("Z") else now


def evolve(state: State, recorded: Event) -> State:
    """Fold one recorded event (its envelope: the fold needs its time) into the record."""
    if recorded.data is None:
        # An erased payload (``baton forget``): a forgotten capture takes the
        # record with it; any other erased event changes nothing.
        return None if recorded.type == HandoffCaptured.TYPE else state
    event = decode(recorded)
    if event is None:
        return state
    now = record_time(recorded.at)
    try:
        if isinstance(event, HandoffForgotten):
            return None  # forgotten: no record, and nothing later brings it back
        if isinstance(event, HandoffCaptured):
            return apart.without_fold_keys(handoff_from_json(event.handoff)) if state is None else state
        if state is None:
            return None
        match event:
            case HandoffRevised(handoff=body):
                return _revised(state, apart.without_fold_keys(handoff_from_json(body)), _writing(recorded),
                                now=_later(now, state), resolves=event.extra.get(apart.RESOLVES))
            case HandoffValidated() | HandoffPromoted() | HandoffSuperseded() if state.status == "archived":
                return _after_archive(state, event, _writing(recorded))
            case HandoffValidated(report=report):
                if ran_elsewhere(state.project.repository.extra.get("worktree") if state.project.repository else None,
                                 report):
                    return lifecycle.record_validation_elsewhere(state, report, now=_later(now, state))
                hashes, skipped = event.extra.get(ARTIFACT_HASHES), event.extra.get(ARTIFACT_SKIPPED)
                by = _writing(recorded)
                return _read_apart(state, event, by, lambda read: apart.validated_by(lifecycle.record_validation(
                    with_artifact_hashes(read, hashes, skipped), _validation(report), now=_later(now, state)), by),
                    "validated")
            case HandoffPromoted(accepted_warnings=reason):
                hashes, skipped = event.extra.get(ARTIFACT_HASHES), event.extra.get(ARTIFACT_SKIPPED)
                by = _writing(recorded)
                return _read_apart(state, event, by, lambda read: apart.readied(apart.settled(
                    _promoted(with_artifact_hashes(read, hashes, skipped), now=_later(now, state),
                              accepted_warnings=reason)), by), "promoted")
            case HandoffResumed() if state.status == "archived":  # resumed on a clone that had not the archive
                return apart.refused_action(state, _writing(recorded), "resumed")
            case HandoffResumed():
                return apart.resumed_by(lifecycle.resume(state, now=_later(now, state)), _writing(recorded))
            case HandoffSuperseded(by=by):
                return lifecycle.supersede(state, by=by, now=now)
            case HandoffArchived(reason=reason):
                return apart.archived_by(_archived(state, event.extra.get(apart.BODY), _writing(recorded), reason=reason,
                                           now=_later(now, state)), _writing(recorded))
            case HandoffFlagged(flag="conflicted"):
                return lifecycle.flag_conflicted(state, now=_later(now, state))
    except (TransitionError, PromotionRefused, HandoffInputError,
            KeyError, TypeError, ValueError, AttributeError):
        return state
    return state


def _writing(recorded: Event) -> apart.Writing:
    return apart.Writing(recorded.id, recorded.writer, recorded.stream_version, recorded.at,
                         recorded.actor if isinstance(recorded.actor, str) else "")


def _read_apart(state: Handoff, event: DomainEvent, by: apart.Writing, apply: Callable[[Handoff], Handoff],
                action: str) -> Handoff:
    """A recorded validation or promotion (``action``) by ``by`` applied to the body it read
    (``concurrent_edits.read_body``), listing the revisions made apart it leaves out; listed
    itself as not applied when the record no longer holds that body (made ready with another
    on a clone that promoted first in merge order: ready is immutable)."""
    read = event.extra.get(apart.BODY)
    if state.status not in ("draft", "validated"):
        return apart.not_read(state, by, action) if isinstance(read, str) and read != apart.body_digest(state) \
            else apply(state)  # the same body: nothing made apart (the transition refuses, the record stays)
    found = apart.read_body(state, read, by)
    if found is None:
        return apart.not_read(state, by, action)
    out = apply(found[0])
    for revision in found[1]:
        out = apart.left_out(out, revision, by, action)
    return out


def _revised(state: Handoff, body: Handoff, by: apart.Writing, *, now: str, resolves: Any = None) -> Handoff:
    """A recorded revision: applied to a draft or validated record (``concurrent_edits.revised``);
    listed as not applied on a record that was no longer one when it arrived (made ready or
    archived on another clone: its writer had read a draft)."""
    if state.status not in ("draft", "validated"):
        lifecycle.revise(replace_fields(state, status="draft"), body, now=now)  # a body the fold would refuse: skipped
        return apart.refused_revision(state, by)
    return apart.revised(state, lifecycle.revise(state, body, now=now), by, resolves)


def _archived(state: Handoff, read: Any, by: apart.Writing, *, reason: str | None, now: str) -> Handoff:
    """A recorded archive (``concurrent_edits``): of the body it read, when a revision made apart
    replaced it (the revision is listed as not applied); over a supersede made apart (listed too)."""
    if state.status == "superseded":  # archive is never decided on a superseded record: made apart
        live = lifecycle.archive(replace_fields(state, status="ready"), now=now, reason=reason)
        return apart.archived_over(state, live, by)
    if state.status not in ("draft", "validated"):
        return apart.archived_after_unseen(state, lifecycle.archive(state, now=now, reason=reason), by)
    found = apart.read_body(state, read, by)
    earlier, left = found if found is not None else (state, [])  # a body past the kept chain: archived as it is
    archived = apart.settled(lifecycle.archive(earlier, now=now, reason=reason))
    for revision in left:
        archived = apart.left_out(archived, revision, by, "archived")
    return apart.archived_after_unseen(state, archived, by) if not left else archived


def _after_archive(state: Handoff, event: DomainEvent, by: apart.Writing) -> Handoff:
    """A validation, promotion or supersede that reaches a record archived on another clone (its
    writer read it live): listed as not applied; the archive stands."""
    if isinstance(event, HandoffSuperseded):
        if not isinstance(event.by, str) or not event.by:
            return state
        return apart.refused_action(state, by, "superseded", superseded_by=event.by)
    return apart.refused_action(state, by, "validated" if isinstance(event, HandoffValidated) else "promoted")


def _promoted(h: Handoff, *, now: str, accepted_warnings: str | None) -> Handoff:
    """A recorded promotion, applied to a validated record even when it is flagged ``conflicted``
    by an edit made apart (``concurrent_edits``): its clone promoted before that edit arrived."""
    if "conflicted" in h.flags and apart.conflicts(h):
        others = tuple(f for f in h.flags if f != "conflicted")
        ready = lifecycle.promoted(replace_fields(h, flags=others), now=now, accepted_warnings=accepted_warnings)
        return replace_fields(ready, flags=(*ready.flags, "conflicted"))
    return lifecycle.promoted(h, now=now, accepted_warnings=accepted_warnings)


def _validation(report: dict[str, Any]) -> Any:
    validation = validation_report_from_json(report)
    rechecks = report.get("rechecks")
    if rechecks:
        validation = replace_fields(validation, extra={**validation.extra, "rechecks": rechecks})
    return validation
