"""The MCP server says, once, when the session it serves ran without Baton's start hook:
Claude Code started in a subfolder of a project wired at its root runs none of the project's
hooks, yet finds ``.mcp.json`` there (harness14 F2; docs/hooks.md, "Start Claude Code at
the project root")."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from baton.harnesses.install import install_hooks
from baton.mcp_server import build_server
from tests.handoff_support import git_init
from tests.harness_support import fixture, hook

pytestmark = pytest.mark.anyio

WARNING = "Baton's SessionStart hook did not run for this session"


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def repo(project):
    git_init(project, {"src/deep/app.py": "x = 1\n"})
    return project


def _texts(answer) -> list[str]:
    (block,) = answer.content  # one block: the answer's JSON, the notice in it
    told = json.loads(block.text)
    assert told == answer.structured_content
    return [told.get("start_hook_notice") or ""]


async def _two_answers(monkeypatch, where):
    monkeypatch.chdir(where)
    monkeypatch.delenv("BATON_PROJECT", raising=False)
    async with Client(build_server()) as client:
        return await client.call_tool("baton_status", {}), await client.call_tool("handoff_list", {})


async def test_a_server_started_in_a_subfolder_of_a_project_wired_for_claude_code_says_its_start_hook_did_not_run(
        repo, monkeypatch):
    install_hooks(repo, "claude-code")
    first, second = await _two_answers(monkeypatch, repo / "src" / "deep")
    assert first.structured_content["root"] == str(repo.resolve())  # the answer itself, beside the notice
    (said,) = [text for text in _texts(first) if WARNING in text]
    assert "src/deep" in said and str(repo.resolve()) in said and "start Claude Code at the project root" in said
    assert not any(WARNING in text for text in _texts(second))  # once


async def test_a_server_started_at_the_project_root_says_nothing_of_it(repo, monkeypatch):
    install_hooks(repo, "claude-code")
    first, _ = await _two_answers(monkeypatch, repo)
    assert not any(WARNING in text for text in _texts(first))


async def test_a_subfolder_whose_session_start_was_recorded_says_nothing_of_it(repo, monkeypatch):
    install_hooks(repo, "claude-code")
    hook(repo, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.startup", repo, session_id="s1"))
    first, _ = await _two_answers(monkeypatch, repo / "src" / "deep")
    assert not any(WARNING in text for text in _texts(first))


async def test_a_subfolder_of_a_project_not_wired_for_claude_code_says_nothing_of_it(repo, monkeypatch):
    install_hooks(repo, "codex")
    first, _ = await _two_answers(monkeypatch, repo / "src" / "deep")
    assert not any(WARNING in text for text in _texts(first))
