"""A session started twice claims one baton, whichever entry point starts it.

``baton bootstrap --session-id``, ``baton session begin ID``, the MCP
``bootstrap`` tool and a harness's ``SessionStart`` hook decide it the same
way: a session whose start is recorded (``session.begun``) started before,
and a repeated start claims nothing. ``bootstrap`` answers it with what the
session already received (an agent following the MCP ``pickup`` prompt may
call it again, and must still read its own baton); ``session begin`` says
so. Driven through the command line and the MCP server, as a user or an
agent meets them; the race runs real processes.
"""

from __future__ import annotations

import json
import sys

import pytest
from mcp import Client

from baton.mcp_server import build_server
from tests.batons_support import ALICE
from tests.cli_support import run, run_json

HERE = ("--owner", ALICE, "--branch", "main")


@pytest.fixture
def anyio_backend():
    return "asyncio"


def two_batons(capsys, project) -> tuple[str, str]:
    """A private baton for alice on main and a shared one: two a start could claim."""
    private = run_json(capsys, project, "session", "end", "s1", "--handoff-steps", "private step", *HERE)
    shared = run_json(capsys, project, "session", "end", "s0", "--shared", "--handoff-steps", "shared step", *HERE)
    return private["handoffId"], shared["handoffId"]


def pending(capsys, project) -> list[str]:
    out = run_json(capsys, project, "session", "handoff", "--all", *HERE)
    return [b["id"] for b in out["items"]]


def claims(capsys, project) -> list[dict]:
    code, out, err = run(capsys, project, "log", "--type", "baton.claimed", "--json")
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def test_a_second_bootstrap_of_a_session_claims_nothing_and_leaves_the_shared_baton_pending(project, capsys):
    private, shared = two_batons(capsys, project)

    first = run_json(capsys, project, "bootstrap", "--session-id", "S", *HERE)
    second = run_json(capsys, project, "bootstrap", "--session-id", "S", *HERE)

    assert first["claimed"] is True and first["handoff"]["id"] == private
    assert second["claimed"] is False and second["repeated"] is True
    assert pending(capsys, project) == [shared]
    assert [c["data"]["handoff_id"] for c in claims(capsys, project)] == [private]


def test_a_second_bootstrap_of_a_session_shows_the_baton_it_received_again(project, capsys):
    private, _ = two_batons(capsys, project)
    run_json(capsys, project, "bootstrap", "--session-id", "S", *HERE)

    second = run_json(capsys, project, "bootstrap", "--session-id", "S", *HERE)

    assert second["handoff"]["id"] == private and second["handoff"]["claimedBySession"] == "S"
    assert "private step" in second["brief"] and "shared step" not in second["brief"]
    assert any("already started" in n and private in n for n in second["notices"])


def test_a_second_session_begin_claims_nothing_and_says_which_baton_it_received(project, capsys):
    private, shared = two_batons(capsys, project)

    first = run_json(capsys, project, "session", "begin", "s-202", *HERE)
    code, text, err = run(capsys, project, "session", "begin", "s-202", *HERE)

    assert first["handoff"]["id"] == private
    assert code == 0, err
    assert "already began" in text and private in text and "shared step" not in text
    assert pending(capsys, project) == [shared]
    assert [c["data"]["handoff_id"] for c in claims(capsys, project)] == [private]


def test_a_second_session_begin_reports_the_repeat_in_json(project, capsys):
    private, _ = two_batons(capsys, project)
    run_json(capsys, project, "session", "begin", "s-202", *HERE)

    second = run_json(capsys, project, "session", "begin", "s-202", *HERE)

    assert second["repeated"] is True and second["receivedBaton"] == private


def test_bootstrap_of_a_session_begun_with_session_begin_claims_nothing(project, capsys):
    private, shared = two_batons(capsys, project)
    run_json(capsys, project, "session", "begin", "s-7", *HERE)

    out = run_json(capsys, project, "bootstrap", "--session-id", "s-7", *HERE)

    assert out["claimed"] is False and out["handoff"]["id"] == private
    assert pending(capsys, project) == [shared]


