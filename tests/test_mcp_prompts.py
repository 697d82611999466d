"""`baton mcp`: the MCP prompts (slash commands), the resources, the tools' annotations and the
`prompt` tool's new name (issue 26).
"""

from __future__ import annotations

import json

import pytest
from mcp import Client, MCPError
from mcp.types import INVALID_PARAMS

from baton.mcp_server import PROMPT_NAMES, TOOL_NAMES, build_server
from tests.conftest import run_baton
from tests.handoff_support import payload

pytestmark = pytest.mark.anyio

STRIPE_KEY = "sk" + "_live_" + "GRdZO0egKe6lqGt8u66AKNHV"  # synthetic: a Stripe secret key's shape
DB_PASSWORD = "VTbROYNFW" + "DAHRiWGWp"  # synthetic


@pytest.fixture
def anyio_backend():
    return "asyncio"


async def _ready(client: Client, **overrides) -> dict:
    """A ready handoff captured through the tools: its capture result."""
    captured = await client.call_tool("handoff_capture", payload(**overrides))
    handoff_id = captured.structured_content["id"]
    await client.call_tool("handoff_validate", {"id": handoff_id})
    ready = await client.call_tool("handoff_ready", {"id": handoff_id, "accept_warnings": "synthetic test data"})
    assert ready.structured_content["status"] == "ready", ready.content
    return captured.structured_content


def _text(result) -> str:
    (message,) = result.messages
    return message.content.text


# -- prompts ---------------------------------------------------------------------------

async def test_the_prompts_are_listed_with_titles_and_descriptions(project):
    async with Client(build_server(project)) as client:
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
    assert set(prompts) == set(PROMPT_NAMES) == {"handoff", "resume", "brief", "pickup"}
    assert all(p.title and p.description for p in prompts.values())


async def test_the_resume_prompt_takes_one_optional_id(project):
    async with Client(build_server(project)) as client:
        (resume,) = [p for p in (await client.list_prompts()).prompts if p.name == "resume"]
    assert [(a.name, a.required) for a in resume.arguments] == [("id", False)]


async def test_the_handoff_prompt_names_every_section_the_capture_tool_takes(project):
    from baton.mcp_schemas import input_schemas

    sections = [name for name, schema in input_schemas()["handoff_capture"]["properties"].items()
                if schema.get("type") in ("object", "array")]
    async with Client(build_server(project)) as client:
        text = _text(await client.get_prompt("handoff"))
    assert sections and all(f"- {name}" in text for name in sections)
    assert "objective (required)" in text and "acceptance_check" in text


async def test_the_handoff_prompt_names_the_tools_to_call_in_order(project):
    async with Client(build_server(project)) as client:
        text = _text(await client.get_prompt("handoff"))
    positions = [text.index(f"`{tool}`") for tool in ("handoff_capture", "handoff_validate", "handoff_ready")]
    assert positions == sorted(positions)


async def test_the_handoff_prompt_amends_a_prepared_draft_and_a_failed_one_in_place_with_handoff_amend(project):
    async with Client(build_server(project)) as client:
        text = " ".join(_text(await client.get_prompt("handoff")).split())
    capture_step, validate_step = text[text.index("1. "):text.index("2. ")], text[text.index("2. "):text.index("3. ")]
    assert "`handoff_amend` with `id` set to the draft's id" in capture_step
    assert "`handoff_amend` (`id`: the draft" in validate_step and "`parent`" not in validate_step


async def test_the_handoff_prompt_tells_the_agent_to_pass_the_session_id_its_brief_names(project):
    """Without it, a handoff made through the slash command was the session's only by the
    fallback window (docs/hooks.md), which hands nothing on beside another open session."""
    import re

    from baton.commands.harness_start import session_line

    assert session_line("ID", "claude-code").startswith("This is claude-code session ")
    async with Client(build_server(project)) as client:
        text = _text(await client.get_prompt("handoff"))
    capture_step = " ".join(text[text.index("1. "):text.index("2. ")].split())
    assert "`session_id`" in capture_step and '"This is HARNESS session …"' in capture_step
    assert re.search(r"This is \S+ session `", text) is None  # no id of its own to take for the session's


async def test_the_handoff_prompt_carries_the_users_focus(project):
    async with Client(build_server(project)) as client:
        text = _text(await client.get_prompt("handoff", {"focus": "the flaky login test"}))
    assert text.rstrip().endswith("the flaky login test")


async def test_the_handoff_prompt_screens_a_secret_in_the_users_focus(project):
    async with Client(build_server(project)) as client:
        text = _text(await client.get_prompt("handoff", {"focus": f"stripe key {STRIPE_KEY}"}))
    assert STRIPE_KEY not in text
    assert text.rstrip().endswith("stripe key [REDACTED:stripe-secret-key]")


async def test_the_handoff_prompt_writes_nothing(project):
    def ledger() -> dict:
        return {p.name: p.read_bytes() for p in (project / ".baton").rglob("*.jsonl")}

    before = ledger()
    async with Client(build_server(project)) as client:
        await client.get_prompt("handoff")
    assert ledger() == before


