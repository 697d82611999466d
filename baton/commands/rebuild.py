"""``baton rebuild``: drop every projection and replay the ledger.

With ``--until`` the index (and the materialized files) show the project as
it was at that event or time, and stay *pinned* there: reading commands show
that past state, writing commands refuse until a plain ``baton rebuild``
returns the index to the present.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from baton.model import frozen
from baton.projections.runner import Progress, Until

if TYPE_CHECKING:
    from baton.commands.context import Project


@frozen
class RebuildResult:
    events: int
    until: str | None
    documents: dict[str, int]
    exit_code: int = 0

    def to_json(self) -> dict:
        return {"events": self.events, "until": self.until, "documents": self.documents}

    def render(self) -> str:
        docs = ", ".join(f"{n} {name}" for name, n in sorted(self.documents.items()))
        where = f" up to {self.until} (index pinned; run `baton rebuild` to return to the present)" if self.until else ""
        return f"Replayed {self.events} events{where}: {docs or 'no documents'}"


def rebuild_projections(
    project: "Project",
    *,
    until: str | None = None,
    progress: Progress | None = None,
) -> RebuildResult:
    """Raises: NotInitialized, NotFound (unknown --until id), InputError."""
    bound = Until.parse(until, option="until") if until else None
    opened = project
    opened.require_writable("rebuild")
    opened.runner  # noqa: B018 - the property seeds the ledger with the index's cursors: the lock's catch-up then reads only new bytes
    with opened.ledger.locked():
        done = opened.runner.rebuild(until=bound, progress=progress)
    return RebuildResult(done.events, until, opened.runner.counts())
