"""Resuming a handoff settles the pending baton that carries it (tester use16 U9).

A baton is claimed exactly once. When the handoff a pending baton carries is
resumed another way — ``baton resume --mark-resumed`` in another terminal, the
MCP ``handoff_resume`` tool with ``mark_resumed``, the claim of another baton
carrying the same handoff — the baton is dismissed (``via: "resumed"``) in the
resume's batch, and the owner's next session is told once, in one line, who
took it up, instead of receiving it as fresh work.
"""

from __future__ import annotations

import time

import pytest
from mcp import Client

from baton.commands.context import Project
from baton.ledger.envelope import EventDraft
from baton.mcp_server import build_server
from tests.batons_support import ALICE, append_raw, events
from tests.cli_support import run, run_json
from tests.test_batons_supersede_handoff import HERE, ready_handoff


def _hand_on_then_resume(capsys, project) -> str:
    handoff_id = ready_handoff(capsys, project)
    run_json(capsys, project, "session", "handoff", "--from", handoff_id, *HERE)
    run_json(capsys, project, "resume", handoff_id, "--mark-resumed", "--session", "manual1")
    return handoff_id


def test_resume_mark_resumed_dismisses_the_pending_baton_carrying_the_handoff(project, capsys):
    handoff_id = _hand_on_then_resume(capsys, project)

    assert run_json(capsys, project, "session", "handoff", "--all")["items"] == []
    (dismissed,) = events(project, "baton.dismissed")
    assert dismissed.data["handoff_id"] == handoff_id and dismissed.data["via"] == "resumed"
    assert dismissed.session == "manual1"


def test_the_next_session_does_not_receive_a_handoff_resumed_by_hand(project, capsys):
    _hand_on_then_resume(capsys, project)

    brief = run_json(capsys, project, "bootstrap", "--session-id", "s-next", *HERE)
    assert brief["handoff"] is None and brief["claimed"] is False
    assert len(events(project, "handoff.resumed")) == 1  # no second resume by a claim


def test_the_owners_next_session_is_told_once_who_took_the_handoff_up(project, capsys):
    handoff_id = _hand_on_then_resume(capsys, project)

    peeked = run(capsys, project, "bootstrap", "--peek", *HERE)[1]
    first = run(capsys, project, "bootstrap", "--session-id", "s-next", *HERE)[1]
    second = run(capsys, project, "bootstrap", "--session-id", "s-after", *HERE)[1]

    told = [line for line in first.splitlines() if "Taken up elsewhere" in line]
    assert len(told) == 1 and handoff_id in told[0] and "session manual1" in told[0] and ALICE in told[0]
    assert "Taken up elsewhere" in peeked  # a peek shows it without using it up
    assert "Taken up elsewhere" not in second


def test_another_owners_next_session_is_not_told_of_a_private_baton_taken_up(project, capsys):
    _hand_on_then_resume(capsys, project)

    brief = run(capsys, project, "bootstrap", "--session-id", "s-bob", "--owner", "bob@example.com",
                "--branch", "main")[1]
    assert "Taken up elsewhere" not in brief


def test_a_handoff_resumed_and_then_handed_on_again_is_delivered(project, capsys):
    handoff_id = ready_handoff(capsys, project)
    run_json(capsys, project, "resume", handoff_id, "--mark-resumed", "--session", "manual1")
    run_json(capsys, project, "session", "handoff", "--from", handoff_id, *HERE)

    brief = run_json(capsys, project, "bootstrap", "--session-id", "s-next", *HERE)
    assert brief["claimed"] is True and brief["handoff"]["id"] == handoff_id


def test_resume_without_mark_resumed_leaves_the_baton_pending(project, capsys):
    handoff_id = ready_handoff(capsys, project)
    run_json(capsys, project, "session", "handoff", "--from", handoff_id, *HERE)
    run_json(capsys, project, "resume", handoff_id)

    assert [b["id"] for b in run_json(capsys, project, "session", "handoff", "--all")["items"]] == [handoff_id]


def test_claiming_one_baton_settles_another_pending_baton_carrying_the_same_handoff(project, capsys):
    handoff_id = ready_handoff(capsys, project)
    run_json(capsys, project, "session", "handoff", "--from", handoff_id, *HERE)
    # the same handoff handed on as the shared baton on another clone, brought here by sync
    append_raw(project, "baton.created", "baton/_shared",
               {"key": "_shared", "operation": "handoff_created", "handoff_id": handoff_id, "owner": ALICE,
                "branch": "main", "shared": True, "session": None,
                "payload": {"nextSteps": ["Add the duplicate-callback fixture"]}})

    claimed = run_json(capsys, project, "bootstrap", "--session-id", "s-1", *HERE)
    assert claimed["claimed"] is True and claimed["handoff"]["id"] == handoff_id
    assert run_json(capsys, project, "session", "handoff", "--all")["items"] == []
    bob = run(capsys, project, "bootstrap", "--session-id", "s-bob", "--owner", "bob@example.com",
              "--branch", "main")[1]
    assert "Taken up elsewhere: the shared baton" in bob and "session s-1" in bob


