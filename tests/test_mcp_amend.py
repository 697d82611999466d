"""The MCP ``handoff_amend`` tool: ``baton handoff amend`` for agents (docs/mcp.md), through the
same application method — a draft is revised in place, a ready handoff gets a draft child with
relation amend, an archived one is refused — with a closed schema that refuses an empty
amendment, and a large record not echoed. The SDK's in-process client."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from baton.mcp_server import build_server
from tests.handoff_support import baton_json, ledger_lines, payload

pytestmark = pytest.mark.anyio

AWS_KEY = "AKIAQ7XJ3KZP5HWN4TLA"  # synthetic: the shape of an AWS access key id, never a real one
BIG_EVIDENCE = [{"type": "observation", "claim": f"observation {i}: " + "x" * 900} for i in range(300)]


@pytest.fixture
def anyio_backend():
    return "asyncio"


async def _call(client: Client, tool: str, arguments: dict) -> dict:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return result.structured_content


async def _draft(client: Client, **overrides) -> str:
    return (await _call(client, "handoff_capture", payload(**overrides)))["id"]


async def _ready(client: Client) -> str:
    handoff_id = await _draft(client)
    await _call(client, "handoff_validate", {"id": handoff_id})
    await _call(client, "handoff_ready", {"id": handoff_id, "accept_warnings": "synthetic test data"})
    return handoff_id


async def test_amending_a_draft_revises_it_in_place(project):
    async with Client(build_server(project)) as client:
        draft = await _draft(client)
        out = await _call(client, "handoff_amend", {"id": draft, "changes": {"work": {"title": "Callback checks"}}})
    assert (out["id"], out["status"], out["revised"]) == (draft, "draft", True)
    assert out["handoff"]["work"]["title"] == "Callback checks"
    assert baton_json(project, "handoff", "show", draft)["handoff"]["work"]["title"] == "Callback checks"


async def test_amending_a_ready_handoff_creates_a_draft_child_with_relation_amend(project):
    async with Client(build_server(project)) as client:
        ready = await _ready(client)
        out = await _call(client, "handoff_amend", {"id": ready, "changes": {"summary": {"completed": ["fixture"]}}})
    assert out["id"] != ready and out["status"] == "draft" and out["revised"] is False
    assert out["lineage"]["relation"] == "amend" and out["lineage"]["parents"] == [ready]
    assert baton_json(project, "handoff", "show", ready)["handoff"]["status"] == "ready"  # the parent never changes


async def test_the_amendment_is_the_one_the_command_line_makes_from_the_same_changes(project):
    async with Client(build_server(project)) as client:
        over_mcp = await _draft(client)
        on_cli = await _draft(client)
        await _call(client, "handoff_amend", {"id": over_mcp, "changes": {"work": {"title": "Callback checks"}},
                                              "close_items": ["O-001"]})
    baton_json(project, "handoff", "amend", on_cli, "--title", "Callback checks", "--close-item", "O-001")
    shown = [baton_json(project, "handoff", "show", ident)["handoff"] for ident in (over_mcp, on_cli)]
    for part in ("work", "summary", "open_items", "status", "validation"):
        assert shown[0][part] == shown[1][part], part


async def test_closing_and_dropping_items_records_the_edits(project):
    decision = {"decision": "Auth: compare state in constant time", "rationale": "a timing oracle"}
    async with Client(build_server(project)) as client:
        draft = await _draft(client, decisions=[decision])
        out = await _call(client, "handoff_amend", {"id": draft, "close_items": ["O-001"], "drop_items": ["D-001"]})
    assert out["handoff"]["open_items"] == [] and out["handoff"]["decisions"] == []
    assert "Add the duplicate-callback fixture" in out["handoff"]["summary"]["completed"]
    assert {(e["op"], e["target"]) for e in out["edits"]} == {("close", "O-001"), ("drop", "D-001")}


async def test_evidence_added_after_a_drop_takes_a_new_id_and_a_cited_drop_is_refused(project):
    evidence = [{"type": "test", "ref": "pytest tests/test_cache.py", "claim": "cache works", "result": "fail"},
                {"type": "observation", "claim": "the cache is warm"}]
    decision = {"decision": "Keep the LRU cache", "evidence_ids": ["E-001"]}
    async with Client(build_server(project)) as client:
        draft = await _draft(client, evidence=evidence, decisions=[decision])
        refused = await client.call_tool("handoff_amend", {"id": draft, "drop_items": ["E-001"]})
        await _call(client, "handoff_amend", {"id": draft, "drop_items": ["E-002"]})
        lint = {"type": "command", "ref": "npm run lint", "claim": "lint is clean", "result": "pass"}
        out = await _call(client, "handoff_amend", {"id": draft, "changes": {"evidence": [lint]}})
    assert refused.is_error and "E-001 is cited by D-001 (evidence_ids)" in refused.content[0].text
    assert [e["id"] for e in out["handoff"]["evidence"]] == ["E-001", "E-003"]
    assert out["handoff"]["decisions"][0]["evidence_ids"] == ["E-001"]


async def test_replace_lists_sets_a_list_section_whole(project):
    new_items = [{"description": "Run the full suite", "suggested_action": "pytest -q",
                  "acceptance_check": "every test passes"}]
    async with Client(build_server(project)) as client:
        draft = await _draft(client)
        out = await _call(client, "handoff_amend", {"id": draft, "replace_lists": {"open_items": new_items}})
    assert [i["description"] for i in out["handoff"]["open_items"]] == ["Run the full suite"]


async def test_an_amendment_without_any_change_is_refused_and_nothing_is_written(project):
    async with Client(build_server(project)) as client:
        draft = await _draft(client)
        before = ledger_lines(project)
        result = await client.call_tool("handoff_amend", {"id": draft, "session_id": "s-1"})
    assert result.is_error
    error = result.structured_content["error"]
    assert (error["code"], error["exit_code"]) == ("input_error", 2)
    assert error["message"].startswith("nothing to amend: give changes, replacement sections, or items to close")
    assert ledger_lines(project) == before


async def test_a_misspelled_field_in_changes_is_refused_with_its_path(project):
    async with Client(build_server(project)) as client:
        draft = await _draft(client)
        result = await client.call_tool("handoff_amend", {"id": draft, "changes": {"work": {"titel": "x"}}})
    assert result.is_error and "changes.work.titel: unknown field" in result.structured_content["error"]["message"]


async def test_an_archived_handoff_is_refused_and_nothing_is_written(project):
    async with Client(build_server(project)) as client:
        draft = await _draft(client)
        baton_json(project, "handoff", "archive", draft)
        before = ledger_lines(project)
        result = await client.call_tool("handoff_amend", {"id": draft, "changes": {"work": {"title": "x"}}})
    assert result.is_error
    error = result.structured_content["error"]
    assert (error["code"], error["exit_code"]) == ("invalid_transition", 4)
    assert ledger_lines(project) == before


async def test_a_secret_in_an_amendment_is_redacted_before_it_is_written(project):
    async with Client(build_server(project)) as client:
        draft = await _draft(client)
        out = await _call(client, "handoff_amend", {"id": draft, "changes": {
            "summary": {"current_state": f"Deployed with key {AWS_KEY}."}}})
    assert out["redactions"] and AWS_KEY not in json.dumps(out)
    assert not [p for p in (project / ".baton").rglob("*.json*") if AWS_KEY.encode() in p.read_bytes()]


async def test_an_amended_record_over_32_kib_is_not_echoed(project):
    async with Client(build_server(project)) as client:
        draft = await _draft(client, evidence=BIG_EVIDENCE)
        amended = await client.call_tool("handoff_amend", {"id": draft, "changes": {"work": {"title": "big"}}})
    out = amended.structured_content
    assert not amended.is_error and out["revised"] is True
    assert out["handoff"] is None and out["record_omitted"] is True
    assert len(amended.content[0].text) < 4_000


async def test_a_small_amended_record_is_echoed_whole(project):
    async with Client(build_server(project)) as client:
        draft = await _draft(client)
        out = await _call(client, "handoff_amend", {"id": draft, "changes": {"work": {"title": "small"}}})
    assert out["handoff"]["id"] == draft and "record_omitted" not in out


@pytest.mark.parametrize("tool", ["handoff_capture", "handoff_amend"])
async def test_a_path_outside_the_project_is_refused_with_the_code_the_description_names(project, tool):
    outside = {"path": "../elsewhere.py", "role": "modified"}
    async with Client(build_server(project)) as client:
        described = {t.name: " ".join((t.description or "").split()) for t in (await client.list_tools()).tools}
        if tool == "handoff_capture":
            result = await client.call_tool(tool, payload(artifacts=[outside]))
        else:
            draft = await _draft(client)
            result = await client.call_tool(tool, {"id": draft, "changes": {"artifacts": [outside]}})
    assert result.is_error
    error = result.structured_content["error"]
    assert (error["code"], error["exit_code"]) == ("unsafe_path", 5), error["message"]
    assert "a path outside the project (unsafe_path, exit 5)" in described[tool]


@pytest.mark.parametrize("changes", [{"summary": {}}, {"work": {}}], ids=str)
async def test_an_amendment_that_changes_nothing_is_refused_and_writes_nothing(project, changes):
    async with Client(build_server(project)) as client:
        ready = await _ready(client)
        before = ledger_lines(project)
        result = await client.call_tool("handoff_amend", {"id": ready, "changes": changes})
    assert result.is_error
    error = result.structured_content["error"]
    assert (error["code"], error["exit_code"]) == ("input_error", 2)
    assert error["message"].startswith("nothing to amend: ")
    assert ledger_lines(project) == before
