"""The project as of a past event or time, without touching the live index.

``baton rebuild --until`` pins the whole index to the past (and blocks
writes until a plain rebuild). ``--as-of`` on ``lineage`` and ``handoff
show`` instead replays the ledger up to that point into a throwaway index in
a temporary folder, with the projections those reads need and no
materialized files, and answers from it. The live index, its cursors and the
files under ``.baton/`` are never written.
"""

from __future__ import annotations

import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator

from baton.ledger.envelope import Event
from baton.ledger.tail import events_held
from baton.projections.base import Doc
from baton.projections.event_counts import Streams
from baton.projections.folds.handoffs import Handoffs
from baton.projections.folds.lineage import Lineage
from baton.projections.runner import Progress, ProjectionRunner
from baton.projections.until import Until


class _WithoutFiles:
    """A projection as it is, minus its materialized files."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.version = inner.version
        self.order: Any = getattr(inner, "order", None)  # a projection may have none
        if hasattr(inner, "setup_index"):
            self.setup_index = inner.setup_index
            self.reset_index = inner.reset_index
            self.index = inner.index

    def keys(self, event: Event) -> Iterable[str]:
        return self.inner.keys(event)

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        return self.inner.apply(key, doc, event)


@contextmanager
def replayed_as_of(project: Any, when: str, *, option: str = "as_of") -> Iterator[Any]:
    """A projection runner holding the handoff records and the lineage graph
    as of ``when`` (an event id, or an RFC 3339 time).

    Raises:
        InputError (exit 2): ``when`` is neither an event id nor a time.
        NotFound (exit 4): no event has that id.
    """
    until = Until.parse(when, option=option)
    with tempfile.TemporaryDirectory(prefix="baton-as-of-") as folder:
        runner = ProjectionRunner(Path(folder), project.ledger,
                                  [_WithoutFiles(p) for p in (Streams(), Handoffs(), Lineage())])
        try:
            # A replay up to a recent point is nearly the whole ledger (~15 s at 100,000 events): shown on a
            # terminal as a long catch-up is (the project's ``on_progress``), in its own words.
            runner.rebuild(until=until, reason=f"as of {until.label}", progress=replay_progress(project, until))
            yield runner
        finally:
            runner.close()


def replay_progress(project: Any, until: Until) -> Progress | None:
    """The project's progress display (``on_progress``) for a throwaway replay up to ``until``:
    in its own words when the display has them (``replaying(label)``: the command line's says
    "replaying the ledger as of …", not "bringing the index up to date", which this replay does
    not do), of a steady total — the events the feeds hold (``tail.events_held``), not an
    estimate from the bytes read that wanders by hundreds — and "done" only at its end."""
    shown = getattr(project, "on_progress", None)
    if shown is None:
        return None
    replaying = getattr(shown, "replaying", None)
    if callable(replaying):
        shown = replaying(f"as of {until.label}")
        if shown is None:
            return None
    total = events_held(project.ledger)
    if total is None:
        return shown
    display: Progress = shown

    def steady(done: int, about: int) -> None:
        display(done, done if done >= about else max(done + 1, total))

    return steady
