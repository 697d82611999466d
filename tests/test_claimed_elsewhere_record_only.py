"""The "already claimed by session …" notice names a command that works from where it is given
(docs/batons.md, "Where a notice sends you"): `baton resume ID` while the handoff can be resumed,
`baton handoff show ID` once it was archived or superseded since — `baton resume` refuses both
(tester-use23 T2, T4)."""

from __future__ import annotations

from baton.domain.claimed_elsewhere import ClaimedElsewhere, as_recorded
from tests.cli_support import run, run_json

FACT = ClaimedElsewhere("h1", "me@example.com", "main", "s5", "2026-12-07T07:39:13Z", "s4",
                        "2026-12-07T07:39:00Z")


def test_a_resumable_handoff_is_read_with_resume():
    assert as_recorded(FACT, "draft").read_command == "baton resume h1"


def test_an_archived_or_superseded_handoff_is_read_with_handoff_show():
    assert as_recorded(FACT, "archived").read_command == "baton handoff show h1"
    assert as_recorded(FACT, "superseded").read_command == "baton handoff show h1"


def _claimed_baton(capsys, repo) -> str:
    """The handoff id of a baton session s4 left and session s5 claimed."""
    run_json(capsys, repo, "session", "begin", "s4")
    run_json(capsys, repo, "session", "end", "s4", "--handoff-steps", "step C")
    return run_json(capsys, repo, "session", "begin", "s5")["receivedBaton"]


def _claimed_notice(capsys, repo) -> str:
    code, out, err = run(capsys, repo, "session", "begin", "s6")
    assert code == 0, err
    return next(line for line in out.splitlines() if "was already claimed by session s5" in line)


def test_the_claimed_notice_names_resume_for_a_handoff_that_can_be_resumed(capsys, repo):
    _claimed_baton(capsys, repo)
    assert "read it with `baton resume " in _claimed_notice(capsys, repo)


def test_the_claimed_notice_names_handoff_show_once_the_handoff_is_archived(capsys, repo):
    baton_id = _claimed_baton(capsys, repo)
    run_json(capsys, repo, "handoff", "archive", baton_id, "--reason", "done")
    notice = _claimed_notice(capsys, repo)
    assert "read it with `baton handoff show " in notice and "baton resume" not in notice
