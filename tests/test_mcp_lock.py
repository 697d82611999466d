"""MCP calls never wait on the ledger lock without limit (issue 23 item 6):
while another process holds it, a read answers from the index, and a write
gives up after ``$BATON_MCP_LOCK_WAIT`` seconds with ``ledger_busy``."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client

from baton.mcp_server import LOCK_WAIT_SECONDS, build_server, lock_wait
from tests.handoff_support import payload
from tests.harness_support import lock_held_elsewhere

pytestmark = pytest.mark.anyio



@pytest.fixture
def anyio_backend():
    return "asyncio"




async def test_a_read_answers_while_another_process_holds_the_lock(project, monkeypatch):
    monkeypatch.setenv("BATON_MCP_LOCK_WAIT", "0.2")
    async with Client(build_server(project)) as client:
        captured = await client.call_tool("handoff_capture", payload())
        assert not captured.is_error
        with lock_held_elsewhere(project):
            with anyio.fail_after(60):
                status = await client.call_tool("baton_status", {})
                listed = await client.call_tool("handoff_list", {})
    assert not status.is_error, status.content
    assert status.structured_content["handoffs"]["by_status"]["draft"] == 1
    assert [h["id"] for h in listed.structured_content["handoffs"]] == [captured.structured_content["id"]]


async def test_a_fresh_server_reads_what_other_processes_wrote_while_the_lock_is_held(project, monkeypatch):
    from baton.app import Baton

    with Baton.open(project) as app:
        app.capture(payload())
    async with Client(build_server(project)) as client:
        with lock_held_elsewhere(project):
            with anyio.fail_after(60):
                status = await client.call_tool("baton_status", {})
    assert not status.is_error, status.content
    assert status.structured_content["handoffs"]["by_status"]["draft"] == 1


async def test_a_write_gives_up_with_ledger_busy_after_the_configured_wait(project, monkeypatch):
    monkeypatch.setenv("BATON_MCP_LOCK_WAIT", "0.3")
    async with Client(build_server(project)) as client:
        with lock_held_elsewhere(project):
            with anyio.fail_after(60):
                refused = await client.call_tool("handoff_capture", payload())
        assert refused.is_error
        error = refused.structured_content["error"]
        assert error["code"] == "ledger_busy" and error["exit_code"] == 4
        assert "0.3 s" in error["message"]
        listed = await client.call_tool("handoff_list", {})
        assert listed.structured_content["handoffs"] == []  # nothing was written
        again = await client.call_tool("handoff_capture", payload())  # the lock is free again
        assert not again.is_error, again.content


def test_the_wait_is_configured_by_the_environment(monkeypatch):
    monkeypatch.setenv("BATON_MCP_LOCK_WAIT", "1.5")
    assert lock_wait() == 1.5
    for bad in ("soon", "-1", "nan", "inf"):
        monkeypatch.setenv("BATON_MCP_LOCK_WAIT", bad)
        assert lock_wait() == LOCK_WAIT_SECONDS
    monkeypatch.delenv("BATON_MCP_LOCK_WAIT")
    assert lock_wait() == LOCK_WAIT_SECONDS
