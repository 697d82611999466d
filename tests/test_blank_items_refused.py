"""An item that says nothing is refused like a blank title: a decision, open
item, failed attempt or risk whose text is empty or only whitespace is an
input error (exit 2) naming the flag (CLI) or the field (MCP, application),
and nothing is written."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from baton.mcp_server import build_server
from tests.conftest import run_baton
from tests.handoff_support import ledger_lines, payload

CREATE = ("checkpoint", "create", "--no-input", "--title", "Blank items", "--objective", "refused")


@pytest.mark.parametrize("flag, value", [("--open-item", ""), ("--decision", ""), ("--failed-attempt", "  "),
                                         ("--risk", "\t")])
def test_checkpoint_create_refuses_a_blank_item_naming_its_flag(project, flag, value):
    before = ledger_lines(project)
    r = run_baton(*CREATE, flag, value, "--json", cwd=project)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert json.loads(r.stdout)["error"]["code"] == "input_error"
    assert f"{flag}: must not be empty or only whitespace" in json.loads(r.stdout)["error"]["message"]
    assert ledger_lines(project) == before


def test_a_blank_item_given_as_json_is_refused_naming_its_field(project):
    before = ledger_lines(project)
    r = run_baton(*CREATE, "--open-item", '{"description": " ", "priority": "high"}', cwd=project)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "open_items[0].description: must not be empty or only whitespace" in r.stderr
    assert ledger_lines(project) == before


def test_handoff_amend_refuses_a_blank_item_naming_its_flag(project):
    hid = json.loads(run_baton(*CREATE, "--json", cwd=project).stdout)["id"]
    before = ledger_lines(project)
    r = run_baton("handoff", "amend", hid, "--decision", " ", "--json", cwd=project)
    assert r.returncode == 2
    assert "--decision: must not be empty or only whitespace" in json.loads(r.stdout)["error"]["message"]
    assert ledger_lines(project) == before


def test_handoff_amend_refuses_a_blank_item_given_as_json(project):
    hid = json.loads(run_baton(*CREATE, "--json", cwd=project).stdout)["id"]
    before = ledger_lines(project)
    r = run_baton("handoff", "amend", hid, "--failed-attempt", '{"approach": "", "outcome": "failed"}',
                  cwd=project)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "failed_attempts[0].approach: must not be empty or only whitespace" in r.stderr
    assert ledger_lines(project) == before


def test_the_application_refuses_a_blank_decision_naming_the_field(project):
    from baton.app import Baton
    from baton.errors import HandoffInputError

    with pytest.raises(HandoffInputError) as caught:
        Baton.open(project).capture(payload(decisions=[{"decision": ""}]))
    assert "decisions[0].decision: must not be empty or only whitespace" in caught.value.problems


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_handoff_capture_refuses_an_empty_decision_naming_the_field(project):
    before = ledger_lines(project)
    async with Client(build_server(project)) as client:
        result = await client.call_tool("handoff_capture", payload(decisions=[{"decision": ""}]))
    assert result.is_error
    error = result.structured_content["error"]
    assert error["code"] == "invalid_handoff" and error["exit_code"] == 2
    assert "decisions[0].decision: must not be empty or only whitespace" in error["message"]
    assert ledger_lines(project) == before
