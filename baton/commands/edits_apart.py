"""The edits made apart that a ``baton sync`` brought to light (docs/sync.md, "Edits made apart").

A handoff revised on one clone while another validated, readied or revised it folds by
``baton.domain.concurrent_edits``: the record lists each edit that is not its body and is flagged
``conflicted``. A sync reads the listed edits of the flagged records (few) before its import is
folded and after, and tells the new ones, so the person on each side hears of it once, there.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from baton.domain.concurrent_edit_lines import edit_line, edits_of
from baton.projections.handoffs import conflicted_ids


def listed_edits(runner: Any) -> dict[str, set[str]]:
    """Per flagged record in the index: the events of the edits made apart it lists."""
    out: dict[str, set[str]] = {}
    for edit in all_edits(runner):
        out.setdefault(edit["handoff"], set()).add(str(edit.get("event")))
    return out


SETTLED = ("superseded", "archived")
"""The statuses whose edits made apart ``open_edits`` leaves out: a corrected
child was made ready in the record's place, or the record was dropped."""


def all_edits(runner: Any) -> list[dict[str, Any]]:
    """Every edit made apart the index's records list (``baton sync``), each with its handoff
    and the line that tells it; read from the flagged rows alone."""
    return _edits(runner, settled=True)


def open_edits(runner: Any) -> list[dict[str, Any]]:
    """``all_edits`` but those of records superseded or archived (``SETTLED``): the edits
    still to take (``baton status``)."""
    return _edits(runner, settled=False)


def _edits(runner: Any, *, settled: bool) -> list[dict[str, Any]]:
    try:
        flagged = conflicted_ids(runner.db)
    except sqlite3.Error:  # no index yet: nothing listed
        return []
    out = []
    for ident in flagged:
        doc = runner.get("handoffs", ident) or {}
        if not settled and doc.get("status") in SETTLED:
            continue
        for edit in edits_of(doc):
            out.append({**edit, "handoff": ident, "line": edit_line(ident, edit)})
    return out


def new_edits(runner: Any, before: dict[str, set[str]]) -> list[dict[str, Any]]:
    """The edits made apart the index lists now that it did not list in ``before``
    (``listed_edits``), each with its handoff and the line that tells it."""
    return [e for e in all_edits(runner) if str(e.get("event")) not in before.get(e["handoff"], set())]
