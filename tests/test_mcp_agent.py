"""`baton mcp` as an agent reads it: every argument described, each `baton_session` action's
arguments named where the agent looks, and `baton_status` counting what `handoff_list` lists."""

from __future__ import annotations

import pytest
from mcp import Client

from baton.mcp_schemas import SESSION_ACTION_ARGUMENTS, input_schemas
from baton.mcp_server import build_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


async def test_every_argument_of_every_tool_has_a_description(project):
    async with Client(build_server(project)) as client:
        tools = (await client.list_tools()).tools
    undescribed = [f"{tool.name}.{name}" for tool in tools
                   for name, schema in tool.input_schema.get("properties", {}).items()
                   if not schema.get("description")]
    assert undescribed == []


async def test_the_session_action_description_names_the_arguments_each_action_takes(project):
    async with Client(build_server(project)) as client:
        (tool,) = [t for t in (await client.list_tools()).tools if t.name == "baton_session"]
    action = tool.input_schema["properties"]["action"]
    assert action["enum"] == list(SESSION_ACTION_ARGUMENTS)
    for name, taken in SESSION_ACTION_ARGUMENTS.items():
        assert f"{name} takes {', '.join(taken)}" in action["description"]


SAMPLE = {"session_id": "s-1", "objective": "o", "handoff": {"nextSteps": ["n"]}, "shared": True,
          "harness": "generic", "owner": "me", "branch": "main"}


async def test_each_session_action_refuses_exactly_the_arguments_its_description_leaves_out(project):
    arguments = set(input_schemas()["baton_session"]["properties"]) - {"action"}
    assert arguments == set(SAMPLE)
    async with Client(build_server(project)) as client:
        for action, taken in SESSION_ACTION_ARGUMENTS.items():
            for name in sorted(arguments - set(taken)):
                result = await client.call_tool("baton_session", {"action": action, "session_id": "s-1",
                                                                  name: SAMPLE[name]})
                assert result.is_error, (action, name)
                assert result.structured_content["error"]["code"] == "input_error"
                assert name in result.structured_content["error"]["message"]


async def test_baton_status_counts_the_handoffs_handoff_list_lists_not_session_batons(project):
    async with Client(build_server(project)) as client:
        for steps in (["first"], ["second"]):  # the second supersedes the first
            ended = await client.call_tool("baton_session", {"action": "session_end", "session_id": "s-1",
                                                             "handoff": {"nextSteps": steps}})
            assert not ended.is_error, ended.content
        await client.call_tool("handoff_capture", {"work": {"title": "t", "objective": "o"}})
        listed = (await client.call_tool("handoff_list", {})).structured_content
        everything = (await client.call_tool("handoff_list", {"kind": "all"})).structured_content
        status = (await client.call_tool("baton_status", {})).structured_content
    assert everything["total"] == 3  # the batons' records are there, listed with kind all
    assert status["handoffs"]["total"] == listed["total"] == 1
    assert status["handoffs"]["by_status"]["draft"] == 1


BIG_EVIDENCE = [{"type": "observation", "claim": f"observation {i}: " + "x" * 900} for i in range(300)]


async def _ready_big(client: Client) -> str:
    from tests.handoff_support import payload

    captured = await client.call_tool("handoff_capture", payload(evidence=BIG_EVIDENCE))
    assert not captured.is_error, captured.content
    handoff_id = captured.structured_content["id"]
    await client.call_tool("handoff_validate", {"id": handoff_id})
    ready = await client.call_tool("handoff_ready", {"id": handoff_id, "accept_warnings": "synthetic test data"})
    assert not ready.is_error, ready.content
    return handoff_id


async def test_handoff_resume_answers_the_bounded_brief_without_the_whole_record(project):
    async with Client(build_server(project)) as client:
        handoff_id = await _ready_big(client)
        resumed = await client.call_tool("handoff_resume", {"id": handoff_id, "max_tokens": 1200})
    out = resumed.structured_content
    assert out["handoff"] is None and out["record_omitted"] is True
    assert out["brief"]["estimated_tokens"] <= 1200
    assert len(resumed.content[0].text) < 16_000  # the record's evidence alone is over 270 kB


async def test_handoff_resume_with_format_json_answers_the_record_as_baton_resume_json_does(project):
    from tests.handoff_support import baton_json

    async with Client(build_server(project)) as client:
        handoff_id = await _ready_big(client)
        resumed = (await client.call_tool("handoff_resume", {"id": handoff_id, "format": "json"})).structured_content
    assert "record_omitted" not in resumed
    assert len(resumed["handoff"]["evidence"]) == len(BIG_EVIDENCE)
    assert resumed == baton_json(project, "resume", handoff_id, "--format", "json")
    assert baton_json(project, "resume", handoff_id)["handoff"]["id"] == handoff_id  # the CLI keeps it
