"""The first ``baton sync`` after a ``baton forget`` reads each feed file once, and each copy
of a feed on the ledger refs once (docs/performance.md, "The first sync after a forget"):
at 100,000 events it read the forgotten feed's file three times and its ref copy three
times more (the local ref's copy and the remote's, the same folder, each read whole, then
all again to find the ids a ``handoff.forgotten`` names)."""

from __future__ import annotations

from pathlib import Path

import pytest
from dulwich.repo import Repo

from baton.sync.ledger_ref import feed_bytes
from tests.cli_support import run_json
from tests.sync_support import make_team, planned, remote_feeds
from tests.sync_support import writer_of as _writer

SECRET = "zzPLANTED-forget-reads-4d2a"


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _feed_files(project: Path) -> int:
    return sum(p.stat().st_size for p in (project / ".baton" / "ledger").glob("*.jsonl"))


def _segments(remote: Path) -> int:
    """How many segments the remote's copies of the feeds hold, in all."""
    with Repo(str(remote)) as repo:
        return sum(1 for f in remote_feeds(remote).values() for _ in feed_bytes(repo, f))


def _forgotten_on(capsys, forgetting: Path, a: Path, b: Path) -> None:
    """A handoff a wrote with SECRET (and more after it), synced to b, then forgotten on ``forgetting``."""
    handoff = planned(capsys, a, SECRET)
    for n in range(12):  # the forgotten feed far larger than a read of a line or two
        planned(capsys, a, f"a plan everyone keeps {n}: " + "step " * 1500)
    planned(capsys, b, "b's own plan")
    for project in (a, b, a):
        run_json(capsys, project, "sync")
    run_json(capsys, forgetting, "forget", handoff, "--yes")


def test_the_first_sync_after_forgetting_a_teammates_handoff_reads_each_feed_file_once(capsys, team):
    remote, a, b = team
    _forgotten_on(capsys, b, a, b)
    size = _feed_files(b)
    out = run_json(capsys, b, "sync")
    assert out["ref_erased"] == {_writer(a): 1}
    # once each, and a few lines more: the forgotten feed's first line (is it a copy of another
    # writer's?) and this clone's own feed's line where the ref's copy of it ends, then its new event
    assert out["read"]["feed_bytes"] <= size * 1.1


def test_the_first_sync_after_forgetting_a_teammates_handoff_reads_each_ref_copy_once(capsys, team):
    remote, a, b = team
    _forgotten_on(capsys, b, a, b)
    segments = _segments(remote)
    out = run_json(capsys, b, "sync")
    # each copy's segments once, and the forgotten feed's last one once more: the look at what the
    # remote holds beyond the (shorter) file, before the copies are found to differ by an erasure
    assert out["read"]["segments"] <= segments + 1


def test_the_first_sync_after_forgetting_ones_own_handoff_reads_each_feed_file_once(capsys, team):
    remote, a, b = team
    _forgotten_on(capsys, a, a, b)
    size = _feed_files(a)
    out = run_json(capsys, a, "sync")
    assert out["ref_erased"] == {_writer(a): 1}
    assert out["read"]["feed_bytes"] <= size
