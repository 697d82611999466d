"""Damage to this clone's own synced feed after a teammate repaired their copy
of it (docs/ledger.md, "A teammate's repair"): bob's `ledger.repaired` of his
copy of alice's feed reaches alice's clone by sync. It names alice's feed, but
it records bob's copy only: a torn tail of alice's own feed is still a torn
tail, which `verify` reports with the restore `repair` does, and `rebuild`
never reports as verified."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_support import run
from tests.sync_support import checkpoint, make_team, writer_of


@pytest.fixture
def torn_after_teammates_repair(capsys, tmp_path):
    """(alice, alice's feed bytes before the tear): bob repaired his damaged copy of alice's
    feed and synced, alice synced, then alice's own feed lost the end of its last line."""
    _remote, alice, bob = make_team(tmp_path)
    for i in range(3):
        checkpoint(capsys, alice, f"a{i}")
    assert run(capsys, alice, "sync")[0] == 0
    assert run(capsys, bob, "sync")[0] == 0
    copy = bob / ".baton" / "ledger" / f"{writer_of(alice)}.jsonl"
    lines = copy.read_bytes().splitlines(keepends=True)
    copy.write_bytes(lines[0] + lines[1].replace(b'"a0"', b'"b0"') + b"".join(lines[2:]))
    code, out, err = run(capsys, bob, "repair", "--yes")
    assert code == 0, out + err
    assert run(capsys, bob, "sync")[0] == 0
    assert run(capsys, alice, "sync")[0] == 0
    feed = _feed(alice)
    whole = feed.read_bytes()
    feed.write_bytes(whole[:-50])
    return alice, whole


def _feed(project: Path) -> Path:
    return project / ".baton" / "ledger" / f"{writer_of(project)}.jsonl"


def test_verify_reports_the_torn_tail_not_an_edited_index(capsys, torn_after_teammates_repair):
    alice, _whole = torn_after_teammates_repair
    code, out, err = run(capsys, alice, "verify", "--json")
    assert code == 3, out + err
    report = json.loads(out)
    kinds = {problem["kind"] for problem in report["problems"]}
    assert "index_cursor" not in kinds, out


def test_verify_plans_the_restore_the_dry_run_plans(capsys, torn_after_teammates_repair):
    alice, _whole = torn_after_teammates_repair
    _code, out, _err = run(capsys, alice, "verify", "--json")
    _code, dry, _err = run(capsys, alice, "repair", "--dry-run", "--json")
    assert json.loads(out)["repair"], out
    plans = [{k: v for k, v in plan.items() if k != "quarantine"} for plan in json.loads(dry)["feeds"]]
    assert json.loads(out)["repair"] == plans, dry


def test_rebuild_never_reports_the_torn_own_feed_verified(capsys, torn_after_teammates_repair):
    alice, _whole = torn_after_teammates_repair
    run(capsys, alice, "rebuild")
    code, out, err = run(capsys, alice, "verify")
    assert code == 3, out + err
    assert "ledger verified" not in out


def test_repair_restores_the_torn_tail_and_sync_works_again(capsys, torn_after_teammates_repair):
    alice, whole = torn_after_teammates_repair
    code, out, err = run(capsys, alice, "repair", "--yes")
    assert code == 0, out + err
    assert _feed(alice).read_bytes().startswith(whole)
    assert run(capsys, alice, "verify")[0] == 0
    checkpoint(capsys, alice, "a9")
    assert run(capsys, alice, "sync")[0] == 0
