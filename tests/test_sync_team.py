"""A team's clones syncing one baton stream written apart (docs/sync.md, "Concurrent stream versions").

Replicas apart each write a stream's next version; after a sync, an event
imported from another clone can sort after a higher version this clone wrote.
The next append must still continue this clone's own versions (the highest
version of the stream, not the last folded event's), or ``verify`` reports a
``stream_fork`` on every clone once it travels.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_support import run, run_json
from tests.sync_support import make_team


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _leave(capsys, project: Path, session: str) -> None:
    run_json(capsys, project, "session", "end", session, "--handoff-steps", f"step of {session}", "--owner",
             "team@example.com", "--branch", "main", "--shared")


def _shared_versions(capsys, project: Path) -> list[tuple[str, int]]:
    out = run(capsys, project, "log", "--stream", "baton/_shared", "--json")[1]
    return [(e["writer"], e["stream_version"]) for e in map(json.loads, out.splitlines())]


def _apart_then_synced(capsys, team) -> tuple[Path, Path]:
    """a writes the shared baton stream's versions 1 and 2; b, apart, writes its
    version 1 later (so it sorts after a's 2); b syncs, then a imports it."""
    _remote, a, b = team
    _leave(capsys, a, "a-1")
    _leave(capsys, a, "a-2")
    _leave(capsys, b, "b-1")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    assert [v for _w, v in _shared_versions(capsys, a)] == [1, 2, 1]  # b's version 1 sorts last
    return a, b


def test_a_baton_left_after_importing_a_lower_version_written_apart_continues_the_streams_highest(capsys, team):
    a, b = _apart_then_synced(capsys, team)
    _leave(capsys, a, "a-3")
    assert _shared_versions(capsys, a)[-1][1] == 3
    for project in (a, b, a, b):
        run_json(capsys, project, "sync")
    for project in (a, b):
        code, out, _ = run(capsys, project, "verify", "--json")
        assert code == 0 and json.loads(out)["problems"] == [], out


def test_a_claim_after_importing_a_lower_version_written_apart_succeeds_and_verifies(capsys, team):
    a, b = _apart_then_synced(capsys, team)
    begun = run_json(capsys, a, "session", "begin", "--session-id", "a-claims", "--owner", "team@example.com",
                     "--branch", "main")
    assert begun["handoff"]["nextSteps"] == ["step of b-1"]  # the pending baton: b's, the last in order
    assert _shared_versions(capsys, a)[-1][1] == 3
    for project in (a, b, a):
        run_json(capsys, project, "sync")
    for project in (a, b):
        assert run(capsys, project, "verify")[0] == 0
        assert run_json(capsys, project, "session", "handoff", "--all")["items"] == []
