"""An item id is never reused within a record's lineage (docs/handoffs.md, "Retired ids").

An id that leaves a record in an amendment (dropped, closed, replaced away) is
kept in the record's ``retired_ids``; a new item takes one past the highest id
present or retired, so a decision's ``evidence_ids`` or an item's ``blocked_by``
never moves to an unrelated item. A drop of an item the amended record still
cites is refused, naming what cites it.
"""

from __future__ import annotations

import json

import pytest

from baton.domain.batons import baton_content_of_handoff
from baton.domain.edits import Edit, refuse_cited_drops, retired_after
from baton.domain.lineage import merge_body, merge_retired
from baton.domain.quality import order_open_items
from baton.errors import InputError
from tests.cli_support import run, run_json

FAILING_TEST = json.dumps({"type": "test", "ref": "pytest tests/test_cache.py", "claim": "cache invalidation works",
                           "result": "fail"})
LINT = json.dumps({"type": "command", "ref": "npm run lint", "claim": "lint is clean", "result": "pass"})


def _capture(capsys, project, *extra: str) -> str:
    return run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "evidence ids",
                    "--objective", "check ids after a drop", *extra)["id"]


def _ids(record: dict, section: str) -> list[str]:
    return [item["id"] for item in record[section]]


# -- the pure parts ---------------------------------------------------------------------

def test_ids_that_left_the_record_are_retired_with_those_retired_before():
    before = {"evidence": [{"id": "E-001"}, {"id": "E-002"}], "open_items": [{"id": "O-001"}]}
    after = {"evidence": [{"id": "E-002"}], "open_items": []}
    assert retired_after(before, after, ["D-003"]) == ["D-003", "E-001", "O-001"]


def test_a_drop_of_evidence_a_decision_still_cites_is_refused_naming_the_decision():
    body = {"evidence": [], "decisions": [{"id": "D-001", "decision": "keep", "evidence_ids": ["E-001"]}]}
    with pytest.raises(InputError) as raised:
        refuse_cited_drops(body, [Edit("drop", "E-001", "evidence")])
    assert "E-001 is cited by D-001 (evidence_ids)" in raised.value.message


# -- through the command line ----------------------------------------------------------

def test_evidence_added_after_a_drop_takes_a_new_id_not_the_dropped_one(capsys, project):
    hid = _capture(capsys, project, "--evidence", FAILING_TEST)
    run_json(capsys, project, "handoff", "amend", hid, "--drop", "E-001")
    record = run_json(capsys, project, "handoff", "amend", hid, "--evidence", LINT)["handoff"]
    assert _ids(record, "evidence") == ["E-002"]
    assert record["retired_ids"] == ["E-001"]


def test_an_open_item_added_after_a_close_takes_a_new_id(capsys, project):
    hid = _capture(capsys, project, "--open-item", "security review")
    run_json(capsys, project, "handoff", "amend", hid, "--close-item", "O-001")
    record = run_json(capsys, project, "handoff", "amend", hid, "--open-item", "update the changelog")["handoff"]
    assert _ids(record, "open_items") == ["O-002"]


def test_dropping_evidence_a_decision_cites_exits_2_naming_the_decision_and_changes_nothing(capsys, project):
    hid = _capture(capsys, project, "--evidence", FAILING_TEST,
                   "--decision", json.dumps({"decision": "Keep the LRU cache", "evidence_ids": ["E-001"]}))
    code, _, err = run(capsys, project, "handoff", "amend", hid, "--drop", "E-001")
    assert code == 2 and "E-001 is cited by D-001 (evidence_ids)" in err
    assert _ids(run_json(capsys, project, "handoff", "show", hid)["handoff"], "evidence") == ["E-001"]


def test_dropping_an_open_item_another_is_blocked_by_exits_2_naming_the_blocked_item(capsys, project):
    hid = _capture(capsys, project, "--open-item", json.dumps({"description": "deploy", "blocked_by": ["O-002"]}),
                   "security review")
    code, _, err = run(capsys, project, "handoff", "amend", hid, "--drop", "O-002")
    assert code == 2 and "O-002 is cited by O-001 (blocked_by)" in err


