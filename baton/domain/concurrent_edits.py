"""Edits of one handoff made apart on two clones (docs/handoffs.md, "Edits made apart").

Each clone checks the stream version a command read against its own ledger
only; after ``baton sync`` a record's events from two clones fold in merge
order (hybrid logical clock, writer, seq). Without a rule, a revision made on
one clone would land between another clone's validation and promotion and the
ready record would carry a body nobody validated. The handoff aggregate's
``evolve`` applies this rule, a pure function of the events in merge order
(so every clone, in any arrival order, folds the same record):

- A validation or promotion applies to the body it read: its event carries
  that body's digest (``body_digest``, under ``BODY``). When revisions from
  other writers replaced that body meanwhile (one or several, by one writer
  or in turn), the replaced record comes back (each revision keeps the record
  it replaced under ``REVISION``'s ``replaced``, a chain of up to ``KEPT``
  records while the record is draft or validated), the validation or
  promotion applies to it, and each revision after it is listed as not
  applied. An event written before Baton recorded digests counts as reading
  the record before the revisions whose stream version is at or above its own
  (its writer's clone could not have held them).
- A validation or promotion of a body the record no longer holds (the first
  promotion in merge order made another body ready: ready is immutable; or a
  chain longer than ``KEPT`` replaced it) changes nothing and is itself listed
  as not applied: the record never takes a body nobody validated silently.
- A revision that reaches a record no longer draft or validated (made ready,
  or archived, on another clone) is listed as not applied.
- An archive applies to the body it read, like a validation (its event carries
  ``BODY`` too), and it stands whatever sorts first (archiving is a person's
  decision): a validation, promotion or supersede (a continuation's promotion)
  that reaches an archived record is listed as not applied; an archive that
  reaches a record superseded on another clone archives it, and the supersede
  is listed as not applied (the record names no successor).
- An archive that sorts after a promotion its writer could not have read (made ready on another
  clone while this one archived it) archives the record, and lists the promotion (``READIED``
  keeps who made a record ready) as archived over, so the teammate who made it ready is told; a
  resume that reaches an archived record is listed as not applied, as a promotion is.
- A revision that replaces another writer's revision it could not have read
  (that revision's stream version is at or above its own) wins, later in merge
  order, and the replaced revision is listed as overwritten.

A record with such an edit is flagged ``conflicted`` and lists it under
``CONFLICTS`` (who wrote it, when, its event, what happened to it). A later
revision that read the record (not itself made apart) resolves the edits it
read listed (its event names them, ``RESOLVES``): they leave the list, and the
flag clears when none is left. A recorded promotion still applies to a validated record
flagged this way (its clone decided it before the edit arrived).
"""

from __future__ import annotations

from typing import Any

from baton.canonical import digest_of
from baton.domain.concurrent_edit_lines import ARCHIVED_BY as ARCHIVED_BY  # kept in the leaf a reader loads
from baton.domain.concurrent_edit_lines import CONFLICTS, edits_of
from baton.domain.concurrent_edit_lines import READIED as READIED
from baton.domain.handoff import Handoff, handoff_from_json, handoff_to_json
from baton.errors import HandoffInputError
from baton.model import evolve
from baton.values import Value

BODY = "body"
"""The member of a ``handoff.validated`` / ``handoff.promoted`` event's data holding the digest of the body read."""
REVISION = "revision"
"""The record member naming the revision that set its body (and, while draft or validated, the record it replaced)."""
RESOLVES = "resolves"
"""The member of a ``handoff.revised`` event's data listing the events of the edits made apart its
command read listed on the record: the ones it resolves (``revised``)."""
KEPT = 8
"""How many replaced records a draft's chain of revisions keeps (``revised``): a validation of a
body replaced longer ago than that is listed as not applied (``not_read``) rather than applied."""
VALIDATED_BY = "validated_by"
"""The record member naming who last validated it (the ``handoff.validated`` event's writing): an
archive its writer could not have read lists that validation (``archived_after_unseen``)."""
RESUMED_BY = "resumed_by"
"""The record member naming who resumed it (the ``handoff.resumed`` event's writing): an archive its
writer could not have read lists that resume (``archived_after_unseen``)."""
FOLD_KEYS = (REVISION, CONFLICTS, READIED, ARCHIVED_BY, VALIDATED_BY, RESUMED_BY)
_NOT_BODY = frozenset(("status", "updated_at", "validation", "flags", "resumed_at", "superseded_by",
                       "archived_reason", *FOLD_KEYS))


