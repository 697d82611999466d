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


def _captured(project, open_items) -> str:
    from tests.app_support import capture_checkpoint

    return capture_checkpoint(project, stdin=_stdin(payload(open_items=open_items)), input_source="-").handoff_id


@pytest.mark.parametrize("other", ["O-1", "o-001", " O-001", "O-01"])
def test_ids_that_name_one_item_as_typed_are_refused_as_duplicates(project, other):
    """review15 F2: ``--close-item O-1`` names ``O-001``, so the two cannot both be ids."""
    from baton.errors import HandoffInputError

    items = [dict(ACTIONABLE_ITEM, id="O-001"), dict(ACTIONABLE_ITEM, id=other, description="the other one")]
    with pytest.raises(HandoffInputError, match="open_items: duplicate id 'O-001', also written"):
        _captured(project, items)


def test_decision_ids_that_name_one_item_are_refused(project):
    from baton.errors import HandoffInputError
    from tests.app_support import capture_checkpoint

    decisions = [{"id": "D-1", "decision": "d", "rationale": "r"}, {"id": "D-001", "decision": "e", "rationale": "r"}]
    with pytest.raises(HandoffInputError, match="decisions: duplicate id 'D-1'"):
        capture_checkpoint(project, stdin=_stdin(payload(decisions=decisions)), input_source="-")


def test_amend_replacing_the_open_items_refuses_ids_that_name_one_item(project, tmp_path):
    handoff_id = _captured(project, [dict(ACTIONABLE_ITEM, id="O-001")])
    items = tmp_path / "items.json"
    items.write_text(json.dumps([dict(ACTIONABLE_ITEM, id="O-001"), dict(ACTIONABLE_ITEM, id="O-01", description="o")]))
    r = run_baton("handoff", "amend", handoff_id, "--replace-open-items", str(items), "--project", str(project))
    assert r.returncode == 2 and "duplicate id 'O-001'" in r.stderr


def test_amend_open_item_with_an_id_as_typed_replaces_the_item_it_names(project):
    handoff_id = _captured(project, [dict(ACTIONABLE_ITEM, id="O-001")])
    changed = dict(ACTIONABLE_ITEM, id="O-1", description="replaced")
    r = run_baton("handoff", "amend", handoff_id, "--open-item", json.dumps(changed), "--project", str(project))
    assert r.returncode == 0, r.stderr
    shown = json.loads(run_baton("handoff", "show", handoff_id, "--json", "--project", str(project)).stdout)
    record = shown.get("handoff") or shown.get("record") or shown
    assert [(i["id"], i["description"]) for i in record["open_items"]] == [("O-001", "replaced")]
