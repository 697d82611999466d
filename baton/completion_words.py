"""The project's words a completion script asks for at a TAB (``baton completion
--words KIND``): handoff ids, owners, branches. ``baton.completion`` writes the
scripts; this module reads the project.
"""

from __future__ import annotations

from typing import Any

from baton.app import Baton
from baton.commands.latest import RESUMABLE
from baton.completion import WORD_KINDS
from baton.domain.short_ids import short_id
from baton.errors import InputError
from baton.model import frozen


@frozen
class CompletionWords:
    kind: str
    words: tuple[str, ...]
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "words": list(self.words)}

    def render(self) -> str:
        return "\n".join(self.words)


UNPROMOTED = ("draft", "validated")
"""A session baton's record in these states is still resumable (its brief can always be read)."""

WORDS_LIMIT = 200
"""At most this many handoff ids are offered (the newest)."""


def project_words(project: str | None, kind: str) -> CompletionWords:
    """The words a shell offers for ``kind`` in this project: newest handoff ids
    (short) and ``latest``; owners of batons; branches of handoffs and batons.
    Anything that goes wrong (no project, a damaged index) offers nothing: a
    TAB never prints an error into the user's command line.

    Raises:
        InputError: ``kind`` is not one of ``WORD_KINDS``.
    """
    if kind not in WORD_KINDS:
        raise InputError(f"`words` must be one of {', '.join(WORD_KINDS)}, not {kind!r}")
    try:
        with Baton.open(project) as app:
            if kind in ("ids", "resumable"):
                rows = app.list_handoffs(limit=WORDS_LIMIT, kind="all", count_total=False).rows
                if kind == "resumable":  # what ``resume`` takes: ready or resumed, or a session baton's record
                    rows = tuple(r for r in rows if r.status in RESUMABLE or (r.baton and r.status in UNPROMOTED))
                return CompletionWords(kind, ("latest", *(short_id(r.id) for r in rows)))
            runner = app.project.reading()
            scopes = [entry for _, doc in runner.docs("batons")
                      for entry in (doc.get("current") or {}, *(doc.get("recent") or ())) if isinstance(entry, dict)]
            if kind == "owners":
                return CompletionWords(kind, tuple(sorted({d["owner"] for d in scopes if d.get("owner")})))
            branches = {d["branch"] for d in scopes if d.get("branch")}
            branches |= {r.branch for r in app.list_handoffs(limit=WORDS_LIMIT, kind="all", count_total=False).rows if r.branch}
            return CompletionWords(kind, tuple(sorted(branches)))
    except Exception:  # noqa: BLE001 — completion offers nothing rather than an error
        return CompletionWords(kind, ())
