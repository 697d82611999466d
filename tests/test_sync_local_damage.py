"""An already-synced line of this clone's own feed edited by hand (`baton
verify`: `bad_digest`) never reaches the remote: a sync reads a feed that
grew from just before its synced head, so it publishes the new lines on top
of the copy the ledger ref already holds — the bytes as first published —
and another clone imports and verifies that copy (docs/sync.md, "Refused
feeds" and "Guarantees"). The edited line is `baton verify`'s to
find, not sync's."""

from __future__ import annotations

import pytest

from tests.cli_support import run, run_json
from tests.sync_support import checkpoint, make_team, writer_of


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _edit_first_objective(project, writer: str) -> None:
    feed = project / ".baton" / "ledger" / f"{writer}.jsonl"
    raw = feed.read_bytes()
    assert b'"objective":"alpha"' in raw
    feed.write_bytes(raw.replace(b'"objective":"alpha"', b'"objective":"ALPHA"', 1))


def test_a_hand_edit_of_a_synced_line_is_not_published_and_the_remote_copy_verifies(capsys, team):
    _remote, a, b = team
    writer = writer_of(a)
    run_json(capsys, a, "checkpoint", "create", "--title", "t", "--objective", "alpha", "--no-input")
    run_json(capsys, a, "sync")
    _edit_first_objective(a, writer)
    assert run(capsys, a, "verify")[0] == 3
    checkpoint(capsys, a, "after the edit")
    assert run_json(capsys, a, "sync")["published"] == {writer: 1}
    run_json(capsys, b, "sync")
    imported = (b / ".baton" / "ledger" / f"{writer}.jsonl").read_bytes()
    assert b'"objective":"alpha"' in imported and b"ALPHA" not in imported
    assert run(capsys, b, "verify")[0] == 0