class Writing(Value):
    """Who wrote one event of the record, from its envelope."""

    event: str
    writer: str
    stream_version: int
    at: str
    owner: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"event": self.event, "writer": self.writer, "owner": self.owner or None, "at": self.at,
                "stream_version": self.stream_version}


def body_digest(h: Handoff) -> str:
    """The digest of a record's body: everything but its lifecycle and this module's members."""
    return digest_of({k: v for k, v in handoff_to_json(h).items() if k not in _NOT_BODY})


def without_fold_keys(h: Handoff) -> Handoff:
    """``h`` without this module's members (a body a command wrote, copied from a record that had them)."""
    if not any(k in h.extra for k in FOLD_KEYS):
        return h
    return evolve(h, extra={k: v for k, v in h.extra.items() if k not in FOLD_KEYS})


def _unseen(by: Writing, revision: Any) -> bool:
    """Whether ``by``'s writer could not have read ``revision`` (a record's ``REVISION``)."""
    if not isinstance(revision, dict) or revision.get("writer") == by.writer:
        return False
    version = revision.get("stream_version")
    return isinstance(version, int) and version >= by.stream_version


def resolving(h: Handoff) -> dict[str, Any]:
    """What a revision records of the edits made apart it read listed on ``h`` (``RESOLVES``)."""
    return {RESOLVES: [e.get("event") for e in conflicts(h)]}


def revised(before: Handoff, after: Handoff, by: Writing, resolves: Any = None) -> Handoff:
    """``after`` (``before`` revised by ``by``) with the revision recorded: the record it
    replaced kept, and the replaced revision listed as overwritten when ``by`` could not
    have read it. The edits made apart ``by`` read listed (``resolves``, the events under
    ``RESOLVES``; None for a revision recorded before Baton recorded them: all) count as
    resolved; the others stay listed."""
    unread = [] if not isinstance(resolves, list) else [
        e for e in conflicts(before) if e.get("event") not in resolves]
    if unread:
        after = evolve(after, extra={**after.extra, CONFLICTS: unread}, flags=_flagged(after.flags))
    replaced = handoff_to_json(before)
    previous = replaced.get(REVISION)
    if isinstance(previous, dict):
        replaced[REVISION] = _chain(previous, KEPT - 1)
    extra = {**after.extra, REVISION: {**by.to_json(), "replaced": replaced}}
    if not isinstance(previous, dict) or not _unseen(by, previous):
        return evolve(after, extra=extra)
    edit = {**{k: v for k, v in previous.items() if k != "replaced"}, "outcome": "overwritten",
            "by": by.to_json()}
    listed = [*(before.extra.get(CONFLICTS) or ()), edit] if not isinstance(resolves, list) else [*unread, edit]
    return evolve(after, extra={**extra, CONFLICTS: listed}, flags=_flagged(after.flags))


def _chain(revision: dict[str, Any], keep: int) -> dict[str, Any]:
    """``revision`` with the chain of records it replaced cut after ``keep`` of them."""
    replaced = revision.get("replaced")
    if not isinstance(replaced, dict) or keep <= 0:
        return {k: v for k, v in revision.items() if k != "replaced"}
    earlier = replaced.get(REVISION)
    if not isinstance(earlier, dict):
        return revision
    return {**revision, "replaced": {**replaced, REVISION: _chain(earlier, keep - 1)}}


