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


def continued_fate(was: str | None, continuations: "list[tuple[str, str | None, bool]]") -> tuple[str, str | None]:
    """What a notice about an unfinished draft, still unfinished itself (``fate`` says
    ``KEEP``), becomes through the captures continuing it — the other way to complete it
    (a capture with the draft as its ``parent``, docs/hooks.md) — each ``(id, status now,
    handed on)``, newest first: ``DROP`` when one was handed on or resumed since; else
    ``MADE_READY`` with the newest one made ready (the notice names it); else ``KEEP``."""
    if was not in NOT_READY_YET:
        return KEEP, None
    if any(handed_on or now == "resumed" for _ident, now, handed_on in continuations):
        return DROP, None
    ready = [ident for ident, now, _handed_on in continuations if now == "ready"]
    return (MADE_READY, ready[0]) if ready else (KEEP, None)
