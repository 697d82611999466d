"""``baton session end ID`` (and MCP ``baton_session`` ``session_end``) without a
handoff of its own hands on the session's ready handoff, as the end hook does."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from baton.mcp_server import build_server
from tests.conftest import run_baton
from tests.handoff_support import baton_json, git_init, payload


def _ready_under(project, session: str) -> str:
    git_init(project)
    baton_json(project, "session", "begin", session)
    captured = baton_json(project, "checkpoint", "create", "--session", session, "--input", "-",
                          input=json.dumps(payload()))
    baton_json(project, "handoff", "validate", captured["id"])
    baton_json(project, "handoff", "ready", captured["id"], "--accept-warnings", "synthetic test data")
    return captured["id"]


def test_session_end_hands_on_the_sessions_ready_handoff(project):
    handoff_id = _ready_under(project, "real-1")
    ended = baton_json(project, "session", "end", "real-1")
    assert ended["handedOn"] is True and ended["handoffId"] == handoff_id
    brief = baton_json(project, "bootstrap", "next-1")
    assert brief["handoff"]["id"] == handoff_id


def test_session_end_of_a_session_with_nothing_ready_leaves_no_baton(project):
    git_init(project)
    baton_json(project, "session", "begin", "real-1")
    ended = baton_json(project, "session", "end", "real-1")
    assert ended["handoff"] is None and ended["handedOn"] is False


def test_session_end_shared_hands_on_the_sessions_ready_handoff_as_a_shared_baton(project):
    handoff_id = _ready_under(project, "real-1")
    ended = baton_json(project, "session", "end", "real-1", "--shared")
    assert ended["handedOn"] is True and ended["handoffId"] == handoff_id and ended["handoff"]["shared"] is True
    brief = baton_json(project, "bootstrap", "next-1", "--owner", "carol@example.com")
    assert brief["handoff"]["id"] == handoff_id


def test_session_end_shared_says_it_handed_on_the_ready_handoff(project):
    handoff_id = _ready_under(project, "real-1")
    done = run_baton("session", "end", "real-1", "--shared", "--project", str(project))
    assert done.returncode == 0, done.stderr
    assert f"Left a shared baton: {handoff_id} (" in done.stdout
    assert "handing on the session's ready handoff." in done.stdout and "No baton left" not in done.stdout


def test_session_end_for_another_owner_hands_on_the_ready_handoff_to_that_owner(project):
    handoff_id = _ready_under(project, "real-1")
    ended = baton_json(project, "session", "end", "real-1", "--owner", "carol@example.com")
    assert ended["handedOn"] is True and ended["handoff"]["owner"] == "carol@example.com"
    assert baton_json(project, "bootstrap", "next-1", "--owner", "carol@example.com")["handoff"]["id"] == handoff_id


def test_session_end_on_another_branch_hands_on_the_ready_handoff_for_that_branch(project):
    handoff_id = _ready_under(project, "real-1")
    ended = baton_json(project, "session", "end", "real-1", "--branch", "release")
    assert ended["handedOn"] is True and ended["handoff"]["branch"] == "release"
    assert baton_json(project, "bootstrap", "next-1", "--branch", "release")["handoff"]["id"] == handoff_id


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_session_end_hands_on_the_sessions_ready_handoff(project):
    handoff_id = _ready_under(project, "real-1")
    async with Client(build_server(project)) as client:
        ended = await client.call_tool("baton_session", {"action": "session_end", "session_id": "real-1"})
    assert ended.structured_content["handedOn"] is True
    assert ended.structured_content["handoffId"] == handoff_id


@pytest.mark.anyio
async def test_mcp_session_end_shared_hands_on_the_sessions_ready_handoff_as_a_shared_baton(project):
    handoff_id = _ready_under(project, "real-1")
    async with Client(build_server(project)) as client:
        ended = await client.call_tool("baton_session", {"action": "session_end", "session_id": "real-1",
                                                         "shared": True})
    assert ended.structured_content["handedOn"] is True
    assert ended.structured_content["handoffId"] == handoff_id and ended.structured_content["handoff"]["shared"]
