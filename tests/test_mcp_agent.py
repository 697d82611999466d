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


async def test_handoff_capture_echoes_a_small_record_whole(project):
    from tests.handoff_support import payload

    async with Client(build_server(project)) as client:
        captured = (await client.call_tool("handoff_capture", payload())).structured_content
    assert captured["handoff"]["id"] == captured["id"] and "record_omitted" not in captured


async def test_handoff_capture_does_not_echo_a_record_too_large_for_an_agents_context(project):
    from tests.handoff_support import payload

    async with Client(build_server(project)) as client:
        captured = await client.call_tool("handoff_capture", payload(evidence=BIG_EVIDENCE))
        forked = await client.call_tool("handoff_fork", {"id": captured.structured_content["id"]})
    out = captured.structured_content
    assert not captured.is_error and out["status"] == "draft" and out["lineage"]["relation"] == "root"
    assert out["handoff"] is None and out["record_omitted"] is True
    assert len(captured.content[0].text) < 4_000
    assert not forked.is_error, forked.content  # a fork answers through the same bound


async def test_handoff_merge_does_not_echo_a_merged_record_too_large_for_an_agents_context(project):
    async with Client(build_server(project)) as client:
        parents = [await _ready_big(client), await _ready_big(client)]
        merged = await client.call_tool("handoff_merge", {"ids": parents, "resolution": {"decision": "keep both"}})
    assert not merged.is_error, merged.content
    out = merged.structured_content
    assert out["lineage"]["relation"] == "merge" and out["handoff"] is None and out["record_omitted"] is True


def test_baton_checkpoint_create_json_always_echoes_the_record(project):
    import json

    from tests.handoff_support import baton_json, payload

    body = payload(evidence=BIG_EVIDENCE)
    out = baton_json(project, "checkpoint", "create", "--no-input", "--input", "-", input=json.dumps(body))
    assert len(out["handoff"]["evidence"]) == len(BIG_EVIDENCE) and "record_omitted" not in out


async def test_a_full_id_prefix_too_short_to_name_a_handoff_is_not_found_with_how_long_one_must_be(project):
    from tests.handoff_support import payload

    async with Client(build_server(project)) as client:
        captured = (await client.call_tool("handoff_capture", payload())).structured_content
        too_short = await client.call_tool("handoff_validate", {"id": captured["id"][:6]})
        long_enough = await client.call_tool("handoff_validate", {"id": captured["id"][:13]})
        unrelated = await client.call_tool("handoff_validate", {"id": "zzzzzz"})
    error = too_short.structured_content["error"]
    assert error["code"] == "not_found" and "full id needs at least 8 characters" in error["message"]
    assert not long_enough.is_error, long_enough.content
    assert unrelated.structured_content["error"]["message"] == "no handoff matches 'zzzzzz'"


async def test_handoff_resume_says_in_its_schema_that_session_id_and_harness_need_mark_resumed(project):
    async with Client(build_server(project)) as client:
        (tool,) = [t for t in (await client.list_tools()).tools if t.name == "handoff_resume"]
        for name, value in (("session_id", "s-1"), ("harness", "codex")):
            assert "only with mark_resumed" in tool.input_schema["properties"][name]["description"]
            refused = await client.call_tool("handoff_resume", {name: value})
            assert refused.structured_content["error"]["code"] == "input_error"
            assert "mark_resumed" in refused.structured_content["error"]["message"]


async def test_two_servers_on_one_project_see_each_others_captures_and_deliver_a_baton_once(project):
    import os
    import sys

    import anyio
    from mcp import StdioServerParameters

    from tests.handoff_support import payload

    params = StdioServerParameters(command=sys.executable, args=["-m", "baton", "mcp", "--project", str(project)],
                                   env=dict(os.environ), cwd=str(project))
    async with Client(params) as first, Client(params) as second:
        ended = await first.call_tool("baton_session", {"action": "session_end", "session_id": "s-0",
                                                        "handoff": {"nextSteps": ["write the test"]}})
        assert not ended.is_error, ended.content
        claims: dict[str, dict] = {}

        async def claim(client: Client, name: str) -> None:
            claims[name] = (await client.call_tool("bootstrap", {"session_id": name})).structured_content

        async with anyio.create_task_group() as group:
            group.start_soon(claim, first, "s-1")
            group.start_soon(claim, second, "s-2")
        captured = (await first.call_tool("handoff_capture", payload())).structured_content
        seen = (await second.call_tool("handoff_list", {})).structured_content
    assert sorted(c["claimed"] for c in claims.values()) == [False, True]
    assert [h["id"] for h in seen["handoffs"]] == [captured["id"]]


async def test_a_running_server_answers_for_a_baton_folder_made_again_under_it(project, tmp_path):
    """No call is made while ``.baton/`` is missing (that would reopen anyway), and the new
    ``config.json`` is given the old one's inode, as ext4 mostly does when the freed inode is
    taken again: only what the files say tells the projects apart."""
    import json
    import os
    import shutil

    from tests.app_support import init_project
    from tests.handoff_support import payload

    kept = tmp_path / "old-config.json"
    async with Client(build_server(project)) as client:
        await client.call_tool("handoff_capture", payload())
        os.link(project / ".baton" / "config.json", kept)
        shutil.rmtree(project / ".baton")
        init_project(project)
        kept.write_bytes((project / ".baton" / "config.json").read_bytes())
        os.replace(kept, project / ".baton" / "config.json")
        status = (await client.call_tool("baton_status", {})).structured_content
        await client.call_tool("handoff_capture", payload())
    config = json.loads((project / ".baton" / "config.json").read_text())
    assert status["config"]["project_id"] == config["project_id"]
    assert status["handoffs"]["total"] == 0
    assert status["config"]["writer"] == json.loads((project / ".baton" / "local.json").read_text())["writer"]
    assert len(list((project / ".baton" / "ledger").glob("*.jsonl"))) == 1  # the new writer's feed only
