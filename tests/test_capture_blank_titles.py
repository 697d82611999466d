"""A handoff is never captured untitled: an empty or whitespace-only title (or
objective) is an input error (exit 2) and nothing is appended — whether it
comes from flags, ``--input`` JSON, the MCP ``handoff_capture`` tool or an
amendment."""

from __future__ import annotations

import json

import pytest

from tests.cli_support import ledger_size, run, run_json


def refused(capsys, project, *args: str) -> dict:
    before = ledger_size(project)
    error = run_json(capsys, project, *args, expect=2)["error"]
    assert error["exit_code"] == 2
    assert ledger_size(project) == before
    return error


@pytest.mark.parametrize("title", ["", "   ", "\t\n "])
def test_checkpoint_create_refuses_a_blank_title(project, capsys, title):
    error = refused(capsys, project, "checkpoint", "create", "--no-input", "--title", title, "--objective", "o")
    assert "work.title" in error["message"]
    assert not list((project / ".baton" / "handoffs").glob("*.json"))


def test_checkpoint_create_refuses_a_blank_objective(project, capsys):
    error = refused(capsys, project, "checkpoint", "create", "--no-input", "--title", "t", "--objective", "  ")
    assert "work.objective" in error["message"]


def test_the_text_error_names_the_field_and_exits_2(project, capsys):
    code, out, err = run(capsys, project, "checkpoint", "create", "--no-input", "--title", "  ", "--objective", "o")
    assert code == 2 and "work.title" in err and out == ""


@pytest.mark.parametrize("title", ["", "  "])
def test_input_json_with_a_blank_title_is_refused(project, capsys, tmp_path, title):
    source = tmp_path / "handoff.json"
    source.write_text(json.dumps({"work": {"title": title, "objective": "Reject replayed callbacks"}}))
    error = refused(capsys, project, "checkpoint", "create", "--no-input", "--input", str(source))
    assert "work.title" in error["message"]


def test_a_title_flag_cannot_blank_the_title_of_input_json(project, capsys, tmp_path):
    source = tmp_path / "handoff.json"
    source.write_text(json.dumps({"work": {"title": "A real title", "objective": "o"}}))
    refused(capsys, project, "checkpoint", "create", "--no-input", "--input", str(source), "--title", " ")


def test_a_real_title_is_still_captured(project, capsys):
    out = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", " OAuth ", "--objective", "o")
    assert out["status"] == "draft"


def test_amend_cannot_blank_a_drafts_title(project, capsys):
    captured = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "OAuth", "--objective", "o")
    error = refused(capsys, project, "handoff", "amend", captured["id"], "--title", "   ")
    assert "work.title" in error["message"]
    shown = run_json(capsys, project, "handoff", "show", captured["id"])
    assert shown["handoff"]["work"]["title"] == "OAuth"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_mcp_handoff_capture_refuses_a_blank_title(project, anyio_backend):
    from mcp import Client

    from baton.mcp_server import build_server

    before = ledger_size(project)
    async with Client(build_server(project)) as client:
        result = await client.call_tool("handoff_capture", {"work": {"title": "  ", "objective": "o"}})
    assert result.is_error
    error = result.structured_content["error"]
    assert error["exit_code"] == 2 and "work.title" in error["message"]
    assert ledger_size(project) == before
