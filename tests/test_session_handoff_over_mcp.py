"""A handoff the agent captures over MCP is handed on when its session ends
(issue 23 item 2), in Claude Code, Codex and Gemini CLI: through the real
``baton hook HARNESS EVENT`` commands and the MCP server.

The harness gives its hooks the session id, never the model or the MCP
server: the brief names the id for the agent to pass as ``session_id``; a
capture that names none is still the session's when it is the newest ready
one captured on the session's branch while no other session worked there.
"""

from __future__ import annotations

import json
import re

import pytest
from mcp import Client

from baton.mcp_server import build_server
from tests.conftest import run_baton
from tests.handoff_support import payload
from tests.harness_support import fixture, hook, injected

pytestmark = pytest.mark.anyio

# harness: (start event and fixture, end event and fixture)
HARNESSES = {
    "claude-code": ("SessionStart", "SessionStart.startup", "SessionEnd", "SessionEnd"),
    "codex": ("SessionStart", "SessionStart.startup", "Stop", "Stop"),
    "gemini-cli": ("SessionStart", "SessionStart.startup", "SessionEnd", "SessionEnd"),
}
SESSION_LINE = re.compile(r"This is \S+ session `([^`]+)`\. Pass `\"session_id\": \"([^\"]+)\"`")


@pytest.fixture
def anyio_backend():
    return "asyncio"


def _hook(repo, harness, which, session):
    """Run ``baton hook`` as the harness does: a process, the payload on stdin; returns what it injected."""
    event, name = HARNESSES[harness][0:2] if which == "start" else HARNESSES[harness][2:4]
    body = fixture(harness, name, repo, session_id=session)
    done = run_baton("hook", harness, event, cwd=repo, input=json.dumps(body), timeout=60)
    assert done.returncode == 0, done.stderr
    return injected(harness, done.stdout) if done.stdout.strip() else None


def _begun(repo, harness, session):
    """A session's start as a scene step, run in this process (the hooks a test asserts on stay processes)."""
    event, name = HARNESSES[harness][0:2]
    hook(repo, harness, event, fixture(harness, name, repo, session_id=session))


async def _ready_over_mcp(client, session_id=None):
    body = payload()
    if session_id is not None:
        body["session_id"] = session_id
    captured = await client.call_tool("handoff_capture", body)
    assert not captured.is_error, captured.content
    handoff_id = captured.structured_content["id"]
    await client.call_tool("handoff_validate", {"id": handoff_id})
    ready = await client.call_tool("handoff_ready", {"id": handoff_id, "accept_warnings": "synthetic test data"})
    assert ready.structured_content["status"] == "ready", ready.content
    return handoff_id


def _sessions(repo):
    from baton.app import Baton

    with Baton.open(repo) as app:
        runner = app.project.reading()
        return {doc["id"]: doc for _key, doc in runner.docs("sessions")}  # one clone: one writer


@pytest.mark.parametrize("harness", HARNESSES)
async def test_the_brief_names_the_session_id_for_the_mcp_tools(repo, harness):
    brief = _hook(repo, harness, "start", "sess-brief-1")
    found = SESSION_LINE.search(brief)
    assert found and found.groups() == ("sess-brief-1", "sess-brief-1")
    assert "handoff_capture" in brief


@pytest.mark.parametrize("harness", HARNESSES)
async def test_a_handoff_captured_with_the_briefs_session_id_is_handed_on_at_the_end(repo, harness):
    brief = _hook(repo, harness, "start", "sess-a")
    session_id = SESSION_LINE.search(brief).group(1)  # as the agent reads it
    async with Client(build_server(repo)) as client:
        handoff_id = await _ready_over_mcp(client, session_id)
    _hook(repo, harness, "end", "sess-a")
    assert _sessions(repo)["sess-a"]["leftBaton"] == handoff_id
    following = _hook(repo, harness, "start", "sess-b")
    assert "Active Session Handoff" in following and handoff_id in following
    assert _sessions(repo)["sess-b"]["receivedBaton"] == handoff_id
    assert "Active Session Handoff" not in _hook(repo, harness, "start", "sess-c")  # delivered once


@pytest.mark.parametrize("harness", HARNESSES)
async def test_a_handoff_captured_without_a_session_id_is_still_handed_on(repo, harness):
    _begun(repo, harness, "sess-a")
    async with Client(build_server(repo)) as client:
        handoff_id = await _ready_over_mcp(client)
    _hook(repo, harness, "end", "sess-a")
    assert _sessions(repo)["sess-a"]["leftBaton"] == handoff_id
    following = _hook(repo, harness, "start", "sess-b")
    assert "Active Session Handoff" in following and handoff_id in following


