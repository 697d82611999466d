"""A torn tail in this clone's copy of a feed the remote holds whole
(docs/sync.md, "A torn copy of a feed"): the local copy of another writer's
feed is not authoritative, so a cut line or a cut batch is set aside and the
remote's verified copy re-imported; a refusal caused by local damage never
drops the remote's good copy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_support import run, run_json
from tests.sync_support import checkpoint, make_team, remote_feeds, writer_of


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _feed(project: Path, writer: str) -> Path:
    return project / ".baton" / "ledger" / f"{writer}.jsonl"


def _tear(path: Path, cut: int) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:-cut])


def _bob_ends_with_a_batch(capsys, a: Path, b: Path) -> bytes:
    """Bob writes three captures and a `session end` (one batch of several events), syncs; alice syncs.
    Bob's feed as he wrote it."""
    for i in range(3):
        checkpoint(capsys, b, f"bob {i}")
    run_json(capsys, b, "session", "end", "s1", "--handoff-steps", "bob step")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    whole = _feed(b, writer_of(b)).read_bytes()
    assert _feed(a, writer_of(b)).read_bytes() == whole
    last = json.loads(whole.splitlines()[-1])
    assert last["batch"]["of"] > 1, last  # the feed ends in a batch of several events
    return whole


def test_a_teammates_feed_torn_inside_a_batch_is_reimported_from_the_remote(capsys, team):
    remote, a, b = team
    whole = _bob_ends_with_a_batch(capsys, a, b)
    _tear(_feed(a, writer_of(b)), 50)  # the batch's second line cut short: its first is whole
    code, out, err = run(capsys, a, "sync", "--json")
    result = json.loads(out)
    assert code == 0, out + err
    assert result["refused"] == [] and result["dropped"] == []
    batch = json.loads(whole.splitlines()[-1])["batch"]["of"]
    assert result["imported"] == {writer_of(b): batch}  # the whole batch, from the remote
    assert _feed(a, writer_of(b)).read_bytes() == whole
    assert remote_feeds(remote)[writer_of(b)].head.seq == whole.count(b"\n")
    assert run(capsys, a, "verify")[0] == 0


def test_a_teammates_feed_cut_after_the_first_line_of_a_batch_is_reimported(capsys, team):
    remote, a, b = team
    whole = _bob_ends_with_a_batch(capsys, a, b)
    last = whole.splitlines(keepends=True)[-1]
    _tear(_feed(a, writer_of(b)), len(last))  # a whole line of the batch, its last one missing
    code, out, err = run(capsys, a, "sync", "--json")
    assert code == 0, out + err
    assert json.loads(out)["dropped"] == []
    assert _feed(a, writer_of(b)).read_bytes() == whole
    assert writer_of(b) in remote_feeds(remote)


def test_a_repaired_torn_copy_of_a_teammates_feed_is_not_published_over_the_remotes_longer_one(capsys, team):
    remote, a, b = team
    whole = _bob_ends_with_a_batch(capsys, a, b)
    _tear(_feed(a, writer_of(b)), 50)
    assert run(capsys, a, "repair", "--yes")[0] == 0  # alice's copy cut back to its last whole batch
    code, out, err = run(capsys, a, "sync", "--json")
    assert code == 0, out + err
    assert remote_feeds(remote)[writer_of(b)].head.seq == whole.count(b"\n")
    assert _feed(a, writer_of(b)).read_bytes() == whole


def test_an_import_cut_short_inside_a_batch_is_finished_from_the_remote(capsys, team):
    remote, a, b = team
    for i in range(3):
        checkpoint(capsys, b, f"bob {i}")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")  # alice's ref holds bob's feed to seq 4
    run_json(capsys, b, "session", "end", "s1", "--handoff-steps", "bob step")
    run_json(capsys, b, "sync")
    whole = _feed(b, writer_of(b)).read_bytes()
    copy = _feed(a, writer_of(b))
    batch = whole[len(copy.read_bytes()):]
    first = batch.index(b"\n") + 1
    with copy.open("ab") as f:  # alice's import of the batch killed after its first line
        f.write(batch[:first] + batch[first:first + 40])
    code, out, err = run(capsys, a, "sync", "--json")
    assert code == 0, out + err
    assert json.loads(out)["dropped"] == []
    assert copy.read_bytes() == whole
    assert remote_feeds(remote)[writer_of(b)].head.seq == whole.count(b"\n")


def test_this_clones_own_feed_torn_inside_a_batch_is_restored_with_restore_own_feed(capsys, team):
    remote, a, _b = team
    checkpoint(capsys, a, "alice 1")
    run_json(capsys, a, "session", "end", "s1", "--handoff-steps", "my step")
    run_json(capsys, a, "sync")
    own = _feed(a, writer_of(a))
    whole = own.read_bytes()
    _tear(own, 50)
    code, out, err = run(capsys, a, "sync", "--restore-own-feed", "--json")
    assert code == 0, out + err
    assert own.read_bytes() == whole
    assert remote_feeds(remote)[writer_of(a)].head.seq == whole.count(b"\n")
