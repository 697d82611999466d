"""``baton log --type T`` and ``--stream S`` read only the span of the ledger the index says
their events lie in (docs/performance.md): a type every match of which the limit shows, from
the ledger's start up to its last event or back from its end to its first, whichever is
nearer (its ``event_counts``); a stream whose last event is old, up to that event (its
``streams``). At 100,000 events ``log --type project.initialized`` read them all (7 s). What
they show is what the whole ledger, read and sliced, shows. The rest (a recent stream) shows
its progress at a terminal."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baton.commands import log as log_module
from baton.commands.log import ledger_log, log_events
from baton.errors import NotFound
from baton.ledger import Ledger
from baton.ledger.envelope import EventDraft
from baton.projections.event_counts import EventCounts, Streams
from tests.test_cli_shows_a_long_catch_up import a_long_read_at_a_terminal, worked  # noqa: F401  (a fixture)
from tests.test_log_streams import WRITERS, _as_listed
from tests.test_log_tail import _Counting

READING = "baton: reading the ledger:"


class _Index:
    """The index's ``event_counts`` and ``streams``, folded by the real projections from ``events``."""

    pinned_until = None

    def __init__(self, events: list) -> None:
        self.by_name = {"event_counts": EventCounts(), "streams": Streams()}
        self._docs: dict[str, dict[str, dict]] = {}
        for name, projection in self.by_name.items():
            grouped: dict[str, list] = {}
            for e in events:
                for key in projection.keys(e):
                    grouped.setdefault(key, []).append(e)
            self._docs[name] = {key: projection.apply_all(key, None, run) for key, run in grouped.items()}

    def docs(self, name: str):
        return iter(self._docs[name].items())

    def get(self, name: str, key: str):
        return self._docs[name].get(key)


def _write(folder: Path, batches: list[tuple[int, str, str, int]], text: str = "") -> None:
    """``(writer, type, stream, size)`` each: ``size`` events in one batch."""
    ledgers = {w: Ledger(folder, w, fsync="never") for w in WRITERS}
    for n, (writer, kind, stream, size) in enumerate(batches):
        with ledgers[WRITERS[writer]].locked() as txn:
            txn.append([EventDraft(kind, stream, {"n": n, "i": i, "text": text}) for i in range(size)])
    for ledger in ledgers.values():
        ledger.close()


def _project(folder: Path) -> tuple[SimpleNamespace, _Counting]:
    ledger = _Counting(folder, "reader0000000000", fsync="never")
    index = _Index(ledger.read_all())
    ledger.read_bytes = 0
    return SimpleNamespace(ledger=ledger, reading=lambda: index), ledger


def _feed_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in (folder / "ledger").glob("*.jsonl"))


BULK = [(0, "note.added", f"note/{n % 4}", 100) for n in range(40)]
"""4,000 events of about 1 KiB: four times what one read of a feed takes (1 MiB)."""


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60, deadline=None)
@given(plan=st.lists(st.tuples(st.integers(0, 2), st.sampled_from(["note.added", "note.edited", "task.done"]),
                               st.sampled_from(["note/0", "note/1", "old/0"]), st.integers(1, 3)), max_size=30),
       limit=st.sampled_from([1, 2, 5, 200]),
       event_type=st.sampled_from([None, "note.*", "task.done", "nothing"]),
       stream=st.sampled_from([None, "note/1", "old/0"]))
def test_a_log_read_within_the_index_s_bounds_shows_what_the_whole_ledger_sliced_shows(
        tmp_path_factory, plan, limit, event_type, stream):
    folder = tmp_path_factory.mktemp("bounds")
    _write(folder, plan)
    project, ledger = _project(folder)
    try:
        events = ledger.read_all()
        if stream is not None and stream not in {e.stream for e in events}:
            with pytest.raises(NotFound):  # a stream no event is on: refused, as without the bounds
                ledger_log(project, event_type=event_type, stream=stream, limit=limit)
            return
        expected = [e.id for e in _as_listed(events, event_type=event_type, stream=stream, limit=limit)]
        shown = ledger_log(project, event_type=event_type, stream=stream, limit=limit).events
        assert [e.id for e in shown] == expected
    finally:
        ledger.close()


def test_log_of_a_type_whose_events_are_all_early_reads_up_to_its_last_one(tmp_path):
    _write(tmp_path, [(1, "project.initialized", "project", 1), *BULK], text="x" * 1000)
    project, ledger = _project(tmp_path)
    try:
        shown = ledger_log(project, event_type="project.initialized", limit=50).events
        assert [e.type for e in shown] == ["project.initialized"]
        assert ledger.read_bytes < _feed_bytes(tmp_path) / 2
    finally:
        ledger.close()


def test_log_of_a_type_whose_events_are_all_recent_reads_back_to_its_first(tmp_path):
    _write(tmp_path, [*BULK, (1, "handoff.forgotten", "handoff/x", 1), (0, "note.added", "note/0", 5)],
           text="x" * 1000)
    project, ledger = _project(tmp_path)
    try:
        shown = ledger_log(project, event_type="handoff.forgotten", limit=50).events
        assert [e.type for e in shown] == ["handoff.forgotten"]
        assert ledger.read_bytes < _feed_bytes(tmp_path) / 2
    finally:
        ledger.close()


