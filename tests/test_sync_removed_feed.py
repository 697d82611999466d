"""A feed someone removed from the remote's ledger ref (docs/sync.md, "Refused
feeds"): a clone that refused it — a forged or unsigned feed, with
``sync.require_signatures`` — never puts it back, so the removal sticks; a
feed a clone took is still put back, as any loss of acknowledged events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dulwich.repo import Repo

from baton.sync.ledger_ref import read_feeds, write_commit
from tests.cli_support import run, run_json
from tests.sync_support import REF, make_team, refs_of, remote_feeds
from tests.sync_support import checkpoint as _checkpoint
from tests.sync_support import writer_of as _writer


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _require_signatures(project: Path) -> None:
    path = project / ".baton" / "config.json"
    config = json.loads(path.read_text())
    config.setdefault("sync", {})["require_signatures"] = True
    path.write_text(json.dumps(config))


def _from_remote(result: dict) -> list[tuple[str, str]]:
    return [(r["feed"], r["kind"]) for r in result["refused"] if r["side"] == "remote"]


def _remove_from_remote(remote: Path, writer: str) -> None:
    """What a maintainer does to a feed nobody should have pushed: a commit of
    the ledger ref without its folder, on top of the ref."""
    with Repo(str(remote)) as repo:
        sha = repo.refs[REF]
        feeds = read_feeds(repo, sha)
        del feeds[writer]
        repo.refs[REF] = write_commit(repo, feeds, [sha], "remove a forged feed\n", b"m <m@example.com>", 0)


def test_a_refused_feed_removed_from_the_remote_is_not_put_back_by_the_clone_that_refused_it(capsys, team):
    remote, a, b = team
    _require_signatures(a)  # no key listed anywhere: b's unsigned feed is refused by a
    _checkpoint(capsys, b, "unsigned, or forged")
    run_json(capsys, b, "sync")
    code, out, _err = run(capsys, a, "sync", "--json")
    result = json.loads(out)
    assert code == 3 and _from_remote(result) == [(_writer(b), "unsigned")]
    assert _writer(b) in read_feeds(Repo(str(a)), refs_of(a)[REF])  # kept as the remote held it
    _remove_from_remote(remote, _writer(b))
    code, out, err = run(capsys, a, "sync", "--json")
    result = json.loads(out)
    assert code == 3, out + err  # a has no key of its own: its feed stays unpublished ("local" side)
    assert result["behind"] == {} and _from_remote(result) == []
    assert _writer(b) not in remote_feeds(remote)  # the removal sticks
    assert _writer(b) not in read_feeds(Repo(str(a)), refs_of(a)[REF])
    assert not (a / ".baton" / "ledger" / f"{_writer(b)}.jsonl").exists()


def test_a_feed_a_clone_took_and_the_remote_lost_is_still_put_back_and_reported(capsys, team):
    remote, a, b = team
    _checkpoint(capsys, b, "taken by a")
    run_json(capsys, b, "sync")
    assert run_json(capsys, a, "sync")["imported"] == {_writer(b): 2}
    _remove_from_remote(remote, _writer(b))
    code, out, _err = run(capsys, a, "sync", "--json")
    result = json.loads(out)
    assert code == 3 and result["behind"] == {_writer(b): {"remote_seq": 0, "published_seq": 2}}
    assert remote_feeds(remote)[_writer(b)].head.seq == 2


def test_the_writer_of_a_removed_feed_publishes_it_again_at_its_next_sync(capsys, team):
    remote, a, b = team
    _require_signatures(a)
    _checkpoint(capsys, b, "b's own")
    run_json(capsys, b, "sync")
    run(capsys, a, "sync", "--json")
    _remove_from_remote(remote, _writer(b))
    run(capsys, a, "sync", "--json")
    code, out, _err = run(capsys, b, "sync", "--json")
    assert code == 3 and _writer(b) in json.loads(out)["behind"]
    assert remote_feeds(remote)[_writer(b)].head.seq == 2
