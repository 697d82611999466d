"""``handoff amend`` and ``checkpoint create`` say a refused input in what
the user typed: a JSON file's wrong type as JSON names it (``an object``,
not Python's ``dict``), and an invalid item of a list after the flag that
gave it (``--open-item``, ``--replace-open-items``); ``--json``'s problems
keep the record's paths alone."""

from __future__ import annotations

import json

import pytest

from baton.domain.edits import replace_lists
from baton.errors import InputError
from tests.conftest import run_baton


@pytest.fixture
def draft(project) -> str:
    made = run_baton("checkpoint", "create", "--title", "T", "--objective", "O", "--no-input", "--json",
                     "--project", str(project))
    return json.loads(made.stdout)["handoff"]["id"]


def test_a_replacement_file_holding_an_object_is_said_as_json_names_it(project, draft, tmp_path):
    (tmp_path / "items.json").write_text('{"description": "x"}')
    done = run_baton("handoff", "amend", draft, "--replace-open-items", str(tmp_path / "items.json"),
                     "--project", str(project))
    assert done.returncode == 2 and "must hold a JSON array (the new list), not an object" in done.stderr
    assert "dict" not in done.stderr


def test_an_input_file_holding_a_string_is_said_as_json_names_it(project, draft, tmp_path):
    (tmp_path / "payload.json").write_text('"x"')
    done = run_baton("handoff", "amend", draft, "--input", str(tmp_path / "payload.json"), "--project", str(project))
    assert done.returncode == 2 and "must hold a JSON object (a handoff payload), not a string" in done.stderr


def test_a_replaced_section_that_is_no_list_is_said_as_json_names_it():
    with pytest.raises(InputError, match="the new risks must be a JSON array, not an object$"):
        replace_lists({}, {"risks": {"description": "x"}})


def test_an_invalid_open_item_from_the_flag_names_the_flag(project, draft):
    done = run_baton("handoff", "amend", draft, "--open-item", '{"descriptio": "x"}', "--json",
                     "--project", str(project))
    error = json.loads(done.stdout)["error"]
    assert done.returncode == 2
    assert error["message"].endswith("open_items[0].description: required (from --open-item)")
    assert error["details"]["problems"] == ["open_items[0].description: required"]


def test_an_invalid_item_of_a_replacement_file_names_its_flag(project, draft, tmp_path):
    (tmp_path / "items.json").write_text("[1]")
    done = run_baton("handoff", "amend", draft, "--replace-open-items", str(tmp_path / "items.json"),
                     "--project", str(project))
    assert done.returncode == 2 and "(from --replace-open-items)" in done.stderr


def test_an_invalid_risk_of_a_capture_names_the_risk_flag(project):
    done = run_baton("checkpoint", "create", "--title", "T", "--objective", "O", "--risk", '{"severity": "x"}',
                     "--no-input", "--project", str(project))
    assert done.returncode == 2 and "risks[0].description: required (from --risk)" in done.stderr


def test_a_problem_no_flag_gave_names_none(project, draft, tmp_path):
    (tmp_path / "payload.json").write_text('{"risks": [{"severity": "x"}]}')
    done = run_baton("handoff", "amend", draft, "--input", str(tmp_path / "payload.json"), "--project", str(project))
    assert done.returncode == 2 and "risks[0]" in done.stderr and "(from " not in done.stderr
