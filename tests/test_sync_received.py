"""A sync's push says what the remote received (``received`` in ``--json``; "it
received N events of M feeds" in words): to a new or empty remote that is every
event of every feed, though the local ref gained only the few new ones
(``published``). It said only "Published 4 events" for the 100,006 an empty
remote received (tester-use20 T5; docs/sync.md)."""

from __future__ import annotations

from dulwich.repo import Repo

from tests.cli_support import run, run_json
from tests.sync_support import make_team

TITLE = ("--objective", "Finish the parser", "--no-input")


def _events_in_feeds(project) -> int:
    return sum(len(p.read_bytes().splitlines()) for p in (project / ".baton" / "ledger").glob("*.jsonl"))


def _synced_then_one_more(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    run_json(capsys, a, "checkpoint", "create", "--title", "First", *TITLE)
    run_json(capsys, a, "sync")
    run_json(capsys, a, "checkpoint", "create", "--title", "Second", *TITLE)
    empty = tmp_path / "empty.git"
    Repo.init_bare(str(empty), mkdir=True).close()
    return a, empty


def test_a_push_to_an_empty_remote_reports_every_event_it_received_not_only_the_newly_published(capsys, tmp_path):
    a, empty = _synced_then_one_more(capsys, tmp_path)
    done = run_json(capsys, a, "sync", "--remote", str(empty))
    assert done["pushed"] is True
    assert sum(done["received"].values()) == _events_in_feeds(a)
    assert sum(done["published"].values()) < _events_in_feeds(a)


def test_the_words_of_a_push_to_an_empty_remote_say_how_many_events_it_received(capsys, tmp_path):
    a, empty = _synced_then_one_more(capsys, tmp_path)
    code, out, _err = run(capsys, a, "sync", "--remote", str(empty))
    assert code == 0
    assert f"Pushed refs/baton/ledger to {empty}: it received {_events_in_feeds(a)} events of 1 feed." in out


def test_a_push_to_a_remote_that_held_the_feed_reports_only_the_events_it_lacked(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    run_json(capsys, a, "checkpoint", "create", "--title", "First", *TITLE)
    before = _events_in_feeds(a)
    run_json(capsys, a, "sync")
    run_json(capsys, a, "checkpoint", "create", "--title", "Second", *TITLE)
    done = run_json(capsys, a, "sync")
    assert sum(done["received"].values()) == _events_in_feeds(a) - before


def test_a_sync_that_pushes_nothing_reports_nothing_received(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    run_json(capsys, a, "checkpoint", "create", "--title", "First", *TITLE)
    run_json(capsys, a, "sync")
    assert run_json(capsys, a, "sync")["received"] == {}
