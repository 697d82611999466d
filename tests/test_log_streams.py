"""``baton log`` reads the ledger a chunk of each feed at a time (issue 27: a
year of use is 100,000 events; ``log --limit 5`` held them all, ~775 MB):
every ``--since``/``--until``/``--type``/``--stream``/``--limit`` shows exactly
what the whole ledger, read into a list and sliced, shows.
"""

from __future__ import annotations

import tracemalloc
from collections import deque
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baton.commands.log import _matches, ledger_log
from baton.errors import NotFound
from baton.ledger import Ledger
from baton.ledger.envelope import EventDraft
from baton.projections.until import Until

WRITERS = ("aaaaaaaaaaaaaaa1", "bbbbbbbbbbbbbbb2", "ccccccccccccccc3")
UNKNOWN_ID = "00000000-0000-7000-8000-000000000000"


def _as_listed(events, *, event_type=None, stream=None, since=None, until=None, limit=None):
    """The log as it was specified: every event in a list, sliced by position."""
    def position(bound: Until) -> int:
        if bound.event_id is not None:
            for i, e in enumerate(events):
                if e.id == bound.event_id:
                    return i + 1
            raise NotFound(bound.event_id)
        return sum(1 for e in events if e.hlc <= bound.hlc)

    start, stop = 0, len(events)
    if until is not None:
        stop = position(Until.parse(until))
    if since is not None:
        start = position(Until.parse(since))
    chosen = [e for e in events[start:stop] if _matches(event_type, e.type) and _matches(stream, e.stream)]
    return chosen[-limit:] if limit is not None else chosen


def _ledger(folder: Path, plan: list[tuple[int, int]], *, text: str = "") -> Ledger:
    """Events appended by several writers in the order ``plan`` gives ((writer, kind) each)."""
    ledgers = {w: Ledger(folder, w, fsync="never") for w in WRITERS}
    for n, (writer, kind) in enumerate(plan):
        with ledgers[WRITERS[writer]].locked() as txn:
            txn.append([EventDraft(("note.added", "note.edited", "task.done")[kind], f"note/{n % 4}",
                                   {"n": n, "text": text})])
    for ledger in ledgers.values():
        ledger.close()
    return Ledger(folder, "reader0000000000", fsync="never")


def _bound(events, choice: int, which: str):
    """None, an event's id, an event's time, or an id no event has."""
    if choice == 0 or not events:
        return None
    event = events[choice % len(events)]
    return {1: event.id, 2: event.at, 3: UNKNOWN_ID}[1 + choice % 3] if which else None


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=0, max_size=30),
       since=st.integers(0, 40), until=st.integers(0, 40), limit=st.sampled_from([None, 1, 3, 50]),
       event_type=st.sampled_from([None, "note.*", "task.done", "nothing"]),
       stream=st.sampled_from([None, "note/1", "note/*"]))
def test_log_shows_what_the_whole_ledger_sliced_shows(tmp_path_factory, plan, since, until, limit, event_type, stream):
    ledger = _ledger(tmp_path_factory.mktemp("log"), plan)
    try:
        events = ledger.read_all()
        since_at = _bound(events, since, "since")
        until_at = _bound(events, until, "until")
        options = dict(event_type=event_type, stream=stream, since=since_at, until=until_at, limit=limit)
        try:
            expected = [e.id for e in _as_listed(events, **options)]
        except NotFound:
            with pytest.raises(NotFound):
                ledger_log(SimpleNamespace(ledger=ledger), **options)
            return
        assert [e.id for e in ledger_log(SimpleNamespace(ledger=ledger), **options).events] == expected
    finally:
        ledger.close()


def test_iter_all_gives_read_alls_events_in_its_order(tmp_path):
    ledger = _ledger(tmp_path, [(i % 3, i % 2) for i in range(40)])
    try:
        assert [e.id for e in ledger.iter_all()] == [e.id for e in ledger.read_all()]
    finally:
        ledger.close()


def test_log_with_a_limit_holds_that_many_events_not_the_ledger(tmp_path):
    plan = [(i % 2, 0) for i in range(8000)]
    ledger = _ledger(tmp_path, plan, text="x" * 4000)  # 32 MB in two feeds: many chunks of each
    try:
        tracemalloc.start()
        ledger_log(SimpleNamespace(ledger=ledger), limit=5)
        _, limited = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        held = deque(ledger.read_all(), maxlen=5)
        _, listed = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert len(held) == 5
        assert limited * 3 < listed  # a chunk per feed, against every event at once
    finally:
        ledger.close()
