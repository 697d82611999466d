"""``baton rebuild``: drop every projection and replay the ledger.

With ``--until`` the index (and the materialized files) show the project as
it was at that event or time, and stay *pinned* there: reading commands show
that past state, writing commands refuse until a plain ``baton rebuild``
returns the index to the present.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from baton.commands.leftovers import remove_leftover_temporaries
from baton.domain.wording import counted
from baton.model import evolve, frozen
from baton.process_end import DoneSoFar
from baton.projections.runner import Progress
from baton.projections.until import Until

if TYPE_CHECKING:
    from baton.commands.context import Project


@frozen
class RebuildResult:
    events: int
    """Events folded: every event of a replay, or what a catch-up (``--if-needed``) found new."""
    until: str | None
    documents: dict[str, int]
    exit_code: int = 0
    rebuilt: bool = True
    """Whether the projections were dropped and replayed (always, but with ``--if-needed``)."""
    reason: str | None = "requested"
    """Why they were replayed; with ``rebuilt`` false, why nothing was folded (an index
    pinned in the past), else None."""
    leftovers_removed: tuple[str, ...] = ()
    """Temporary files a process killed mid-write had left (``baton.commands.leftovers``), removed
    by a full rebuild: paths relative to ``.baton/``."""
    deferred: tuple = ()
    """The hooks kept while the index was too far behind or the ledger locked, run once it was up to
    date (``baton.commands.deferred.DeferredRun``)."""
    lost: str | None = None
    """Why writes stop, when a feed lost events the index acknowledged (``lost_acknowledged``): what a
    reading command warns of, else None."""
    kept_files: tuple[str, ...] = ()
    """The files the rebuild kept although no event left shows them, because the ledger lost the events
    that did (``ProjectionRunner.kept_files``): paths relative to ``.baton/``, as a reading command names them."""

    def with_deferred(self, runs: tuple) -> RebuildResult:
        """This result with the kept hooks it ran once the index was up to date (``deferred``)."""
        return evolve(self, deferred=runs)

    def to_json(self) -> dict:
        return {"events": self.events, "until": self.until, "documents": self.documents, "rebuilt": self.rebuilt,
                "reason": self.reason, "deferred": [run.to_json() for run in self.deferred],
                "leftovers_removed": list(self.leftovers_removed), "lost": self.lost,
                "kept_files": list(self.kept_files)}

    def render(self) -> str:
        removed = [f"Removed {counted(len(self.leftovers_removed), 'leftover temporary file')} of a process killed "
                   f"mid-write: {', '.join('.baton/' + rel for rel in self.leftovers_removed)}"] \
            if self.leftovers_removed else []
        return "\n".join([self._replayed(), *removed, *(run.render() for run in self.deferred)])

    def _replayed(self) -> str:
        docs = ", ".join(f"{n} {name}" for name, n in sorted(self.documents.items()))
        if not self.rebuilt and self.reason:  # an index pinned in the past stays there
            return f"Nothing folded: the {self.reason}; run `baton rebuild` to return to the present"
        if not self.rebuilt:
            return (f"The index is up to date: folded {self.events} new event{'s' * (self.events != 1)}, "
                    f"no replay needed ({docs or 'no documents'})")
        where = f" up to {self.until} (index pinned; run `baton rebuild` to return to the present)" if self.until else ""
        why = f" ({self.reason})" if self.reason not in (None, "requested") else ""
        return f"Replayed {counted(self.events, 'event')}{where}{why}: {docs or 'no documents'}"


def rebuild_projections(
    project: "Project",
    *,
    until: str | None = None,
    if_needed: bool = False,
    progress: Progress | None = None,
) -> RebuildResult:
    """Raises: NotInitialized, NotFound (unknown --until id), InputError,
    LedgerBusy (the lock held by another process past ``project.write_wait``),
    StorageError (a leftover temporary file could not be removed: the replay is done).

    A full rebuild (not ``if_needed``) also removes the temporary files a
    process killed mid-write left (``baton.commands.leftovers``): they may hold
    text a later ``forget`` erased.

    ``if_needed``: a catch-up instead, replaying only when the index must be
    (new, damaged, other projections, a rewritten feed); an index pinned in
    the past (``--until``) stays pinned."""
    bound = Until.parse(until, option="until") if until else None
    opened = project
    opened.require_writable("rebuild", "writes the index")
    opened.runner  # noqa: B018 - the property seeds the ledger with the index's cursors: the lock's catch-up then reads only new bytes
    opened.say_if_waiting(opened.write_wait)
    DoneSoFar.note("before the index was rebuilt: the ledger is as it was; run `baton rebuild` again")
    with opened.ledger.locked(wait=opened.write_wait):
        if if_needed:
            done = opened.runner.catch_up(progress=progress, allow_pinned=True)
        else:
            done = opened.runner.rebuild(until=bound, progress=progress)
        DoneSoFar.note("after the index was rebuilt: that is done")
        removed = () if if_needed else tuple(remove_leftover_temporaries(opened.paths))
        lost_acknowledged = getattr(opened.ledger, "lost_acknowledged", None)
        lost = lost_acknowledged() if lost_acknowledged is not None else None
        kept = tuple(opened.runner.kept_files()) if lost else ()
    return RebuildResult(done.events, until, opened.runner.counts(), rebuilt=done.rebuilt,
                         reason=done.reason, leftovers_removed=removed, lost=lost, kept_files=kept)
