"""A long-lived process (``baton mcp``) after a write that failed once.

A failed write or fsync poisons the ledger instance that made it: the page
cache may hold bytes the disk does not, so that instance refuses every later
lock ("the ledger must be reopened"; ``tests/test_ledger_durability.py``). A
CLI command ends there and the next one opens afresh. A server that keeps one
project open for its whole life must open it afresh too, or every later call
fails until someone restarts it — after the disk was freed or came back.
"""

from __future__ import annotations

import errno
import http.client
import json
import os
import subprocess
import sys
from pathlib import Path

from baton.commands.context import Project
from tests.app_support import status_server
from tests.batons_support import BOB, leave
from tests.handoff_support import payload

FSYNC_FAILS_ONCE = Path(__file__).with_name("fsync_fails_once.py")
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
READY = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _call(ident: int, name: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def _capture(ident: int, title: str) -> dict:
    return _call(ident, "handoff_capture", payload(work={"title": title, "objective": "lands once the disk works"}))


def test_the_mcp_server_writes_again_after_a_write_whose_fsync_failed(project):
    calls = [INIT, READY, _capture(1, "First capture"), _capture(2, "Second capture"), _call(3, "handoff_list", {})]
    done = subprocess.run([sys.executable, str(FSYNC_FAILS_ONCE), "mcp", "--project", str(project)],
                          input="".join(json.dumps(m) + "\n" for m in calls), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    answers = {m["id"]: m for m in map(json.loads, done.stdout.splitlines()) if "id" in m}
    assert answers[1]["result"].get("isError"), answers[1]  # the injected failure, reported
    assert not answers[2]["result"].get("isError"), answers[2]
    assert "Second capture" in json.dumps(answers[3]["result"])


def _dismiss(server, baton_id: str, project_id: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", server.app.port, timeout=30)
    try:
        conn.request("DELETE", f"/api/handoffs/{baton_id}?project={project_id}",
                     headers={"Origin": f"http://127.0.0.1:{server.app.port}"})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def test_the_status_page_dismisses_again_after_a_dismissal_whose_fsync_failed(project, monkeypatch):
    first = leave(project, "s-a", ["one"])
    second = leave(project, "s-b", ["two"], owner=BOB, branch="feature/x")
    opened = Project.open(project)
    project_id = opened.config.project_id
    opened.close()
    real, failed = os.fsync, []

    def fsync_fails_once(fd):
        if not failed:
            failed.append(fd)
            raise OSError(errno.EIO, "Input/output error (injected once)")
        return real(fd)

    with status_server(project) as server:
        monkeypatch.setattr(os, "fsync", fsync_fails_once)
        assert _dismiss(server, first.id, project_id) >= 500  # the injected failure, reported
        assert _dismiss(server, second.id, project_id) == 200
