"""Issue 9, part 2: a read-only ``.baton/`` (a read-only mount, a checkout owned
by someone else). Reading commands answer from a replay in memory; writing
commands refuse with ``read_only`` (exit 1) and write nothing.

Tests run as root here, and root ignores ``chmod``: the in-process tests make
``os.access`` say what a read-only mount says (``W_OK`` refused under
``.baton/``) and check that no byte under ``.baton/`` changes; the ``chmod``
test runs only as an ordinary user.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_support import run, run_json


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def filled(capsys, project):
    run_json(capsys, project, "checkpoint", "create", "--title", "visible", "--objective", "read me")
    run_json(capsys, project, "session", "end", "s1", "--handoff-steps", "a", "--owner", "al", "--branch", "main")
    return project


@pytest.fixture
def access_refused_under_baton(monkeypatch, filled):
    """``os.access(path, W_OK)`` is False inside ``.baton/``, as on a read-only mount."""
    baton = str(filled / ".baton")
    real = os.access

    def access(path, mode, *args, **kwargs):
        if mode & os.W_OK and os.fspath(path).startswith(baton):
            return False
        return real(path, mode, *args, **kwargs)

    monkeypatch.setattr(os, "access", access)
    return filled


@pytest.mark.parametrize("command", [["handoff", "list"], ["status"], ["handoff", "show", "latest-draft"],
                                     ["verify"], ["audit"], ["metrics"], ["doctor"], ["log"]])
def test_reading_commands_answer_when_os_access_refuses_writes_under_baton(capsys, access_refused_under_baton,
                                                                            command):
    project = access_refused_under_baton
    if command[-1] == "latest-draft":
        command = ["handoff", "show", run_json(capsys, project, "handoff", "list")["handoffs"][0]["id"]]
    before = snapshot(project / ".baton")
    code, out, err = run(capsys, project, *command)
    assert code == 0, (command, out, err)
    assert snapshot(project / ".baton") == before


def test_a_read_only_handoff_list_shows_the_handoffs_from_a_replay_in_memory(capsys, access_refused_under_baton):
    project = access_refused_under_baton
    (project / ".baton" / "index.sqlite").unlink()  # nothing to read but the ledger
    for suffix in ("-wal", "-shm"):
        (project / ".baton" / f"index.sqlite{suffix}").unlink(missing_ok=True)
    titles = [h["title"] for h in run_json(capsys, project, "handoff", "list")["handoffs"]]
    assert "visible" in titles
    assert not (project / ".baton" / "index.sqlite").exists()


@pytest.mark.parametrize("command", [["checkpoint", "create", "--title", "t", "--objective", "o"],
                                     ["session", "end", "s2", "--handoff-steps", "b"], ["rebuild"], ["gc"],
                                     ["forget", "latest", "--yes"]])
def test_writing_commands_refuse_with_read_only_and_write_nothing(capsys, access_refused_under_baton, command):
    project = access_refused_under_baton
    before = snapshot(project / ".baton")
    error = run_json(capsys, project, *command, expect=1)["error"]
    assert error["code"] == "read_only"
    assert snapshot(project / ".baton") == before


def test_a_read_only_rebuild_says_it_writes_the_index_not_that_it_records_events(capsys, access_refused_under_baton):
    message = run_json(capsys, access_refused_under_baton, "rebuild", "--if-needed", expect=1)["error"]["message"]
    assert "rebuild writes the index and cannot run" in message and "records events" not in message


def test_bootstrap_on_a_read_only_project_still_briefs_says_why_and_claims_nothing(capsys,
                                                                                  access_refused_under_baton):
    project = access_refused_under_baton
    before = snapshot(project / ".baton")
    brief = run_json(capsys, project, "bootstrap", "--session", "s3", "--owner", "al", "--branch", "main")
    assert brief["claimed"] is False
    assert any("read-only" in notice for notice in brief["notices"])
    assert snapshot(project / ".baton") == before


def test_a_read_only_project_without_a_writer_id_still_opens_for_reading(capsys, access_refused_under_baton,
                                                                          monkeypatch):
    project = access_refused_under_baton
    (project / ".baton" / "local.json").unlink()
    monkeypatch.setattr("baton.commands.context.ensure_local", _refuse_to_write)
    assert run_json(capsys, project, "handoff", "list")["handoffs"]


def _refuse_to_write(paths):
    from baton.errors import StorageError

    raise StorageError(f"cannot write {paths.local}: read-only file system")


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores chmod; the os.access tests above cover this")
def test_after_chmod_a_minus_w_handoff_list_works_and_checkpoint_refuses(filled):
    baton = filled / ".baton"
    modes = {p: p.stat().st_mode for p in [baton, *baton.rglob("*")]}
    try:
        for p in modes:
            p.chmod(stat.S_IMODE(modes[p]) & ~0o222)
        listed = subprocess.run([sys.executable, "-m", "baton", "handoff", "list", "--project", str(filled)],
                                capture_output=True, text=True)
        assert listed.returncode == 0, listed.stderr
        refused = subprocess.run([sys.executable, "-m", "baton", "checkpoint", "create", "--title", "t",
                                  "--objective", "o", "--json", "--project", str(filled)], capture_output=True,
                                 text=True)
        assert refused.returncode == 1 and '"read_only"' in refused.stdout
    finally:
        for p, mode in modes.items():
            p.chmod(stat.S_IMODE(mode))


def test_doctor_says_the_project_is_read_only(capsys, access_refused_under_baton):
    checks = {c["name"]: c for c in run_json(capsys, access_refused_under_baton, "doctor")["checks"]}
    assert checks["writable"]["status"] == "warn"


def test_doctor_on_a_read_only_project_says_the_index_is_a_replay_in_memory(capsys, access_refused_under_baton):
    (access_refused_under_baton / ".baton" / "index.sqlite").unlink()
    checks = {c["name"]: c for c in run_json(capsys, access_refused_under_baton, "doctor")["checks"]}
    assert checks["index"]["detail"].startswith("replayed in memory")
    assert "up to date" not in checks["index"]["detail"]
