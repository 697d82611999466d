"""Whoever can push cannot write into your feed (docs/sync.md, "Refused feeds").

A clone's own feed is written there alone: a remote copy that extends or
rewrites it is refused (``own_feed``) and the clone publishes its own copy in
its place. A rewritten history of a feed already imported is refused, never
taken. A feed repeating event ids the ledger already has is refused at import.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from dulwich import porcelain

from baton.commands.context import Project
from baton.ledger import EventDraft
from baton.sync.ids import ID_CACHE
from tests.app_support import init_project
from tests.cli_support import run, run_json
from tests.sync_support import checkpoint as _checkpoint
from tests.sync_support import make_team, remote_feeds, take_writer_id
from tests.sync_support import writer_of as _writer


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _feed(project: Path, writer: str) -> Path:
    return project / ".baton" / "ledger" / f"{writer}.jsonl"


def _titles(capsys, project: Path) -> list[str]:
    return [r["title"] for r in run_json(capsys, project, "handoff", "list")["handoffs"]]


def _clone(remote: Path, where: Path) -> Path:
    porcelain.clone(str(remote), str(where), errstream=io.BytesIO()).close()
    init_project(where)
    return where


def _impersonate(victim: Path, clone: Path) -> None:
    """``clone`` takes ``victim``'s writer id and a copy of its feed (what
    anyone who can read the remote and push to it can do)."""
    take_writer_id(victim, clone)
    for f in (clone / ".baton" / "ledger").glob("*.jsonl"):
        f.unlink()
    (clone / ".baton" / "index.sqlite").unlink(missing_ok=True)
    shutil.copy(_feed(victim, _writer(victim)), _feed(clone, _writer(victim)))


def test_a_forged_extension_of_this_clones_own_feed_is_refused_and_replaced_by_its_own_copy(capsys, team, tmp_path):
    remote, a, b = team
    _checkpoint(capsys, a, "alice's work")
    run_json(capsys, a, "sync")
    mallory = _clone(remote, tmp_path / "mallory")
    _impersonate(a, mallory)
    _checkpoint(capsys, mallory, "FORGED by mallory as alice")  # chained correctly onto alice's feed
    run_json(capsys, mallory, "sync")
    assert remote_feeds(remote)[_writer(a)].head.seq == 3
    own = _feed(a, _writer(a)).read_bytes()
    code, out, err = run(capsys, a, "sync", "--json")
    result = json.loads(out)
    assert code == 3, out + err
    [refused] = result["refused"]
    assert (refused["feed"], refused["side"], refused["kind"]) == (_writer(a), "remote", "own_feed")
    assert _feed(a, _writer(a)).read_bytes() == own
    assert "FORGED by mallory as alice" not in _titles(capsys, a)
    run_json(capsys, a, "verify")
    assert remote_feeds(remote)[_writer(a)].head.offset == len(own)  # the forgery is off the remote's tip
    _checkpoint(capsys, a, "alice's next")  # chains on her own feed
    assert run(capsys, a, "sync", "--json")[0] == 0
    run_json(capsys, b, "sync")
    assert "FORGED by mallory as alice" not in _titles(capsys, b)
    assert {"alice's work", "alice's next"} <= set(_titles(capsys, b))
    run_json(capsys, b, "verify")


def test_the_text_output_names_the_refused_own_feed(capsys, team, tmp_path):
    remote, a, _b = team
    _checkpoint(capsys, a, "alice's work")
    run_json(capsys, a, "sync")
    mallory = _clone(remote, tmp_path / "mallory")
    _impersonate(a, mallory)
    _checkpoint(capsys, mallory, "FORGED")
    run_json(capsys, mallory, "sync")
    code, out, _ = run(capsys, a, "sync")
    assert code == 3
    assert f"REFUSED remote feed {_writer(a)} at seq 3: own_feed" in out


def test_a_rewritten_history_of_an_already_imported_feed_is_refused_loudly_not_taken(capsys, team, tmp_path):
    remote, a, b = team
    _checkpoint(capsys, a, "the original")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    held = _feed(b, _writer(a)).read_bytes()
    rewriter = _clone(remote, tmp_path / "rewriter")  # alice's id, a history of its own
    take_writer_id(a, rewriter)
    for f in (rewriter / ".baton" / "ledger").glob("*.jsonl"):
        f.unlink()
    (rewriter / ".baton" / "index.sqlite").unlink(missing_ok=True)
    _checkpoint(capsys, rewriter, "the rewrite")
    _checkpoint(capsys, rewriter, "and more")
    code, out, _ = run(capsys, rewriter, "sync", "--json")
    assert code == 3  # its own feed: it publishes its copy over alice's
    code, out, _ = run(capsys, b, "sync")
    assert code == 4
    assert f"REFUSED remote feed {_writer(a)}" in out and "not_fast_forward" in out
    assert _feed(b, _writer(a)).read_bytes() == held
    assert "the rewrite" not in _titles(capsys, b) and "the original" in _titles(capsys, b)
    run_json(capsys, b, "verify")


def _append_with_ids(monkeypatch, project: Path, ids: list[str]) -> None:
    from baton.ledger import store

    minted = iter(ids)
    monkeypatch.setattr(store, "uuid7", lambda *_args, **_kw: next(minted))
    opened = Project.open(project)
    try:
        with opened.ledger.locked() as tx:
            for n in range(len(ids)):
                tx.append([EventDraft("test.noted", "test/copied", {"n": n})])
    finally:
        opened.close()
        monkeypatch.undo()


def _push_feed(remote: Path, project: Path) -> None:
    """Put ``project``'s own feed on the remote's ledger ref by hand, as a
    hostile client would (its clone never syncs, so it refuses nothing)."""
    from dulwich.repo import Repo

    from baton.ledger.feed import FeedHead, scan_bytes
    from baton.sync.ledger_ref import FeedTreeWriter, read_feeds, write_commit
    from tests.sync_support import REF

    writer = _writer(project)
    data = _feed(project, writer).read_bytes()
    with Repo(str(remote)) as repo:
        sha = repo.refs.as_dict().get(REF)
        feeds = read_feeds(repo, sha)
        packer = FeedTreeWriter(repo, writer, None)
        packer.add(data)
        feeds[writer] = packer.finish(scan_bytes(writer, data, FeedHead()).head)
        repo.refs[REF] = write_commit(repo, feeds, [sha] if sha else [], "pushed by hand\n", b"m <m@x>", 0)


def _ids(project: Path, writer: str) -> list[str]:
    return [json.loads(line)["id"] for line in _feed(project, writer).read_bytes().splitlines()]


def test_a_pushed_feed_repeating_another_feeds_event_ids_is_refused_at_import(capsys, team, tmp_path, monkeypatch):
    remote, a, b = team
    _checkpoint(capsys, a, "alice's work")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    mallory = _clone(remote, tmp_path / "mallory")
    _append_with_ids(monkeypatch, mallory, _ids(a, _writer(a))[-1:])
    _push_feed(remote, mallory)
    code, out, err = run(capsys, b, "sync", "--json")
    result = json.loads(out)
    assert code == 3, out + err
    [refused] = result["refused"]
    assert (refused["feed"], refused["kind"]) == (_writer(mallory), "duplicate_id")
    assert _writer(a) in refused["message"]
    assert not _feed(b, _writer(mallory)).exists()
    assert result["dropped"] == [_writer(mallory)] and _writer(mallory) not in remote_feeds(remote)
    run_json(capsys, b, "verify")


def test_two_remote_feeds_sharing_an_id_are_both_refused_by_a_fresh_clone_and_both_kept(capsys, team, tmp_path,
                                                                                        monkeypatch):
    remote, a, _b = team
    _checkpoint(capsys, a, "alice's work")
    run_json(capsys, a, "sync")
    mallory = _clone(remote, tmp_path / "mallory")
    _append_with_ids(monkeypatch, mallory, _ids(a, _writer(a))[-1:])
    _push_feed(remote, mallory)
    fresh = _clone(remote, tmp_path / "fresh")
    code, out, _ = run(capsys, fresh, "sync", "--json")
    result = json.loads(out)
    assert code == 3
    assert sorted((r["feed"], r["kind"]) for r in result["refused"]) == sorted(
        [(_writer(a), "duplicate_id"), (_writer(mallory), "duplicate_id")])
    assert not _feed(fresh, _writer(a)).exists() and not _feed(fresh, _writer(mallory)).exists()
    assert {_writer(a), _writer(mallory)} <= set(remote_feeds(remote))  # neither dropped by a fresh clone
    run_json(capsys, fresh, "verify")


def test_a_feed_repeating_its_own_event_id_is_refused(capsys, team, tmp_path, monkeypatch):
    remote, _a, b = team
    mallory = _clone(remote, tmp_path / "mallory")
    _append_with_ids(monkeypatch, mallory, ["01a2b3c4-0000-7000-8000-000000000001"] * 2)
    _push_feed(remote, mallory)
    code, out, _ = run(capsys, b, "sync", "--json")
    assert code == 3
    [refused] = json.loads(out)["refused"]
    assert (refused["feed"], refused["kind"], refused["seq"]) == (_writer(mallory), "duplicate_id", 3)


def _restore_backup(project: Path, feed: bytes) -> None:
    """``project``'s own feed as an older backup held it (the index rebuilt from it)."""
    _feed(project, _writer(project)).write_bytes(feed)
    (project / ".baton" / "index.sqlite").unlink(missing_ok=True)
    (project / ".baton" / "sync-state.json").unlink(missing_ok=True)


