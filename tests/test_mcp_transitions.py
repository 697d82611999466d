"""An illegal transition through an MCP tool names the tools that take the handoff on from its
state (``handoff_amend``, ``handoff_validate``, …), not the state machine's internal actions
(revise, promote) nor the command line's commands. The SDK's in-process client."""

from __future__ import annotations

import pytest
from mcp import Client

from baton.mcp_server import build_server
from tests.handoff_support import payload

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


async def _refused(project, tool: str, arguments: dict) -> dict:
    async with Client(build_server(project)) as client:
        captured = await client.call_tool("handoff_capture", payload())
        assert not captured.is_error, captured.content
        result = await client.call_tool(tool, {"id": captured.structured_content["id"], **arguments})
    assert result.is_error
    return result.structured_content["error"]


async def test_handoff_ready_on_a_draft_names_the_tools_that_take_it_on(project):
    error = await _refused(project, "handoff_ready", {"accept_warnings": "synthetic test data"})
    assert error["code"] == "invalid_transition"
    assert "cannot make handoff" in error["message"] and "it is draft" in error["message"]
    assert error["message"].endswith("what it takes now: handoff_amend, handoff_validate, "
                                     "`baton handoff archive` (command line)")
    assert error["details"]["tools"] == ["handoff_amend", "handoff_validate", "`baton handoff archive` (command line)"]


async def test_handoff_resume_on_a_draft_names_no_internal_verb(project):
    message = (await _refused(project, "handoff_resume", {}))["message"]
    assert "handoff_amend, handoff_validate" in message
    assert "allowed: revise" not in message and "cannot promote" not in message