def test_log_of_a_stream_whose_last_event_is_old_reads_up_to_it(tmp_path):
    _write(tmp_path, [(2, "handoff.captured", "handoff/old", 1), (2, "handoff.validated", "handoff/old", 1),
                      *BULK], text="x" * 1000)
    project, ledger = _project(tmp_path)
    try:
        shown = ledger_log(project, stream="handoff/old", limit=50).events
        assert [e.type for e in shown] == ["handoff.captured", "handoff.validated"]
        assert ledger.read_bytes < _feed_bytes(tmp_path) / 2
    finally:
        ledger.close()


def test_log_of_a_stream_whose_events_are_all_recent_reads_back_to_its_first(tmp_path):
    _write(tmp_path, [*BULK, (2, "handoff.captured", "handoff/new", 1), (0, "note.added", "note/0", 5),
                      (2, "handoff.validated", "handoff/new", 1)], text="x" * 1000)
    project, ledger = _project(tmp_path)
    try:
        shown = ledger_log(project, stream="handoff/new", limit=50).events
        assert [e.type for e in shown] == ["handoff.captured", "handoff.validated"]
        assert ledger.read_bytes < _feed_bytes(tmp_path) / 2
    finally:
        ledger.close()


def test_log_of_a_recent_stream_and_a_type_shows_that_type_s_newest_behind_newer_events_of_others(tmp_path):
    _write(tmp_path, [*BULK, (0, "task.done", "note/9", 1), (0, "note.added", "note/9", 2)])
    project, ledger = _project(tmp_path)
    try:
        shown = ledger_log(project, event_type="task.done", stream="note/9", limit=1).events
        assert [(e.type, e.stream) for e in shown] == [("task.done", "note/9")]
    finally:
        ledger.close()


def test_log_of_a_recent_stream_an_older_baton_began_reads_back_to_the_start_and_shows_the_same(tmp_path):
    """Its ``streams`` document has no ``first_key`` (folded before it was kept): nothing bounds the read."""
    _write(tmp_path, [(2, "handoff.captured", "handoff/new", 1), *BULK, (2, "handoff.validated", "handoff/new", 1)],
           text="x" * 1000)
    project, ledger = _project(tmp_path)
    del project.reading().get("streams", "handoff/new")["first_key"]
    try:
        shown = ledger_log(project, stream="handoff/new", limit=50).events
        assert [e.type for e in shown] == ["handoff.captured", "handoff.validated"]
        assert ledger.read_bytes >= _feed_bytes(tmp_path) / 2
    finally:
        ledger.close()


def test_a_limited_log_tells_its_progress_of_the_ledger_s_count_and_ends_at_what_it_read(tmp_path, monkeypatch):
    monkeypatch.setattr(log_module, "PROGRESS_EVERY", 100)
    _write(tmp_path, [*BULK, (0, "note.edited", "note/recent", 1)])
    project, ledger = _project(tmp_path)
    told: list[tuple[int, int]] = []
    try:  # a glob: the index bounds no read of it
        list(log_events(project, stream="note/rec*", limit=50, progress=lambda done, about: told.append((done, about))))
    finally:
        ledger.close()
    assert told and all(about == 4001 for _done, about in told[:-1])
    assert told[-1][0] == told[-1][1] and [done for done, _ in told] == sorted(done for done, _ in told)


def test_log_at_a_terminal_shows_its_progress_and_ends_its_line(worked, monkeypatch, capsys):  # noqa: F811
    code, out, said = a_long_read_at_a_terminal(monkeypatch, capsys, worked, log_module, "log", "--stream", "session/s2")
    assert code == 0 and "session.begun" in out and READING in said
    assert said.endswith(" events\n")


def test_log_with_json_shows_no_progress(worked, monkeypatch, capsys):  # noqa: F811
    code, _, said = a_long_read_at_a_terminal(monkeypatch, capsys, worked, log_module, "--json", "log",
                                              "--stream", "session/s2")
    assert code == 0 and READING not in said


def _event(stream: str, hlc: int, seq: int):
    return SimpleNamespace(stream=stream, stream_version=seq, merge_key=(hlc, "w", seq), id=f"e{seq}",
                           type="note.added", at="2026-12-06T00:00:00Z")


def test_the_streams_index_keeps_where_a_stream_begins_across_folds():
    streams = Streams()
    doc = streams.apply_all("note/1", None, [_event("note/1", 10, 1), _event("note/1", 20, 2)])
    doc = streams.apply_all("note/1", doc, [_event("note/1", 30, 3)])
    assert doc["first_key"] == [10, "w", 1] and doc["last_key"] == [30, "w", 3]


def test_a_stream_an_older_baton_began_gets_no_first_key_from_a_later_fold():
    streams = Streams()
    older = streams.apply_all("note/1", None, [_event("note/1", 10, 1)])
    del older["first_key"]  # as a Baton before first_key folded it
    assert "first_key" not in streams.apply_all("note/1", older, [_event("note/1", 30, 2)])


def test_the_index_a_real_project_writes_names_a_stream_s_first_event(worked):  # noqa: F811
    from baton.app import Baton

    with Baton.open(worked) as app:
        events = [e for e in app.project.ledger.read_all() if e.stream == "session/s1"]
        doc = app.project.reading().get("streams", "session/s1")
    assert doc["first_key"] == list(events[0].merge_key) and doc["last_key"] == list(events[-1].merge_key)
