"""`baton mcp`: the MCP tools are a thin adapter over the commands the CLI calls (§13, §22 criteria 6 and 8b).

The in-memory tests connect with `Client(server)`; one test runs the real
`python -m baton mcp` over stdio.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from mcp import Client

from baton.mcp_server import NOT_AVAILABLE, TOOL_NAMES, build_server
from tests.handoff_support import ACTIONABLE_ITEM, baton_json, git_init, payload

pytestmark = pytest.mark.anyio

AWS_KEY = "AKIAQ7XJ3KZP5HWN4TLA"  # synthetic: the shape of an AWS access key id, never a real one


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def repo(project_dir) -> Path:
    """A git project with one committed source file, initialised for Baton."""
    from tests.app_support import init_project

    git_init(project_dir, {"src/callback.py": "def check(state):\n    return state\n"})
    init_project(project_dir)
    return project_dir


def full_state() -> dict:
    """Every part of the §22-8b state model: objective, current state, decisions, evidence,
    constraints, failed attempts and a next action."""
    return payload(
        artifacts=[{"path": "src/callback.py", "role": "modified"}],
        decisions=[{"decision": "Compare state values in constant time", "rationale": "avoid a timing oracle",
                    "evidence_ids": ["E-001"]}],
        evidence=[{"id": "E-001", "type": "file", "claim": "the helper compares state", "ref": "src/callback.py",
                   "result": "observed"}],
        failed_attempts=[{"approach": "Cache state in the session cookie", "outcome": "failed",
                          "reason": "the cookie is rotated on callback"}],
    )


async def _capture_ready_via_mcp(client: Client, body: dict) -> str:
    captured = await client.call_tool("handoff_capture", body)
    assert not captured.is_error, captured.content
    handoff_id = captured.structured_content["id"]
    validated = await client.call_tool("handoff_validate", {"id": handoff_id})
    assert validated.structured_content["report"]["status"] in ("pass", "warn"), validated.content
    ready = await client.call_tool("handoff_ready", {"id": handoff_id, "accept_warnings": "synthetic test data"})
    assert ready.structured_content["status"] == "ready", ready.content
    return handoff_id


async def test_the_tools_are_listed_with_input_schemas(project):
    async with Client(build_server(project)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == set(TOOL_NAMES)
    assert not set(NOT_AVAILABLE) & set(tools)
    for tool in tools.values():
        assert tool.input_schema["type"] == "object" and tool.description
    assert tools["handoff_capture"].input_schema["required"] == ["work"]
    assert tools["baton_session"].input_schema["properties"]["action"]["enum"] == [
        "session_start", "session_end", "cancel_handoff"]
    assert tools["handoff_resume"].input_schema["properties"]["format"]["enum"] == ["prompt", "md", "json"]


async def test_no_tool_can_recheck_or_run_a_command(project):
    async with Client(build_server(project)) as client:
        tools = (await client.list_tools()).tools
    for tool in tools:
        assert not {"recheck", "command", "shell", "path", "project"} & set(tool.input_schema["properties"])


async def test_a_handoff_captured_through_mcp_resumes_through_the_cli_with_the_same_record_and_freshness(repo):
    async with Client(build_server(repo)) as client:
        handoff_id = await _capture_ready_via_mcp(client, full_state())
        via_mcp = (await client.call_tool("handoff_resume", {"id": handoff_id, "format": "json"})).structured_content
    via_cli = baton_json(repo, "resume", handoff_id, "--format", "json")
    assert via_mcp == via_cli
    assert via_mcp["freshness_state"] == "fresh"


async def test_a_handoff_captured_with_the_cli_resumes_through_mcp_with_the_full_state_model(repo):
    body = full_state()
    captured = baton_json(repo, "checkpoint", "create", "--no-input", "--input", "-", input=json.dumps(body))
    assert baton_json(repo, "handoff", "validate", captured["id"])["report"]["status"] in ("pass", "warn")
    baton_json(repo, "handoff", "ready", captured["id"], "--accept-warnings", "synthetic test data")

    async with Client(build_server(repo)) as client:
        resumed = await client.call_tool("handoff_resume", {"id": "latest", "format": "json"})
        brief = await client.call_tool("handoff_resume", {"id": "latest"})

    out = resumed.structured_content
    record = out["handoff"]
    assert record["id"] == captured["id"]
    assert record["work"]["objective"] == body["work"]["objective"]
    assert record["work"]["constraints"] == body["work"]["constraints"]
    assert record["summary"]["current_state"] == body["summary"]["current_state"]
    assert [d["decision"] for d in record["decisions"]] == ["Compare state values in constant time"]
    assert [e["claim"] for e in record["evidence"]] == ["the helper compares state"]
    assert [f["approach"] for f in record["failed_attempts"]] == ["Cache state in the session cookie"]
    assert record["open_items"][0]["suggested_action"] == ACTIONABLE_ITEM["suggested_action"]
    assert out["freshness_state"] == "fresh"
    text = brief.content[0].text
    for part in (body["work"]["objective"], "Cache state in the session cookie", ACTIONABLE_ITEM["suggested_action"]):
        assert part in text


async def test_baton_status_names_the_latest_ready_handoff_with_its_freshness(repo):
    async with Client(build_server(repo)) as client:
        handoff_id = await _capture_ready_via_mcp(client, full_state())
        status = await client.call_tool("baton_status", {})
    out = status.structured_content
    assert out["latest"]["id"] == handoff_id and out["latest"]["freshness_state"] == "fresh"
    assert out["handoffs"]["by_status"]["ready"] == 1 and out["pending_batons"] == 0
    assert out["config"]["project_id"] == json.loads((repo / ".baton" / "config.json").read_text())["project_id"]


async def test_handoff_list_returns_what_the_cli_lists(repo):
    async with Client(build_server(repo)) as client:
        await client.call_tool("handoff_capture", payload())
        listed = await client.call_tool("handoff_list", {"status": "draft"})
    assert listed.structured_content == baton_json(repo, "handoff", "list", "--status", "draft")
    assert listed.structured_content["count"] == 1


async def test_handoff_list_answers_what_another_process_captured_between_two_calls(repo):
    """A long-lived server never answers from an earlier answer (the feeds-only
    case, events no process folded yet, is tests/test_ledger_catch_up_cost.py's)."""
    async with Client(build_server(repo)) as client:
        first = await client.call_tool("handoff_list", {})
        again = await client.call_tool("handoff_list", {})
        captured = baton_json(repo, "checkpoint", "create", "--input", "-", input=json.dumps(payload()))
        after = await client.call_tool("handoff_list", {})
    assert first.structured_content == again.structured_content and first.structured_content["count"] == 0
    assert [h["id"] for h in after.structured_content["handoffs"]] == [captured["id"]]


async def test_handoff_list_answers_what_the_server_itself_captured_after_an_identical_list(repo):
    """The server keeps its last answer for the same result object: a capture
    in between makes a new one."""
    async with Client(build_server(repo)) as client:
        first = await client.call_tool("handoff_list", {"limit": 20})
        again = await client.call_tool("handoff_list", {"limit": 20})
        captured = await client.call_tool("handoff_capture", payload())
        after = await client.call_tool("handoff_list", {"limit": 20})
    assert first.structured_content == again.structured_content and first.structured_content["count"] == 0
    assert [h["id"] for h in after.structured_content["handoffs"]] == [captured.structured_content["id"]]
    assert json.loads(after.content[0].text) == after.structured_content


async def test_a_secret_sent_to_handoff_capture_never_reaches_the_baton_directory(project):
    body = payload(summary={"current_state": f"Deployed with key {AWS_KEY}; one fixture remains."})
    async with Client(build_server(project)) as client:
        result = await client.call_tool("handoff_capture", body)
    assert not result.is_error, result.content
    assert result.structured_content["redactions"]
    assert AWS_KEY not in json.dumps(result.structured_content)
    stored = [p for p in (project / ".baton").rglob("*") if p.is_file()]
    assert stored and not [p for p in stored if AWS_KEY.encode() in p.read_bytes()]


async def test_session_end_then_bootstrap_delivers_the_baton_exactly_once(project):
    handoff = {"nextSteps": ["Run the migration dry-run"], "failedApproaches": ["Batch size 10k timed out"]}
    async with Client(build_server(project)) as client:
        ended = await client.call_tool("baton_session", {"action": "session_end", "session_id": "s-1", "handoff": handoff})
        first = await client.call_tool("bootstrap", {"session_id": "s-2"})
        second = await client.call_tool("bootstrap", {"session_id": "s-3"})
    assert ended.structured_content["handoffId"]
    assert first.structured_content["handoff"]["id"] == ended.structured_content["handoffId"]
    assert "Run the migration dry-run" in first.structured_content["handoffMarkdown"]
    assert "Run the migration dry-run" in first.structured_content["brief"]
    assert second.structured_content["handoff"] is None
    assert second.structured_content["claimed"] is False


async def test_session_end_refuses_a_baton_whose_key_holds_another_branchs_pending_baton(project):
    async with Client(build_server(project)) as client:
        left = await client.call_tool("baton_session", {
            "action": "session_end", "session_id": "s-1",
            "handoff": {"nextSteps": ["Underscore work"], "branch": "feature_x"}})
        refused = await client.call_tool("baton_session", {
            "action": "session_end", "session_id": "s-2",
            "handoff": {"nextSteps": ["Slash work"], "branch": "feature/x"}})
        waiting = await client.call_tool("bootstrap", {"session_id": "s-3", "branch": "feature_x"})
    assert refused.is_error
    error = refused.structured_content["error"]
    assert error["code"] == "baton_key_held" and error["exit_code"] == 4
    assert "'feature/x'" in error["message"] and "'feature_x'" in error["message"]
    assert "make this baton shared" in error["message"] and "--" not in error["message"]  # the tool's names
    assert waiting.structured_content["handoff"]["id"] == left.structured_content["handoffId"]


async def test_session_start_records_the_objective_bootstrap_returns(project):
    async with Client(build_server(project)) as client:
        await client.call_tool("baton_session", {"action": "session_start", "session_id": "s-1",
                                          "objective": "Ship the callback fix"})
        brief = await client.call_tool("bootstrap", {"session_id": "s-1"})
    assert brief.structured_content["sessionObjective"]["objective"] == "Ship the callback fix"


async def test_cancel_handoff_with_nothing_pending_returns_cancelled_false(project):
    async with Client(build_server(project)) as client:
        result = await client.call_tool("baton_session", {"action": "cancel_handoff"})
    assert not result.is_error
    assert result.structured_content["cancelled"] is False


async def test_a_baton_session_argument_the_action_does_not_take_is_an_input_error(project):
    async with Client(build_server(project)) as client:
        result = await client.call_tool("baton_session", {"action": "cancel_handoff", "objective": "x"})
    assert result.is_error
    assert result.structured_content["error"]["code"] == "input_error"
    assert result.structured_content["error"]["exit_code"] == 2


async def test_an_unknown_id_is_a_tool_error_with_exit_code_4(project):
    async with Client(build_server(project)) as client:
        result = await client.call_tool("handoff_validate", {"id": "0123abcd"})
    assert result.is_error
    error = result.structured_content["error"]
    assert (error["code"], error["exit_code"]) == ("not_found", 4)
    assert json.loads(result.content[0].text) == result.structured_content  # the text is the same JSON


async def test_arguments_that_break_the_input_schema_are_an_input_error_listing_each_problem(project):
    async with Client(build_server(project)) as client:
        result = await client.call_tool("handoff_list", {"status": "finished", "limit": "many"})
    assert result.is_error
    error = result.structured_content["error"]
    assert (error["code"], error["exit_code"]) == ("input_error", 2)
    assert [p.split(":")[0] for p in error["details"]["problems"]] == ["status", "limit"]


async def test_an_unexpected_failure_is_an_internal_error_result_without_a_traceback(project, monkeypatch):
    import baton.commands.listing

    def broken(*args, **kwargs):
        raise RuntimeError("index exploded")

    monkeypatch.setattr(baton.commands.listing, "list_handoffs", broken)
    async with Client(build_server(project)) as client:
        result = await client.call_tool("handoff_list", {})
    assert result.is_error
    assert result.structured_content["error"] == {"code": "internal_error", "exit_code": 1,
                                                  "message": "RuntimeError: index exploded"}
    assert "Traceback" not in result.content[0].text


async def test_an_uninitialised_project_gives_the_not_initialized_error_and_writes_nothing(project_dir):
    async with Client(build_server(project_dir)) as client:
        result = await client.call_tool("handoff_capture", payload())
    assert result.is_error
    assert result.structured_content["error"]["code"] == "not_initialized"
    assert not (project_dir / ".baton").exists()


async def test_baton_status_over_a_real_stdio_connection(project):
    from mcp import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "baton", "mcp", "--project", str(project)],
                                   env=dict(os.environ), cwd=str(project))
    async with Client(params) as client:
        result = await client.call_tool("baton_status", {})
    assert not result.is_error, result.content
    project_id = json.loads((project / ".baton" / "config.json").read_text())["project_id"]
    assert result.structured_content["config"]["project_id"] == project_id
    assert result.structured_content["latest"] is None


