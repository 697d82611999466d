"""Every event a command writes records who ran it: this clone's git identity as its `actor`
(docs/ledger.md, "Format"; docs/batons.md, "Dismissing a baton"; tester-team24 T2). The
command names no actor of its own: the write scope fills it in (``WriteScope.append``), so no
command can leave it out. Events an older Baton wrote without one still fold."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from baton.events.names import (
    BATON_CANCELLED,
    BATON_CLAIMED,
    BATON_CREATED,
    BATON_DISMISSED,
    DETECTOR_DISABLED,
    DETECTOR_ENABLED,
    DETECTOR_RECOMMENDED,
    DETECTOR_SNOOZED,
    HANDOFF_ARCHIVED,
    HANDOFF_CAPTURED,
    HANDOFF_FORGOTTEN,
    HANDOFF_PROMOTED,
    HANDOFF_RESUMED,
    HANDOFF_REVISED,
    HANDOFF_SUPERSEDED,
    HANDOFF_VALIDATED,
    OBJECTIVE_CLEARED,
    OBJECTIVE_SET,
    PROJECT_INITIALIZED,
    SESSION_BEGUN,
    SESSION_ENDED,
)
from baton.ledger import Ledger
from tests.cli_support import run, run_json

EMAIL = "ann@example.com"


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


@pytest.fixture
def worked(capsys, tmp_path) -> Path:
    """A git repository with `user.email` set, where a person ran the everyday commands."""
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    _git(root, "config", "user.email", EMAIL)
    _git(root, "config", "user.name", "Ann")
    (root / "f").write_text("x\n")
    _git(root, "add", "f")
    _git(root, "commit", "-qm", "one")
    run_json(capsys, root, "init")
    made = run_json(capsys, root, "checkpoint", "create", "--no-input", "--title", "t", "--objective", "o")
    handoff = made["id"]
    run_json(capsys, root, "handoff", "amend", handoff, "--title", "t2", "--work-state", "completed")
    run_json(capsys, root, "handoff", "validate", handoff)
    run_json(capsys, root, "handoff", "ready", handoff)
    run_json(capsys, root, "resume", handoff, "--mark-resumed", "--session", "r1")
    child = run_json(capsys, root, "handoff", "amend", handoff, "--title", "t3")["id"]
    run_json(capsys, root, "handoff", "validate", child)
    run_json(capsys, root, "handoff", "ready", child)  # supersedes its parent
    run_json(capsys, root, "session", "begin", "--session-id", "s1", "--objective", "ship it")
    run_json(capsys, root, "session", "end", "s1", "--handoff-steps", "one")
    run_json(capsys, root, "session", "begin", "--session-id", "s2")  # claims it
    run_json(capsys, root, "session", "end", "s2", "--handoff-steps", "two")
    run_json(capsys, root, "session", "handoff", "--cancel")
    left = run_json(capsys, root, "session", "end", "s3", "--handoff-steps", "three")
    run_json(capsys, root, "session", "handoff", "--dismiss", left["handoff"]["id"])
    signals = root.parent / "signals.json"
    signals.write_text(json.dumps({"context_pressure": 0.97, "work_boundary": 1, "handoff_request": 1}))
    run_json(capsys, root, "detect", "--session-id", "s4", "--event", str(signals))  # recommends
    for switch in ("--snooze", "--disable-for-session", "--enable"):
        run_json(capsys, root, "detect", "--session-id", "s4", switch)
    other = run_json(capsys, root, "checkpoint", "create", "--no-input", "--title", "u", "--objective", "o")
    run_json(capsys, root, "handoff", "archive", other["id"], "--reason", "done")
    run_json(capsys, root, "forget", other["id"], "--yes")
    return root


def _events(root: Path) -> list:
    return Ledger(root / ".baton", "inspector").read_all()


def test_every_event_the_commands_wrote_records_the_git_identity_as_its_actor(worked):
    written = [e for e in _events(worked) if not e.type.startswith("ledger.")]  # the ledger's own housekeeping
    assert [(e.type, e.actor) for e in written] == [(e.type, EMAIL) for e in written]


def test_the_commands_wrote_every_kind_of_event_a_person_starts(worked):
    written = {e.type for e in _events(worked)}
    assert written >= {PROJECT_INITIALIZED, HANDOFF_CAPTURED, HANDOFF_REVISED, HANDOFF_VALIDATED, HANDOFF_PROMOTED,
                       HANDOFF_RESUMED, HANDOFF_SUPERSEDED, HANDOFF_ARCHIVED, HANDOFF_FORGOTTEN, BATON_CREATED,
                       BATON_CLAIMED, BATON_CANCELLED, BATON_DISMISSED, SESSION_BEGUN, SESSION_ENDED, OBJECTIVE_SET,
                       OBJECTIVE_CLEARED, DETECTOR_RECOMMENDED, DETECTOR_SNOOZED, DETECTOR_DISABLED, DETECTOR_ENABLED}


def test_baton_log_shows_who_resumed_a_handoff(capsys, worked):
    code, out, _err = run(capsys, worked, "log", "--type", HANDOFF_RESUMED, "--json")
    assert code == 0
    assert [json.loads(line)["actor"] for line in out.splitlines() if line.strip()] == [EMAIL]
