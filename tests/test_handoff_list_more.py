"""A listing cut by its limit says so (``more``), and ``handoff_list`` over
MCP has a limit when the agent gives none: at a year of a team's use
(13,000 handoffs) an unlimited answer was 5.9 MB of JSON in 3.5 s, into an
agent's context."""

from __future__ import annotations

import json

import pytest
from mcp import Client

import baton.mcp_server as mcp_server
from baton.app import Baton
from baton.mcp_server import build_server
from tests.conftest import run_baton
from tests.handoff_support import baton_json, payload


@pytest.fixture
def three(project):
    with Baton.open(project) as app:
        ids = [app.capture(payload()).handoff_id for _ in range(3)]
    return project, ids[::-1]  # newest first


def test_handoff_list_json_says_more_match_only_when_the_limit_left_some_out(three):
    project, newest = three
    cut = baton_json(project, "handoff", "list", "--limit", "2")
    whole = baton_json(project, "handoff", "list", "--limit", "3")
    unlimited = baton_json(project, "handoff", "list")
    assert [h["id"] for h in cut["handoffs"]] == newest[:2] and cut["count"] == 2 and cut["more"] is True
    assert [h["id"] for h in whole["handoffs"]] == newest and whole["more"] is False
    assert unlimited["count"] == 3 and unlimited["more"] is False


def test_handoff_list_text_ends_with_a_line_saying_more_match_past_its_limit(three):
    project, _ = three
    cut = run_baton("handoff", "list", "--limit", "2", "--project", str(project)).stdout.splitlines()
    whole = run_baton("handoff", "list", "--limit", "3", "--project", str(project)).stdout.splitlines()
    assert len(cut) == 3 and cut[-1].startswith("(the newest 2 shown; more match")
    assert len(whole) == 3 and not any("more match" in line for line in whole)


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_handoff_list_over_mcp_without_a_limit_lists_at_most_the_default_and_says_more_match(three,
                                                                                                 monkeypatch):
    project, newest = three
    monkeypatch.setattr(mcp_server, "LIST_LIMIT", 2)
    async with Client(build_server(project)) as client:
        default = await client.call_tool("handoff_list", {})
        asked = await client.call_tool("handoff_list", {"limit": 3})
    assert [h["id"] for h in default.structured_content["handoffs"]] == newest[:2]
    assert default.structured_content["more"] is True
    assert [h["id"] for h in asked.structured_content["handoffs"]] == newest
    assert asked.structured_content["more"] is False and json.loads(asked.content[0].text) == asked.structured_content
