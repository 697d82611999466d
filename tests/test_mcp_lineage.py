"""MCP ``handoff_fork``, ``handoff_merge`` and ``handoff_detect``: the same methods as the CLI (§13)."""

from __future__ import annotations

import pytest
from mcp import Client

from baton.mcp_server import build_server
from tests.app_support import _call, promote_handoff, validate_handoff_command
from tests.handoff_support import ledger_lines, payload

pytestmark = pytest.mark.anyio

SPEC_TOOLS = ("baton_status", "handoff_capture", "handoff_validate", "handoff_ready", "handoff_resume",
              "handoff_list", "handoff_fork", "handoff_merge", "handoff_detect")


@pytest.fixture
def anyio_backend():
    return "asyncio"


def _ready(project) -> str:
    handoff_id = _call(project, "capture", payload()).handoff_id
    validate_handoff_command(project, handoff_id)
    promote_handoff(project, handoff_id, accept_warnings="synthetic test record")
    return handoff_id


async def test_all_nine_spec_tools_are_listed(project):
    async with Client(build_server(project)) as client:
        names = {t.name for t in (await client.list_tools()).tools}
    assert set(SPEC_TOOLS) <= names


async def test_handoff_fork_creates_a_linked_draft(project):
    parent = _ready(project)
    async with Client(build_server(project)) as client:
        result = await client.call_tool("handoff_fork", {"id": parent, "label": "spike"})
    assert not result.is_error, result.content
    lineage = result.structured_content["lineage"]
    assert (lineage["parents"], lineage["relation"], lineage["branch_label"]) == ([parent], "fork", "spike")
    assert result.structured_content["status"] == "draft"


async def test_handoff_merge_is_refused_without_a_resolution_and_made_with_one(project):
    parent = _ready(project)
    a = _call(project, "capture", payload(decisions=[{"id": "D-001", "decision": "Cache: LRU"}]), parent=parent)
    b = _call(project, "capture", payload(decisions=[{"id": "D-001", "decision": "Cache: none"}]), parent=parent)
    lines = ledger_lines(project)
    async with Client(build_server(project)) as client:
        refused = await client.call_tool("handoff_merge", {"ids": [a.handoff_id, b.handoff_id]})
        assert refused.is_error
        error = refused.structured_content["error"]
        assert (error["code"], error["exit_code"]) == ("merge_unresolved", 3)
        assert ledger_lines(project) == lines
        merged = await client.call_tool("handoff_merge", {"ids": [a.handoff_id, b.handoff_id],
                                                          "resolution": {"decision": "Cache: LRU, bounded"}})
    assert not merged.is_error, merged.content
    assert merged.structured_content["lineage"]["relation"] == "merge"
    assert len(merged.structured_content["resolved_conflicts"]) == 1


@pytest.mark.parametrize("decision", ["", "   "])
async def test_an_empty_merge_decision_is_refused_as_unresolved_as_on_the_cli(project, decision):
    parent = _ready(project)
    a = _call(project, "capture", payload(), parent=parent)
    b = _call(project, "capture", payload(), parent=parent)
    async with Client(build_server(project)) as client:
        refused = await client.call_tool("handoff_merge", {"ids": [a.handoff_id, b.handoff_id],
                                                           "resolution": {"decision": decision}})
    error = refused.structured_content["error"]
    assert (error["code"], error["exit_code"]) == ("merge_unresolved", 3)
    assert "empty decision" in error["message"]


async def test_handoff_detect_reports_without_creating_unless_asked(project):
    async with Client(build_server(project)) as client:
        report = await client.call_tool("handoff_detect", {"signals": {"handoff_request": True}})
        assert not report.is_error, report.content
        assert (report.structured_content["action"], report.structured_content["draft"]) == ("prepare", None)
        made = await client.call_tool("handoff_detect", {"signals": {"handoff_request": 1}, "prepare": True})
    assert made.structured_content["draft"] is not None


async def test_handoff_detect_refuses_unknown_and_out_of_range_signals(project):
    async with Client(build_server(project)) as client:
        unknown = await client.call_tool("handoff_detect", {"signals": {"mood": 0.5}})
        high = await client.call_tool("handoff_detect", {"signals": {"context_pressure": 3}})
    assert unknown.is_error and unknown.structured_content["error"]["exit_code"] == 2
    assert high.is_error and high.structured_content["error"]["exit_code"] == 2


async def test_handoff_detect_takes_the_explicit_request_alias_the_cli_takes(project):
    async with Client(build_server(project)) as client:
        aliased = await client.call_tool("handoff_detect", {"signals": {"explicit_request": True}})
        both = await client.call_tool("handoff_detect", {"signals": {"explicit_request": 1, "handoff_request": 0}})
    assert not aliased.is_error, aliased.content
    assert (aliased.structured_content["action"], aliased.structured_content["explicit_request"]) == ("prepare", True)
    assert not both.is_error and both.structured_content["explicit_request"] is True


async def test_handoff_detect_names_the_sessions_open_draft_when_asked_again(project):
    # docs/mcp.md and docs/detector.md: one open draft per session (draftKept).
    args = {"signals": {"explicit_request": True}, "prepare": True, "session_id": "mcp-s1"}
    async with Client(build_server(project)) as client:
        first = await client.call_tool("handoff_detect", args)
        again = await client.call_tool("handoff_detect", args)
    assert first.structured_content["draftKept"] is False and first.structured_content["draft"]
    assert again.structured_content["draftKept"] is True
    assert again.structured_content["draft"] == first.structured_content["draft"]
