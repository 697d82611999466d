"""A repair's cut of this clone's own feed where it builds on what the repair sets aside.

A project folder copied with its ``.baton/`` writes a new feed, and a session
start there may claim a baton: a new version of a stream whose earlier
versions sit in the old feed, after a line damaged before the copy (a hook
answers from the index and never rereads old lines: docs/ledger.md). A repair
that sets those versions aside leaves the claim following nothing
(``stream_gap``), and no cut of the old feed mends that. So the plan also sets
aside this clone's own events from the first one that builds on a stream
version set aside (or that ``verify`` already finds after a gap), and every
event after it: its chain cannot skip one. Only this clone's own feed, and
only while its ledger ref does not hold the first of them (a synced event
may be a teammate's to build on, and a cut would fork the feed against the
remote's copy): a gap left so, or in a teammate's feed (theirs to write), is
reported as a problem that remains.
"""

from __future__ import annotations

from hashlib import sha256
from pathlib import Path
from typing import Any, Callable

import baton.ledger.files as files
from baton.errors import StorageError
from baton.ledger.feed import FeedHead, scan_bytes
from baton.ledger.repair import FeedRepair, _events_in, _line_item
from baton.ledger.verify import VerifyReport


def with_own_dependents(ledger_dir: Path, report: VerifyReport, plans: list[FeedRepair],
                        own: str | None, synced: Callable[[], int] = lambda: 0) -> list[FeedRepair]:
    """``plans`` and, when this clone's own feed ``own`` (not planned already) holds events that
    build on stream versions the plans set aside, a plan that sets them aside from the first on —
    unless its ledger ref holds that event (``synced()``: the seq it holds it to, asked only then): teammates may
    have it, and a cut would fork the feed against the remote's copy; the gap is then left."""
    if not own or any(plan.feed == own for plan in plans):
        return plans
    aside = _versions_set_aside(ledger_dir, plans)
    gaps = {p.seq for p in report.all_problems() if p.feed == own and p.kind == "stream_gap" and p.seq is not None}
    if not aside and not gaps:
        return plans
    path = Path(ledger_dir) / f"{own}.jsonl"
    try:
        raw = files.read_range(str(path), 0)
    except FileNotFoundError:
        return plans
    except OSError as exc:
        raise StorageError(f"cannot read feed {path}: {exc}") from exc
    scan = scan_bytes(own, raw, FeedHead())
    first, why = None, ""
    for i, event in enumerate(scan.events):
        lowest = aside.get(event.stream)
        if lowest is not None and event.stream_version > lowest[0]:
            first, why = i, (f"it builds on stream {event.stream!r} version {lowest[0]}, which the repair sets "
                             f"aside from feed {lowest[1]}")
        elif event.seq in gaps:
            first, why = i, f"stream_gap: stream {event.stream!r} has no version before {event.stream_version}"
        if first is not None:
            break
    if first is None or scan.events[first].seq <= synced():
        return plans
    cut = scan.ends[first - 1] if first else 0
    items: list[dict[str, Any]] = []
    for j in range(first, len(scan.events)):
        item = _line_item(raw, scan.ends[j - 1] if j else 0, scan.ends[j])
        item["reason"] = why if j == first else f"it follows seq {scan.events[first].seq}, set aside"
        items.append(item)
    if scan.ends[-1] < len(raw):  # a torn tail after the last event goes with them
        items.append(dict(_line_item(raw, scan.ends[-1], len(raw)), reason="bytes after the last newline"))
    kept = scan_bytes(own, raw[:cut], FeedHead()).head if cut else FeedHead()
    gone = {item.get("hash") for item in items}
    lost = sorted(({"seq": h.seq, "hash": h.hash, "source": h.source} for h in report.recorded
                   if h.feed == own and h.seq > kept.seq and h.hash not in gone),
                  key=lambda h: (h["seq"], h["source"]))
    plan = FeedRepair(own, cut, len(raw) - cut, kept, items, lost,
                      [f"this clone's own events from seq {scan.events[first].seq} on build on what the repair of "
                       f"{', '.join(p.feed for p in plans) or 'the ledger'} sets aside"],
                      size=len(raw), digest=sha256(raw).hexdigest())
    return sorted([*plans, plan], key=lambda p: p.feed)


def _versions_set_aside(ledger_dir: Path, plans: list[FeedRepair]) -> dict[str, tuple[int, str]]:
    """Per stream, the lowest version an event the plans set aside held, and its feed."""
    lowest: dict[str, tuple[int, str]] = {}
    for plan in plans:
        if not plan.set_aside:
            continue
        try:
            raw = plan.base + files.read_range(str(Path(ledger_dir) / f"{plan.feed}.jsonl"), 0)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise StorageError(f"cannot read feed {plan.feed}: {exc}") from exc
        for item in plan.set_aside:
            for _start, _end, event in _events_in(plan.feed, raw[item["offset"]:item["offset"] + item["bytes"]]):
                if event.stream not in lowest or event.stream_version < lowest[event.stream][0]:
                    lowest[event.stream] = (event.stream_version, plan.feed)
    return lowest

