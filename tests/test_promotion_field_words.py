"""A promotion refused for a missing field, and a validation that fails on
one, name the record's field (``open_items``) to the application and to an
MCP caller, who passes it by that name; a person at the command line is
told the flag that fills it (``--open-item``) and the command that takes it.
``--json`` keeps the record fields in its details."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from baton.cli_handlers.record_fields import name_fields
from baton.domain.readiness import MISSING, NOT_VALIDATED, WARNINGS_NOT_ACCEPTED, Problem
from baton.errors import PromotionRefused
from baton.mcp_server import build_server
from tests.conftest import run_baton

HANDOFF = "01a24659-9034-751f-84e2-7b61648f15da"


def _validated_without_open_item(project) -> str:
    made = run_baton("checkpoint", "create", "--title", "T", "--objective", "O", "--no-input", "--json",
                     "--project", str(project))
    handoff_id = json.loads(made.stdout)["handoff"]["id"]
    assert run_baton("handoff", "validate", handoff_id, "--project", str(project)).returncode == 3
    return handoff_id


def test_a_promotion_refused_for_no_open_item_names_the_flag_that_adds_one(project):
    handoff_id = _validated_without_open_item(project)
    ready = run_baton("handoff", "ready", handoff_id, "--project", str(project))
    assert ready.returncode == 3
    assert f"baton handoff amend {handoff_id[-8:]} --open-item" in ready.stderr
    assert "--work-state completed" in ready.stderr
    assert "open_items" not in ready.stderr and "work.state" not in ready.stderr
    assert "validation.status" not in ready.stderr and "flags:" not in ready.stderr
    assert f"`baton handoff validate {handoff_id[-8:]}`" in ready.stderr


def test_a_refused_promotions_json_keeps_the_record_fields_in_its_details(project):
    handoff_id = _validated_without_open_item(project)
    ready = run_baton("handoff", "ready", handoff_id, "--json", "--project", str(project))
    details = json.loads(ready.stdout)["error"]["details"]
    assert details["fields"] == ["open_items", "validation.status", "flags"]
    assert [p.partition(": ")[0] for p in details["problems"]] == details["fields"]


def test_a_failed_validation_says_the_flag_that_fills_the_missing_open_item(project):
    made = run_baton("checkpoint", "create", "--title", "T", "--objective", "O", "--no-input", "--json",
                     "--project", str(project))
    handoff_id = json.loads(made.stdout)["handoff"]["id"]
    validated = run_baton("handoff", "validate", handoff_id, "--project", str(project))
    assert validated.returncode == 3
    assert f"baton handoff amend {handoff_id[-8:]} --open-item" in validated.stderr
    assert "(or --work-state completed)" in validated.stderr


def test_a_failed_validations_json_has_no_flag_note(project):
    made = run_baton("checkpoint", "create", "--title", "T", "--objective", "O", "--no-input", "--json",
                     "--project", str(project))
    handoff_id = json.loads(made.stdout)["handoff"]["id"]
    validated = run_baton("handoff", "validate", handoff_id, "--json", "--project", str(project))
    assert validated.returncode == 3 and "--open-item" not in validated.stdout + validated.stderr
    assert "open_items" in json.dumps(json.loads(validated.stdout)["report"]["checks"])


def test_a_missing_title_or_objective_is_said_as_its_flag():
    refused = PromotionRefused(HANDOFF, [Problem("work.title: required", MISSING),
                                         Problem("work.objective: required", MISSING)])
    name_fields(refused)
    assert "--title TEXT" in refused.message and "--objective TEXT" in refused.message
    assert "work.title" not in refused.message and refused.details["fields"] == ["work.title", "work.objective"]


def test_a_warned_promotion_still_names_the_accept_warnings_flag():
    refused = PromotionRefused(HANDOFF, [Problem("validation.status: validation warned (repository: no commit); "
                                                 "promoting needs `accept_warnings` (a reason)", WARNINGS_NOT_ACCEPTED)])
    name_fields(refused)
    refused.name_parameters({"accept_warnings": "--accept-warnings"})
    assert refused.message.endswith("promoting needs --accept-warnings (a reason)")
    assert "validation.status" not in refused.message and "baton handoff amend" not in refused.message


def test_a_problem_is_worded_by_its_field_and_code_whatever_the_domain_calls_it():
    refused = PromotionRefused(HANDOFF, [Problem("open_items: none listed, and the work is not completed", MISSING),
                                         Problem("validation.status: never checked", NOT_VALIDATED)])
    name_fields(refused)
    assert "baton handoff amend 648f15da --open-item" in refused.message
    assert "it is not validated yet: `baton handoff validate 648f15da`" in refused.message
    assert "open_items" not in refused.message and "never checked" not in refused.message
    assert refused.details["codes"] == [MISSING, NOT_VALIDATED]


def test_a_problem_of_no_field_a_person_fills_is_said_as_the_record_says_it():
    refused = PromotionRefused(HANDOFF, ["schema_version: unsupported version '9'"])
    name_fields(refused)
    assert refused.message == "handoff 648f15da cannot become ready: schema_version: unsupported version '9'"


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.anyio
async def test_an_mcp_caller_is_told_the_open_items_argument_not_a_flag(project, anyio_backend):
    async with Client(build_server(project)) as client:
        made = await client.call_tool("handoff_capture", {"work": {"title": "T", "objective": "O"}})
        handoff_id = made.structured_content["handoff"]["id"]
        await client.call_tool("handoff_validate", {"id": handoff_id})
        ready = await client.call_tool("handoff_ready", {"id": handoff_id})
    assert ready.is_error
    error = ready.structured_content["error"]
    assert error["message"].split("cannot become ready: ")[1].startswith("open_items: add at least one open item")
    assert "--" not in error["message"] and error["details"]["fields"][0] == "open_items"
