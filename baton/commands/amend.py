"""``baton handoff amend ID ...`` and ``baton handoff archive ID``.

Amending depends on where the record is in its life:

- a **draft or validated** record is revised in place (``handoff.revised``):
  its validation resets and it must be validated again;
- a **ready, resumed or superseded** record never changes: the amendment is a
  new draft child with lineage relation ``amend`` (``handoff.captured``);
  once that child is promoted, the parent is marked superseded;
- an **archived** record cannot be amended (exit 4).

Edits take things out (``baton.domain.edits``): close an open item (it
joins ``summary.completed``), drop any item by id, replace a list whole.

Changes come from the same flags as ``checkpoint create`` and/or ``--input``:
text fields are replaced, string lists gain entries, records with an id (and
artifacts, by path) replace the one with the same key or are appended, risks
are appended; a section given in ``--input`` replaces that section. The
changes go through the same redaction and path checks as a capture, and the
repository state and artifact hashes are recorded afresh: an amendment is a
snapshot of now.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence, cast

import attrs

from baton.commands.baton_claim import key_state
from baton.commands.batons import current_batons, version_expected
from baton.commands.capture import (
    CaptureResult,
    CleanPayload,
    assign_item_ids,
    clean_payload,
    handoff_file,
    hash_artifacts,
    merge_changes,
    refuse_baton_scope,
    refuse_malformed_identifiers,
    refuse_transcripts,
)
from baton.commands.feed_vouch import check_copy
from baton.commands.handoff_facts import now_timestamp
from baton.commands.identity import recorded_owner
from baton.commands.ids import load_handoff, place_of
from baton.commands.project_snapshot import project_snapshot, with_snapshot_redactions
from baton.commands.record import record, record_many
from baton.domain import lifecycle
from baton.domain.aggregates import baton as baton_aggregate
from baton.domain.aggregates import handoff as aggregate
from baton.domain.batons import shown_name
from baton.domain.edits import apply_edits, refuse_cited_removals, retired_after
from baton.domain.field_hints import unknown_field_hints
from baton.domain.handoff import MANAGED_FIELDS, Handoff, handoff_from_json, handoff_to_json
from baton.domain.limits import check_reason
from baton.domain.short_ids import short_id
from baton.domain.teammate_archive import NOT_TAKEN_UP, require_yours_to_archive
from baton.errors import InputError
from baton.events.names import handoff_stream
from baton.ledger.ids import uuid7
from baton.model import frozen
from baton.policy import load_policy
from baton.projections.handoffs import authors_of

if TYPE_CHECKING:
    from baton.commands.context import Project
    from baton.events.handoff import HandoffCaptured, HandoffRevised


def _section_replace(base: dict[str, Any], replacement: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    out.update(replacement)
    return out


@frozen
class _Changes:
    """An amendment's input, redacted and path-checked before the lock is taken."""
    replacement: CleanPayload | None
    flags: CleanPayload | None
    lists: CleanPayload | None
    close: Sequence[str]
    drop: Sequence[str]
    hints: tuple[str, ...]
    policy: Any

    @property
    def redactions(self) -> list[dict[str, Any]]:
        return [*(self.replacement.redactions if self.replacement else ()),
                *(self.flags.redactions if self.flags else ()),
                *(self.lists.redactions if self.lists else ())]


def _checked_changes(project: "Project", replacement: dict[str, Any], flags: dict[str, Any],
                     lists: dict[str, Any], close: Sequence[str], drop: Sequence[str]) -> _Changes:
    """Refuse an empty amendment and the fields Baton manages, then clean each
    part of the input by the project's policy, as a capture's payload is cleaned."""
    refuse_baton_scope(replacement)
    refuse_baton_scope(flags)
    refuse_malformed_identifiers(replacement)
    refuse_malformed_identifiers(flags)
    if not replacement and not flags and not lists and not close and not drop:
        raise InputError("nothing to amend: give changes, replacement sections, or items to close or drop")
    managed = sorted(k for k in replacement if k in MANAGED_FIELDS)
    if managed:
        raise InputError(f"{', '.join(managed)}: set by Baton, cannot be amended",
                         details={"problems": [f"{k}: set by Baton, do not supply it" for k in managed]})
    hints = tuple(dict.fromkeys((*unknown_field_hints(replacement), *unknown_field_hints(flags),
                                 *unknown_field_hints(lists))))
    policy = load_policy(project.paths, project.config)
    root = project.paths.worktree
    return _Changes(clean_payload(root, replacement, policy) if replacement else None,
                    clean_payload(root, flags, policy) if flags else None,
                    clean_payload(root, lists, policy) if lists else None,
                    close, drop, hints, policy)


