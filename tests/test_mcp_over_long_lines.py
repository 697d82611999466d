"""`baton mcp` never holds a request line longer than its limit (the 1 MiB argument limit plus
room for the envelope): the line is answered with a JSON-RPC error, the rest of it discarded up
to the next newline, and the next line served (docs/mcp.md). A client writing without a newline
drove the server to the machine's memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from baton.mcp_stdio import MAX_LINE_BYTES
from tests.conftest import run_baton

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
READY = {"jsonrpc": "2.0", "method": "notifications/initialized"}
STATUS = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "baton_status", "arguments": {}}}
HEAD = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"handoff_capture","arguments":{"x":"'
MiB = 1024 * 1024


def _lines(*messages: dict) -> str:
    return "".join(json.dumps(m) + "\n" for m in messages)


def _answers(project: Path, text: str) -> dict:
    done = run_baton("mcp", "--project", str(project), input=text, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return {m.get("id"): m for m in map(json.loads, done.stdout.splitlines())}


def test_a_line_longer_than_the_limit_is_answered_under_its_id_and_the_next_line_still_runs(project):
    text = _lines(INIT, READY) + HEAD + "A" * (MAX_LINE_BYTES + MiB) + '"}}}\n' + _lines(STATUS)
    answers = _answers(project, text)
    assert answers[1]["error"]["code"] == -32600
    assert f"longer than {MAX_LINE_BYTES} bytes" in answers[1]["error"]["message"]
    assert "result" in answers[3]


def test_a_line_just_within_the_limit_is_read_as_a_request(project):
    filler = MAX_LINE_BYTES - len(HEAD) - len('"}}}') - 100
    answers = _answers(project, _lines(INIT, READY) + HEAD + "A" * filler + '"}}}\n')
    assert "error" not in answers[1]
    assert answers[1]["result"]["isError"] and "longer than" not in json.dumps(answers[1])


def test_an_over_long_line_with_no_id_in_its_head_is_answered_under_a_null_id(project):
    answers = _answers(project, _lines(INIT, READY) + "B" * (MAX_LINE_BYTES + 10) + "\n" + _lines(STATUS))
    assert answers[None]["error"]["code"] == -32700 and "longer than" in answers[None]["error"]["message"]
    assert "result" in answers[3]


@pytest.mark.slow
def test_input_without_a_newline_is_read_in_bounded_memory(project, tmp_path):
    """256 MiB with no newline, then a newline and a call: the server's peak resident memory stays
    well under what it was fed (it held the whole line before: 23 GB from /dev/zero)."""
    fed = 256 * MiB
    stderr = (tmp_path / "stderr").open("w")
    server = subprocess.Popen([sys.executable, "-m", "baton", "mcp", "--project", str(project)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=dict(os.environ))
    try:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(_lines(INIT, READY).encode() + HEAD.encode())
        chunk = b"A" * MiB
        for _ in range(fed // MiB):
            server.stdin.write(chunk)
        server.stdin.write(b"\n" + _lines(STATUS).encode())
        server.stdin.flush()
        answers = {}
        while 3 not in answers:
            line = server.stdout.readline()
            assert line, (tmp_path / "stderr").read_text()
            message = json.loads(line)
            answers[message.get("id")] = message
        peak_kib = next(int(row.split()[1]) for row in Path(f"/proc/{server.pid}/status").read_text().splitlines()
                        if row.startswith("VmHWM:"))
        assert answers[1]["error"]["code"] == -32600 and "result" in answers[3]
        assert peak_kib * 1024 < fed // 2
    finally:
        server.stdin.close()
        server.wait(timeout=120)
        stderr.close()


def test_a_request_holding_a_lone_surrogate_escape_is_read_with_it_replaced(project):
    """Node's ``JSON.stringify`` writes half an emoji as ``"\\ud83d"`` (tester-use21 T6): JSON, which the
    SDK's parser refuses; read as U+FFFD, the request is answered, not called unreadable."""
    init = {**INIT, "params": {**INIT["params"], "clientInfo": {"name": "node \ud83d", "version": "1"}}}
    text = _lines(init, READY, STATUS)
    assert "\\ud83d" in text
    answers = _answers(project, text)
    assert "result" in answers[0] and "result" in answers[3]
