"""A running MCP server's ``handoff_list`` marks the reader's own handoffs (``mine``, "(you)" in
text) for the git identity of now: after ``git config user.email`` changes, the next answer
follows it, though answers are kept while the index is unchanged — and an unchanged identity is
not read again (docs/mcp.md "Start-up and each call"). Real ``git config``; the SDK's
in-process client."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from baton.commands import identity
from baton.gitinfo import identity_stamp
from baton.mcp_server import build_server
from tests.app_support import init_project
from tests.handoff_support import payload
from tests.owner_support import anns_repository, git

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def anns(project_dir) -> Path:
    anns_repository(project_dir)
    init_project(project_dir)
    return project_dir


async def _marks(client: Client) -> list[bool]:
    listed = await client.call_tool("handoff_list", {})
    assert not listed.is_error, listed.content
    return [h["mine"] for h in listed.structured_content["handoffs"]]


async def test_the_marks_follow_a_changed_repository_user_email(anns):
    async with Client(build_server(anns)) as client:
        await client.call_tool("handoff_capture", payload())
        before = await _marks(client)
        git(anns, "config", "user.email", "bob@example.com")
        after = await _marks(client)
        git(anns, "config", "user.email", "ann@example.com")
        back = await _marks(client)
    assert (before, after, back) == ([True], [False], [True])


async def test_the_marks_follow_a_changed_global_user_email(project_dir, isolated_home):
    git(project_dir, "init", "-q", "-b", "main")
    git(project_dir, "config", "--global", "user.email", "ann@example.com")  # $GIT_CONFIG_GLOBAL: the test's home
    init_project(project_dir)
    async with Client(build_server(project_dir)) as client:
        await client.call_tool("handoff_capture", payload())
        before = await _marks(client)
        git(project_dir, "config", "--global", "user.email", "bob@example.com")
        after = await _marks(client)
    assert (before, after) == ([True], [False])


async def test_the_marks_follow_an_email_kept_in_a_file_the_global_config_includes(project_dir, isolated_home):
    included = isolated_home / "work.gitconfig"
    git(project_dir, "init", "-q", "-b", "main")
    git(project_dir, "config", "--global", "include.path", str(included))
    git(project_dir, "config", "--file", str(included), "user.email", "ann@example.com")
    init_project(project_dir)
    async with Client(build_server(project_dir)) as client:
        await client.call_tool("handoff_capture", payload())
        before = await _marks(client)
        git(project_dir, "config", "--file", str(included), "user.email", "bob@example.com")
        after = await _marks(client)
    assert (before, after) == ([True], [False])


async def test_an_unchanged_identity_is_not_read_again_for_a_new_answer(anns, monkeypatch):
    resolved = []
    recorded_owner = identity.recorded_owner

    def counting(opened, owner=None):
        resolved.append(owner)
        return recorded_owner(opened, owner)

    monkeypatch.setattr(identity, "recorded_owner", counting)  # what owner_under calls to read git's identity
    async with Client(build_server(anns)) as client:
        await client.call_tool("handoff_capture", payload())
        await _marks(client)
        await client.call_tool("handoff_capture", payload())  # the index changed: the next list is a new answer
        assert await _marks(client) == [True, True]
        assert len(resolved) == 1
        git(anns, "config", "user.email", "bob@example.com")
        assert await _marks(client) == [False, False]
    assert len(resolved) == 2


def test_the_identity_stamp_moves_with_a_config_file_and_is_none_with_an_include(project_dir, isolated_home):
    anns_repository(project_dir)
    includes: dict = {}
    first = identity_stamp(project_dir, includes)
    assert first is not None and identity_stamp(project_dir, includes) == first
    git(project_dir, "config", "user.email", "bob@example.com")
    assert identity_stamp(project_dir, includes) not in (None, first)
    git(project_dir, "config", "--global", "include.path", str(isolated_home / "other.gitconfig"))
    assert identity_stamp(project_dir, includes) is None


def test_the_identity_stamp_moves_with_the_os_user_the_owner_falls_back_to(project_dir, monkeypatch):
    includes: dict = {}
    monkeypatch.setenv("LOGNAME", "ann")
    first = identity_stamp(project_dir, includes)
    monkeypatch.setenv("LOGNAME", "bob")
    assert identity_stamp(project_dir, includes) != first