async def test_an_unnamed_handoff_captured_while_another_session_worked_on_the_branch_is_nobodys(repo):
    _begun(repo, "claude-code", "sess-a")
    _begun(repo, "codex", "sess-other")  # a second agent at work on the same branch
    async with Client(build_server(repo)) as client:
        handoff_id = await _ready_over_mcp(client)
    ended = hook(repo, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", repo, session_id="sess-a"))
    assert ended.result.baton is None and ended.result.ended
    assert any(handoff_id in notice and "sess-other" in notice for notice in ended.result.notices)
    assert _sessions(repo)["sess-a"]["leftBaton"] is None
    following = _hook(repo, "claude-code", "start", "sess-b")  # the next start says why, once
    said = [line for line in following.splitlines() if line.startswith("> ⚠️ Baton's claude-code SessionEnd")]
    assert len(said) == 1 and handoff_id in said[0] and "failed" not in said[0]


async def test_an_unnamed_handoff_made_before_the_session_began_is_not_its_own(repo):
    async with Client(build_server(repo)) as client:
        await _ready_over_mcp(client)
    _begun(repo, "claude-code", "sess-late")
    _hook(repo, "claude-code", "end", "sess-late")
    assert _sessions(repo)["sess-late"]["leftBaton"] is None


async def test_a_handoff_naming_another_session_is_not_taken(repo):
    _begun(repo, "claude-code", "sess-a")
    async with Client(build_server(repo)) as client:
        await _ready_over_mcp(client, "sess-elsewhere")
    _hook(repo, "claude-code", "end", "sess-a")
    assert _sessions(repo)["sess-a"]["leftBaton"] is None


async def test_a_session_the_agent_ended_with_its_own_baton_keeps_it(repo):
    _begun(repo, "claude-code", "sess-a")
    async with Client(build_server(repo)) as client:
        ended = await client.call_tool("prompt", {"action": "session_end", "session_id": "sess-a",
                                                  "handoff": {"nextSteps": ["write the fixture"]}})
        left = ended.structured_content["handoffId"]
        await _ready_over_mcp(client)  # a later capture naming no session
    _hook(repo, "claude-code", "end", "sess-a")
    assert _sessions(repo)["sess-a"]["leftBaton"] == left
    assert "write the fixture" in _hook(repo, "claude-code", "start", "sess-b")


def _git_email(repo, email):
    import subprocess

    args = ["config", "user.email", email] if email else ["config", "--unset", "user.email"]
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


async def test_an_unnamed_handoff_another_person_captured_is_not_handed_on_by_the_end_hook(repo):
    _git_email(repo, "alice@example.com")
    _hook(repo, "claude-code", "start", "sess-a")
    _git_email(repo, "mallory@example.com")
    async with Client(build_server(repo)) as client:
        await _ready_over_mcp(client)
    _git_email(repo, "alice@example.com")
    _hook(repo, "claude-code", "end", "sess-a")
    assert _sessions(repo)["sess-a"]["leftBaton"] is None


async def test_an_unnamed_handoff_another_person_captured_is_not_handed_on_by_session_end(repo):
    _git_email(repo, "alice@example.com")
    begun = run_baton("session", "begin", "S3", cwd=repo)
    assert begun.returncode == 0, begun.stderr
    _git_email(repo, "mallory@example.com")
    async with Client(build_server(repo)) as client:
        await _ready_over_mcp(client)
    _git_email(repo, "alice@example.com")
    ended = run_baton("session", "end", "S3", "--json", cwd=repo)
    assert ended.returncode == 0, ended.stderr
    assert _sessions(repo)["S3"]["leftBaton"] is None


async def test_a_handoff_naming_the_session_another_person_captured_is_not_handed_on_by_the_end_hook(repo):
    """A teammate's handoff synced in that names this session's id is theirs, not this session's baton."""
    _git_email(repo, "alice@example.com")
    _hook(repo, "claude-code", "start", "sess-a")
    _git_email(repo, "mallory@example.com")
    async with Client(build_server(repo)) as client:
        await _ready_over_mcp(client, "sess-a")
    _git_email(repo, "alice@example.com")
    _hook(repo, "claude-code", "end", "sess-a")
    assert _sessions(repo)["sess-a"]["leftBaton"] is None


async def test_a_handoff_naming_the_session_another_person_captured_is_told_not_handed_on(repo):
    _git_email(repo, "alice@example.com")
    begun = run_baton("session", "begin", "S3", cwd=repo)
    assert begun.returncode == 0, begun.stderr
    _git_email(repo, "mallory@example.com")
    async with Client(build_server(repo)) as client:
        handoff_id = await _ready_over_mcp(client, "S3")
    _git_email(repo, "alice@example.com")
    ended = json.loads(run_baton("session", "end", "S3", "--json", cwd=repo).stdout)
    assert ended["handoff"] is None and _sessions(repo)["S3"]["leftBaton"] is None
    told = [n for n in ended["notices"] if handoff_id in n]
    assert len(told) == 1
    assert "captured by mallory@example.com, not by alice@example.com" in told[0]
    assert "was not handed on" in told[0]


async def test_the_sessions_own_older_handoff_is_handed_on_past_another_persons_newer_one(repo):
    _git_email(repo, "alice@example.com")
    _hook(repo, "claude-code", "start", "sess-a")
    async with Client(build_server(repo)) as client:
        own = await _ready_over_mcp(client, "sess-a")
        _git_email(repo, "mallory@example.com")
        await _ready_over_mcp(client, "sess-a")
    _git_email(repo, "alice@example.com")
    _hook(repo, "claude-code", "end", "sess-a")
    assert _sessions(repo)["sess-a"]["leftBaton"] == own


async def test_a_handoff_naming_the_session_its_owner_captured_is_still_handed_on_by_session_end(repo):
    _git_email(repo, "alice@example.com")
    assert run_baton("session", "begin", "S3", cwd=repo).returncode == 0
    async with Client(build_server(repo)) as client:
        handoff_id = await _ready_over_mcp(client, "S3")
    ended = json.loads(run_baton("session", "end", "S3", "--json", cwd=repo).stdout)
    assert ended["handoffId"] == handoff_id and ended["handedOn"] is True


# -- a session that switches branch mid-session (``git checkout -b``) before it hands off ---------------

def _git(repo, *args):
    import subprocess

    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def _baton_of(repo, handoff_id):
    from baton.app import Baton

    with Baton.open(repo) as app:
        return next((b for b in app.pending_batons().to_json()["items"] if b["id"] == handoff_id), None)


@pytest.mark.parametrize("harness", HARNESSES)
async def test_an_unnamed_handoff_captured_after_the_session_switched_branch_is_handed_on_to_that_branch(
        repo, harness):
    began_on = _git(repo, "branch", "--show-current")
    _begun(repo, harness, "sess-a")
    _git(repo, "checkout", "-q", "-b", "feature-y")  # the agent's first action
    async with Client(build_server(repo)) as client:
        handoff_id = await _ready_over_mcp(client)
    _hook(repo, harness, "end", "sess-a")
    assert _sessions(repo)["sess-a"]["leftBaton"] == handoff_id
    assert _baton_of(repo, handoff_id)["branch"] == "feature-y"
    _git(repo, "checkout", "-q", began_on)
    assert handoff_id not in (_hook(repo, harness, "start", "sess-on-main") or "")
    _git(repo, "checkout", "-q", "feature-y")
    following = _hook(repo, harness, "start", "sess-b")
    assert "Active Session Handoff" in following and handoff_id in following


async def test_a_named_handoff_captured_after_the_session_switched_branch_is_that_branchs_baton(repo):
    _begun(repo, "claude-code", "sess-a")
    _git(repo, "checkout", "-q", "-b", "feature-y")
    async with Client(build_server(repo)) as client:
        handoff_id = await _ready_over_mcp(client, "sess-a")
    _hook(repo, "claude-code", "end", "sess-a")
    assert _baton_of(repo, handoff_id)["branch"] == "feature-y"


async def test_session_end_hands_on_a_handoff_captured_after_a_branch_switch(repo):
    begun = run_baton("session", "begin", "S4", cwd=repo)
    assert begun.returncode == 0, begun.stderr
    _git(repo, "checkout", "-q", "-b", "feature-y")
    async with Client(build_server(repo)) as client:
        handoff_id = await _ready_over_mcp(client)
    ended = run_baton("session", "end", "S4", "--json", cwd=repo)
    assert ended.returncode == 0, ended.stderr
    assert _sessions(repo)["S4"]["leftBaton"] == handoff_id
    assert _baton_of(repo, handoff_id)["branch"] == "feature-y"


async def test_an_unnamed_handoff_on_another_branch_while_other_sessions_were_open_is_not_handed_on_and_said(repo):
    _begun(repo, "claude-code", "sess-a")
    _git(repo, "checkout", "-q", "-b", "feature-y")
    _begun(repo, "codex", "sess-elsewhere")  # began on feature-y: its capture, not sess-a's
    _git(repo, "checkout", "-q", "-b", "feature-z")
    async with Client(build_server(repo)) as client:
        handoff_id = await _ready_over_mcp(client)  # on feature-z: sess-a or sess-elsewhere switched?
    ended = hook(repo, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", repo, session_id="sess-a"))
    assert ended.result.baton is None
    assert any(handoff_id in notice and "feature-z" in notice and "sess-elsewhere" in notice
               for notice in ended.result.notices)


async def test_an_unnamed_handoff_captured_on_a_branch_another_open_session_works_on_is_left_to_it(repo):
    _begun(repo, "claude-code", "sess-a")
    async with Client(build_server(repo)) as client:
        own = await _ready_over_mcp(client)  # sess-a's, on its own branch
        _git(repo, "checkout", "-q", "-b", "feature-y")
        _begun(repo, "codex", "sess-y")
        await _ready_over_mcp(client)  # newer, on feature-y where sess-y works: sess-y's
    ended = hook(repo, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", repo, session_id="sess-a"))
    assert ended.result.baton == own and ended.result.notices == ()
