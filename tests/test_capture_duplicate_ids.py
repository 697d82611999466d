"""Item ids identify items (``--close-item``, ``--drop``, ``evidence_ids``): a
capture (CLI and MCP) refuses two items of one list sharing an id, naming it;
validate's schema check flags them in a record already in the ledger, which is
never rewritten, and such a record can still be amended."""

from __future__ import annotations

import io
import json

import pytest
from mcp import Client

from baton.mcp_server import build_server
from tests.conftest import run_baton
from tests.handoff_support import ACTIONABLE_ITEM, payload


def _twice(prefix_id: str, **item) -> list[dict]:
    return [dict(item, id=prefix_id), dict(item, id=prefix_id, description="the other one")]


def _stdin(body: dict) -> io.BytesIO:
    return io.BytesIO(json.dumps(body).encode())


def test_a_capture_with_two_open_items_of_one_id_is_refused_naming_the_id(project, tmp_path):
    body = payload(open_items=_twice("O-001", **ACTIONABLE_ITEM))
    source = tmp_path / "dup.json"
    source.write_text(json.dumps(body))
    r = run_baton("checkpoint", "create", "--input", str(source), "--json", "--project", str(project))
    assert r.returncode == 2
    error = json.loads(r.stdout)["error"]
    assert error["code"] == "invalid_handoff"
    assert "open_items: duplicate id 'O-001' (items open_items[0], open_items[1])" in error["message"]
    assert "Traceback" not in r.stderr
    assert json.loads(run_baton("handoff", "list", "--json", "--project", str(project)).stdout)["handoffs"] == []


@pytest.mark.parametrize("family, item", [
    ("decisions", {"decision": "d", "rationale": "r"}),
    ("evidence", {"type": "file", "claim": "c", "ref": "f", "result": "observed"}),
    ("failed_attempts", {"approach": "a", "outcome": "failed", "reason": "r"}),
])
def test_every_id_family_refuses_a_repeated_id(project, family, item):
    from baton.errors import HandoffInputError
    from tests.app_support import capture_checkpoint

    prefix = {"decisions": "D", "evidence": "E", "failed_attempts": "F"}[family]
    with pytest.raises(HandoffInputError, match=f"{family}: duplicate id '{prefix}-1'"):
        capture_checkpoint(project, stdin=_stdin(payload(**{family: _twice(f"{prefix}-1", **item)})), input_source="-")


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_capture_refuses_a_repeated_id_as_an_input_error(project):
    async with Client(build_server(project)) as client:
        result = await client.call_tool("handoff_capture", payload(open_items=_twice("O-7", **ACTIONABLE_ITEM)))
    assert result.is_error
    error = result.structured_content["error"]
    assert error["exit_code"] == 2 and "duplicate id 'O-7'" in error["message"]


def test_a_record_with_repeated_ids_already_in_the_ledger_fails_validate_and_can_still_be_amended(project, monkeypatch):
    import baton.domain.handoff as handoff
    from tests.app_support import capture_checkpoint

    monkeypatch.setattr(handoff, "duplicate_id_problems", lambda h, **kw: [])  # a record captured before the refusal
    body = payload(open_items=_twice("O-001", **ACTIONABLE_ITEM))
    handoff_id = capture_checkpoint(project, stdin=_stdin(body), input_source="-").handoff_id
    monkeypatch.undo()

    r = run_baton("handoff", "validate", handoff_id, "--json", "--project", str(project))
    schema = next(c for c in json.loads(r.stdout)["report"]["checks"] if c["name"] == "schema")
    assert schema["status"] == "fail" and "duplicate id 'O-001'" in json.dumps(schema)
    amended = run_baton("handoff", "amend", handoff_id, "--objective", "still amendable", "--project", str(project))
    assert amended.returncode == 0, amended.stderr
