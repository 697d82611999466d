"""What a waiting notice "handoff X was not handed on" still means at the next
session start, from what became of X since (pure: the facts are passed in).

A session's end that did not hand a handoff on leaves a notice for the next
start (``baton.harnesses.notices``), with the handoff's status then
(``was``). By the start, the person may have finished the job by hand: the
draft Baton prepared made ready (``handoff ready``), or continued by a handoff
made ready (``checkpoint create --from`` it: a draft is not superseded by its
continuation, only a ready parent is), the handoff handed on (``session
handoff --from``), resumed, superseded by an amendment, archived. The notice
must not tell the next session something that is no longer so.
"""

from __future__ import annotations

from typing import Iterable, NamedTuple

KEEP = "keep"
"""Still so: said as it was left."""
DROP = "drop"
"""No longer so, and nothing left to do about it: not said."""
MADE_READY = "made_ready"
"""The unfinished draft it named was made ready since, but no baton carries it:
said as what is true now (ready, not handed on, and how to read or hand it on)."""

CONTINUED = "continued"
"""The unfinished draft it named is still a draft, but a handoff continuing it
was made ready since and no baton carries that one: said as what is true now,
naming the ready continuation (``continued_by``)."""

NOT_READY_YET = ("draft", "validated")
"""Statuses of a draft still to finish: a validated draft is not ready either."""

CONTINUING = ("continue", "amend")
"""The lineage relations by which a handoff carries its parent's work on (those
by which, promoted, it supersedes a ready parent)."""


class Successor(NamedTuple):
    """A handoff descending from the one a notice names by ``CONTINUING``
    relations: its status now, whether a baton carries it, and when it was made."""

    id: str
    status: str | None
    handed_on: bool
    created_at: str = ""


def fate(was: str | None, now: str | None, *, handed_on: bool, successors: Iterable[Successor] = ()) -> str:
    """``KEEP``, ``DROP``, ``MADE_READY`` or ``CONTINUED`` for a notice about a
    handoff that had status ``was`` when the notice was left, has ``now`` (None:
    not known, the record unread), is (``handed_on``) or is not carried by a
    baton now, and is carried on by ``successors``.

    A draft still unfinished whose work a successor carried on is no longer
    the unfinished work: dropped when a successor was handed on or resumed, as
    the draft itself would be; ``CONTINUED`` when one is ready, as ``MADE_READY``
    for the draft itself. An unknown status, then or now, keeps the notice as
    it was left."""
    if was is None or now is None:
        return KEEP
    if handed_on:
        return DROP
    if was in NOT_READY_YET:
        if now in NOT_READY_YET:
            return _carried_on(list(successors))
        if now == "archived":  # a prepared draft is archived once a ready continuation completes it
            carried = list(successors)
            return CONTINUED if _carried_on(carried) == CONTINUED else DROP
        return MADE_READY if now == "ready" else DROP
    return KEEP if now == was else DROP


def _carried_on(successors: list[Successor]) -> str:
    if any(s.handed_on or s.status == "resumed" for s in successors):
        return DROP
    return CONTINUED if continued_by(successors) is not None else KEEP


def continued_by(successors: Iterable[Successor]) -> str | None:
    """The id of the newest ready successor no baton carries, or None."""
    ready = [s for s in successors if s.status == "ready" and not s.handed_on]
    return max(ready, key=lambda s: (s.created_at, s.id)).id if ready else None