def test_bootstrap_without_a_session_id_still_claims_each_time(project, capsys):
    private, shared = two_batons(capsys, project)

    first = run_json(capsys, project, "bootstrap", *HERE)
    second = run_json(capsys, project, "bootstrap", *HERE)

    assert (first["handoff"]["id"], second["handoff"]["id"]) == (private, shared)
    assert first["claimed"] and second["claimed"]


@pytest.mark.anyio
async def test_a_second_mcp_bootstrap_of_a_session_answers_with_the_baton_it_received(project):
    async with Client(build_server(project)) as client:
        for session, steps, shared in (("s1", "private step", False), ("s0", "shared step", True)):
            await client.call_tool("baton_session", {"action": "session_end", "session_id": session,
                                                     "handoff": {"nextSteps": [steps], "shared": shared}})
        first = await client.call_tool("bootstrap", {"session_id": "MCP-S"})
        second = await client.call_tool("bootstrap", {"session_id": "MCP-S"})
    assert not second.is_error, second.content
    one, two = first.structured_content, second.structured_content
    assert one["claimed"] is True and "private step" in one["brief"]
    assert two["claimed"] is False and two["repeated"] is True
    assert two["handoff"]["id"] == one["handoff"]["id"]
    assert "private step" in two["brief"] and "shared step" not in two["brief"]


@pytest.mark.anyio
async def test_a_second_mcp_session_start_claims_nothing(project):
    async with Client(build_server(project)) as client:
        for session, steps, shared in (("s1", "private step", False), ("s0", "shared step", True)):
            await client.call_tool("baton_session", {"action": "session_end", "session_id": session,
                                                     "handoff": {"nextSteps": [steps], "shared": shared}})
        first = await client.call_tool("baton_session", {"action": "session_start", "session_id": "M"})
        second = await client.call_tool("baton_session", {"action": "session_start", "session_id": "M"})
    assert not second.is_error, second.content
    assert second.structured_content["repeated"] is True
    assert second.structured_content["receivedBaton"] == first.structured_content["handoff"]["id"]


RACE = """
import sys, time
from baton.cli import main
deadline = float(sys.argv[2])
while time.time() < deadline:
    pass
sys.exit(main(["bootstrap", "--session-id", "RACE", "--owner", "alice@example.com", "--branch", "main",
               "--json", "--project", sys.argv[1]]))
"""


def test_three_processes_starting_the_same_session_at_once_claim_one_baton(project, capsys):
    import subprocess
    import time

    private, shared = two_batons(capsys, project)
    go = str(time.time() + 3)
    procs = [subprocess.Popen([sys.executable, "-c", RACE, str(project), go], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [p.communicate(timeout=120) for p in procs]

    assert [p.returncode for p in procs] == [0, 0, 0], outs
    results = [json.loads(out) for out, _ in outs]
    assert sorted(r["claimed"] for r in results) == [False, False, True]
    assert all(r["handoff"] and r["handoff"]["id"] == private for r in results)
    assert [c["data"]["handoff_id"] for c in claims(capsys, project)] == [private]
    assert pending(capsys, project) == [shared]


def test_a_session_whose_start_claimed_nothing_claims_the_next_baton_and_keeps_its_objective(project, capsys):
    run_json(capsys, project, "session", "begin", "s-9", "--objective", "Ship it", *HERE)  # nothing waiting
    private, _ = two_batons(capsys, project)

    out = run_json(capsys, project, "bootstrap", "--session-id", "s-9", *HERE)

    assert out["claimed"] is True and out["handoff"]["id"] == private
    again = run_json(capsys, project, "bootstrap", "--session-id", "s-9", *HERE)
    assert again["claimed"] is False and again["sessionObjective"]["objective"] == "Ship it"
