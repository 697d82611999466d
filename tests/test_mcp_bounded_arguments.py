"""`baton mcp` bounds the length of its query, id and name arguments at the tool boundary (their
input schemas publish the limits; a call past one is an `input_error` naming it), and a search
query's cost stays small: a 1 MB `handoff_list` `work` query took 31-54 s, holding every other
call of the agent back (tester-use18 T13). Through the official client."""

from __future__ import annotations

import pytest
from mcp import Client

from baton.commands.listing import fts_query
from baton.domain.limits import HANDOFF_ID_MAX, NAME_ARGUMENT_MAX, QUERY_MAX
from baton.mcp_schemas import input_schemas
from baton.mcp_server import build_server
from tests.conftest import run_baton
from tests.handoff_support import payload

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


async def test_a_handoff_list_query_over_the_limit_is_an_input_error_naming_the_limit(project):
    async with Client(build_server(project)) as client:
        result = await client.call_tool("handoff_list", {"work": "word " * 200_000})
    error = result.structured_content["error"]
    assert result.is_error and (error["code"], error["exit_code"]) == ("input_error", 2)
    assert f"work: at most {QUERY_MAX} characters (got 1000000)" in error["message"]


async def test_a_handoff_list_query_at_the_limit_is_answered(project):
    async with Client(build_server(project)) as client:
        await client.call_tool("handoff_capture", payload())
        result = await client.call_tool("handoff_list", {"work": ("oauth " * QUERY_MAX)[:QUERY_MAX]})
    assert not result.is_error and result.structured_content["count"] == 1


async def test_an_id_argument_longer_than_a_full_id_is_an_input_error(project):
    async with Client(build_server(project)) as client:
        result = await client.call_tool("handoff_resume", {"id": "a" * 500_000})
    error = result.structured_content["error"]
    assert (error["code"], error["exit_code"]) == ("input_error", 2)
    assert f"id: at most {HANDOFF_ID_MAX} characters" in error["message"]


async def test_an_owner_argument_past_the_name_limit_is_an_input_error(project):
    async with Client(build_server(project)) as client:
        result = await client.call_tool("bootstrap", {"owner": "o" * (NAME_ARGUMENT_MAX + 1), "peek": True})
    assert result.structured_content["error"]["code"] == "input_error"
    assert f"owner: at most {NAME_ARGUMENT_MAX} characters" in result.structured_content["error"]["message"]


def test_the_input_schemas_publish_the_query_id_and_name_limits():
    schemas = input_schemas()
    assert schemas["handoff_list"]["properties"]["work"]["maxLength"] == QUERY_MAX
    assert schemas["handoff_resume"]["properties"]["id"]["maxLength"] == HANDOFF_ID_MAX
    assert schemas["handoff_capture"]["properties"]["parent"]["maxLength"] == HANDOFF_ID_MAX
    assert schemas["handoff_merge"]["properties"]["ids"]["items"]["maxLength"] == HANDOFF_ID_MAX
    assert schemas["bootstrap"]["properties"]["branch"]["maxLength"] == NAME_ARGUMENT_MAX


def test_a_word_given_again_in_a_query_is_searched_once():
    assert fts_query("oauth callback oauth oauth") == '"oauth"* "callback"*'


def test_a_work_query_over_the_limit_on_the_command_line_exits_2_naming_the_limit(project):
    r = run_baton("handoff", "list", "--work", "w " * QUERY_MAX, "--project", str(project))
    assert r.returncode == 2
    assert f"the limit is {QUERY_MAX}" in r.stderr
