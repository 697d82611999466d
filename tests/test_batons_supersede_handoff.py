"""Superseding a baton retires the baton, never the handoff it points at.

A ready handoff handed on with ``baton session handoff --from H`` stays ready
and resumable when a later ``baton session end … --handoff-steps`` leaves a
newer baton for the same owner and branch.
"""

from __future__ import annotations

import json

from tests.batons_support import ALICE
from tests.cli_support import run, run_json

ITEM = {"description": "Add the duplicate-callback fixture", "suggested_action": "Write it, run the auth suite",
        "acceptance_check": "A replayed callback is rejected", "priority": "high"}
HERE = ("--owner", ALICE, "--branch", "main")


def ready_handoff(capsys, project) -> str:
    captured = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "OAuth callback",
                        "--objective", "Reject replayed callbacks", "--current-state", "Helper written",
                        "--open-item", json.dumps(ITEM))
    handoff_id = captured["id"]
    assert run_json(capsys, project, "handoff", "validate", handoff_id)["report"]["status"] in ("pass", "warn")
    run_json(capsys, project, "handoff", "ready", handoff_id, "--accept-warnings", "test fixture")
    return handoff_id


def test_a_session_end_baton_supersedes_the_scoped_baton_but_the_ready_handoff_stays_ready(project, capsys):
    handoff_id = ready_handoff(capsys, project)
    scoped = run_json(capsys, project, "session", "handoff", "--from", handoff_id, *HERE)
    assert scoped["handoff"]["id"] == handoff_id

    ended = run_json(capsys, project, "session", "end", "s-1", "--handoff-steps", "Run the auth suite", *HERE)

    # The old baton is superseded in the baton index...
    assert ended["superseded"] == handoff_id
    created = [e for e in map(json.loads, run(capsys, project, "log", "--type", "baton.created", "--json")[1]
                              .splitlines())]
    assert created[-1]["data"]["supersedes"] == handoff_id
    code, _out, err = run(capsys, project, "session", "handoff", "--dismiss", handoff_id)
    assert code == 4 and "superseded" in err
    waiting = run_json(capsys, project, "session", "handoff", *HERE)
    assert waiting["handoff"]["id"] == ended["handoffId"] != handoff_id

    # ...and the handoff it pointed at is untouched: still ready, still resumable.
    assert run_json(capsys, project, "handoff", "show", handoff_id)["handoff"]["status"] == "ready"
    assert run_json(capsys, project, "handoff", "list", "--status", "superseded")["handoffs"] == []
    resumed = run_json(capsys, project, "resume", handoff_id, "--format", "json", "--mark-resumed")
    assert resumed["handoff"]["id"] == handoff_id
    assert run_json(capsys, project, "handoff", "show", handoff_id)["handoff"]["status"] == "resumed"


def test_a_newer_scoped_handoff_supersedes_only_the_older_baton(project, capsys):
    first = ready_handoff(capsys, project)
    second = ready_handoff(capsys, project)
    run_json(capsys, project, "session", "handoff", "--from", first, *HERE)
    replaced = run_json(capsys, project, "session", "handoff", "--from", second, *HERE)
    assert replaced["superseded"] == first
    assert run_json(capsys, project, "handoff", "show", first)["handoff"]["status"] == "ready"
    assert run_json(capsys, project, "session", "handoff", *HERE)["handoff"]["id"] == second
    # Still a live handoff: it can be handed on again.
    again = run_json(capsys, project, "session", "handoff", "--from", first, *HERE)
    assert again["handoff"]["id"] == first and again["superseded"] == second


def test_a_baton_whose_handoff_was_amended_since_points_the_next_session_at_the_successor(project, capsys):
    # Handed on, then amended and the amendment made ready: the baton still
    # carries the old version, and `baton resume OLD` is refused (superseded).
    # The delivered section says so and names the version to resume.
    handoff_id = ready_handoff(capsys, project)
    run_json(capsys, project, "session", "handoff", "--from", handoff_id, *HERE)
    child = run_json(capsys, project, "handoff", "amend", handoff_id, "--current-state", "Fixture written")["id"]
    run_json(capsys, project, "handoff", "validate", child)
    run_json(capsys, project, "handoff", "ready", child, "--accept-warnings", "test fixture")

    brief = run_json(capsys, project, "bootstrap", "--session-id", "s-next", *HERE)["brief"]
    assert f"`baton resume {child[-8:]}`" in brief and "Superseded since it was handed on" in brief
    assert f"`baton resume {handoff_id[-8:]}`" not in brief
