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
from baton.projections.handoffs import ROWS_TABLE


def listed_edits(runner: Any) -> dict[str, set[str]]:
    """Per flagged record in the index: the events of the edits made apart it lists."""
    try:
        rows = runner.db.execute(f"SELECT id FROM {ROWS_TABLE} WHERE flags LIKE '%conflicted%'").fetchall()
    except sqlite3.Error:  # no index yet: nothing listed
        return {}
    out: dict[str, set[str]] = {}
    for (ident,) in rows:
        doc = runner.get("handoffs", ident)
        if doc is not None:
            out[ident] = {str(e.get("event")) for e in edits_of(doc)}
    return out


def new_edits(runner: Any, before: dict[str, set[str]]) -> list[dict[str, Any]]:
    """The edits made apart the index lists now that it did not list in ``before``
    (``listed_edits``), each with its handoff and the line that tells it."""
    out = []
    for ident in sorted(listed_edits(runner)):
        doc = runner.get("handoffs", ident) or {}
        for edit in edits_of(doc):
            if str(edit.get("event")) not in before.get(ident, set()):
                out.append({**edit, "handoff": ident, "line": edit_line(ident, edit)})
    return out
