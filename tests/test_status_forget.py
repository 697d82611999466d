"""A handoff forgotten while the status server runs (issue 25): `baton forget`
in another process, and the running server's next answer — its next catch-up
— no longer holds the handoff or its text, exactly as a server started
afterwards would answer. No restart needed.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import orjson
import pytest

from baton.web.server import bind_status_server
from tests.app_support import listen_target, project_id_of
from tests.conftest import run_baton

PLANTED = "PLANTED-FORGET-TEXT-5c1e"
KEPT = "KEPT-OTHER-TEXT-9b2d"


def cli(root: Path, *args: str):
    r = run_baton(*args, "--json", "--project", str(root))
    assert r.returncode == 0, (args, r.returncode, r.stdout, r.stderr)
    return json.loads(r.stdout)


class Running:
    """A status server in a thread of this process, kept across the forget."""

    def __init__(self, root: Path) -> None:
        self.server = bind_status_server(listen_target(root, host="127.0.0.1", port=0))
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01},
                                       daemon=True)
        self.thread.start()
        self.port = self.server.app.port
        self.pid = project_id_of(root)

    def get(self, path: str) -> tuple[int, bytes]:
        return get(self.port, path)

    def overview(self) -> bytes:
        status, body = self.get(f"/api/handoffs?project={self.pid}")
        assert status == 200
        return body

    def view(self, handoff_id: str) -> tuple[int, bytes]:
        return self.get(f"/api/handoffs/{handoff_id}?project={self.pid}")

    def stop(self) -> None:
        self.server.shutdown()
        self.thread.join(timeout=10)


def get(port: int, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


@pytest.fixture
def running(project):
    server = Running(project)
    try:
        yield server
    finally:
        server.stop()


def checkpoint(root: Path, title: str) -> str:
    return cli(root, "checkpoint", "create", "--no-input", "--title", title, "--objective", f"{title} works")["id"]


def baton_record(root: Path) -> str:
    listed = cli(root, "handoff", "list", "--kind", "all")["handoffs"]
    return next(h["id"] for h in listed if h["title"].startswith("Session baton"))


def test_a_handoff_forgotten_by_another_process_disappears_from_the_running_server(project, running):
    gone = checkpoint(project, f"{PLANTED} plan")
    kept = checkpoint(project, f"{KEPT} plan")
    assert PLANTED.encode() in running.overview() and PLANTED.encode() in running.view(gone)[1]
    cli(project, "forget", gone, "--yes")
    overview = running.overview()
    assert PLANTED.encode() not in overview and gone.encode() not in overview
    assert KEPT.encode() in overview
    status, body = running.view(gone)
    assert status == 404 and PLANTED.encode() not in body
    assert running.view(kept)[0] == 200


def test_a_forgotten_session_baton_leaves_the_running_servers_active_handoffs(project, running):
    cli(project, "session", "end", "s-1", "--handoff-steps", f"{PLANTED} step", "--owner", "al",
        "--branch", "main")
    before = orjson.loads(running.overview())
    assert before["total"] == 1 and PLANTED in before["items"][0]["nextSteps"][0]
    cli(project, "forget", baton_record(project), "--yes")
    overview = running.overview()
    after = orjson.loads(overview)
    assert after["items"] == [] and after["total"] == 0 and after["latestBatons"] == []
    assert PLANTED.encode() not in overview


def test_after_a_forget_the_running_server_answers_what_a_server_started_now_answers(project, running):
    first = checkpoint(project, f"{PLANTED} first")
    second = checkpoint(project, f"{KEPT} second")
    child = cli(project, "handoff", "amend", second, "--title", f"{KEPT} amended")["id"]
    cli(project, "session", "end", "s-1", "--handoff-steps", f"{PLANTED} step", "--owner", "al",
        "--branch", "main")
    ids = [first, second, child, baton_record(project)]
    for handoff in ids:  # the running server has read every one before it is forgotten
        assert running.view(handoff)[0] == 200
    for victim in (first, ids[3], second):
        cli(project, "forget", victim, "--yes")
        fresh = Running(project)
        try:
            assert running.overview() == fresh.overview()
            for handoff in ids:
                assert running.view(handoff) == fresh.view(handoff)
        finally:
            fresh.stop()
    assert PLANTED.encode() not in running.overview()


def test_a_baton_status_serve_process_forgets_at_its_next_answer(project):
    gone = checkpoint(project, f"{PLANTED} plan")
    proc = subprocess.Popen([sys.executable, "-m", "baton", "status", "serve", "--port", "0", "--json"],
                            cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ})
    try:
        lines = [proc.stdout.readline()]
        while not lines[-1].startswith("}") and lines[-1]:
            lines.append(proc.stdout.readline())
        info = orjson.loads("".join(lines))
        port, pid = info["port"], info["projectId"]
        assert PLANTED.encode() in get(port, f"/api/handoffs?project={pid}")[1]
        assert get(port, f"/api/handoffs/{gone}?project={pid}")[0] == 200
        cli(project, "forget", gone, "--yes")
        assert PLANTED.encode() not in get(port, f"/api/handoffs?project={pid}")[1]
        assert get(port, f"/api/handoffs/{gone}?project={pid}")[0] == 404
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0


def test_a_forget_that_arrives_through_sync_leaves_the_other_replicas_running_server(capsys, tmp_path):
    from tests.cli_support import run_json
    from tests.sync_support import make_team

    _remote, a, b = make_team(tmp_path)
    gone = run_json(capsys, a, "checkpoint", "create", "--no-input", "--title", f"{PLANTED} plan",
                    "--objective", "shared then forgotten")["id"]
    run_json(capsys, a, "checkpoint", "create", "--no-input", "--title", f"{KEPT} plan", "--objective", "stays")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    running = Running(b)
    try:
        assert PLANTED.encode() in running.overview() and running.view(gone)[0] == 200
        run_json(capsys, a, "forget", gone, "--yes")
        run_json(capsys, a, "sync")
        run_json(capsys, b, "sync")  # its own application object, not the server's
        overview = running.overview()
        assert PLANTED.encode() not in overview and KEPT.encode() in overview
        assert running.view(gone)[0] == 404
    finally:
        running.stop()
