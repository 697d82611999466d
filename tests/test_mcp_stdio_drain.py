"""`baton mcp` answers every request it read, even when the client closes stdin right after
writing them (`printf … | baton mcp`): the SDK's own stdio loop cancelled the calls still running."""

from __future__ import annotations

import json

import anyio

from baton.mcp_stdio import Unanswered
from tests.conftest import run_baton
from tests.handoff_support import payload

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
READY = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _call(ident: int, name: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def _piped(project, *calls: dict) -> dict:
    lines = "".join(json.dumps(m) + "\n" for m in (INIT, READY, *calls))
    done = run_baton("mcp", "--project", str(project), input=lines, timeout=120)
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
