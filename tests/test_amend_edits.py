"""Editing that can remove: ``handoff amend --close-item / --drop / --replace-*``.

A finished open item is closed (it leaves the open items, its description
joins ``summary.completed``); any item can be dropped by id; a list can be
replaced whole. Each is recorded with the amendment's event, like every change.
"""

from __future__ import annotations

import json

import pytest

from baton.domain.edits import apply_edits, close_items, drop_items, replace_lists, same_id
from baton.errors import InputError
from tests.cli_support import run, run_json

BODY = {
    "work": {"title": "T", "objective": "O"},
    "summary": {"completed": ["earlier"]},
    "open_items": [{"id": "O-001", "description": "write the fixture"},
                   {"id": "O-002", "description": "run the suite"}],
    "decisions": [{"id": "D-001", "decision": "use X"}, {"id": "D-002", "decision": "use Y"}],
}


# -- the pure edits ---------------------------------------------------------------------

def test_an_id_is_matched_as_people_type_it():
    assert same_id("O-1", "O-001") and same_id("o-001", "O-001")
    assert not same_id("O-10", "O-001") and not same_id("D-1", "O-001")


def test_closing_an_item_moves_its_description_to_completed():
    body, edits = close_items(BODY, ["O-1"])
    assert [i["id"] for i in body["open_items"]] == ["O-002"]
    assert body["summary"]["completed"] == ["earlier", "write the fixture"]
    assert [e.to_json() for e in edits] == [{"op": "close", "target": "O-001", "section": "open_items"}]


def test_closing_never_changes_the_body_it_was_given():
    close_items(BODY, ["O-1"])
    assert len(BODY["open_items"]) == 2 and BODY["summary"]["completed"] == ["earlier"]


def test_closing_an_unknown_item_names_the_items_there_are():
    with pytest.raises(InputError) as caught:
        close_items(BODY, ["O-9"])
    assert "O-001, O-002" in caught.value.message


def test_a_decision_cannot_be_closed_only_dropped():
    with pytest.raises(InputError):
        close_items(BODY, ["D-1"])
    body, _ = drop_items(BODY, ["D-1"])
    assert [d["id"] for d in body["decisions"]] == ["D-002"]


def test_dropping_finds_the_item_in_whichever_section_holds_it():
    body, edits = drop_items(BODY, ["O-2", "D-2"])
    assert [i["id"] for i in body["open_items"]] == ["O-001"]
    assert [d["id"] for d in body["decisions"]] == ["D-001"]
    assert [e.section for e in edits] == ["open_items", "decisions"]


def test_dropping_an_unknown_id_is_an_input_error():
    with pytest.raises(InputError):
        drop_items(BODY, ["E-1"])


def test_replacing_a_list_sets_it_whole():
    body, edits = replace_lists(BODY, {"open_items": [{"description": "only this"}]})
    assert body["open_items"] == [{"description": "only this"}]
    assert [e.to_json() for e in edits] == [{"op": "replace", "target": "open_items"}]


def test_only_list_sections_can_be_replaced():
    with pytest.raises(InputError):
        replace_lists(BODY, {"work": []})
    with pytest.raises(InputError):
        replace_lists(BODY, {"risks": {"description": "x"}})


def test_a_replaced_list_can_be_pruned_in_the_same_edit():
    body, _ = apply_edits(BODY, replace={"open_items": [{"id": "O-001", "description": "a"},
                                                        {"id": "O-002", "description": "b"}]}, close=["O-2"])
    assert [i["description"] for i in body["open_items"]] == ["a"]
    assert body["summary"]["completed"][-1] == "b"


def test_an_item_named_twice_is_refused_as_named_twice():
    with pytest.raises(InputError) as raised:
        apply_edits(BODY, close=["O-001", "O-001"])
    assert "'O-001' is named twice" in raised.value.message and "there are" not in raised.value.message


def test_an_item_named_twice_in_two_forms_or_to_close_and_drop_is_refused():
    for close, drop in ((["O-001", "o-1"], []), (["O-001"], ["O-1"])):
        with pytest.raises(InputError) as raised:
            apply_edits(BODY, close=close, drop=drop)
        assert "is named twice (as 'O-" in raised.value.message


# -- through the command line ----------------------------------------------------------

def _capture(capsys, project) -> str:
    return run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "OAuth replay",
                    "--objective", "reject replays", "--open-item", "write the fixture", "run the suite",
                    "--decision", "use X")["id"]


def _events(project, kind: str) -> list[dict]:
    out = []
    for feed in (project / ".baton" / "ledger").glob("*.jsonl"):
        out += [json.loads(line) for line in feed.read_text().splitlines()]
    return [e for e in out if e["type"] == kind]