def _amended_body(project: "Project", handoff: Handoff,
                  changes: _Changes) -> tuple[dict[str, Any], tuple[dict[str, Any], ...], tuple[str, ...]]:
    """The record's own part with the changes applied, the edits it records,
    and its retired ids (``baton.domain.edits.retired_after``)."""
    base = {k: v for k, v in handoff_to_json(handoff).items() if k not in MANAGED_FIELDS}
    body = _section_replace(base, changes.replacement.payload) if changes.replacement else base
    if changes.flags:
        body = merge_changes(body, changes.flags.payload)
    body, edits = apply_edits(body, close=changes.close, drop=changes.drop,
                              replace=changes.lists.payload if changes.lists else None)
    refuse_cited_removals(base, body, edits)
    retired = retired_after(base, body, handoff.retired_ids)
    body = assign_item_ids(body, retired)
    if body == base and not edits and not changes.redactions:  # e.g. changes {"summary": {}}
        raise InputError("nothing to amend: the changes leave the record as it is")
    hash_artifacts(project.paths.worktree, body, changes.policy, refresh=True)
    new_redactions = changes.redactions
    if new_redactions:
        body["redactions"] = list(body.get("redactions") or []) + new_redactions
    return body, tuple(e.to_json() for e in edits), tuple(retired)


def amend_handoff(
    project: "Project",
    token: str = "",
    *,
    replacement: Mapping[str, Any] | None = None,
    changes: Mapping[str, Any] | None = None,
    session: str | None = None,
    close_items: Sequence[str] = (),
    drop_items: Sequence[str] = (),
    replace_lists: Mapping[str, Any] | None = None,
) -> CaptureResult:
    """Amend a handoff: a draft or validated record is revised in place; a
    ready (or later) one gets a corrected child (relation ``amend``).

    ``replacement`` replaces whole sections (``work``, ``summary``...);
    ``changes`` then merges over them as ``merge_changes`` says (text
    replaces, lists gain entries, records with an id replace theirs).
    Then what takes things out (``baton.domain.edits``): ``replace_lists``
    sets list sections whole, ``drop_items`` removes items by id, and
    ``close_items`` moves open items to ``summary.completed``; the event
    records these edits.

    Raises:
        InputError (exit 2): nothing to change, a malformed change, or a
            field Baton manages.
        PolicyBlock (exit 5): a secret matched a block rule, a path escapes,
            or the amended record would hold a raw transcript field.
        TransitionError (exit 4): the record is archived.
        NotFound / AmbiguousId (exit 4).
    """
    checked = _checked_changes(project, dict(replacement or {}), dict(changes or {}),
                               dict(replace_lists or {}), close_items, drop_items)
    actor = recorded_owner(project)  # who amends (a child's capturer), read before the lock is taken
    with project.writing() as scope:
        handoff = load_handoff(scope.runner, token, here=place_of(project))
        now = now_timestamp(project.clock())
        in_place = handoff.status in ("draft", "validated")
        if not in_place and lifecycle.AMEND not in lifecycle.allowed_actions(handoff):
            raise lifecycle.transition_error(handoff, lifecycle.AMEND)
        unverified = check_copy(project, scope.runner, [handoff.id])
        body, recorded_edits, retired = _amended_body(project, handoff, checked)
        snapshot, snapshot_redactions = project_snapshot(project, checked.policy)
        body["redactions"] = with_snapshot_redactions(body.get("redactions"), snapshot_redactions)
        new_redactions = [*checked.redactions, *snapshot_redactions]
        if in_place:
            full = {**handoff_to_json(handoff), **body, "project": snapshot, "retired_ids": list(retired)}
            revised = lifecycle.revise(handoff, handoff_from_json(full), now=now)
            refuse_transcripts(revised)
            version = scope.txn.stream_version(handoff_stream(handoff.id))
            decided = aggregate.decide(handoff, aggregate.Revise(revised, tuple(new_redactions), recorded_edits),
                                       now=now)
            events = record(scope, decided, version=version, actor=actor, session=session)
            stored = scope.runner.get("handoffs", handoff.id) or cast("HandoffRevised", decided[0]).handoff
            return CaptureResult(handoff.id, stored, new_redactions, events, handoff_file(stored), revised=True,
                                 edits=recorded_edits, hints=checked.hints, unverified=unverified)
        child_id = uuid7(project.clock())
        child = attrs.evolve(lifecycle.amend(handoff, body, id=child_id, now=now, project=snapshot),
                             retired_ids=retired)
        refuse_transcripts(child)
        decided = aggregate.decide(None, aggregate.Capture(child, tuple(new_redactions), recorded_edits), now=now)
        events = record(scope, decided, version=0, actor=actor, session=session)
        stored = scope.runner.get("handoffs", child_id) or cast("HandoffCaptured", decided[0]).handoff
        return CaptureResult(child_id, stored, new_redactions, events, handoff_file(stored), edits=recorded_edits,
                             hints=checked.hints, unverified=unverified)