def test_a_clone_restored_from_a_backup_takes_its_published_events_back_with_restore_own_feed(capsys, team):
    remote, a, _b = team
    _checkpoint(capsys, a, "before the backup")
    run_json(capsys, a, "sync")
    backup = _feed(a, _writer(a)).read_bytes()
    _checkpoint(capsys, a, "after the backup")
    run_json(capsys, a, "sync")
    published = _feed(a, _writer(a)).read_bytes()
    _restore_backup(a, backup)
    result = run_json(capsys, a, "sync", "--restore-own-feed")
    assert result["refused"] == [] and result["imported"] == {_writer(a): 1}
    assert _feed(a, _writer(a)).read_bytes() == published
    assert "after the backup" in _titles(capsys, a)
    run_json(capsys, a, "verify")


def test_a_plain_sync_after_a_restore_refuses_the_cut_feed_keeps_the_remote_and_names_the_way_back(capsys, team):
    remote, a, _b = team
    _checkpoint(capsys, a, "before the backup")
    run_json(capsys, a, "sync")
    backup = _feed(a, _writer(a)).read_bytes()
    _checkpoint(capsys, a, "after the backup")
    run_json(capsys, a, "sync")
    held = remote_feeds(remote)[_writer(a)].head
    _restore_backup(a, backup)
    code, out, _ = run(capsys, a, "sync", "--json")
    [refused] = json.loads(out)["refused"]
    assert code == 4 and (refused["side"], refused["kind"]) == ("local", "not_fast_forward")
    assert "`restore_own_feed`" in refused["message"]  # the parameter (docs/sync.md: the flag)
    assert remote_feeds(remote)[_writer(a)].head == held  # nothing published lost
    result = run_json(capsys, a, "sync", "--restore-own-feed")
    assert result["imported"] == {_writer(a): 1} and "after the backup" in _titles(capsys, a)


