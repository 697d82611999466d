"""Archiving a handoff retires the pending batons that carry it.

`baton session handoff --from` refuses an archived handoff ("only a live
handoff can be handed on"); a baton already waiting when the handoff is
archived afterwards must not be delivered either: the next session would be
told to `baton resume` a handoff that can no longer be resumed (exit 4).
"""

from __future__ import annotations

from tests.cli_support import run, run_json
from tests.test_batons_supersede_handoff import HERE, ready_handoff


def test_archiving_a_handed_on_handoff_dismisses_its_pending_baton(project, capsys):
    handoff_id = ready_handoff(capsys, project)
    run_json(capsys, project, "session", "handoff", "--from", handoff_id, *HERE)

    archived = run_json(capsys, project, "handoff", "archive", handoff_id, "--reason", "dropped")
    assert [b["key"] for b in archived["dismissed_batons"]] == ["alice%40example.com__main"]

    assert run_json(capsys, project, "session", "handoff", *HERE)["handoff"] is None
    assert run_json(capsys, project, "session", "handoff", "--all")["items"] == []
    brief = run_json(capsys, project, "bootstrap", "--session-id", "s-next", *HERE)
    assert brief["handoff"] is None and brief["claimed"] is False
    dismissed = run(capsys, project, "log", "--type", "baton.dismissed", "--json")[1]
    assert '"via":"archive"' in dismissed


def test_archiving_a_handoff_leaves_claimed_and_other_batons_alone(project, capsys):
    claimed = ready_handoff(capsys, project)
    run_json(capsys, project, "session", "handoff", "--from", claimed, *HERE)
    run_json(capsys, project, "bootstrap", "--session-id", "s-1", *HERE)
    shared = ready_handoff(capsys, project)
    run_json(capsys, project, "session", "handoff", "--from", shared, "--shared")

    archived = run_json(capsys, project, "handoff", "archive", claimed)
    assert archived["dismissed_batons"] == []
    code, out, _err = run(capsys, project, "handoff", "archive", ready_handoff(capsys, project))
    assert code == 0 and "dismissed" not in out
    assert [b["id"] for b in run_json(capsys, project, "session", "handoff", "--all")["items"]] == [shared]
