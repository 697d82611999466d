"""A teammate's repair of their copy of my feed (docs/sync.md, "A repair of
a feed already synced"): bob's copy of alice's feed is damaged, bob runs
`baton repair --yes` and syncs, alice syncs. Bob's `ledger.repaired` records
that *his copy* was cut back; it says nothing about alice's copy (or any other
clone's), so it never lowers another clone's recorded head of that feed, and
`verify` passes on every clone."""

from __future__ import annotations

from pathlib import Path

import pytest

from baton.commands.verify import index_heads
from tests.cli_support import run, run_json
from tests.sync_support import checkpoint, make_team, writer_of


@pytest.fixture
def repaired_by_teammate(capsys, tmp_path):
    """(alice, bob, alice's feed bytes before): both synced after bob repaired
    his damaged copy of alice's feed."""
    _remote, alice, bob = make_team(tmp_path)
    for i in range(4):
        checkpoint(capsys, alice, f"a{i}")
    assert run(capsys, alice, "sync")[0] == 0
    assert run(capsys, bob, "sync")[0] == 0
    run_json(capsys, bob, "verify")  # bob's index has folded alice's feed to its head
    copy = bob / ".baton" / "ledger" / f"{writer_of(alice)}.jsonl"
    lines = copy.read_bytes().splitlines(keepends=True)
    copy.write_bytes(lines[0] + b"garbage\n" + b"".join(lines[2:]))
    code, out, err = run(capsys, bob, "repair", "--yes")
    assert code == 0, out + err
    own = alice / ".baton" / "ledger" / f"{writer_of(alice)}.jsonl"
    before = own.read_bytes()
    assert run(capsys, bob, "sync")[0] == 0
    assert run(capsys, alice, "sync")[0] == 0
    return alice, bob, before


def _feed(project: Path, writer: str) -> bytes:
    return (project / ".baton" / "ledger" / f"{writer}.jsonl").read_bytes()


def test_a_teammates_repair_of_their_copy_of_my_feed_never_changes_my_feed(repaired_by_teammate):
    alice, _bob, before = repaired_by_teammate
    assert _feed(alice, writer_of(alice)) == before


def test_verify_passes_on_my_clone_after_a_teammate_repaired_their_copy_of_my_feed(capsys, repaired_by_teammate):
    alice, _bob, _before = repaired_by_teammate
    code, out, err = run(capsys, alice, "verify")
    assert code == 0, out + err


def test_verify_passes_on_the_teammates_clone_after_it_synced_the_repair(capsys, repaired_by_teammate):
    _alice, bob, _before = repaired_by_teammate
    assert run(capsys, bob, "sync")[0] == 0
    code, out, err = run(capsys, bob, "verify")
    assert code == 0, out + err


def test_the_teammates_next_sync_takes_back_my_sound_copy_of_my_feed(capsys, repaired_by_teammate):
    alice, bob, before = repaired_by_teammate
    assert run(capsys, bob, "sync")[0] == 0
    assert _feed(bob, writer_of(alice)) == before


def test_a_rebuild_gives_the_index_heads_the_incremental_path_gave(capsys, repaired_by_teammate):
    alice, bob, _before = repaired_by_teammate
    for project in (alice, bob):
        index = project / ".baton" / "index.sqlite"
        incremental = index_heads(index)
        assert run(capsys, project, "rebuild")[0] == 0
        assert index_heads(index) == incremental