def test_restore_own_feed_still_refuses_a_copy_that_rewrites_the_feed(capsys, team, tmp_path):
    remote, a, _b = team
    _checkpoint(capsys, a, "alice's work")
    run_json(capsys, a, "sync")
    rewriter = _clone(remote, tmp_path / "rewriter")
    take_writer_id(a, rewriter)
    for f in (rewriter / ".baton" / "ledger").glob("*.jsonl"):
        f.unlink()
    (rewriter / ".baton" / "index.sqlite").unlink(missing_ok=True)
    for title in ("one", "two", "three"):
        _checkpoint(capsys, rewriter, title)
    run(capsys, rewriter, "sync", "--json")
    own = _feed(a, _writer(a)).read_bytes()
    code, out, _ = run(capsys, a, "sync", "--restore-own-feed", "--json")
    assert code == 3 and [r["kind"] for r in json.loads(out)["refused"]] == ["own_feed"]
    assert _feed(a, _writer(a)).read_bytes() == own


@pytest.mark.parametrize("events", [1, 40], ids=["few-ids-searched", "many-ids-read"])
def test_a_repeated_id_is_found_whether_few_or_many_events_are_imported(capsys, team, tmp_path, monkeypatch,
                                                                          events):
    remote, a, b = team
    _checkpoint(capsys, a, "alice's work")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    mallory = _clone(remote, tmp_path / "mallory")
    fresh = [f"01a2b3c4-0000-7000-8000-{n:012d}" for n in range(events - 1)]
    _append_with_ids(monkeypatch, mallory, fresh + _ids(a, _writer(a))[-1:])
    _push_feed(remote, mallory)
    code, out, _ = run(capsys, b, "sync", "--json")
    [refused] = json.loads(out)["refused"]
    assert code == 3 and (refused["feed"], refused["kind"]) == (_writer(mallory), "duplicate_id")
    assert refused["seq"] == events + 1  # after mallory's own project event


