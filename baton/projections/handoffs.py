"""The ``handoffs`` projection: one document per handoff, the current record.

Each ``handoff/<id>`` stream folds into the canonical record of §7.2 (status,
flags, validation, lineage...), replayed through the same state machine the
commands use (``baton.domain.lifecycle``), so the projection and the commands
cannot disagree about what a transition does. Commands decide *before*
appending; here an event is a fact. An event the state machine would refuse
(possible only when feeds from two machines are merged after the fact) is
skipped rather than crashing a rebuild: the record keeps its last legal state.

Materialized as ``.baton/handoffs/<created>--<short-id>.json``: sorted,
indented JSON, a pure function of the record, so ``baton rebuild`` restores
the files byte for byte. A secondary FTS5 table (``handoff_search``) indexes
title, objective and summary for ``handoff list --work``.

Timestamps the projection sets (``updated_at``, ``resumed_at``) come from the
event's own ``at``, cut to whole seconds like every record timestamp, so a
replay always yields the same bytes.
"""

from __future__ import annotations

from typing import Any, Iterable

from baton.ledger.envelope import Event
from baton.projections.base import Doc

STREAM_PREFIX = "handoff/"

CAPTURED = "handoff.captured"
REVISED = "handoff.revised"
VALIDATED = "handoff.validated"
PROMOTED = "handoff.promoted"
RESUMED = "handoff.resumed"
SUPERSEDED = "handoff.superseded"
ARCHIVED = "handoff.archived"
FLAGGED = "handoff.flagged"
EVENT_TYPES = (CAPTURED, REVISED, VALIDATED, PROMOTED, RESUMED, SUPERSEDED, ARCHIVED, FLAGGED)

SEARCH_TABLE = "handoff_search"


def stream_of(handoff_id: str) -> str:
    return STREAM_PREFIX + handoff_id


def record_time(at: str) -> str:
    """An envelope time (microseconds) as a record timestamp (whole seconds, ``Z``)."""
    return at[:19] + "Z" if len(at) >= 19 else at


class Handoffs:
    name = "handoffs"
    version = 1

    def keys(self, event: Event) -> Iterable[str]:
        if event.type in EVENT_TYPES and event.stream.startswith(STREAM_PREFIX):
            return (event.stream[len(STREAM_PREFIX):],)
        return ()

    def apply(self, key: str, doc: Doc | None, event: Event) -> Doc | None:
        from baton.domain import lifecycle
        from baton.domain.handoff import handoff_from_json, handoff_to_json
        from baton.errors import HandoffInputError
        from baton.domain.validation import validation_report_from_json

        data = event.data
        if data is None:
            # An erased payload (``baton forget``): a forgotten capture takes the
            # record with it; any other erased event changes nothing.
            return None if event.type == CAPTURED else doc
        now = record_time(event.at)
        try:
            if event.type == CAPTURED:
                if doc is not None:
                    return doc
                return handoff_to_json(handoff_from_json(data["handoff"]))
            if doc is None:
                return None
            current = handoff_from_json(doc)
            if event.type == REVISED:
                new = lifecycle.revise(current, handoff_from_json(data["handoff"]), now=_later(now, current))
            elif event.type == VALIDATED:
                validation = validation_report_from_json(data["report"])
                rechecks = data["report"].get("rechecks")
                if rechecks:
                    import attrs

                    validation = attrs.evolve(validation, extra={**validation.extra, "rechecks": rechecks})
                new = lifecycle.record_validation(current, validation, now=_later(now, current))
            elif event.type == PROMOTED:
                new = lifecycle.promote(current, now=_later(now, current),
                                        accepted_warnings=data.get("accepted_warnings"))
            elif event.type == RESUMED:
                new = lifecycle.resume(current, now=_later(now, current))
            elif event.type == SUPERSEDED:
                new = lifecycle.supersede(current, by=data["by"], now=now)
            elif event.type == ARCHIVED:
                new = lifecycle.archive(current, now=_later(now, current), reason=data.get("reason"))
            elif event.type == FLAGGED and data.get("flag") == "conflicted":
                new = lifecycle.flag_conflicted(current, now=_later(now, current))
            else:
                return doc
        except (lifecycle.TransitionError, lifecycle.PromotionRefused, HandoffInputError,
                KeyError, TypeError, ValueError):
            return doc
        return handoff_to_json(new)

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


def _later(now: str, current: Any) -> str:
    """Never move ``updated_at`` before ``created_at`` (clocks can step back)."""
    return max(now, record_time(current.created_at)) if current.created_at.endswith("Z") else now


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
