"""What a command says it redacted names the field as the person gave it.

A record's field path (``open_items[0].description``) is the record's name for
it, not what someone at a terminal typed: the text names the flag
(``--open-item``) beside the path, and ``--json`` keeps ``field`` (the record
path) and adds ``flag``. Content from ``--input`` (a JSON payload, written in
the record's own names) keeps the path alone. The mapping is
``baton.cli_handlers.record_fields``."""

from __future__ import annotations

import json

import pytest

from tests.cli_support import run, run_json

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2


def test_checkpoint_create_names_the_flag_that_carried_the_secret_and_keeps_the_path(project, capsys):
    args = ("checkpoint", "create", "--title", "t", "--objective", "o", "--open-item", f"use {TOKEN}")
    code, out, err = run(capsys, project, *args)
    assert code == 0, err
    assert "redacted 1 field: --open-item (open_items[0].description, github-token)" in out
    assert TOKEN not in out
    (redaction,) = run_json(capsys, project, *args)["redactions"]
    assert (redaction["field"], redaction["flag"]) == ("open_items[0].description", "--open-item")


def test_a_secret_in_a_summary_flag_is_named_by_that_flag(project, capsys):
    out = run_json(capsys, project, "checkpoint", "create", "--title", "t", "--objective", "o",
                   "--discovery", f"the key is {TOKEN}")
    assert [(r["field"], r["flag"]) for r in out["redactions"]] == [("summary.discoveries[0]", "--discovery")]


def test_content_from_input_keeps_the_record_path_alone(project, capsys, tmp_path):
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps({"work": {"title": "t", "objective": "o"},
                                   "open_items": [{"description": f"use {TOKEN}"}]}))
    code, out, err = run(capsys, project, "checkpoint", "create", "--input", str(payload))
    assert code == 0, err
    assert "redacted 1 field: open_items[0].description (github-token)" in out
    (redaction,) = run_json(capsys, project, "checkpoint", "create", "--input", str(payload))["redactions"]
    assert "flag" not in redaction


def test_session_end_names_the_handoff_flags(project, capsys):
    args = ("session", "end", "s-1", "--handoff-steps", f"rotate {TOKEN} first", "--handoff-failed", f"tried {TOKEN}")
    code, out, err = run(capsys, project, *args)
    assert code == 0, err
    assert "--handoff-steps (open_items[0].description, github-token)" in out
    assert "--handoff-failed (failed_attempts[0].approach, github-token)" in out
    redactions = run_json(capsys, project, "session", "end", "s-2", *args[3:])["redactions"]
    assert {(r["field"], r.get("flag")) for r in redactions} >= {
        ("open_items[0].description", "--handoff-steps"), ("failed_attempts[0].approach", "--handoff-failed")}


# -- MCP: the tool's argument path, as the caller passed it ----------------------------------------

@pytest.fixture
def anyio_backend():
    return "asyncio"


async def _mcp_session_end(project, handoff: dict) -> list[dict]:
    from mcp import Client

    from baton.mcp_server import build_server

    async with Client(build_server(project)) as client:
        ended = await client.call_tool("baton_session", {"action": "session_end", "session_id": "s-mcp",
                                                         "handoff": handoff})
    assert not ended.is_error, ended.content
    assert TOKEN not in json.dumps(ended.structured_content)
    return ended.structured_content["redactions"]


@pytest.mark.anyio
async def test_mcp_session_end_names_the_handoff_argument_that_carried_the_secret(project):
    redactions = await _mcp_session_end(project, {"nextSteps": ["first", f"rotate {TOKEN}"],
                                                  "failedApproaches": [f"tried {TOKEN}"]})
    assert {(r["field"], r.get("argument")) for r in redactions} == {
        ("open_items[1].description", "handoff.nextSteps[1]"),
        ("failed_attempts[0].approach", "handoff.failedApproaches[0]")}


@pytest.mark.anyio
async def test_mcp_session_end_names_the_entry_as_passed_when_a_blank_one_before_it_was_dropped(project):
    redactions = await _mcp_session_end(project, {"nextSteps": ["  ", f"use {TOKEN}"]})
    assert {(r["field"], r.get("argument")) for r in redactions} == {
        ("open_items[0].description", "handoff.nextSteps[1]"), ("work.objective", "handoff.nextSteps[1]")}


@pytest.mark.anyio
async def test_mcp_session_end_names_the_open_questions_member(project):
    redactions = await _mcp_session_end(project, {"nextSteps": ["first"], "openQuestions": ["ok?", f"is {TOKEN} live?"]})
    assert [(r["field"], r.get("argument")) for r in redactions] == [("open_questions[1]", "handoff.openQuestions[1]")]


@pytest.mark.anyio
async def test_mcp_handoff_amend_names_the_argument_that_carried_the_secret(project):
    from mcp import Client

    from baton.mcp_server import build_server

    async with Client(build_server(project)) as client:
        captured = await client.call_tool("handoff_capture", {"work": {"title": "t", "objective": "o"}})
        amended = await client.call_tool("handoff_amend", {
            "id": captured.structured_content["id"],
            "changes": {"work": {"title": f"t {TOKEN}"}, "open_items": [{"description": f"use {TOKEN}"}]}})
    assert not amended.is_error, amended.content
    assert {(r["field"], r.get("argument")) for r in amended.structured_content["redactions"]} == {
        ("work.title", "changes.work.title"), ("open_items[0].description", "changes.open_items")}