def test_a_cited_item_and_its_citer_can_be_dropped_together(capsys, project):
    hid = _capture(capsys, project, "--evidence", FAILING_TEST,
                   "--decision", json.dumps({"decision": "Keep the LRU cache", "evidence_ids": ["E-001"]}))
    record = run_json(capsys, project, "handoff", "amend", hid, "--drop", "E-001", "D-001")["handoff"]
    assert record["evidence"] == [] and record["decisions"] == []


def test_a_corrected_child_of_a_ready_handoff_keeps_the_retired_ids(capsys, project):
    hid = _capture(capsys, project, "--evidence", FAILING_TEST, LINT, "--current-state", "half way",
                   "--open-item", json.dumps({"description": "next", "suggested_action": "do",
                                              "acceptance_check": "check"}))
    run_json(capsys, project, "handoff", "amend", hid, "--drop", "E-002")
    run_json(capsys, project, "handoff", "validate", hid)
    run_json(capsys, project, "handoff", "ready", hid, "--accept-warnings", "no git here")
    child = run_json(capsys, project, "handoff", "amend", hid, "--evidence", LINT)["handoff"]
    assert _ids(child, "evidence") == ["E-001", "E-003"] and child["retired_ids"] == ["E-002"]


def test_retired_ids_read_the_same_after_a_rebuild(capsys, project):
    hid = _capture(capsys, project, "--evidence", FAILING_TEST)
    run_json(capsys, project, "handoff", "amend", hid, "--drop", "E-001")
    before = run_json(capsys, project, "handoff", "show", hid)["handoff"]
    run_json(capsys, project, "rebuild")
    assert run_json(capsys, project, "handoff", "show", hid)["handoff"] == before
    assert before["retired_ids"] == ["E-001"]


def test_retired_ids_cannot_be_supplied_in_a_capture(capsys, project, tmp_path):
    given = tmp_path / "h.json"
    given.write_text(json.dumps({"work": {"title": "t", "objective": "o"}, "retired_ids": ["E-001"]}))
    code, _, err = run(capsys, project, "checkpoint", "create", "--no-input", "--input", str(given))
    assert code == 2 and "retired_ids" in err


# -- a closed blocker blocks nothing (tester-use22b T6) ---------------------------------

def _blocked_after_close() -> dict:
    return {"retired_ids": ["O-001"], "open_items": [
        {"id": "O-002", "description": "after the blocker", "priority": "high", "blocked_by": ["O-001"]},
        {"id": "O-003", "description": "minor", "priority": "low"}]}


def test_an_item_blocked_only_by_a_retired_id_is_ordered_as_unblocked():
    assert [item["id"] for item in order_open_items(_blocked_after_close())] == ["O-002", "O-003"]


def test_a_handed_on_baton_s_steps_put_an_item_blocked_only_by_a_retired_id_first():
    assert baton_content_of_handoff(_blocked_after_close())["nextSteps"][0] == "[high] after the blocker"


def test_a_blocker_not_retired_still_blocks():
    record = {**_blocked_after_close(), "retired_ids": []}
    assert [item["id"] for item in order_open_items(record)] == ["O-003", "O-002"]


def test_resume_after_closing_the_blocker_names_no_closed_blocker(capsys, project):
    item = {"suggested_action": "do", "acceptance_check": "check"}
    hid = _capture(capsys, project, "--evidence", LINT, "--current-state", "half way", "--open-item",
                   json.dumps({"description": "the blocker", **item}),
                   json.dumps({"description": "after the blocker", "priority": "high", "blocked_by": ["O-001"], **item}),
                   json.dumps({"description": "minor", "priority": "low", **item}))
    run_json(capsys, project, "handoff", "amend", hid, "--close-item", "O-001")
    run_json(capsys, project, "handoff", "validate", hid)
    run_json(capsys, project, "handoff", "ready", hid, "--accept-warnings", "no git here")
    code, out, _ = run(capsys, project, "resume", hid)
    first = out.split("FIRST NEXT ACTION", 1)[1]
    assert code == 0 and "after the blocker" in first.splitlines()[1]
    assert "Blocked by" not in first