def test_an_id_quoted_inside_a_payload_is_not_taken_for_an_event(capsys, team, tmp_path, monkeypatch):
    remote, a, b = team
    mallory = _clone(remote, tmp_path / "mallory")
    _append_with_ids(monkeypatch, mallory, ["01a2b3c4-0000-7000-8000-00000000abcd"])
    opened = Project.open(b)  # b's own feed quotes that id in a payload, in the shape of an envelope
    try:
        with opened.ledger.locked() as tx:
            tx.append([EventDraft("test.noted", "test/quote", {"x": {"hlc": 1, "id": "01a2b3c4-0000-7000-8000-"
                                                                     "00000000abcd", "prev": None}})])
    finally:
        opened.close()
    _push_feed(remote, mallory)
    result = run_json(capsys, b, "sync")
    assert result["refused"] == [] and result["imported"] == {_writer(mallory): 2}


@pytest.mark.parametrize("lag", [0, None], ids=["recorded", "searched"])
def test_an_id_a_local_feed_gained_after_the_id_cache_was_built_is_still_a_duplicate(capsys, team, tmp_path,
                                                                                     monkeypatch, lag):
    import baton.sync.ids as sync_ids

    if lag is not None:  # every gain recorded in the cache; by default a small one is searched in the feed
        monkeypatch.setattr(sync_ids, "CACHE_LAG", lag)
    remote, a, b = team
    _checkpoint(capsys, a, "alice's work")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")  # the import builds b's id cache
    assert (b / ".baton" / ID_CACHE).exists()
    _checkpoint(capsys, b, "bob's later work")  # b's own feed grows after the cache looked
    mallory = _clone(remote, tmp_path / "mallory")
    _append_with_ids(monkeypatch, mallory, _ids(b, _writer(b))[-1:])
    _push_feed(remote, mallory)
    code, out, err = run(capsys, b, "sync", "--json")
    [refused] = json.loads(out)["refused"]
    assert code == 3 and (refused["feed"], refused["kind"]) == (_writer(mallory), "duplicate_id"), out + err
    assert _writer(b) in refused["message"]


def test_an_import_reads_only_what_local_feeds_gained_since_the_last_import_even_the_first_after_a_clone(
        capsys, team, monkeypatch):
    import baton.sync.ids as sync_ids

    monkeypatch.setattr(sync_ids, "CACHE_LAG", 0)  # every import recorded in the id cache
    _remote, a, b = team
    for n in range(30):
        _checkpoint(capsys, a, f"alice's work {n}")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    _checkpoint(capsys, a, "one more")
    run_json(capsys, a, "sync")
    ledger = sum(p.stat().st_size for p in (b / ".baton" / "ledger").glob("*.jsonl"))
    result = run_json(capsys, b, "sync")
    assert result["imported"] == {_writer(a): 1}
    assert result["read"]["feed_bytes"] < ledger / 4  # the id check no longer reads every feed whole


def test_a_local_feed_replaced_since_the_id_cache_looked_is_read_again(capsys, team, tmp_path, monkeypatch):
    remote, a, b = team
    _checkpoint(capsys, a, "alice's work")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    own = _feed(b, _writer(b))
    data = own.read_bytes()
    own.unlink()
    own.write_bytes(data)  # a new inode, the same bytes (a restore, a rewrite)
    mallory = _clone(remote, tmp_path / "mallory")
    _append_with_ids(monkeypatch, mallory, _ids(b, _writer(b))[:1])
    _push_feed(remote, mallory)
    code, out, _ = run(capsys, b, "sync", "--json")
    [refused] = json.loads(out)["refused"]
    assert code == 3 and refused["kind"] == "duplicate_id"


def _id_cache_files(project: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (project / ".baton").glob(f"{ID_CACHE}*")}


def test_a_small_import_writes_nothing_to_the_id_cache_and_reads_at_most_its_lag(capsys, team, tmp_path,
                                                                                 monkeypatch):
    """A write is a transaction and a checkpoint (fsyncs): the cache records
    what feeds gained only once it is more than ``_CACHE_LAG`` behind."""
    import baton.sync.ids as sync_ids

    monkeypatch.setattr(sync_ids, "CACHE_LAG", 2000)
    _remote, a, b = team
    for n in range(10):
        _checkpoint(capsys, a, f"alice's work {n}")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")  # an import far over the lag: recorded
    before, size = _id_cache_files(b), _feed(b, _writer(a)).stat().st_size
    assert before
    _checkpoint(capsys, a, "one more")
    run_json(capsys, a, "sync")
    result = run_json(capsys, b, "sync")
    assert result["imported"] == {_writer(a): 1}
    assert _id_cache_files(b) == before
    gained = _feed(b, _writer(a)).stat().st_size - size
    assert result["read"]["feed_bytes"] <= 2000 + gained