async def test_the_resume_prompt_defaults_to_the_latest_ready_handoff(project):
    async with Client(build_server(project)) as client:
        await _ready(client, work={"title": "Older work", "objective": "an older objective"})
        await _ready(client, work={"title": "Newest work", "objective": "the newest objective"})
        text = _text(await client.get_prompt("resume"))
    assert "the newest objective" in text and "an older objective" not in text


async def test_the_resume_prompt_renders_the_handoff_it_names(project):
    async with Client(build_server(project)) as client:
        older = await _ready(client, work={"title": "Older work", "objective": "an older objective"})
        await _ready(client, work={"title": "Newest work", "objective": "the newest objective"})
        text = _text(await client.get_prompt("resume", {"id": older["short_id"]}))
    assert "an older objective" in text and "the newest objective" not in text


async def test_the_resume_prompt_is_the_resume_tools_brief(project):
    async with Client(build_server(project)) as client:
        captured = await _ready(client)
        text = _text(await client.get_prompt("resume", {"id": captured["id"]}))
        tool = await client.call_tool("handoff_resume", {"id": captured["id"]})
    assert text.endswith(tool.structured_content["brief"]["text"].rstrip("\n"))


async def test_the_resume_prompt_of_an_unknown_id_is_a_protocol_error_with_the_exit_code(project):
    async with Client(build_server(project)) as client:
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("resume", {"id": "0123abcd"})
    assert caught.value.error.data["error"]["code"] == "not_found"
    assert caught.value.error.data["error"]["exit_code"] == 4


async def test_an_unknown_prompt_is_an_invalid_params_error_naming_the_prompts(project):
    async with Client(build_server(project)) as client:
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("nope")
    assert caught.value.error.code == INVALID_PARAMS
    assert caught.value.error.message == "unknown prompt 'nope'; the prompts are: handoff, resume, brief, pickup"
    assert caught.value.error.data["error"]["code"] == "not_found"


async def test_a_prompt_argument_the_prompt_does_not_take_is_an_invalid_params_error_naming_it(project):
    async with Client(build_server(project)) as client:
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("handoff", {"bogus": "x"})
    assert caught.value.error.code == INVALID_PARAMS
    assert "bogus: unknown argument (allowed: focus)" in caught.value.error.message
    assert (caught.value.error.data["error"]["code"], caught.value.error.data["error"]["exit_code"]) == ("input_error", 2)