def test_baton_mcp_json_lists_the_tools_and_exits(project):
    out = baton_json(project, "mcp")
    assert [t["name"] for t in out["tools"]] == list(TOOL_NAMES)
    assert out["not_available"] == list(NOT_AVAILABLE)


async def test_an_unknown_tool_is_a_not_found_error_naming_the_tools(project):
    async with Client(build_server(project)) as client:
        result = await client.call_tool("handoff_teleport", {})
    assert result.is_error
    error = result.structured_content["error"]
    assert (error["code"], error["exit_code"]) == ("not_found", 4)
    assert "handoff_teleport" in error["message"] and "handoff_capture" in error["message"]


async def test_oversized_arguments_are_an_input_error_and_nothing_is_written(project):
    ledger_before = sorted(p.read_bytes() for p in (project / ".baton" / "ledger").glob("*.jsonl"))
    async with Client(build_server(project)) as client:
        result = await client.call_tool("handoff_capture", {"work": {"title": "t" * (2 * 1024 * 1024),
                                                                    "objective": "o"}})
    assert result.is_error
    assert result.structured_content["error"]["code"] == "input_error"
    assert sorted(p.read_bytes() for p in (project / ".baton" / "ledger").glob("*.jsonl")) == ledger_before


async def test_the_server_tells_the_agent_not_to_bootstrap_again_after_a_hooks_brief(project):
    """A harness shows the server's instructions to every agent: an unconditional "call
    `bootstrap` at session start" sent agents whose hook had already delivered (and claimed)
    the baton to a second brief without it. Both the instructions and the tool name the
    hook brief's own last line, so the agent can tell the two cases apart — without a
    session id of their own that an agent could take for its session's."""
    import re

    from baton.commands.harness_start import session_line

    assert session_line("ID", "claude-code").startswith("This is claude-code session ")
    async with Client(build_server(project)) as client:
        instructions = client.instructions or ""
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    bootstrap = " ".join((tools["bootstrap"].description or "").split())
    assert "unless a hook already put Baton's brief in your context" in instructions
    for text in (instructions, bootstrap):
        assert '"This is HARNESS session …", names your session id' in text
        assert re.search(r"This is \S+ session `", text) is None


async def test_handoff_list_lists_at_most_the_agent_cap_and_says_more_are_left(repo, monkeypatch):
    """A limit past the cap lists the cap's number, newest first, with ``more`` and ``total``
    telling the rest (a year's project answered 1 MB in one tool result: tester team15 G8)."""
    import baton.mcp_server

    monkeypatch.setattr(baton.mcp_server, "AGENT_LIST_MAX", 2)
    async with Client(build_server(repo)) as client:
        for _ in range(3):
            await client.call_tool("handoff_capture", payload())
        listed = await client.call_tool("handoff_list", {"limit": 100000})
    every = baton_json(repo, "handoff", "list", "--limit", "0")
    assert listed.structured_content["count"] == 2 and listed.structured_content["more"] is True
    assert listed.structured_content["total"] == 3
    assert [h["id"] for h in listed.structured_content["handoffs"]] == [h["id"] for h in every["handoffs"]][:2]
