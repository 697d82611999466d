"""``handoff list`` pages through every match, over MCP and on the command line alike (tester27 T6).

Before, MCP ``handoff_list`` answered at most the newest 200 (``more`` true, ``total``
238) with no way to the rest, and the CLI had only ``--limit 0``. A page cut short by
its limit now gives ``next_cursor``; the same arguments with ``cursor`` set to it (CLI:
``--cursor``) list the next page — keyset paging on the newest-first order, so a page
captured into meanwhile neither repeats nor skips a row. Real MCP calls
(``mcp.Client`` on the server ``baton mcp`` runs) and real CLI processes."""

from __future__ import annotations

import pytest
from mcp import Client

from baton.mcp_server import build_server
from tests.conftest import run_baton
from tests.handoff_support import baton_json, payload

pytestmark = pytest.mark.anyio
CAPTURED = 7


@pytest.fixture
def anyio_backend():
    return "asyncio"


def titled(title: str) -> dict:
    body = payload()
    body["work"] = dict(body["work"], title=title)
    return body


@pytest.fixture
async def listed(project):
    """``CAPTURED`` handoffs captured over MCP; their ids, newest first."""
    async with Client(build_server(project)) as client:
        for n in range(CAPTURED):
            captured = await client.call_tool("handoff_capture", titled(f"handoff {n}"))
            assert not captured.is_error, captured.content
        every = await client.call_tool("handoff_list", {"limit": 200})
    return project, [h["id"] for h in every.structured_content["handoffs"]]


async def pages_over_mcp(client: Client, limit: int, **arguments) -> list[dict]:
    pages, cursor = [], None
    while True:
        called = await client.call_tool("handoff_list", {"limit": limit, **arguments,
                                                         **({"cursor": cursor} if cursor else {})})
        assert not called.is_error, called.content
        pages.append(called.structured_content)
        if not called.structured_content["more"]:
            return pages
        cursor = called.structured_content["next_cursor"]


async def test_mcp_lists_every_handoff_page_by_page_by_next_cursor(listed):
    project, ids = listed
    async with Client(build_server(project)) as client:
        pages = await pages_over_mcp(client, 3)

    assert [page["count"] for page in pages] == [3, 3, 1]
    assert [h["id"] for page in pages for h in page["handoffs"]] == ids
    assert all(page["total"] == CAPTURED for page in pages)
    assert pages[-1]["more"] is False and pages[-1]["next_cursor"] is None


async def test_mcp_pages_keep_the_filters(listed):
    project, ids = listed
    async with Client(build_server(project)) as client:
        pages = await pages_over_mcp(client, 2, status="draft", work="handoff")
    assert [h["id"] for page in pages for h in page["handoffs"]] == ids


async def test_the_cli_lists_the_page_the_mcp_cursor_names(listed):
    project, _ = listed
    async with Client(build_server(project)) as client:
        first = (await client.call_tool("handoff_list", {"limit": 3})).structured_content
        second = (await client.call_tool("handoff_list", {"limit": 3, "cursor": first["next_cursor"]})).structured_content

    cli = baton_json(project, "handoff", "list", "--limit", "3", "--cursor", first["next_cursor"])

    assert [h["id"] for h in cli["handoffs"]] == [h["id"] for h in second["handoffs"]]
    assert cli["next_cursor"] == second["next_cursor"] and cli["total"] == CAPTURED


async def test_the_cli_pages_through_every_handoff_by_the_cursor_it_prints(listed):
    project, ids = listed
    seen, cursor = [], None
    for _ in range(CAPTURED):
        r = run_baton("handoff", "list", "--limit", "3", *(["--cursor", cursor] if cursor else []),
                      "--project", str(project))
        assert r.returncode == 0, r.stderr
        seen += [line.split()[0] for line in r.stdout.splitlines()]
        if "--cursor" not in r.stderr:
            break
        assert f"of {CAPTURED} handoffs shown" in r.stderr
        cursor = r.stderr.split("--cursor ", 1)[1].split()[0]
    assert seen == [i[-8:] for i in ids]


async def test_a_capture_between_two_pages_neither_repeats_nor_skips_a_row(listed):
    project, ids = listed
    async with Client(build_server(project)) as client:
        first = (await client.call_tool("handoff_list", {"limit": 3})).structured_content
        await client.call_tool("handoff_capture", titled("captured between the pages"))
        rest = await pages_over_mcp(client, 3, **{})  # from the top again: the new one comes first
        after = (await client.call_tool("handoff_list", {"limit": 100, "cursor": first["next_cursor"]})).structured_content

    assert [h["id"] for h in first["handoffs"]] + [h["id"] for h in after["handoffs"]] == ids
    assert rest[0]["handoffs"][0]["title"] == "captured between the pages"


async def test_a_cursor_no_listing_gave_is_an_input_error_over_mcp_and_on_the_command_line(listed):
    project, _ = listed
    async with Client(build_server(project)) as client:
        refused = await client.call_tool("handoff_list", {"cursor": "page-2"})
    assert refused.is_error and refused.structured_content["error"]["code"] == "input_error"

    r = run_baton("handoff", "list", "--cursor", "page-2", "--project", str(project))
    assert r.returncode == 2 and "--cursor must be the next_cursor" in r.stderr and "Traceback" not in r.stderr


async def test_the_mcp_tool_schema_documents_the_cursor(project):
    async with Client(build_server(project)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    tool = tools["handoff_list"]
    assert "next_cursor" in tool.input_schema["properties"]["cursor"]["description"]
    assert "next_cursor" in tool.output_schema["properties"]
    assert "cursor" in tool.description
