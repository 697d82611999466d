"""The handoff lifecycle: prepare, validate, ready, list, show, archive."""

from __future__ import annotations

import argparse
from typing import Any

from baton.app import Baton
from baton.cli_handlers.opened import hashing_progress
from baton.cli_handlers.output import Noted
from baton.cli_handlers.record_fields import failed_fields_note
from baton.domain.short_ids import short_id
from baton.domain.wording import hashing_words


def handoff_prepare(app: Baton, args: argparse.Namespace):
    return app.prepare(source=args.from_id, trigger=args.trigger, output=args.output, force=args.force)


def handoff_validate(app: Baton, args: argparse.Namespace):
    """A failed validation is followed, on stderr, by the flags that fill the
    fields it found missing (``record_fields``: the report names the fields)."""
    result = app.validate(args.id, recheck=args.recheck, on_hashing=_hashing)
    note = failed_fields_note(result)
    return Noted(result, note) if note else result


def handoff_ready(app: Baton, args: argparse.Namespace):
    return app.promote(args.id, accept_warnings=args.accept_warnings, on_hashing=_hashing)


def handoff_list(app: Baton, args: argparse.Namespace):
    """Without ``--limit``, the newest 50 (``listing.DEFAULT_LIMIT``); when the
    limit leaves matches out, the text listing is followed by a line on stderr
    saying how many match in all and the ``--cursor`` of the next page (``--json``
    has ``more``, ``total`` and ``next_cursor``)."""
    result = app.list_handoffs(status=args.status, work=args.work, limit=args.limit, kind=args.kind,
                               branch=args.branch, by=args.by, mine=args.mine, cursor=args.cursor)
    if not result.more:
        return result
    total = f"{result.matched:,}" if result.matched is not None else "more"  # counted: count_total
    which = "the newest" if result.cursor is None else "the next"
    return Noted(result, f"{which} {len(result.rows)} of {total} {result.noun} shown; the next page: add "
                         f"--cursor {result.next_cursor} (a larger --limit shows more, --limit 0 shows all)")


def handoff_show(app: Baton, args: argparse.Namespace):
    """``latest`` that passed over a withheld handoff says which, on stderr after the record (``latest`` in JSON);
    so does the record's recorded freshness, which is not now (``freshness`` in JSON)."""
    result = app.show(args.id, format=args.format, max_tokens=args.max_tokens, as_of=args.as_of)
    notes = [n for n in (result.skipped_note, _recorded_freshness_note(result)) if n]
    return Noted(result, "\n".join(notes)) if notes else result


def _recorded_freshness_note(result: Any) -> str | None:
    """For the json and yaml views (the record as stored): its ``validation.freshness``
    is as found at validation, not now — the line that says so, and what it is now."""
    validation = result.record.get("validation")
    recorded = validation.get("freshness") if isinstance(validation, dict) else None
    if result.format not in ("json", "yaml") or not isinstance(recorded, dict) or result.freshness is None:
        return None
    when = validation.get("validated_at") or "?"
    return (f"Note: validation.freshness is as recorded when the handoff was validated (at {when}), not now: "
            f"now it is {result.freshness.get('state')} (`baton handoff show {short_id(result.handoff_id)} "
            "--format md` says why)")


def handoff_archive(app: Baton, args: argparse.Namespace):
    return app.archive(args.id, reason=args.reason, not_mine=args.not_mine)


def _hashing(done: int, total: int, path: str) -> None:
    """``handoff validate``'s and ``handoff ready``'s hashing shown on stderr (``hashing_progress``)."""
    hashing_progress(done, total, f"baton: {hashing_words(done, total, path)}")
