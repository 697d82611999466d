"""The strict MCP surface: closed input schemas from the record schema, output
schemas, JSON text equal to the structured content, unknown arguments refused by
name, descriptions without docstring indentation."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from baton.mcp_schemas import check_arguments, handoff_schema, input_schemas
from baton.mcp_server import TOOL_NAMES, build_server
from tests.handoff_support import ledger_lines, payload

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


async def _tools(project) -> dict:
    async with Client(build_server(project)) as client:
        return {t.name: t for t in (await client.list_tools()).tools}


def _objects(schema):
    """Every object schema inside ``schema``."""
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            yield schema
        for value in schema.values():
            yield from _objects(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _objects(value)


async def test_every_input_schema_is_closed_at_every_level(project):
    for tool in (await _tools(project)).values():
        objects = list(_objects(tool.input_schema))
        assert objects and all(o.get("additionalProperties") is False for o in objects), tool.name


async def test_capture_sections_are_the_record_schemas_definitions(project):
    capture = (await _tools(project))["handoff_capture"].input_schema["properties"]
    defs = handoff_schema()["$defs"]
    assert capture["work"]["required"] == defs["work"]["required"]
    assert capture["failed_attempts"]["items"]["properties"]["outcome"] == defs["failed_attempt"]["properties"]["outcome"]
    assert capture["artifacts"]["items"]["properties"]["role"]["enum"] == defs["artifact"]["properties"]["role"]["enum"]
    assert "id" not in capture["decisions"]["items"]["required"]  # Baton assigns D-001…
    assert "output" in capture["evidence"]["items"]["properties"]


async def test_the_limits_the_use_cases_enforce_are_in_the_schemas(project):
    tools = await _tools(project)
    bootstrap = tools["bootstrap"].input_schema["properties"]
    assert (bootstrap["max_bytes"]["minimum"], bootstrap["session_id"]["maxLength"]) == (1024, 200)
    assert tools["handoff_resume"].input_schema["properties"]["max_tokens"]["minimum"] == 500
    assert tools["baton_session"].input_schema["properties"]["objective"]["maxLength"] == 2000
    assert tools["handoff_fork"].input_schema["properties"]["label"]["maxLength"] == 100


@pytest.mark.parametrize("misspelled", ["failed_attempt", "decision"])
async def test_a_misspelled_capture_argument_is_refused_by_name_and_nothing_is_written(project, misspelled):
    before = ledger_lines(project)
    async with Client(build_server(project)) as client:
        result = await client.call_tool("handoff_capture", {**payload(), misspelled: [{"approach": "x"}]})
    assert result.is_error
    error = result.structured_content["error"]
    assert error["code"] == "input_error" and error["exit_code"] == 2
    assert f"{misspelled}: unknown argument" in error["message"]
    assert ledger_lines(project) == before


async def test_a_misspelled_field_inside_a_section_is_refused_with_its_path(project):
    body = payload(decisions=[{"decision": "Compare in constant time", "rational": "timing oracle"}])
    async with Client(build_server(project)) as client:
        result = await client.call_tool("handoff_capture", body)
    assert "decisions[0].rational: unknown field" in result.structured_content["error"]["message"]


async def test_every_problem_is_reported_at_once(project):
    async with Client(build_server(project)) as client:
        result = await client.call_tool("bootstrap", {"max_bytes": 10, "session_id": "s" * 201, "peak": True})
    problems = result.structured_content["error"]["details"]["problems"]
    assert [p.split(":")[0] for p in problems] == ["max_bytes", "session_id", "peak"]


async def test_every_tool_declares_an_output_schema_its_results_meet(project):
    """The SDK client checks every successful result against the tool's output schema."""
    calls = {
        "baton_status": {}, "handoff_list": {}, "bootstrap": {"peek": True},
        "baton_session": {"action": "session_start", "session_id": "s1"},
        "handoff_capture": payload(),
    }
    async with Client(build_server(project)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert all(tools[name].output_schema["type"] == "object" for name in TOOL_NAMES)
        for name, arguments in calls.items():
            result = await client.call_tool(name, arguments)
            assert not result.is_error, (name, result.content)
        handoff_id = result.structured_content["id"]
        for name, arguments in (("handoff_validate", {"id": handoff_id}),
                                ("handoff_ready", {"id": handoff_id, "accept_warnings": "test data"}),
                                ("handoff_resume", {"id": handoff_id}),
                                ("handoff_amend", {"id": handoff_id, "changes": {"work": {"title": "amended"}}}),
                                ("baton_session", {"action": "session_end", "session_id": "s1"})):
            result = await client.call_tool(name, arguments)
            assert not result.is_error, (name, result.content)


async def test_the_text_content_is_the_structured_content_as_json(project):
    async with Client(build_server(project)) as client:
        ok = await client.call_tool("baton_status", {})
        failed = await client.call_tool("handoff_validate", {"id": "nothing-here"})
    for result in (ok, failed):
        (text,) = result.content
        assert json.loads(text.text) == result.structured_content


async def test_descriptions_keep_no_docstring_indentation(project):
    for tool in (await _tools(project)).values():
        assert "\n " not in tool.description and tool.description == tool.description.strip(), tool.name


def test_the_argument_check_accepts_what_the_schema_allows():
    schema = input_schemas()["handoff_capture"]
    assert check_arguments(schema, payload(failed_attempts=[{"approach": "x", "outcome": "failed"}])) == []
    assert check_arguments(schema, {"work": {"title": "t", "objective": "o", "state": None}}) == []


def test_each_tool_takes_exactly_the_arguments_its_schema_names_and_requires_what_it_requires(project):
    import inspect

    for name, (fn, _annotations) in build_server(project).baton_tools.items():
        schema = input_schemas()[name]
        parameters = inspect.signature(fn).parameters
        assert set(parameters) == set(schema["properties"]), name
        required = {p for p, spec in parameters.items() if spec.default is inspect.Parameter.empty}
        assert required == set(schema.get("required", ())), name


def test_a_wrong_type_is_named_in_json_terms_as_the_schema_names_types():
    schemas = input_schemas()
    assert check_arguments(schemas["handoff_validate"], {"id": None}) == ["id: must be string, not null"]
    assert check_arguments(schemas["handoff_merge"], {"ids": "a"}) == ["ids: must be array, not string"]
    assert check_arguments(schemas["handoff_list"], {"limit": 2.0}) == ["limit: must be integer, not number"]
    assert check_arguments(schemas["bootstrap"], {"peek": "yes"}) == ["peek: must be boolean, not string"]
    assert check_arguments(schemas["handoff_capture"], {"work": []}) == ["work: must be object, not array"]


async def test_session_end_without_a_session_id_names_the_argument(project):
    async with Client(build_server(project)) as client:
        result = await client.call_tool("baton_session", {"action": "session_end", "handoff": {"nextSteps": ["x"]}})
    assert result.is_error and "(session_id)" in result.structured_content["error"]["message"]


async def test_no_input_schema_has_a_combinator_at_its_top_level(project):
    """Anthropic's API refuses every request whose tools include one (anthropics/claude-code#5319):
    a harness passing the tools on would fail whatever the agent asks."""
    for tool in (await _tools(project)).values():
        assert not {"anyOf", "oneOf", "allOf", "not"} & set(tool.input_schema), tool.name


def test_the_amend_schema_takes_partial_work_in_changes_and_whole_work_in_replacement():
    schema = input_schemas()["handoff_amend"]
    assert check_arguments(schema, {"id": "latest", "changes": {"work": {"title": "t"}}}) == []
    assert check_arguments(schema, {"id": "latest", "replacement": {"work": {"title": "t"}}}) == [
        "replacement.work.objective: required"]
