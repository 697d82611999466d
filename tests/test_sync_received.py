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


def test_a_push_of_a_large_ledger_to_an_empty_remote_shows_its_progress_at_a_terminal(capsys, tmp_path,
                                                                                        monkeypatch):
    """Sending every feed whole to a new remote (~25 s at 100,000 events) said nothing until it ended:
    it shows the first publish's progress line, up to what the remote received."""
    import sys

    from baton.ledger.store import Ledger
    from benchmarks.ledger import drafts
    from tests.test_cli_shows_a_long_catch_up import _Terminal

    _remote, a, _b = make_team(tmp_path)
    run_json(capsys, a, "checkpoint", "create", "--title", "First", *TITLE)
    writer = next(p.stem for p in (a / ".baton" / "ledger").glob("*.jsonl"))
    ledger = Ledger(a / ".baton", writer, fsync="never")
    with ledger.locked() as txn:  # ~2.4 MB of ~1 KB events: more than one chunk of the feed
        txn.append([d._replace(stream=f"bench/{d.stream.rsplit('/', 1)[-1]}") for d in drafts(2200)])
    ledger.close()
    run_json(capsys, a, "sync")  # the ref in this clone holds it all: the next push packs nothing new
    empty = tmp_path / "empty.git"
    Repo.init_bare(str(empty), mkdir=True).close()
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    code, out, _ = run(capsys, a, "sync", "--remote", str(empty))
    total = _events_in_feeds(a)
    shown = [line.strip() for line in terminal.getvalue().replace("\r", "\n").splitlines()
             if line.startswith("baton: publishing this clone's feeds:")]
    assert code == 0 and f"it received {total} events of 1 feed" in out
    assert len(shown) >= 2 and shown[-1] == f"baton: publishing this clone's feeds: {total}/{total} events"


def _ledger_ref(project) -> bytes | None:
    with Repo(str(project)) as repo:
        return repo.refs.as_dict().get(b"refs/baton/ledger")


def test_a_sync_to_a_new_remote_publishes_nothing_when_the_local_ref_gains_nothing(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    run_json(capsys, a, "checkpoint", "create", "--title", "First", *TITLE)
    run_json(capsys, a, "sync")
    before = _ledger_ref(a)
    empty = tmp_path / "empty.git"
    Repo.init_bare(str(empty), mkdir=True).close()
    done = run_json(capsys, a, "sync", "--remote", str(empty))
    assert _ledger_ref(a) == before
    assert done["published"] == {} and sum(done["received"].values()) == _events_in_feeds(a)


def test_the_words_of_a_sync_to_a_new_remote_say_only_what_it_received_when_the_ref_gained_nothing(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    run_json(capsys, a, "checkpoint", "create", "--title", "First", *TITLE)
    run_json(capsys, a, "sync")
    empty = tmp_path / "empty.git"
    Repo.init_bare(str(empty), mkdir=True).close()
    code, out, _err = run(capsys, a, "sync", "--remote", str(empty))
    assert code == 0 and "Published" not in out and "it received" in out