def read_body(state: Handoff, read: Any, by: Writing) -> tuple[Handoff, list[dict[str, Any]]] | None:
    """The record a validation or promotion by ``by`` applies to, and the revisions made apart
    it leaves out, oldest first (none: ``state`` itself); None when the body it read (``read``,
    its digest under ``BODY``; None for an event recorded before digests were) is not one the
    record holds. Walks back the chain of replaced records ``revised`` keeps."""
    revision = state.extra.get(REVISION)
    if isinstance(read, str) and read == body_digest(state):
        return state, []
    if not isinstance(read, str) and not _unseen(by, revision):
        return state, []
    skipped: list[dict[str, Any]] = []
    while isinstance(revision, dict) and isinstance(revision.get("replaced"), dict):
        skipped.insert(0, {k: v for k, v in revision.items() if k != "replaced"})
        try:
            earlier = handoff_from_json(revision["replaced"])
        except (HandoffInputError, KeyError, TypeError, ValueError):  # written by hand: the event applies as it is
            return state, []
        revision = earlier.extra.get(REVISION)
        if read == body_digest(earlier) if isinstance(read, str) else not _unseen(by, revision):
            return _rewound(earlier, state), skipped
    return None if isinstance(read, str) else (state, [])


def _rewound(earlier: Handoff, state: Handoff) -> Handoff:
    """``earlier`` (a record ``state``'s chain kept) listing the edits made apart either lists: one a
    revision since resolved is listed again when that revision is left out too."""
    listed = conflicts(earlier)
    seen = {e.get("event") for e in listed}
    listed += [e for e in conflicts(state) if e.get("event") not in seen]
    flags = tuple(f for f in earlier.flags if f != "conflicted")
    return evolve(earlier, extra={**earlier.extra, CONFLICTS: listed}, flags=_flagged(flags) if listed else flags)


def not_read(h: Handoff, by: Writing, action: str) -> Handoff:
    """``h`` flagged and listing ``by``'s ``action`` (validated, promoted) as not applied: it was of a
    body ``h`` no longer holds (``read_body`` found none)."""
    edit = {**by.to_json(), "outcome": "not_applied", "action": action, "status": h.status}
    return evolve(h, extra={**h.extra, CONFLICTS: [*(h.extra.get(CONFLICTS) or ()), edit]},
                  flags=_flagged(h.flags))


def left_out(h: Handoff, revision: dict[str, Any], by: Writing, action: str) -> Handoff:
    """``h`` flagged and listing ``revision`` as not applied: ``by``'s ``action`` (validated, promoted)
    was of the body it replaced."""
    edit = {**revision, "outcome": "not_applied", "by": {**by.to_json(), "action": action}}
    return evolve(h, extra={**h.extra, CONFLICTS: [*(h.extra.get(CONFLICTS) or ()), edit]},
                  flags=_flagged(h.flags))


def refused_revision(h: Handoff, by: Writing) -> Handoff:
    """``h`` (no longer draft or validated) flagged and listing ``by``'s revision as not applied."""
    edit = {**by.to_json(), "outcome": "not_applied", "status": h.status}
    return evolve(h, extra={**h.extra, CONFLICTS: [*(h.extra.get(CONFLICTS) or ()), edit]},
                  flags=_flagged(h.flags))


def refused_action(h: Handoff, by: Writing, action: str, **more: Any) -> Handoff:
    """``h`` (archived on another clone) flagged and listing ``by``'s ``action`` (``validated``,
    ``promoted``, ``superseded``, ``resumed``: its writer read a live record) as not applied, naming
    who archived it (``ARCHIVED_BY``) when the record says; ``more``: what the line names besides
    (the continuation that ``superseded_by`` would have named)."""
    edit = {**by.to_json(), "outcome": "not_applied", "status": h.status, "action": action, **more}
    archiver = h.extra.get(ARCHIVED_BY)
    if isinstance(archiver, dict):  # who archived it, named by the line
        edit["by"] = {**archiver, "action": "archived"}
    return evolve(h, extra={**h.extra, CONFLICTS: [*(h.extra.get(CONFLICTS) or ()), edit]},
                  flags=_flagged(h.flags))


