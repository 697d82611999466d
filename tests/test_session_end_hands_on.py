"""``baton session end ID`` (and MCP ``baton_session`` ``session_end``) without a
handoff of its own hands on the session's ready handoff, as the end hook does."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from baton.mcp_server import build_server
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
