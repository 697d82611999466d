"""``baton log --limit N`` and ``--since TIME`` read each feed from its end
(``Ledger.iter_tail``): at 100,000 events ``log --limit 5`` read the whole
ledger (~3-5 s) to print five lines. They show exactly what the whole
ledger, read and sliced, shows — batches cut by the tail, a torn tail, a
filter that matches nothing recent — reading only the tail's bytes; damage
inside the tail still stops them; damage before it is ``verify``'s to find.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import baton.ledger.tail as tail
from baton.commands.log import ledger_log
from baton.errors import LedgerCorrupt
from baton.ledger import Ledger
from baton.ledger.envelope import EventDraft
from tests.test_ledger_torn_tail import TORN_KINDS, torn_bytes
from tests.test_log_streams import WRITERS, _as_listed

KINDS = ("note.added", "note.edited", "task.done")


def _ledger(folder: Path, plan: list[tuple[int, int, int]], *, text: str = "") -> Ledger:
    """Appends by several writers in ``plan``'s order: ``(writer, kind, size)`` each, ``size`` events in one batch."""
    ledgers = {w: Ledger(folder, w, fsync="never") for w in WRITERS}
    for n, (writer, kind, size) in enumerate(plan):
        with ledgers[WRITERS[writer]].locked() as txn:
            txn.append([EventDraft(KINDS[kind], f"note/{(n + i) % 4}", {"n": n, "i": i, "text": text})
                        for i in range(size)])
    for ledger in ledgers.values():
        ledger.close()
    return Ledger(folder, "reader0000000000", fsync="never")


class _Counting(Ledger):
    """A reader counting the feed bytes it reads."""

    read_bytes = 0

    def _read_range(self, path: str, start: int, size: int | None = None) -> bytes:
        data = super()._read_range(path, start, size)
        self.read_bytes += len(data)
        return data


def _feed_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in (folder / "ledger").glob("*.jsonl"))


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60, deadline=None)
@given(plan=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(1, 3)), min_size=0, max_size=40),
       since=st.integers(0, 60), limit=st.sampled_from([None, 1, 2, 5, 200]),
       event_type=st.sampled_from([None, "note.*", "task.done", "nothing"]),
       stream=st.sampled_from([None, "note/1", "note/*"]))
def test_a_log_read_from_the_feeds_tails_shows_what_the_whole_ledger_sliced_shows(
        tmp_path_factory, monkeypatch, plan, since, limit, event_type, stream):
    monkeypatch.setattr(tail, "TAIL_WINDOW", 97)  # windows of a line or two: tails cut batches, windows cut lines
    ledger = _ledger(tmp_path_factory.mktemp("tail"), plan)
    try:
        events = ledger.read_all()
        since_at = events[since % len(events)].at if since and events else None
        options = dict(event_type=event_type, stream=stream, since=since_at, limit=limit)
        expected = [e.id for e in _as_listed(events, **options)]
        assert [e.id for e in ledger_log(SimpleNamespace(ledger=ledger), **options).events] == expected
    finally:
        ledger.close()


def test_log_with_a_limit_reads_each_feeds_tail_not_the_ledger(tmp_path):
    _ledger(tmp_path, [(i % 2, i % 3, 1) for i in range(3000)], text="x" * 300).close()
    ledger = _Counting(tmp_path, "reader0000000000", fsync="never")
    try:
        shown = ledger_log(SimpleNamespace(ledger=ledger), limit=5).events
        assert [e.data["n"] for e in shown] == [2995, 2996, 2997, 2998, 2999]
        # Per feed: one window counted, then read as every reader reads (and the line before it).
        assert ledger.read_bytes < 2 * 2 * (tail.TAIL_WINDOW + 4096) < _feed_bytes(tmp_path) / 4
    finally:
        ledger.close()


def test_log_since_a_recent_time_reads_each_feeds_tail_not_the_ledger(tmp_path):
    _ledger(tmp_path, [(i % 3, 0, 1) for i in range(3000)], text="x" * 300).close()
    ledger = _Counting(tmp_path, "reader0000000000", fsync="never")
    try:
        events = ledger.read_all()
        ledger.read_bytes = 0
        shown = ledger_log(SimpleNamespace(ledger=ledger), since=events[-40].at).events
        assert [e.id for e in shown] == [e.id for e in events if e.hlc > events[-40].hlc]
        assert ledger.read_bytes < 3 * 2 * (tail.TAIL_WINDOW + 4096) < _feed_bytes(tmp_path) / 4
    finally:
        ledger.close()


def test_a_filter_matching_nothing_recent_reads_each_feed_once_and_a_quarter_at_most(tmp_path):
    _ledger(tmp_path, [(0, 2 if i < 3 else 0, 1) for i in range(2000)], text="x" * 300).close()
    ledger = _Counting(tmp_path, "reader0000000000", fsync="never")
    try:
        shown = ledger_log(SimpleNamespace(ledger=ledger), event_type="task.done", limit=5).events
        assert [e.data["n"] for e in shown] == [0, 1, 2]
        assert ledger.read_bytes < 1.3 * _feed_bytes(tmp_path)
    finally:
        ledger.close()


@pytest.mark.parametrize("kind", TORN_KINDS)
def test_log_with_a_limit_leaves_a_torn_tail_out(tmp_path, kind):
    _ledger(tmp_path, [(0, 0, 1 + i % 3) for i in range(400)], text="x" * 200).close()
    feed = tmp_path / "ledger" / f"{WRITERS[0]}.jsonl"
    sound = feed.read_bytes()
    ledger = Ledger(tmp_path, "reader0000000000", fsync="never")
    try:
        expected = [e.id for e in ledger.read_all()[-3:]]
        feed.write_bytes(sound + torn_bytes(kind, sound))
        assert [e.id for e in ledger_log(SimpleNamespace(ledger=ledger), limit=3).events] == expected
    finally:
        ledger.close()