def test_bad_prompt_requests_leave_no_traceback_on_the_servers_stderr(project):
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    lines = [init, {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": {"name": "nope"}},
             {"jsonrpc": "2.0", "id": 2, "method": "prompts/get",
              "params": {"name": "handoff", "arguments": {"bogus": "x"}}}]
    done = run_baton("mcp", "--project", str(project), input="".join(json.dumps(line) + "\n" for line in lines))
    errors = {a["id"]: a["error"]["code"] for a in map(json.loads, done.stdout.splitlines()) if "error" in a}
    assert errors == {1: INVALID_PARAMS, 2: INVALID_PARAMS}
    assert "Traceback" not in done.stderr, done.stderr[-2000:]


async def test_the_brief_prompt_shows_the_waiting_baton_without_claiming_it(project):
    handoff = {"nextSteps": ["Run the migration dry-run"]}
    async with Client(build_server(project)) as client:
        await client.call_tool("baton_session", {"action": "session_end", "session_id": "s-1", "handoff": handoff})
        text = _text(await client.get_prompt("brief"))
        claimed = await client.call_tool("bootstrap", {"session_id": "s-2"})
    assert "Run the migration dry-run" in text
    assert claimed.structured_content["claimed"] is True


async def test_the_pickup_prompt_asks_the_agent_to_call_bootstrap(project):
    async with Client(build_server(project)) as client:
        text = _text(await client.get_prompt("pickup"))
    assert "`bootstrap`" in text


async def test_the_pickup_prompt_reads_plainly_and_says_a_second_call_claims_nothing_more(project):
    async with Client(build_server(project)) as client:
        text = _text(await client.get_prompt("pickup"))
    assert "Baton baton" not in text
    assert "claims nothing more" in text


async def test_a_prompt_in_an_uninitialised_project_says_not_initialized(project_dir):
    async with Client(build_server(project_dir)) as client:
        with pytest.raises(MCPError) as caught:
            await client.get_prompt("brief")
    assert caught.value.error.data["error"]["code"] == "not_initialized"


# -- resources -------------------------------------------------------------------------

async def test_the_latest_brief_is_a_listed_resource(project):
    async with Client(build_server(project)) as client:
        uris = [str(r.uri) for r in (await client.list_resources()).resources]
    assert "baton://brief/latest" in uris


async def test_each_handoff_is_a_resource_template(project):
    async with Client(build_server(project)) as client:
        templates = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
    assert templates == ["baton://handoff/{id}"]


async def test_reading_the_latest_brief_gives_the_newest_ready_handoffs_brief(project):
    async with Client(build_server(project)) as client:
        await _ready(client, work={"title": "Newest work", "objective": "the newest objective"})
        read = await client.read_resource("baton://brief/latest")
        tool = await client.call_tool("handoff_resume", {})
    (content,) = read.contents
    assert content.text.endswith(tool.structured_content["brief"]["text"].rstrip("\n"))


async def test_reading_the_latest_brief_before_any_handoff_is_ready_is_an_error(project):
    async with Client(build_server(project)) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource("baton://brief/latest")
    assert caught.value.error.data["error"]["code"] == "not_found"


async def test_reading_a_handoff_resource_gives_its_markdown_brief(project):
    async with Client(build_server(project)) as client:
        captured = await _ready(client)
        read = await client.read_resource(f"baton://handoff/{captured['short_id']}")
    (content,) = read.contents
    assert content.mime_type == "text/markdown"
    assert "Invalid state values are rejected" in content.text


async def test_a_draft_is_not_readable_as_a_handoff_resource(project):
    async with Client(build_server(project)) as client:
        captured = await client.call_tool("handoff_capture", payload())
        with pytest.raises(MCPError) as caught:
            await client.read_resource(f"baton://handoff/{captured.structured_content['id']}")
    assert caught.value.error.data["error"]["exit_code"] == 4


async def test_a_resource_uri_no_template_matches_is_an_invalid_params_error_with_the_secret_screened(project):
    uri = f"baton://handoff/DATABASE_URL=postgres://app:{DB_PASSWORD}@db.internal:5432/app"
    async with Client(build_server(project)) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource(uri)
    error = caught.value.error
    assert error.code == INVALID_PARAMS
    assert DB_PASSWORD not in error.message and DB_PASSWORD not in json.dumps(error.data)
    assert error.message.startswith("unknown resource 'baton://handoff/DATABASE_URL=")
    assert (error.data["error"]["code"], error.data["error"]["exit_code"]) == ("not_found", 4)


async def test_an_unknown_resource_uri_names_the_resources_there_are_with_the_secret_redacted(project):
    uri = f"baton://handoff/keys/{STRIPE_KEY}"
    async with Client(build_server(project)) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource(uri)
    assert STRIPE_KEY not in caught.value.error.message and STRIPE_KEY not in json.dumps(caught.value.error.data)
    assert caught.value.error.message == ("unknown resource 'baton://handoff/keys/[REDACTED:stripe-secret-key]'; the "
                                          "resources are baton://brief/latest and baton://handoff/{id} (an id holds "
                                          "no '/')")


async def test_ready_handoffs_are_listed_as_resources_with_their_titles(project):
    async with Client(build_server(project)) as client:
        captured = await _ready(client, work={"title": "Listed work", "objective": "an objective"})
        draft = await client.call_tool("handoff_capture", payload())
        resources = {str(r.uri): r for r in (await client.list_resources()).resources}
    assert resources[f"baton://handoff/{captured['id']}"].title == "Listed work"
    assert f"baton://handoff/{draft.structured_content['id']}" not in resources


async def test_listing_resources_in_an_uninitialised_project_lists_only_the_brief(project_dir):
    async with Client(build_server(project_dir)) as client:
        uris = [str(r.uri) for r in (await client.list_resources()).resources]
    assert uris == ["baton://brief/latest"]


# -- tools: annotations and the renamed `prompt` -------------------------------------------

async def test_every_tool_has_a_title_and_every_hint(project):
    async with Client(build_server(project)) as client:
        tools = (await client.list_tools()).tools
    for tool in tools:
        hints = tool.annotations
        assert tool.title and hints.title == tool.title, tool.name
        assert None not in (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint), tool.name


async def test_only_the_reading_tools_are_read_only(project):
    async with Client(build_server(project)) as client:
        tools = (await client.list_tools()).tools
    assert sorted(t.name for t in tools if t.annotations.read_only_hint) == ["baton_status", "handoff_list"]


async def test_only_baton_session_is_destructive(project):
    async with Client(build_server(project)) as client:
        tools = (await client.list_tools()).tools
    assert [t.name for t in tools if t.annotations.destructive_hint] == ["baton_session"]


async def test_the_session_tool_is_listed_as_baton_session_not_prompt(project):
    async with Client(build_server(project)) as client:
        names = [t.name for t in (await client.list_tools()).tools]
    assert "baton_session" in names and "prompt" not in names
    assert sorted(names) == sorted(TOOL_NAMES)


async def test_the_old_prompt_tool_name_still_answers_as_baton_session(project):
    async with Client(build_server(project)) as client:
        old = await client.call_tool("prompt", {"action": "cancel_handoff"})
        new = await client.call_tool("baton_session", {"action": "cancel_handoff"})
    assert not old.is_error
    assert old.structured_content == new.structured_content


def test_baton_mcp_json_lists_the_prompts_and_resources(project):
    from tests.handoff_support import baton_json

    out = baton_json(project, "mcp")
    assert [p["name"] for p in out["prompts"]] == list(PROMPT_NAMES)
    assert out["resources"] == ["baton://brief/latest", "baton://handoff/{id}"]
