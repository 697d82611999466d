"""What a waiting notice "handoff X was not handed on" still means at the next
session start, from what became of X since (pure: the facts are passed in).

A session's end that did not hand a handoff on leaves a notice for the next
start (``baton.harnesses.notices``), with the handoff's status then
(``was``). By the start, the person may have finished the job by hand: the
draft Baton prepared made ready (``handoff ready``), the handoff handed on
(``session handoff --from``), resumed, superseded by an amendment, archived.
The notice must not tell the next session something that is no longer so.
"""

from __future__ import annotations

KEEP = "keep"
"""Still so: said as it was left."""
DROP = "drop"
"""No longer so, and nothing left to do about it: not said."""
MADE_READY = "made_ready"
"""The unfinished draft it named was made ready since, but no baton carries it:
said as what is true now (ready, not handed on, and how to read or hand it on)."""

NOT_READY_YET = ("draft", "validated")
"""Statuses of a draft still to finish: a validated draft is not ready either."""


def fate(was: str | None, now: str | None, *, handed_on: bool) -> str:
    """``KEEP``, ``DROP`` or ``MADE_READY`` for a notice about a handoff that had
    status ``was`` when the notice was left, has ``now`` (None: not known, the
    record unread) and is (``handed_on``) or is not carried by a baton now.

    An unknown status, then or now, keeps the notice as it was left."""
    if was is None or now is None:
        return KEEP
    if handed_on:
        return DROP
    if was in NOT_READY_YET:
        if now in NOT_READY_YET:
            return KEEP
        return MADE_READY if now == "ready" else DROP
    return KEEP if now == was else DROP
