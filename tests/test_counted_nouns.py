"""Text output counts one thing in the singular: a new project's ledger holds
one event, and ``verify``, ``rebuild`` and ``doctor`` said "1 events"."""

from __future__ import annotations

from tests.conftest import run_baton


def test_verify_rebuild_and_doctor_count_a_new_projects_one_event_in_the_singular(project):
    verify = run_baton("verify", "--project", str(project))
    rebuild = run_baton("rebuild", "--project", str(project))
    doctor = run_baton("doctor", "--project", str(project))
    assert verify.returncode == 0 and "ledger verified: 1 event in 1 feed(s)" in verify.stdout
    assert ": 1 event, last seq 1" in verify.stdout
    assert rebuild.returncode == 0 and rebuild.stdout.startswith("Replayed 1 event:")
    assert "1 event in 1 feed(s), every chain verified" in doctor.stdout
    assert "1 events" not in verify.stdout + rebuild.stdout + doctor.stdout