def archived_over(h: Handoff, archived: Handoff, by: Writing) -> Handoff:
    """``archived`` (``h``, superseded on another clone, archived by ``by``, whose writer read it live):
    the archive stands (a person's decision; a continuation's promotion superseded it by rule), the
    record names no successor, and lists the supersede as not applied, as when the archive comes first."""
    edit = {"outcome": "not_applied", "status": "archived", "action": "superseded",
            "superseded_by": h.superseded_by, "by": {**by.to_json(), "action": "archived"}}
    return evolve(archived, superseded_by=None,
                  extra={**archived.extra, CONFLICTS: [*(archived.extra.get(CONFLICTS) or ()), edit]},
                  flags=_flagged(archived.flags))


def archived_by(h: Handoff, by: Writing) -> Handoff:
    """``h`` (just archived by ``by``) naming who archived it (``ARCHIVED_BY``): ``actor``, the git
    identity that ran the archive, as its event names it (tester25 T9); ``owner`` holds the same,
    as docs/handoffs.md documented it before."""
    return evolve(h, extra={**h.extra, ARCHIVED_BY: {**by.to_json(), "actor": by.owner or None}})


def readied(h: Handoff, by: Writing) -> Handoff:
    """``h`` (just made ready by ``by``) naming who made it ready (``READIED``)."""
    return evolve(h, extra={**h.extra, READIED: by.to_json()})


def validated_by(h: Handoff, by: Writing) -> Handoff:
    """``h`` (just validated by ``by``) naming who validated it (``VALIDATED_BY``)."""
    return evolve(h, extra={**h.extra, VALIDATED_BY: by.to_json()})


def resumed_by(h: Handoff, by: Writing) -> Handoff:
    """``h`` (just resumed by ``by``) naming who resumed it (``RESUMED_BY``)."""
    return evolve(h, extra={**h.extra, RESUMED_BY: by.to_json()})


_TOLD_OVER = ((VALIDATED_BY, "validated"), (READIED, "promoted"), (RESUMED_BY, "resumed"))
"""The lifecycle steps an archive made apart is told to have been made over (``archived_after_unseen``)."""


def archived_after_unseen(h: Handoff, archived: Handoff, by: Writing) -> Handoff:
    """``archived`` (``h``, archived by ``by``), listing the newest validation, promotion or resume of
    ``h`` that ``by``'s writer could not have read (an archive made apart that sorts after it): the
    archive stands, as when it sorts first, and the line names who made that step — one decider
    for the three (tester25 item 4; before, only a promotion was told)."""
    steps = [(step, action) for key, action in _TOLD_OVER
             if isinstance(step := h.extra.get(key), dict) and _unseen(by, step)]
    if not steps:
        return archived
    step, action = max(steps, key=lambda s: int(s[0].get("stream_version") or 0))
    edit = {**step, "outcome": "archived_over", "status": "archived", "action": action,
            "by": {**by.to_json(), "action": "archived"}}
    return evolve(archived, extra={**archived.extra, CONFLICTS: [*(archived.extra.get(CONFLICTS) or ()), edit]},
                  flags=_flagged(archived.flags))


def settled(h: Handoff) -> Handoff:
    """A record made ready or archived: the replaced record it kept is no longer needed (nothing revises it now)."""
    if REVISION not in h.extra:
        return h
    return evolve(h, extra={k: v for k, v in h.extra.items() if k != REVISION})


def conflicts(h: Handoff) -> list[dict[str, Any]]:
    """The edits made apart ``h`` lists (``CONFLICTS``)."""
    return edits_of(h)


def _flagged(flags: tuple[Any, ...]) -> tuple[Any, ...]:
    return flags if "conflicted" in flags else (*flags, "conflicted")