def _damage(feed: Path, n: int) -> None:
    """The payload of event ``n`` changed behind its digest."""
    lines = feed.read_bytes().splitlines(keepends=True)
    (at,) = [i for i, line in enumerate(lines) if f'"n":{n},'.encode() in line]
    lines[at] = lines[at].replace(f'"n":{n},'.encode(), b'"n":-1,')
    feed.write_bytes(b"".join(lines))


def test_damage_inside_the_tail_still_stops_log_with_a_limit(tmp_path):
    _ledger(tmp_path, [(0, 0, 1) for i in range(1000)], text="x" * 300).close()
    _damage(tmp_path / "ledger" / f"{WRITERS[0]}.jsonl", 998)
    ledger = Ledger(tmp_path, "reader0000000000", fsync="never")
    try:
        with pytest.raises(LedgerCorrupt, match="does not match its digest"):
            ledger_log(SimpleNamespace(ledger=ledger), limit=5)
    finally:
        ledger.close()


def test_damage_before_the_tail_is_left_to_verify(tmp_path):
    _ledger(tmp_path, [(0, 0, 1) for i in range(1000)], text="x" * 300).close()
    _damage(tmp_path / "ledger" / f"{WRITERS[0]}.jsonl", 10)
    ledger = Ledger(tmp_path, "reader0000000000", fsync="never")
    try:
        assert [e.data["n"] for e in ledger_log(SimpleNamespace(ledger=ledger), limit=2).events] == [998, 999]
        with pytest.raises(LedgerCorrupt):
            ledger_log(SimpleNamespace(ledger=ledger))
    finally:
        ledger.close()


def _no_event_read(monkeypatch) -> None:
    """From here on, reading any event of the ledger fails the test."""
    def unread(self, *args, **kwargs):
        raise AssertionError("the events were read")

    monkeypatch.setattr(Ledger, "iter_all", unread)
    monkeypatch.setattr(Ledger, "iter_tail", unread)


def test_log_of_a_type_no_event_has_says_so_with_the_ledgers_types_and_reads_no_event(project, capsys,
                                                                                      monkeypatch):
    """A typo (``session.began`` for ``session.begun``) printed ``(no events)`` after reading the
    whole ledger (2-3 s at 100,000 events)."""
    from tests.cli_support import run

    run(capsys, project, "session", "begin", "s1")
    _no_event_read(monkeypatch)
    code, out, _ = run(capsys, project, "log", "--type", "session.began", "--limit", "5")
    assert code == 0 and out.startswith("(no events: no event of this ledger has a type matching 'session.began'")
    assert "session.begun" in out and "project.initialized" in out
    code, out, _ = run(capsys, project, "--json", "log", "--type", "session.began")
    assert code == 0 and out == ""


def test_log_of_a_type_some_event_has_lists_them_and_says_nothing_more(project, capsys):
    from tests.cli_support import run

    run(capsys, project, "session", "begin", "s1")
    code, out, _ = run(capsys, project, "log", "--type", "session.*")
    assert code == 0 and "session.begun" in out and "(no events" not in out
    code, out, _ = run(capsys, project, "log", "--type", "session.*", "--since", "2999-01-01T00:00:00Z")
    assert code == 0 and out.strip() == "(no events)"


def test_log_with_since_not_before_until_says_so_and_reads_no_event(project, capsys, monkeypatch):
    """``--since`` a time at or after ``--until``'s: no event can lie between them, so none is read
    (it read the ledger up to ``--until``, 2.2 s at 100,000 events, to print ``(no events)``)."""
    from tests.cli_support import run

    run(capsys, project, "session", "begin", "s1")
    _no_event_read(monkeypatch)
    code, out, _ = run(capsys, project, "log", "--since", "2026-06-02T00:00:00Z", "--until", "2026-06-01T00:00:00Z")
    assert code == 0 and out.startswith("(no events: `since` (2026-06-02T00:00:00Z) is not before `until`")
    code, out, _ = run(capsys, project, "--json", "log", "--since", "2026-06-01T00:00:00Z",
                       "--until", "2026-06-01T00:00:00Z")
    assert code == 0 and out == ""


def test_log_with_since_before_until_lists_the_events_between(project, capsys):
    from tests.cli_support import run

    run(capsys, project, "session", "begin", "s1")
    code, out, _ = run(capsys, project, "log", "--since", "2000-01-01T00:00:00Z", "--until", "2999-01-01T00:00:00Z")
    assert code == 0 and "session.begun" in out and "(no events" not in out


def test_log_with_a_negative_limit_says_how_to_see_every_event(project):
    from tests.conftest import run_baton

    done = run_baton("log", "--limit", "-2", cwd=project)
    assert done.returncode == 2
    assert done.stderr == "baton: --limit must be a positive number, or 0 for every event\n"


def test_log_with_a_limit_of_zero_shows_every_event_as_handoff_list_lists_every_match(project, capsys):
    """``--limit 0`` meant "all" for ``handoff list`` and an error for ``log`` (tester team15 G8)."""
    from tests.cli_support import run

    run(capsys, project, "session", "begin", "s1")
    _, every, _ = run(capsys, project, "log")
    code, zero, _ = run(capsys, project, "log", "--limit", "0")
    assert code == 0 and zero == every and "session.begun" in zero


def test_log_with_a_limit_past_any_count_shows_every_event(project):
    # 10**20 does not fit a C ssize_t: it ended in "internal error: OverflowError".
    from tests.conftest import run_baton

    every = run_baton("log", cwd=project)
    done = run_baton("log", "--limit", str(10**20), cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout == every.stdout and "project.initialized" in done.stdout