def test_a_rebuild_replays_a_baton_settled_by_a_resume_as_it_was(project, capsys):
    _hand_on_then_resume(capsys, project)

    opened = Project.open(project)
    try:
        incremental = opened.reading().snapshot()
        opened.runner.rebuild()
        assert opened.runner.snapshot() == incremental
    finally:
        opened.close()


def test_a_resume_by_hand_without_a_session_is_told_as_one_on_this_clone(project, capsys):
    handoff_id = ready_handoff(capsys, project)
    run_json(capsys, project, "session", "handoff", "--from", handoff_id, *HERE)
    run_json(capsys, project, "resume", handoff_id, "--mark-resumed")

    told = [line for line in run(capsys, project, "bootstrap", "--session-id", "s-next", *HERE)[1].splitlines()
            if "Taken up elsewhere" in line]
    assert len(told) == 1 and handoff_id in told[0]
    assert "resumed on this clone by " in told[0] and " without a session id" in told[0]
    assert "another clone" not in told[0] and "baton sync" not in told[0]


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_mcp_handoff_resume_tool_with_mark_resumed_settles_the_baton(project, capsys, anyio_backend):
    handoff_id = ready_handoff(capsys, project)
    run_json(capsys, project, "session", "handoff", "--from", handoff_id, *HERE)

    async with Client(build_server(project)) as client:
        result = await client.call_tool("handoff_resume", {"id": handoff_id, "mark_resumed": True,
                                                           "session_id": "mcp-1"})
    assert not result.is_error, result.content
    assert run_json(capsys, project, "session", "handoff", "--all")["items"] == []
    (dismissed,) = events(project, "baton.dismissed")
    assert dismissed.data["via"] == "resumed" and dismissed.session == "mcp-1"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_mcp_resume_without_a_session_id_is_told_as_one_on_this_clone(project, capsys, anyio_backend):
    handoff_id = ready_handoff(capsys, project)
    run_json(capsys, project, "session", "handoff", "--from", handoff_id, *HERE)

    async with Client(build_server(project)) as client:
        result = await client.call_tool("handoff_resume", {"id": handoff_id, "mark_resumed": True})
    assert not result.is_error, result.content
    told = run(capsys, project, "bootstrap", "--session-id", "s-next", *HERE)[1]
    assert "resumed on this clone by " in told and " without a session id" in told


def _resumed_on_another_clone_later(project, handoff_id: str) -> None:
    """A ``handoff.resumed`` as another clone's resume arrives by sync: made an hour after the
    baton here was left, by a resume that never saw that baton (so it settled nothing)."""
    later = time.time_ns() + 3600 * 10**9
    opened = Project.open(project, clock=lambda: later)
    try:
        with opened.writing() as scope:
            stream = f"handoff/{handoff_id}"
            scope.append([EventDraft("handoff.resumed", stream, {"session": "far-1", "harness": None,
                                                                 "freshness_state": "fresh"})],
                         expected={stream: scope.txn.stream_version(stream)})
    finally:
        opened.close()


def test_a_start_meeting_a_baton_whose_handoff_was_resumed_apart_since_dismisses_it(project, capsys):
    handoff_id = ready_handoff(capsys, project)
    run_json(capsys, project, "session", "handoff", "--from", handoff_id, *HERE)
    _resumed_on_another_clone_later(project, handoff_id)

    first = run_json(capsys, project, "bootstrap", "--session-id", "s-next", *HERE)
    again = run(capsys, project, "bootstrap", "--session-id", "s-after", *HERE)[1]

    assert first["handoff"] is None and first["claimed"] is False
    told = [n for n in first["notices"] if "Taken up elsewhere" in n]
    assert len(told) == 1 and handoff_id in told[0] and "another clone" in told[0]
    assert "Taken up elsewhere" not in again
    assert run_json(capsys, project, "session", "handoff", "--all")["items"] == []
    assert [e.data["via"] for e in events(project, "baton.dismissed")] == ["resumed"]
    assert events(project, "baton.claimed") == []


def test_session_begin_does_not_receive_a_baton_whose_handoff_was_resumed_apart_since(project, capsys):
    handoff_id = ready_handoff(capsys, project)
    run_json(capsys, project, "session", "handoff", "--from", handoff_id, *HERE)
    _resumed_on_another_clone_later(project, handoff_id)

    begun = run_json(capsys, project, "session", "begin", "s-next", *HERE)
    told = run(capsys, project, "bootstrap", "--session-id", "s-after", *HERE)[1]

    assert begun["handoff"] is None and begun["receivedBaton"] is None
    assert "Taken up elsewhere" in told
