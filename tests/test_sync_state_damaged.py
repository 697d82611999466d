"""A damaged ``.baton/sync-state.json`` (local bookkeeping of ``baton sync``: which
feeds it last synced, what each remote held) stops nothing: ``baton status`` says
sharing is unknown, why and what mends it, ``baton sync`` rebuilds the file, and
``baton doctor`` flags it (tester-use18 T10: status and sync exited 2
``input_error`` with no hint, and doctor said all was ok)."""

from __future__ import annotations

import json

import pytest

from baton.config import LOCAL_JSON_LIMIT
from tests.cli_support import run, run_json
from tests.conftest import run_baton
from tests.sync_support import checkpoint, make_team


@pytest.fixture
def synced(capsys, tmp_path):
    """A clone that synced once, its sync-state.json then damaged."""
    _remote, a, _b = make_team(tmp_path)
    checkpoint(capsys, a, "work")
    run_json(capsys, a, "sync")
    (a / ".baton" / "sync-state.json").write_text("{x")
    return a


def test_status_with_a_damaged_sync_state_says_sharing_is_unknown_and_how_to_mend_it(synced):
    done = run_baton("status", "--project", str(synced))
    assert done.returncode == 0, done.stderr
    assert "Shared: unknown: " in done.stdout and "sync-state.json is not valid JSON" in done.stdout
    assert "the next `baton sync` rebuilds it" in done.stdout


def test_status_json_with_a_damaged_sync_state_names_the_problem_and_claims_no_sharing(capsys, synced):
    status = run_json(capsys, synced, "status")
    assert "sync" not in status
    assert "sync-state.json is not valid JSON" in status["syncStateDamaged"]


def test_sync_rebuilds_a_damaged_sync_state(capsys, synced):
    run_json(capsys, synced, "sync")
    assert isinstance(json.loads((synced / ".baton" / "sync-state.json").read_text()), dict)
    status = run_json(capsys, synced, "status")
    assert status["sync"]["unshared"] == 0 and "syncStateDamaged" not in status


def test_doctor_flags_a_damaged_sync_state(capsys, synced):
    code, out, _err = run(capsys, synced, "doctor")
    assert "warn  sync state: " in out and "sync-state.json is not valid JSON" in out
    assert "the next `baton sync` rebuilds it" in out


def test_doctor_flags_a_sync_state_that_is_not_an_object(capsys, synced):
    (synced / ".baton" / "sync-state.json").write_text("[1]")
    _code, out, _err = run(capsys, synced, "doctor")
    assert "sync-state.json is not a JSON object" in out


def test_a_sync_state_that_is_a_symlink_out_of_the_project_is_not_read(capsys, synced, tmp_path):
    state = synced / ".baton" / "sync-state.json"
    outside = tmp_path / "elsewhere.json"
    outside.write_text('{"remotes": {}}')
    state.unlink()
    state.symlink_to(outside)
    status = run_json(capsys, synced, "status")
    assert "sync-state.json is a symbolic link" in status["syncStateDamaged"] and "sync" not in status
    run_json(capsys, synced, "sync")
    assert not state.is_symlink() and outside.read_text() == '{"remotes": {}}'


def test_a_huge_sync_state_is_not_read(capsys, synced):
    with open(synced / ".baton" / "sync-state.json", "r+b") as fh:  # sparse: no disk spent on it
        fh.truncate(LOCAL_JSON_LIMIT + 1)
    status = run_json(capsys, synced, "status")
    assert f"over the {LOCAL_JSON_LIMIT} it can hold" in status["syncStateDamaged"]
    run_json(capsys, synced, "sync")
    assert "syncStateDamaged" not in run_json(capsys, synced, "status")
