"""Text output counts one thing in the singular and several in the plural,
never "(s)": a new project's ledger holds one event in one feed, and
``verify``, ``rebuild`` and ``doctor`` said "1 events" and "1 feed(s)"
(``baton.domain.wording.counted``)."""

from __future__ import annotations

from baton.domain.wording import counted
from tests.conftest import run_baton


def test_verify_rebuild_and_doctor_count_a_new_projects_one_event_in_one_feed_in_the_singular(project):
    verify = run_baton("verify", "--project", str(project))
    rebuild = run_baton("rebuild", "--project", str(project))
    doctor = run_baton("doctor", "--project", str(project))
    assert verify.returncode == 0 and "ledger verified: 1 event in 1 feed" in verify.stdout
    assert ": 1 event, last seq 1" in verify.stdout
    assert rebuild.returncode == 0 and rebuild.stdout.startswith("Replayed 1 event:")
    assert "1 event in 1 feed, every chain verified" in doctor.stdout
    shown = verify.stdout + rebuild.stdout + doctor.stdout
    assert "1 events" not in shown and "1 feeds" not in shown and "(s)" not in shown


def test_a_count_takes_the_singular_for_one_and_the_plural_otherwise():
    assert [counted(n, "feed") for n in (0, 1, 2)] == ["0 feeds", "1 feed", "2 feeds"]
    assert counted(1, "match", "matches") == "1 match" and counted(3, "match", "matches") == "3 matches"
