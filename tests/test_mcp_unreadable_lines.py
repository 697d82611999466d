"""`baton mcp` answers a line it cannot read instead of dropping it, which left the client
waiting for ever: nested deeper than the SDK's JSON parser goes (~250 levels, well under the
1 MiB argument limit), or not JSON at all (docs/mcp.md)."""

from __future__ import annotations

import json

from tests.conftest import run_baton

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
READY = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _deep(levels: int) -> str:
    return '{"x":' * levels + "1" + "}" * levels


def _call_line(ident: int, arguments: str) -> str:
    return ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"handoff_capture","arguments":%s}}'
            % (ident, arguments))


def _answers(project, *lines: str) -> list[dict]:
    text = "".join(line + "\n" for line in (json.dumps(INIT), json.dumps(READY), *lines))
    done = run_baton("mcp", "--project", str(project), input=text, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_a_call_nested_too_deep_is_answered_under_its_id_and_the_next_call_still_runs(project):
    status = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                         "params": {"name": "baton_status", "arguments": {}}})
    answers = {a.get("id"): a for a in _answers(project, _call_line(1, _deep(300)), _call_line(2, _deep(5000)), status)}
    for ident in (1, 2):
        assert answers[ident]["error"]["code"] == -32600 and "nested too deep" in answers[ident]["error"]["message"]
    assert "result" in answers[3]


def test_a_cut_line_is_answered_under_the_id_it_names_and_one_without_an_id_under_a_null_id(project):
    answers = _answers(project, '{"jsonrpc": "2.0", "id": 9, "method": ', "not json at all")
    errors = [a for a in answers if "error" in a]
    assert [(a["id"], a["error"]["code"]) for a in errors] == [(9, -32600), (None, -32700)]


def test_a_cut_line_whose_id_is_not_valid_json_is_answered_under_a_null_id_and_the_next_call_still_runs(project):
    status = json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                         "params": {"name": "baton_status", "arguments": {}}})
    answers = _answers(project, '{"jsonrpc": "2.0", "id": "a\\q", "method": ', status)
    errors = [a for a in answers if "error" in a]
    assert [(a["id"], a["error"]["code"]) for a in errors] == [(None, -32700)]
    assert "result" in {a.get("id"): a for a in answers}[4]


def test_a_blank_line_is_skipped_unanswered_as_the_sdks_skip_it_and_the_next_call_still_runs(project):
    """A blank line (whitespace only, ``\\r\\n`` included) is no JSON-RPC message: no -32700 for it."""
    status = json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                         "params": {"name": "baton_status", "arguments": {}}})
    answers = _answers(project, "", "   \t", "\r", status)
    assert [a for a in answers if "error" in a] == []
    assert "result" in {a.get("id"): a for a in answers}[5]
