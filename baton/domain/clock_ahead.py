"""Feeds stamped far ahead of this machine's clock.

Every event carries a hybrid logical clock (``hlc``, microseconds): never
below any event its writer had seen, and otherwise the writer's wall clock.
A teammate whose clock runs fast stamps events in the future, and every clone
that imports them is carried along (its next events order after them).
Nothing is refused for it — the chain is valid, and order stays causal —
but the feed whose writer's clock runs fast is named (``baton sync``,
``baton verify``), with how far: such a clock orders its writer's events
after work done later until real time catches up.

Only that writer is named. A clone whose own clock is right, carried ahead
by importing the fast one's events, stamps its next events with an ``hlc``
just as far ahead — but with its own wall time (``at``), which is right.
So a feed whose newest ``hlc`` is more than ``AHEAD_BOUND_SECONDS`` ahead of
this machine's clock is only a candidate (``feeds_ahead``); it is named when
its newest event's own wall time is that far ahead too (``clocks_ahead``).
"""

from __future__ import annotations

from typing import Iterable

AHEAD_BOUND_SECONDS = 3600
"""How far (seconds) a feed's newest hlc may be ahead of this clock before it is named: more than
NTP or a laptop's sleep ever puts between two machines, less than a wrong time zone."""


def feeds_ahead(heads: Iterable[tuple[str, int]], now_us: int, *,
                bound: int = AHEAD_BOUND_SECONDS) -> list[tuple[str, int]]:
    """``(feed, seconds ahead)`` of each feed of ``heads`` (``(feed, newest hlc)``)
    whose newest hlc is more than ``bound`` seconds after ``now_us``, by feed."""
    out = []
    for feed, hlc in heads:
        ahead = (hlc - now_us) // 1_000_000
        if ahead > bound:
            out.append((feed, ahead))
    return sorted(out)


def clocks_ahead(candidates: Iterable[tuple[str, int, int | None]], now_us: int, *,
                 bound: int = AHEAD_BOUND_SECONDS) -> list[tuple[str, int]]:
    """``(feed, seconds ahead)`` of each feed of ``candidates`` (``(feed, newest hlc, wall time of that
    newest event in microseconds)``, from ``feeds_ahead``) whose writer's own clock was ahead: the newest
    event's wall time more than ``bound`` seconds after ``now_us`` (how far: by it). A feed carried ahead
    only by an hlc it imported (its wall time within the bound) is not named; one whose wall time
    cannot be read is judged by its hlc."""
    out = []
    for feed, hlc, wall_us in candidates:
        ahead = ((hlc if wall_us is None else wall_us) - now_us) // 1_000_000
        if ahead > bound:
            out.append((feed, ahead))
    return sorted(out)


def _span(seconds: int) -> str:
    if seconds >= 2 * 86400:
        return f"{seconds // 86400} days"
    if seconds >= 2 * 3600:
        return f"{seconds // 3600} hours"
    return f"{seconds // 60} minutes"


def ahead_line(feed: str, seconds: int) -> str:
    """One line naming a feed stamped ``seconds`` ahead of this clock, and what it means."""
    return (f"CLOCK AHEAD feed {feed}: its writer's clock was {_span(seconds)} ahead of this machine's when it "
            f"wrote its newest event (more than {_span(AHEAD_BOUND_SECONDS)}); a clock running fast there orders "
            "its events — and those of every clone that imports them — after later work until real time catches "
            "up: check `date -u` on that machine (kept, not refused: docs/sync.md, \"Clocks\")")
