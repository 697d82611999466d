"""``baton bootstrap``: every claim names a session, and ``--peek`` claims nothing.

Driven through the command line (``baton.cli.main``), as a session-start hook
runs it.
"""

from __future__ import annotations

import json

import pytest

from tests.batons_support import ALICE
from tests.cli_support import ledger_size, run, run_json

HERE = ("--owner", ALICE, "--branch", "main")


def leave_baton(capsys, project, step: str = "Run the auth suite") -> str:
    return run_json(capsys, project, "session", "end", "s-end", "--handoff-steps", step, *HERE)["handoffId"]


def claim_events(capsys, project) -> list[dict]:
    code, out, err = run(capsys, project, "log", "--type", "baton.claimed", "--json")
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def test_bootstrap_without_a_session_id_claims_for_a_generated_session_and_says_which(project, capsys):
    baton_id = leave_baton(capsys, project)

    out = run_json(capsys, project, "bootstrap", *HERE)

    session = out["sessionId"]
    assert isinstance(session, str) and session.strip()
    assert out["sessionIdGenerated"] is True
    assert out["claimed"] is True and out["handoff"]["id"] == baton_id
    assert out["handoff"]["claimedBySession"] == session
    assert session in out["handoffMarkdown"] and session in out["brief"]
    [claim] = claim_events(capsys, project)
    assert claim["session"] == session and claim["data"]["session"] == session
    # The claim is recorded under that name: a second start is told who has it.
    assert run_json(capsys, project, "session", "handoff", *HERE)["handoff"] is None


def test_bootstrap_text_output_names_the_generated_claiming_session(project, capsys):
    leave_baton(capsys, project)

    code, text, err = run(capsys, project, "bootstrap", *HERE)

    assert code == 0, err
    [claim] = claim_events(capsys, project)
    assert claim["session"]
    assert f"Claimed by session `{claim['session']}`" in text


def test_two_bootstraps_without_session_ids_claim_under_different_sessions(project, capsys):
    leave_baton(capsys, project, "first")
    first = run_json(capsys, project, "bootstrap", *HERE)
    leave_baton(capsys, project, "second")
    second = run_json(capsys, project, "bootstrap", *HERE)
    assert first["claimed"] and second["claimed"]
    assert first["sessionId"] != second["sessionId"]


def test_a_given_session_id_is_the_one_the_claim_names_and_is_not_marked_generated(project, capsys):
    leave_baton(capsys, project)
    out = run_json(capsys, project, "bootstrap", "--session-id", "s-42", *HERE)
    assert out["sessionId"] == "s-42" and out["sessionIdGenerated"] is False
    assert out["handoff"]["claimedBySession"] == "s-42"
    assert "Claimed by session" not in out["brief"]


def test_peek_twice_shows_the_same_baton_writes_nothing_and_a_later_bootstrap_still_claims_it(project, capsys):
    baton_id = leave_baton(capsys, project)
    before = ledger_size(project)

    first = run_json(capsys, project, "bootstrap", "--peek", *HERE)
    second = run_json(capsys, project, "bootstrap", "--peek", *HERE)

    for peeked in (first, second):
        assert peeked["peek"] is True and peeked["claimed"] is False
        assert peeked["handoff"]["id"] == baton_id and peeked["handoff"]["status"] == "pending"
        assert "Run the auth suite" in peeked["brief"] and peeked["handoffMarkdown"] in peeked["brief"]
        assert peeked["sessionId"] is None
    assert first["brief"] == second["brief"]
    assert ledger_size(project) == before
    assert claim_events(capsys, project) == []

    real = run_json(capsys, project, "bootstrap", "--session-id", "s-real", *HERE)
    assert real["claimed"] is True and real["handoff"]["id"] == baton_id
    assert real["handoff"]["claimedBySession"] == "s-real"
    assert len(claim_events(capsys, project)) == 1


def test_peek_text_shows_the_brief_a_start_would_receive(project, capsys):
    leave_baton(capsys, project)
    code, peeked, err = run(capsys, project, "bootstrap", "--peek", "--session-id", "s-1", *HERE)
    assert code == 0, err
    code, delivered, err = run(capsys, project, "bootstrap", "--session-id", "s-1", *HERE)
    assert code == 0, err
    assert peeked == delivered and "## 🤝 Active Session Handoff" in peeked


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_mcp_bootstrap_tool_peeks_and_names_a_generated_session(project, anyio_backend):
    from mcp import Client

    from baton.mcp_server import build_server

    async with Client(build_server(project)) as client:
        await client.call_tool("baton_session", {"action": "session_end", "session_id": "s-1",
                                          "handoff": {"nextSteps": ["Run the migration dry-run"]}})
        before = ledger_size(project)
        peeked = await client.call_tool("bootstrap", {"peek": True})
        assert ledger_size(project) == before
        claimed = await client.call_tool("bootstrap", {})
    assert peeked.structured_content["claimed"] is False
    assert peeked.structured_content["handoff"]["status"] == "pending"
    out = claimed.structured_content
    assert out["claimed"] is True and out["sessionIdGenerated"] is True
    assert out["handoff"]["id"] == peeked.structured_content["handoff"]["id"]
    assert out["handoff"]["claimedBySession"] == out["sessionId"]
