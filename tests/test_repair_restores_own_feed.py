"""``baton repair`` restores this clone's own feed from its ledger ref when
the feed was synced and a cut would fork it (docs/sync.md, "A repair of a
feed already synced"): damage a restore from the remote cannot mend (an
event replaced by garbage) no longer sends ``repair`` and
``sync --restore-own-feed`` pointing at each other, and a clone an earlier
``repair --despite-synced`` forked gets back through the same command. The
remote is a real bare git repository, reached by path, and ``baton sync``
publishes what the repair leaves."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from baton.ledger.integrity import REPAIRED_TYPE
from tests.cli_support import run, run_json
from tests.sync_support import checkpoint, make_team, remote_feeds, writer_of


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _feed(project: Path) -> Path:
    return project / ".baton" / "ledger" / f"{writer_of(project)}.jsonl"


def _events(raw: bytes) -> list[dict]:
    return [orjson.loads(line) for line in raw.splitlines()]


def _synced_then_replaced(capsys, a: Path) -> tuple[bytes, bytes]:
    """Four checkpoints synced, one more written after; then garbage replaces seq 3.
    Returns the feed as it was synced and as it was before the damage."""
    for i in range(4):
        checkpoint(capsys, a, f"a{i}")
    run_json(capsys, a, "sync")
    synced = _feed(a).read_bytes()
    checkpoint(capsys, a, "written after the sync")
    whole = _feed(a).read_bytes()
    lines = whole.splitlines(keepends=True)
    lines[2] = b"garbage where seq 3 was\n"
    _feed(a).write_bytes(b"".join(lines))
    return synced, whole


def test_repair_restores_an_event_garbage_replaced_from_the_ledger_ref_and_keeps_what_follows(capsys, team):
    _remote, a, _b = team
    synced, whole = _synced_then_replaced(capsys, a)
    code, out, err = run(capsys, a, "repair", "--yes", "--json")
    assert code == 0, out + err
    result = json.loads(out)
    [plan] = result["feeds"]
    assert result["verified"] is True and plan["restored_from_ref"]["seq"] == len(_events(synced))
    assert [i.get("seq") for i in plan["set_aside"]] == [None]  # the garbage line alone
    now = _feed(a).read_bytes()
    assert now.startswith(whole)  # every event back, the one written after the sync too
    [repaired] = [e for e in _events(now) if e["type"] == REPAIRED_TYPE]
    assert repaired["data"]["quarantine"] == plan["quarantine"]
    aside = (a / ".baton" / "quarantine" / plan["quarantine"]).read_bytes()
    assert aside == b"garbage where seq 3 was\n"
    assert run(capsys, a, "verify")[0] == 0


def test_after_the_restore_sync_publishes_and_another_clone_verifies(capsys, team):
    remote, a, b = team
    _synced_then_replaced(capsys, a)
    assert run(capsys, a, "repair", "--yes")[0] == 0
    code, out, err = run(capsys, a, "sync")
    assert code == 0, out + err
    assert remote_feeds(remote)[writer_of(a)].head.seq == len(_events(_feed(a).read_bytes()))
    assert run(capsys, b, "sync")[0] == 0
    assert run(capsys, b, "verify")[0] == 0


def test_the_dry_run_says_it_would_restore_from_the_ledger_ref(capsys, team):
    _remote, a, _b = team
    synced, _whole = _synced_then_replaced(capsys, a)
    before = _feed(a).read_bytes()
    code, out, _err = run(capsys, a, "repair", "--dry-run")
    assert code == 0
    assert "Would restore this clone's own feed" in out
    assert f"as its ledger ref holds it (seq 1-{len(_events(synced))}" in out
    assert "byte " in out and "an unreadable line" in out
    assert _feed(a).read_bytes() == before


def _forked(capsys, a: Path) -> bytes:
    """Synced, damaged, then repaired despite the sync (the feed forks), then written on."""
    for i in range(4):
        checkpoint(capsys, a, f"a{i}")
    run_json(capsys, a, "sync")
    synced = _feed(a).read_bytes()
    lines = synced.splitlines(keepends=True)
    lines[2] = b"garbage where seq 3 was\n"
    _feed(a).write_bytes(b"".join(lines))
    assert run(capsys, a, "repair", "--yes", "--despite-synced")[0] == 0
    checkpoint(capsys, a, "written on the fork")
    assert run(capsys, a, "sync")[0] != 0  # refused: the feed forked against the remote's copy
    return synced


def test_a_clone_forked_by_an_earlier_repair_gets_back_through_repair(capsys, team):
    remote, a, _b = team
    synced = _forked(capsys, a)
    forked = _feed(a).read_bytes()
    local_only = [e for e in _events(forked) if e["seq"] > 2]
    code, out, err = run(capsys, a, "repair", "--yes", "--json")
    assert code == 0, out + err
    [plan] = json.loads(out)["feeds"]
    assert sorted(i["seq"] for i in plan["set_aside"]) == [e["seq"] for e in local_only]
    now = _feed(a).read_bytes()
    assert now.startswith(synced)
    aside = (a / ".baton" / "quarantine" / plan["quarantine"]).read_bytes()
    assert aside == b"".join(forked.splitlines(keepends=True)[2:])  # the fork, byte for byte
    assert run(capsys, a, "verify")[0] == 0
    code, out, err = run(capsys, a, "sync")
    assert code == 0, out + err
    assert remote_feeds(remote)[writer_of(a)].head.seq == len(_events(now))


def test_the_forked_clones_sync_refusal_names_repair_as_the_way_back(capsys, team):
    _remote, a, _b = team
    _forked(capsys, a)
    code, out, _err = run(capsys, a, "sync", "--json")
    [refused] = json.loads(out)["refused"]
    assert refused["kind"] in ("own_feed", "not_fast_forward")
    assert "`baton repair`" in refused["message"]


def test_a_repair_of_a_forked_clone_without_yes_says_what_it_would_set_aside(capsys, team):
    _remote, a, _b = team
    _forked(capsys, a)
    before = _feed(a).read_bytes()
    code, _out, err = run(capsys, a, "repair")
    assert code == 2 and "restore this clone's own feed" in err
    assert _feed(a).read_bytes() == before


def test_a_feed_that_extends_its_ledger_ref_is_left_alone(capsys, team):
    _remote, a, _b = team
    for i in range(3):
        checkpoint(capsys, a, f"a{i}")
    run_json(capsys, a, "sync")
    checkpoint(capsys, a, "after")
    before = _feed(a).read_bytes()
    code, out, _err = run(capsys, a, "repair", "--yes")
    assert code == 0 and "nothing to repair" in out
    assert _feed(a).read_bytes() == before


def _forgotten_after_the_sync(capsys, a: Path) -> str:
    """A handoff holding a secret synced, then forgotten here before the next sync: the ledger
    ref's copy still holds the text the local file no longer does."""
    checkpoint(capsys, a, "a0")
    out = run_json(capsys, a, "checkpoint", "create", "--title", "RESTORE-NEVER-UNFORGETS-5521", "--objective", "x")
    handoff = out["handoff"]["id"] if "handoff" in out else out["id"]
    checkpoint(capsys, a, "a2")
    run_json(capsys, a, "sync")
    run_json(capsys, a, "forget", handoff, "--yes")
    return "RESTORE-NEVER-UNFORGETS-5521"


def test_a_feed_that_differs_from_its_ledger_ref_only_by_a_forget_is_left_alone(capsys, team):
    _remote, a, _b = team
    secret = _forgotten_after_the_sync(capsys, a)
    before = _feed(a).read_bytes()
    code, out, _err = run(capsys, a, "repair", "--yes")
    assert code == 0 and "nothing to repair" in out
    assert _feed(a).read_bytes() == before and secret.encode() not in before


def test_a_restore_keeps_the_payloads_a_forget_erased_here_erased(capsys, team):
    _remote, a, _b = team
    secret = _forgotten_after_the_sync(capsys, a)
    lines = _feed(a).read_bytes().splitlines(keepends=True)
    lines[1] = b"garbage where seq 2 was\n"
    _feed(a).write_bytes(b"".join(lines))
    code, out, err = run(capsys, a, "repair", "--yes")
    assert code == 0, out + err
    assert secret.encode() not in _feed(a).read_bytes()
    assert run(capsys, a, "verify")[0] == 0