# -- a replace that takes a cited item away is refused like a drop (tester-use22b T1) -----

def _cited_evidence(capsys, project) -> str:
    return _capture(capsys, project, "--evidence", FAILING_TEST, LINT,
                    "--decision", json.dumps({"decision": "Keep the LRU cache", "evidence_ids": ["E-001"]}))


def test_replacing_evidence_a_decision_cites_exits_2_naming_the_decision_and_changes_nothing(capsys, project,
                                                                                             tmp_path):
    hid = _cited_evidence(capsys, project)
    before = run_json(capsys, project, "handoff", "show", hid)["handoff"]
    new = tmp_path / "ev.json"
    new.write_text(json.dumps([json.loads(LINT)]))
    code, _, err = run(capsys, project, "handoff", "amend", hid, "--replace-evidence", str(new))
    assert code == 2 and "E-001 is cited by D-001 (evidence_ids): replacing evidence takes E-001 away" in err
    assert run_json(capsys, project, "handoff", "show", hid)["handoff"] == before


def test_replacing_open_items_away_from_a_blocker_another_names_is_refused(capsys, project, tmp_path):
    hid = _capture(capsys, project, "--open-item", "security review",
                   json.dumps({"description": "deploy", "blocked_by": ["O-001"]}))
    new = tmp_path / "items.json"
    new.write_text(json.dumps(["something else", {"id": "O-002", "description": "deploy", "blocked_by": ["O-001"]}]))
    code, _, err = run(capsys, project, "handoff", "amend", hid, "--replace-open-items", str(new))
    assert code == 2 and "O-001 is cited by O-002 (blocked_by)" in err


def test_a_replace_that_keeps_the_cited_item_with_its_id_is_accepted(capsys, project, tmp_path):
    hid = _cited_evidence(capsys, project)
    new = tmp_path / "ev.json"
    new.write_text(json.dumps([{**json.loads(FAILING_TEST), "id": "E-001"}]))
    record = run_json(capsys, project, "handoff", "amend", hid, "--replace-evidence", str(new))["handoff"]
    assert _ids(record, "evidence") == ["E-001"] and record["retired_ids"] == ["E-002"]


def test_replacing_the_cited_evidence_and_its_citer_together_is_accepted(capsys, project, tmp_path):
    hid = _cited_evidence(capsys, project)
    evidence, decisions = tmp_path / "ev.json", tmp_path / "d.json"
    evidence.write_text(json.dumps([json.loads(LINT)]))
    decisions.write_text(json.dumps([{"decision": "Drop the cache", "evidence_ids": ["E-003"]}]))
    record = run_json(capsys, project, "handoff", "amend", hid, "--replace-evidence", str(evidence),
                      "--replace-decisions", str(decisions))["handoff"]
    assert _ids(record, "evidence") == ["E-003"] and record["decisions"][0]["evidence_ids"] == ["E-003"]


# -- a fork carries its parent's retired ids (tester-use22b T9) ---------------------------

def test_a_fork_child_carries_its_parent_s_retired_ids_and_a_new_item_takes_a_new_id(capsys, project):
    item = {"suggested_action": "do", "acceptance_check": "check"}
    hid = _capture(capsys, project, "--evidence", LINT, "--current-state", "half way", "--open-item",
                   json.dumps({"description": "first", **item}), json.dumps({"description": "to close", **item}))
    run_json(capsys, project, "handoff", "amend", hid, "--close-item", "O-002")
    run_json(capsys, project, "handoff", "validate", hid)
    run_json(capsys, project, "handoff", "ready", hid, "--accept-warnings", "no git here")
    fork = run_json(capsys, project, "fork", hid)["id"]
    record = run_json(capsys, project, "handoff", "amend", fork, "--open-item", "brand new fork item")["handoff"]
    assert record["retired_ids"] == ["O-002"] and _ids(record, "open_items") == ["O-001", "O-003"]


