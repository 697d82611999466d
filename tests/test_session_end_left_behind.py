"""What a session's end leaves behind is said (docs/batons.md, "A baton of the session's own").

A session that made its handoff ready and ends with a baton of its own (``session end
--handoff-steps``, MCP ``session_end`` with ``handoff``) does not hand that handoff on:
the baton gains a last next step naming it (``baton resume ID``) and the end says so.
The harness's own end that follows (``SessionEnd``, Codex's ``Stop``) keeps that baton.
A session's own handoff left validated, not ready, is named at the end, as an
unfinished prepared draft is, also when an older ready one is handed on instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from mcp import Client

from baton.domain.short_ids import short_id
from baton.mcp_server import build_server
from tests.cli_support import run, run_json
from tests.handoff_support import git_init
from tests.harness_support import codex_start, codex_stop

ITEM = json.dumps({"description": "finish expression parser", "priority": "high",
                   "suggested_action": "implement pratt loop", "acceptance_check": "cargo test parser passes"})


def _handoff(capsys, project, session: str, title: str, *, ready: bool) -> str:
    run_json(capsys, project, "session", "begin", session, "--harness", "codex")
    hid = run_json(capsys, project, "checkpoint", "create", "--no-input", "--session", session, "--title", title,
                   "--objective", "Port the parser to Rust", "--current-state", "lexer done, parser 40%",
                   "--open-item", ITEM)["id"]
    run_json(capsys, project, "handoff", "validate", hid)
    if ready:
        run_json(capsys, project, "handoff", "ready", hid, "--accept-warnings", "no git here")
    return hid


def test_a_baton_of_the_sessions_own_points_to_its_ready_handoff(capsys, project):
    hid = _handoff(capsys, project, "X-1", "Parser port", ready=True)
    ended = run_json(capsys, project, "session", "end", "X-1", "--handoff-steps", "remember to rebase on main")
    steps = ended["handoff"]["nextSteps"]
    assert steps[0] == "remember to rebase on main"
    assert f"`baton resume {short_id(hid)}`" in steps[-1] and '"Parser port"' in steps[-1]


def test_session_end_with_a_baton_of_its_own_says_the_ready_handoff_was_not_handed_on(capsys, project):
    hid = _handoff(capsys, project, "X-1", "Parser port", ready=True)
    ended = run_json(capsys, project, "session", "end", "X-1", "--handoff-steps", "remember to rebase on main")
    assert ended["handedOn"] is False
    assert any(f"Handoff {short_id(hid)}" in n and "was not handed on" in n for n in ended["notices"])


def test_the_next_sessions_brief_names_the_ready_handoff_left_behind(capsys, project):
    hid = _handoff(capsys, project, "X-1", "Parser port", ready=True)
    run_json(capsys, project, "session", "end", "X-1", "--handoff-steps", "remember to rebase on main")
    brief = run_json(capsys, project, "bootstrap", "--session", "Y-1")["brief"]
    assert "remember to rebase on main" in brief and f"baton resume {short_id(hid)}" in brief


def test_a_baton_with_no_ready_handoff_of_the_session_gains_no_step(capsys, project):
    run_json(capsys, project, "session", "begin", "X-1", "--harness", "codex")
    ended = run_json(capsys, project, "session", "end", "X-1", "--handoff-steps", "remember to rebase on main")
    assert ended["handoff"]["nextSteps"] == ["remember to rebase on main"] and ended["notices"] == []


def test_a_sessions_handoff_left_validated_is_named_at_its_end(capsys, project):
    hid = _handoff(capsys, project, "X-2", "Half done", ready=False)
    ended = run_json(capsys, project, "session", "end", "X-2")
    assert ended["handoff"] is None
    notice = next(n for n in ended["notices"] if f"Handoff {short_id(hid)}" in n)
    assert "validated but not ready" in notice and f"baton handoff ready {short_id(hid)}" in notice \
        and f"then hand it on (`session handoff` with `from` {short_id(hid)})" in notice


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_session_end_with_a_handoff_points_to_the_sessions_ready_handoff(capsys, project):
    hid = _handoff(capsys, project, "X-1", "Parser port", ready=True)
    async with Client(build_server(project)) as client:
        result = await client.call_tool("baton_session", {"action": "session_end", "session_id": "X-1",
                                                          "handoff": {"nextSteps": ["remember to rebase on main"]}})
    ended = result.structured_content
    assert f"`baton resume {short_id(hid)}`" in ended["handoff"]["nextSteps"][-1]
    assert any("was not handed on" in n for n in ended["notices"])


def _claude_code_hook(project, event: str, session: str) -> None:
    """``baton hook claude-code EVENT`` as Claude Code runs it: a process, the payload on stdin."""
    payload = {"session_id": session, "cwd": str(project), "hook_event_name": event, "transcript_path": None,
               "reason": "prompt_input_exit"}
    done = subprocess.run([sys.executable, "-m", "baton", "hook", "claude-code", event], cwd=project,
                          input=json.dumps(payload), capture_output=True, text=True,
                          env={**os.environ, "BATON_HOOK_SERVER": "0"})
    assert done.returncode == 0, done.stderr


def _batons_left(capsys, project) -> list[list[str]]:
    """The next steps of every ``baton.created`` in the ledger, oldest first."""
    code, out, err = run(capsys, project, "log", "--type", "baton.created", "--json")
    assert code == 0, err
    return [json.loads(line)["data"]["payload"]["nextSteps"] for line in out.splitlines() if line.strip()]


def test_a_harness_end_after_a_baton_of_the_sessions_own_keeps_that_baton(capsys, project):
    _handoff(capsys, project, "X-3", "Parser port", ready=True)
    run_json(capsys, project, "session", "end", "X-3", "--handoff-steps", "remember to rebase on main")
    _claude_code_hook(project, "SessionEnd", "X-3")
    left = _batons_left(capsys, project)
    assert len(left) == 1 and left[0][0] == "remember to rebase on main"


def test_a_repeated_session_end_after_a_baton_of_the_sessions_own_hands_nothing_on(capsys, project):
    _handoff(capsys, project, "X-3", "Parser port", ready=True)
    run_json(capsys, project, "session", "end", "X-3", "--handoff-steps", "remember to rebase on main")
    again = run_json(capsys, project, "session", "end", "X-3")
    assert again["handedOn"] is False
    left = _batons_left(capsys, project)
    assert len(left) == 1 and left[0][0] == "remember to rebase on main"


def test_a_handoff_left_validated_is_named_at_an_end_that_hands_on_an_older_ready_one(capsys, project):
    _handoff(capsys, project, "X-4", "Older ready", ready=True)
    newer = run_json(capsys, project, "checkpoint", "create", "--no-input", "--session", "X-4", "--title", "Newer",
                     "--objective", "Port the parser to Rust", "--current-state", "parser 60%",
                     "--open-item", ITEM)["id"]
    run_json(capsys, project, "handoff", "validate", newer)
    ended = run_json(capsys, project, "session", "end", "X-4")
    assert ended["handedOn"] is True
    assert any(f"Handoff {short_id(newer)}" in n and "validated but not ready" in n for n in ended["notices"])



@pytest.mark.anyio
async def test_codex_stop_after_an_mcp_session_end_with_a_baton_keeps_that_baton(capsys, project):
    git_init(project, {"src/app.py": "x = 1\n"})
    codex_start(project, "cx1")
    hid = run_json(capsys, project, "checkpoint", "create", "--no-input", "--session", "cx1", "--title", "CX work",
                   "--objective", "Port the parser to Rust", "--current-state", "parser 40%", "--open-item", ITEM)["id"]
    run_json(capsys, project, "handoff", "validate", hid)
    run_json(capsys, project, "handoff", "ready", hid, "--accept-warnings", "uncommitted")
    async with Client(build_server(project)) as client:
        await client.call_tool("baton_session", {"action": "session_end", "session_id": "cx1", "harness": "codex",
                                                 "handoff": {"nextSteps": ["cx own step"]}})
    codex_stop(project, "cx1")  # the turn's Stop, right after
    left = _batons_left(capsys, project)
    assert len(left) == 1 and left[0][0] == "cx own step"