def test_amend_close_item_takes_a_finished_item_out_of_the_next_actions(capsys, project):
    hid = _capture(capsys, project)
    record = run_json(capsys, project, "handoff", "amend", hid, "--close-item", "O-1")["handoff"]
    assert [i["description"] for i in record["open_items"]] == ["run the suite"]
    assert "write the fixture" in record["summary"]["completed"]


def test_the_edit_is_recorded_with_the_revision_event(capsys, project):
    hid = _capture(capsys, project)
    run_json(capsys, project, "handoff", "amend", hid, "--close-item", "O-1", "--drop", "D-1")
    revised = _events(project, "handoff.revised")
    assert revised[-1]["data"]["edits"] == [{"op": "drop", "target": "D-001", "section": "decisions"},
                                           {"op": "close", "target": "O-001", "section": "open_items"}]


def test_replace_open_items_reads_a_json_array(capsys, project, tmp_path):
    hid = _capture(capsys, project)
    new = tmp_path / "items.json"
    new.write_text(json.dumps(["only this", {"description": "and this", "priority": "low"}]))
    record = run_json(capsys, project, "handoff", "amend", hid, "--replace-open-items", str(new))["handoff"]
    assert [i["description"] for i in record["open_items"]] == ["only this", "and this"]
    assert [i["id"] for i in record["open_items"]] == ["O-003", "O-004"]  # O-001/O-002 were replaced away: retired


def test_replace_with_something_other_than_an_array_exits_2(capsys, project, tmp_path):
    hid = _capture(capsys, project)
    new = tmp_path / "items.json"
    new.write_text('{"description": "x"}')
    code, _, err = run(capsys, project, "handoff", "amend", hid, "--replace-open-items", str(new))
    assert code == 2 and "JSON array" in err


def test_closing_an_unknown_item_exits_2_and_writes_nothing(capsys, project):
    hid = _capture(capsys, project)
    before = len(_events(project, "handoff.revised"))
    code, _, err = run(capsys, project, "handoff", "amend", hid, "--close-item", "O-7")
    assert code == 2 and "no open item 'O-7'" in err
    assert len(_events(project, "handoff.revised")) == before


def test_closing_an_item_named_twice_exits_2_says_so_and_writes_nothing(capsys, project):
    hid = _capture(capsys, project)
    before = len(_events(project, "handoff.revised"))
    code, _, err = run(capsys, project, "handoff", "amend", hid, "--close-item", "O-001", "O-001")
    assert code == 2 and "'O-001' is named twice" in err and "there are: none" not in err
    assert len(_events(project, "handoff.revised")) == before


def test_closing_an_item_of_a_ready_handoff_makes_a_corrected_child(capsys, project):
    hid = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "t", "--objective", "o",
                   "--open-item", json.dumps({"description": "Add the fixture", "suggested_action": "write it",
                                              "acceptance_check": "the test fails without the fix"}),
                   "--completed", "helper written", "--current-state", "fixture left")["id"]
    run_json(capsys, project, "handoff", "validate", hid)
    run_json(capsys, project, "handoff", "ready", hid, "--accept-warnings", "no git here")
    child = run_json(capsys, project, "handoff", "amend", hid, "--close-item", "O-1", "--work-state", "completed")
    assert child["id"] != hid and child["handoff"]["open_items"] == []
    assert child["handoff"]["lineage"] == {**child["handoff"]["lineage"], "relation": "amend", "parents": [hid]}
    captured = [e for e in _events(project, "handoff.captured") if e["stream"] == f"handoff/{child['id']}"]
    assert captured[0]["data"]["edits"] == [{"op": "close", "target": "O-001", "section": "open_items"}]


def test_amend_text_output_names_the_items_closed_and_dropped(capsys, project):
    hid = _capture(capsys, project)
    code, out, err = run(capsys, project, "handoff", "amend", hid, "--close-item", "O-1", "--drop", "D-1")
    assert code == 0, err
    assert "closed: O-001 (moved to summary.completed)" in out
    assert "dropped: D-001" in out


def test_amend_text_output_names_the_lists_replaced(capsys, project, tmp_path):
    hid = _capture(capsys, project)
    new = tmp_path / "items.json"
    new.write_text(json.dumps(["only this"]))
    code, out, err = run(capsys, project, "handoff", "amend", hid, "--replace-open-items", str(new))
    assert code == 0, err
    assert "replaced: open_items (whole list)" in out


def test_amend_json_lists_the_edits_it_made(capsys, project):
    hid = _capture(capsys, project)
    answer = run_json(capsys, project, "handoff", "amend", hid, "--drop", "O-2")
    assert answer["edits"] == [{"op": "drop", "target": "O-002", "section": "open_items"}]
