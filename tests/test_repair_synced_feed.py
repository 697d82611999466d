"""A repair of this clone's own feed after it was synced (docs/sync.md, "A
repair of a feed already synced"): the events a cut would set aside or
acknowledge as lost are on the remote, and its `ledger.repaired` event would
fork the feed against the remote's copy. `verify` and `repair` read this
clone's ledger ref (what the last sync saw; no network): `verify` says to run
`baton sync --restore-own-feed` or `baton repair --yes`, which restores the
feed as the ref holds it (tests/test_repair_restores_own_feed.py) instead of
cutting it; `--despite-synced` cuts anyway."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_support import run, run_json
from tests.sync_support import checkpoint, make_team, remote_feeds, writer_of


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _feed(project: Path) -> Path:
    return project / ".baton" / "ledger" / f"{writer_of(project)}.jsonl"


def _synced_then_cut(capsys, a: Path) -> bytes:
    for i in range(4):
        checkpoint(capsys, a, f"a{i}")
    run_json(capsys, a, "sync")
    feed = _feed(a)
    whole = feed.read_bytes()
    feed.write_bytes(whole[:-30])  # the last line cut short
    return whole


def test_verify_says_to_restore_from_the_remote_when_the_damaged_own_feed_was_synced(capsys, team):
    _remote, a, _b = team
    whole = _synced_then_cut(capsys, a)
    code, out, _err = run(capsys, a, "verify", "--json")
    assert code == 3
    assert json.loads(out)["synced_beyond"] == {"feed": writer_of(a), "seq": whole.count(b"\n"),
                                                "sound_seq": whole.count(b"\n") - 1}
    code, out, _err = run(capsys, a, "verify")
    assert "baton sync --restore-own-feed" in out


def test_repair_restores_a_synced_own_feed_instead_of_forking_it(capsys, team):
    remote, a, _b = team
    whole = _synced_then_cut(capsys, a)
    code, out, err = run(capsys, a, "repair", "--yes")
    assert code == 0, out + err
    assert _feed(a).read_bytes().startswith(whole)  # every event back, then the record of the restore
    assert run(capsys, a, "verify")[0] == 0
    checkpoint(capsys, a, "a5")
    assert run(capsys, a, "sync")[0] == 0
    assert remote_feeds(remote)[writer_of(a)].head.seq == whole.count(b"\n") + 2  # ledger.repaired, a5


def test_repair_dry_run_says_it_would_restore_from_the_ledger_ref(capsys, team):
    _remote, a, _b = team
    whole = _synced_then_cut(capsys, a)
    code, out, _err = run(capsys, a, "repair", "--dry-run", "--json")
    assert code == 0
    [plan] = json.loads(out)["feeds"]
    assert plan["restored_from_ref"]["seq"] == whole.count(b"\n") and plan["kept"]["seq"] == whole.count(b"\n")
    assert json.loads(out)["synced_beyond"] is None  # a restore forks nothing


def test_the_restore_from_the_remote_still_recovers_every_event(capsys, team):
    remote, a, _b = team
    whole = _synced_then_cut(capsys, a)
    code, out, err = run(capsys, a, "sync", "--restore-own-feed")
    assert code == 0, out + err
    assert _feed(a).read_bytes() == whole
    assert run(capsys, a, "verify")[0] == 0
    checkpoint(capsys, a, "a5")
    assert run(capsys, a, "sync")[0] == 0
    assert remote_feeds(remote)[writer_of(a)].head.seq == whole.count(b"\n") + 1


def test_repair_despite_synced_repairs_and_the_own_feed_refusal_says_the_remote_keeps_its_copy(capsys, team):
    remote, a, _b = team
    whole = _synced_then_cut(capsys, a)
    assert run(capsys, a, "repair", "--yes", "--despite-synced")[0] == 0
    held = remote_feeds(remote)[writer_of(a)]
    code, out, _err = run(capsys, a, "sync", "--restore-own-feed", "--json")
    [refused] = json.loads(out)["refused"]
    assert refused["kind"] == "own_feed"
    assert "publishes its own copy" not in refused["message"] and "remote keeps its copy" in refused["message"]
    assert remote_feeds(remote)[writer_of(a)] == held
    assert held.head.seq == whole.count(b"\n")


def test_a_repair_of_a_feed_never_synced_is_not_held_back(capsys, team):
    _remote, a, _b = team
    for i in range(2):
        checkpoint(capsys, a, f"a{i}")
    feed = _feed(a)
    feed.write_bytes(feed.read_bytes()[:-30])
    assert json.loads(run(capsys, a, "verify", "--json")[1])["synced_beyond"] is None
    assert run(capsys, a, "repair", "--yes")[0] == 0
