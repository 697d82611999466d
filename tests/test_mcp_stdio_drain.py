"""`baton mcp` answers every request it read, even when the client closes stdin right after
writing them (`printf … | baton mcp`): the SDK's own stdio loop cancelled the calls still running."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import anyio

from baton.mcp_stdio import Unanswered
from tests.conftest import run_baton
from tests.handoff_support import payload

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
READY = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _call(ident: int, name: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def _piped(project, *calls: dict, env: dict | None = None, timeout: float = 120) -> dict:
    lines = "".join(json.dumps(m) + "\n" for m in (INIT, READY, *calls))
    done = run_baton("mcp", "--project", str(project), input=lines, timeout=timeout, env=env)
    assert done.returncode == 0, done.stderr
    return {m["id"]: m for m in map(json.loads, done.stdout.splitlines()) if "id" in m}


def test_every_call_written_before_stdin_closed_is_answered(project):
    answers = _piped(project, *(_call(i, "baton_status", {}) for i in range(1, 6)))
    assert sorted(answers) == [0, 1, 2, 3, 4, 5]
    assert all("result" in answers[i] for i in range(1, 6))


def test_a_write_called_just_before_stdin_closed_lands_and_is_answered(project):
    answers = _piped(project, _call(1, "handoff_capture", payload(work={"title": "Piped capture", "objective": "every call is answered"})),
                     _call(2, "handoff_list", {}))
    assert not answers[1]["result"].get("isError"), answers[1]
    assert "Piped capture" in json.dumps(answers[2]["result"])


def test_waiting_for_unanswered_calls_gives_up_after_its_bound():
    unanswered = Unanswered()
    unanswered.ids.add(7)

    async def wait() -> float:
        started = anyio.current_time()
        await unanswered.wait_until_none(0.2)
        return anyio.current_time() - started

    assert 0.2 <= anyio.run(wait) < 10


def test_tool_calls_run_in_the_order_they_were_read(project):
    """Each list written after a capture sees it: the calls do not overtake one another."""
    calls = []
    for n in range(1, 7):
        calls.append(_call(2 * n - 1, "handoff_capture", payload(work={"title": f"Ordered {n}", "objective": "in order"})))
        calls.append(_call(2 * n, "handoff_list", {"status": "draft"}))
    answers = _piped(project, *calls)
    assert [answers[2 * n]["result"]["structuredContent"]["count"] for n in range(1, 7)] == [1, 2, 3, 4, 5, 6]


def test_a_cancelled_call_is_not_waited_for_at_the_end_of_stdin(project):
    """The cancelled call gets no answer, and the server stops well before BATON_MCP_DRAIN runs out
    (the subprocess's own timeout, far below it, would fail the test)."""
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "reason": "t"}}
    answers = _piped(project, _call(1, "baton_status", {}), cancel, _call(2, "baton_status", {}),
                     env={"BATON_MCP_DRAIN": "600"}, timeout=120)
    assert 2 in answers


def test_a_reader_that_goes_away_ends_the_server_quietly(project):
    lines = "".join(json.dumps(m) + "\n" for m in (INIT, READY, *(_call(i, "baton_status", {}) for i in range(1, 20))))
    pipeline = f"{shlex.quote(sys.executable)} -m baton mcp --project {shlex.quote(str(project))} | head -c 10"
    done = subprocess.run(["bash", "-o", "pipefail", "-c", pipeline], input=lines, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and done.stdout == '{"jsonrpc"'
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # synthetic: a GitHub token's shape


def test_an_unknown_method_named_with_a_secret_is_answered_with_the_secret_screened(project):
    """The SDK's own "Method not found" repeats the method name in ``data`` (review23 V4): every error
    the server writes goes through the secret screen."""
    answers = _piped(project, {"jsonrpc": "2.0", "id": 1, "method": GITHUB_TOKEN, "params": {}})
    error = answers[1]["error"]
    assert error["code"] == -32601 and GITHUB_TOKEN not in json.dumps(answers[1])
    assert "[REDACTED:" in json.dumps(error)