# -- a merge carries its parents' retired ids (fix22e T9's rest) ---------------------------

def _merge_of_a_parent_that_retired_o_002(capsys, project, tmp_path) -> str:
    """Parent A closed its ``O-002`` (retired); parent B, apart, has two open items of its own."""
    item = {"suggested_action": "do", "acceptance_check": "check"}
    a = _capture(capsys, project, "--open-item", json.dumps({"description": "a first", **item}),
                 json.dumps({"description": "a to close", **item}))
    run_json(capsys, project, "handoff", "amend", a, "--close-item", "O-002")
    b = _capture(capsys, project, "--evidence", LINT, "--open-item", json.dumps({"description": "b first", **item}),
                 json.dumps({"description": "b second", **item}))
    resolution = tmp_path / "resolution.json"
    resolution.write_text(json.dumps({"decision": "both halves go on"}))
    return run_json(capsys, project, "merge", a, b, "--resolution-file", str(resolution))["id"]


def test_a_merge_child_carries_its_parents_retired_ids_and_numbers_no_item_onto_one(capsys, project, tmp_path):
    merged = _merge_of_a_parent_that_retired_o_002(capsys, project, tmp_path)
    record = run_json(capsys, project, "handoff", "show", merged)["handoff"]
    assert record["retired_ids"] == ["O-002"]
    assert _ids(record, "open_items") == ["O-001", "O-003", "O-004"]
    assert [i["description"] for i in record["open_items"]] == ["a first", "b first", "b second"]


def test_a_new_item_of_a_merge_child_takes_no_id_a_parent_retired(capsys, project, tmp_path):
    merged = _merge_of_a_parent_that_retired_o_002(capsys, project, tmp_path)
    record = run_json(capsys, project, "handoff", "amend", merged, "--open-item", "new after the merge")["handoff"]
    assert _ids(record, "open_items") == ["O-001", "O-003", "O-004", "O-005"]


def test_a_merge_child_s_retired_ids_read_the_same_after_a_rebuild(capsys, project, tmp_path):
    merged = _merge_of_a_parent_that_retired_o_002(capsys, project, tmp_path)
    before = run_json(capsys, project, "handoff", "show", merged)["handoff"]
    run_json(capsys, project, "rebuild")
    assert run_json(capsys, project, "handoff", "show", merged)["handoff"] == before


def test_a_merge_retires_the_union_of_its_parents_retired_ids():
    parents = [{"retired_ids": ["O-002", "E-001"]}, {"retired_ids": ["O-002", "D-001"]}, {}]
    assert merge_retired(parents) == ("D-001", "E-001", "O-002")


def test_a_merge_numbers_its_evidence_and_decisions_past_the_retired_ids():
    parents = [{"id": "a", "evidence": [{"type": "test", "claim": "x"}]}, {"id": "b"}]
    body = merge_body(parents, resolution={"decision": "join"}, conflicts=(), basis=(), title=None,
                      retired=("D-001", "E-001"))
    assert _ids(body, "evidence") == ["E-002"] and _ids(body, "decisions") == ["D-002"]


def test_a_merged_item_s_blocker_keeps_naming_the_same_item_after_renumbering():
    parents = [{"id": "a", "open_items": [{"id": "O-001", "description": "a only"}]},
               {"id": "b", "open_items": [{"id": "O-001", "description": "b blocker"},
                                          {"id": "O-002", "description": "b blocked", "blocked_by": ["O-001"]}]}]
    body = merge_body(parents, resolution={"decision": "join"}, conflicts=(), basis=(), title=None)
    by_description = {i["description"]: i for i in body["open_items"]}
    assert by_description["b blocked"]["blocked_by"] == [by_description["b blocker"]["id"]] == ["O-002"]
