"""``baton handoff ready`` hashes what a hook's capture left not hashed yet (and every artifact, to see what
moved since validation) before it takes the ledger lock, as validation does: a long hash never holds up
another command, nor a harness's hook (which waits at most 40% of its cap for the lock, then hands on).
Under the lock it promotes only if nothing it relied on moved meanwhile: a record revised meanwhile is
read again (and refused as it now stands), and a file changed since it was hashed is hashed again, so the
promotion records its new hash, never a stale one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from baton.commands import ready as ready_module
from baton.commands.context import Project
from tests.cli_support import run_json
from tests.test_capture_hash_budget import _artifacts, _budgeted_draft, _full_hashes, _validated_without_hashing

_TRY_THE_LOCK = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
except BlockingIOError:
    sys.exit(1)
sys.exit(0)
"""


def _lock_free_in_another_process(project: Path) -> bool:
    """Whether another process (as a hook's would) takes the project's ledger lock without waiting."""
    opened = Project.open(project)
    try:
        lock = str(opened.ledger.lock_path)
    finally:
        opened.close()
    return subprocess.run([sys.executable, "-c", _TRY_THE_LOCK, lock], timeout=60).returncode == 0


def _while_ready_hashes(monkeypatch, during) -> list[int]:
    """Call ``during(attempt)`` inside ``handoff ready``'s hashing of what is left not hashed yet, once per
    attempt, after the hashes are computed (as a slow hasher would be at its end); the attempts seen."""
    real = ready_module.hash_not_hashed_yet
    attempts: list[int] = []

    def slow(*args, **kwargs):
        found = real(*args, **kwargs)
        attempts.append(len(attempts))
        during(attempts[-1])
        return found

    monkeypatch.setattr(ready_module, "hash_not_hashed_yet", slow)
    return attempts


def _baton(project: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "baton", *args, "--project", str(project)], capture_output=True,
                          text=True, timeout=120)


def test_ready_hashes_while_another_process_can_take_the_ledger_lock(capsys, repo, monkeypatch):
    handoff_id = _budgeted_draft(repo)
    _validated_without_hashing(repo, handoff_id, monkeypatch)
    free: list[bool] = []
    _while_ready_hashes(monkeypatch, lambda _attempt: free.append(_lock_free_in_another_process(repo)))
    assert run_json(capsys, repo, "handoff", "ready", handoff_id, "--accept-warnings", "older validation")
    assert free == [True]


def test_ready_of_a_record_amended_while_it_hashed_is_refused_as_the_record_now_stands(capsys, repo, monkeypatch):
    handoff_id = _budgeted_draft(repo)
    _validated_without_hashing(repo, handoff_id, monkeypatch)

    def amend_in_another_process(attempt: int) -> None:
        if attempt == 0:
            amended = _baton(repo, "handoff", "amend", handoff_id, "--current-state", "amended meanwhile")
            assert amended.returncode == 0, amended.stderr

    _while_ready_hashes(monkeypatch, amend_in_another_process)
    refused = run_json(capsys, repo, "handoff", "ready", handoff_id, "--accept-warnings", "older validation",
                       expect=4)
    assert refused["error"]["code"] == "invalid_transition"
    assert run_json(capsys, repo, "handoff", "show", handoff_id)["handoff"]["status"] == "draft"


def test_a_file_changed_after_ready_hashed_it_is_recorded_by_its_new_hash(capsys, repo, monkeypatch):
    handoff_id = _budgeted_draft(repo)
    _validated_without_hashing(repo, handoff_id, monkeypatch)

    def change_a_file(attempt: int) -> None:
        if attempt == 0:
            (repo / "data2" / "part0.bin").write_bytes(b"changed after it was hashed")

    attempts = _while_ready_hashes(monkeypatch, change_a_file)
    assert run_json(capsys, repo, "handoff", "ready", handoff_id, "--accept-warnings", "older validation")
    assert attempts == [0, 1]  # hashed again
    (data2,) = [a for a in _artifacts(capsys, repo, handoff_id) if a["path"] == "data2"]
    assert data2["content_hash"] == _full_hashes(repo, ["data2"])[0]


def test_ready_gives_up_with_a_conflict_when_the_files_keep_changing_while_it_hashes(capsys, repo, monkeypatch):
    handoff_id = _budgeted_draft(repo)
    _validated_without_hashing(repo, handoff_id, monkeypatch)

    def change_a_file(attempt: int) -> None:
        (repo / "data2" / "part0.bin").write_bytes(f"changed again ({attempt})".encode())

    _while_ready_hashes(monkeypatch, change_a_file)
    refused = run_json(capsys, repo, "handoff", "ready", handoff_id, "--accept-warnings", "older validation",
                       expect=4)
    assert "kept changing" in refused["error"]["message"]
    assert run_json(capsys, repo, "handoff", "show", handoff_id)["handoff"]["status"] == "validated"