@frozen
class ArchiveResult:
    handoff_id: str
    previous_status: str
    reason: str | None
    dismissed_batons: tuple = ()
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"id": self.handoff_id, "status": "archived", "previous_status": self.previous_status,
                "reason": self.reason,
                "dismissed_batons": [{"key": b.key, "owner": b.owner, "branch": b.branch, "shared": b.shared}
                                     for b in self.dismissed_batons]}

    def render(self) -> str:
        lines = [f"handoff {short_id(self.handoff_id)} archived (was {self.previous_status})" + (
            f": {self.reason}" if self.reason else "")]
        for b in self.dismissed_batons:
            whom = "the shared baton" if b.shared else f"its baton for {shown_name(b.owner)} on {shown_name(b.branch)}"
            lines.append(f"  dismissed {whom}: no session will receive an archived handoff")
        return "\n".join(lines)


def archive_handoff(project: "Project", token: str = "", *,
                    reason: str | None = None, not_mine: bool = False) -> ArchiveResult:
    """Archive a handoff; a pending baton that carries it is dismissed in the
    same batch (``via: "archive"``): an archived handoff is no longer offered
    for resuming, so no session start may deliver it. That dismissal is held to
    the rule every dismissal is (``baton.may_dismiss``): a baton left for another
    owner by someone else is theirs, and archiving its handoff anyway is the
    explicit choice ``not_mine``, as is archiving a handoff another owner
    captured (``teammate_archive.require_yours_to_archive``). This clone's git
    identity is the actor of every event recorded.

    Raises: InputError (exit 2) for a reason over ``limits.REASON_MAX``; TransitionError (exit 4) for a record already archived; HandoffNotYours
    (exit 4) for a teammate's handoff and BatonNotYours (exit 4) for a teammate's
    baton, without ``not_mine``; NotFound / AmbiguousId.
    """
    reason = reason.strip() if reason and reason.strip() else None
    check_reason(reason)
    opened = project
    me = recorded_owner(opened)
    with opened.writing() as scope:
        handoff = load_handoff(scope.runner, token, here=place_of(opened))
        decided = aggregate.decide(handoff, aggregate.Archive(reason), now=now_timestamp(opened.clock()))
        decisions = [(decided, scope.txn.stream_version(handoff_stream(handoff.id)))]
        dismissed = []
        if "batons" in scope.runner.by_name:
            for peek in current_batons(scope.runner):
                if peek.record.id == handoff.id and peek.record.pending:
                    state = key_state(scope, peek.record.key)
                    ended = baton_aggregate.decide(state, baton_aggregate.DismissBaton(
                        handoff.id, via="archive", by=me, not_mine=not_mine))
                    decisions.append((ended, version_expected(scope, ended, state.key, state.version)))
                    dismissed.append(peek.record)
        if not dismissed and handoff.status in NOT_TAKEN_UP:  # with a baton, the baton's rule (above) decides
            require_yours_to_archive(handoff.id, authors_of(scope.runner.db, [handoff.id]).get(handoff.id),
                                     me=me or "", my_writer=opened.writer, not_mine=not_mine)
        record_many(scope, decisions, actor=me)
    return ArchiveResult(handoff.id, handoff.status, reason, tuple(dismissed))
