"""A running MCP server reads the policy again when one of its files changes between calls
(docs/mcp.md): the files' paths are spelled once per open project, their stats every call."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from mcp import Client

from baton.mcp_server import build_server
from tests.app_support import init_project
from tests.handoff_support import payload
from tests.owner_support import git

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


def _add_policy_rule(project: Path, name: str, regex: str) -> None:
    (project / ".baton" / "policy.json").write_bytes(
        orjson.dumps({"rules": [{"name": name, "regex": regex, "reason": "internal code name"}]}))


async def _titles(client: Client) -> list[str]:
    listed = await client.call_tool("handoff_list", {})
    assert not listed.is_error, listed.content
    return [h["title"] for h in listed.structured_content["handoffs"]]


def _falcon_payload() -> dict:
    body = payload()
    body["work"]["title"] = "Brief the falcon-team on the OAuth callback"
    return body


async def test_a_policy_rule_added_between_two_calls_redacts_the_next_answer(project_dir):
    git(project_dir, "init", "-q", "-b", "main")
    init_project(project_dir)
    async with Client(build_server(project_dir)) as client:
        await client.call_tool("handoff_capture", _falcon_payload())
        before = await _titles(client)
        _add_policy_rule(project_dir, "codename", r"falcon-\w+")
        after = await _titles(client)
    assert before == ["Brief the falcon-team on the OAuth callback"]
    assert after == ["Brief the [REDACTED:codename] on the OAuth callback"]


async def test_a_policy_rule_added_after_git_init_under_a_running_server_redacts_the_next_answer(project_dir):
    init_project(project_dir)  # not a git repository yet: the trust record would be in .baton/
    async with Client(build_server(project_dir)) as client:
        await client.call_tool("handoff_capture", _falcon_payload())
        before = await _titles(client)
        git(project_dir, "init", "-q", "-b", "main")  # the trust record's place moves to .git/baton/
        moved = await _titles(client)
        _add_policy_rule(project_dir, "codename", r"falcon-\w+")
        after = await _titles(client)
    assert before == moved == ["Brief the falcon-team on the OAuth callback"]
    assert after == ["Brief the [REDACTED:codename] on the OAuth callback"]
