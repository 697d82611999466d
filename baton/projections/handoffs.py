"""The ``handoffs`` projection: one document per handoff, the current record.

Each ``handoff/<id>`` stream folds into the canonical record of §7.2 (status,
flags, validation, lineage...) through the handoff aggregate's ``evolve``
(``baton.domain.aggregates.handoff``) — the same function the application
object uses to check a command, so the projection and the commands cannot
disagree about what a transition does.

Materialized as ``.baton/handoffs/<created>--<short-id>.json``: sorted,
indented JSON, a pure function of the record, so ``baton rebuild`` restores
the files byte for byte. A secondary FTS5 table (``handoff_search``) indexes
title, objective and summary for ``handoff list --work``.
"""

from __future__ import annotations

from typing import Any, Iterable

from baton.events import HANDOFF, HANDOFF_EVENTS, split_stream
from baton.ledger.envelope import Event
from baton.projections.base import Doc

SEARCH_TABLE = "handoff_search"
_TYPES = frozenset(cls.TYPE for cls in HANDOFF_EVENTS)


class Handoffs:
    name = "handoffs"
    version = 1

    def keys(self, event: Event) -> Iterable[str]:
        if event.type in _TYPES:
            family, key = split_stream(event.stream)
            if family == HANDOFF:
                return (key,)
        return ()

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        from baton.domain.aggregates import handoff as aggregate
        from baton.domain.handoff import handoff_from_json, handoff_to_json
        from baton.errors import HandoffInputError

        try:
            state = handoff_from_json(doc) if doc is not None else None
        except HandoffInputError:
            return doc
        new = aggregate.evolve(state, event)
        if new is state:
            return doc
        return handoff_to_json(new) if new is not None else None

    # -- materialized files ------------------------------------------------
    def materialize(self, key: str, doc: Doc) -> dict[str, bytes]:
        from baton.canonical import pretty_bytes
        from baton.domain.handoff import handoff_file_name

        return {f"handoffs/{handoff_file_name(doc['created_at'], doc['id'])}": pretty_bytes(doc)}

    # -- full-text index ---------------------------------------------------
    def setup_index(self, db: Any) -> None:
        db.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {SEARCH_TABLE} "
            "USING fts5(id UNINDEXED, title, objective, summary, tokenize = 'unicode61 remove_diacritics 2')"
        )

    def reset_index(self, db: Any) -> None:
        db.execute(f"DELETE FROM {SEARCH_TABLE}")

    def index(self, db: Any, key: str, doc: Doc | None) -> None:
        db.execute(f"DELETE FROM {SEARCH_TABLE} WHERE id = ?", [key])
        if doc is not None:
            work = doc.get("work") or {}
            db.execute(
                f"INSERT INTO {SEARCH_TABLE} (id, title, objective, summary) VALUES (?, ?, ?, ?)",
                [key, _text(work.get("title")), _text(work.get("objective")), summary_text(doc)],
            )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def summary_text(doc: Doc) -> str:
    """The searchable text of a record's summary."""
    summary = doc.get("summary") or {}
    parts: list[str] = []
    for key in ("current_state", "why_it_matters"):
        parts.append(_text(summary.get(key)))
    for key in ("completed", "in_progress", "discoveries"):
        parts.extend(_text(item) for item in summary.get(key) or ())
    return "\n".join(p for p in parts if p)
