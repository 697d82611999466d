"""Retired ids compare as amend compares ids, and a continuation starts with its parent's
(docs/handoffs.md, "Retired ids").

``o-002`` and ``O-002`` name one item everywhere (``short_ids.id_key``): a retired ``o-002`` keeps
``O-002`` from a new item, and a closed ``O-002`` cited as ``o-2`` blocks nothing. A continuation
(``checkpoint create --from``) carries its parent's ``retired_ids``, so an item it carries over that
still cites a closed item does not end up blocked by a new, unrelated one.
"""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from baton.domain.batons import open_blockers
from baton.domain.short_ids import id_key
from tests.cli_support import run, run_json

_OLD_FORM = re.compile(r"^\s*([A-Za-z]+)-0*(\d+)\s*$")


def _old_id_key(ident: str) -> str:
    found = _OLD_FORM.match(ident)
    return f"{found.group(1).upper()}-{int(found.group(2))}" if found else ident.strip().casefold()


@given(st.text(alphabet=st.sampled_from(list("Oo0129-  \t٣xZ²")), max_size=8))
def test_the_id_key_without_a_pattern_matches_the_patterns_reading(ident):
    assert id_key(ident) == _old_id_key(ident)


def test_a_closed_blocker_cited_in_another_case_blocks_nothing():
    assert open_blockers(["o-2", "O-003"], ["O-002"]) == ["O-003"]


def _capture(capsys, project, payload: dict, *extra: str) -> dict:
    path = project / "in.json"
    path.write_text(json.dumps(payload))
    named = () if "work" in payload else ("--title", "T", "--objective", "O")
    return run_json(capsys, project, "checkpoint", "create", "--no-input", *named, "--input", str(path),
                    *extra)["handoff"]


def _items(record: dict) -> list[tuple[str, list[str], str]]:
    return [(i["id"], i.get("blocked_by") or [], i["description"]) for i in record["open_items"]]


def test_a_new_item_does_not_take_a_retired_id_written_in_lower_case(capsys, project):
    hid = _capture(capsys, project, {"open_items": [
        {"id": "O-001", "description": "Ship the release", "blocked_by": ["o-002"]},
        {"id": "o-002", "description": "Fix the flaky login test"}]})["id"]
    run_json(capsys, project, "handoff", "amend", hid, "--close-item", "o-002")
    record = run_json(capsys, project, "handoff", "amend", hid, "--open-item", "Rewrite the billing module")["handoff"]
    assert [i["id"] for i in record["open_items"]] == ["O-001", "O-003"]


def test_a_continuation_keeps_its_parents_retired_ids_from_new_items(capsys, project):
    parent = _capture(capsys, project, {"open_items": [
        {"description": "Ship the release", "blocked_by": ["O-002"]},
        {"description": "Fix the flaky login test"}]})["id"]
    run_json(capsys, project, "handoff", "amend", parent, "--close-item", "O-002")
    code, template, err = run(capsys, project, "handoff", "prepare", "--from", parent)
    assert code == 0, err
    body = json.loads(template[template.index("{"):])
    body["open_items"].append({"description": "Rewrite the billing module"})
    child = _capture(capsys, project, body, "--from", parent)
    assert _items(child) == [("O-001", ["O-002"], "Ship the release"), ("O-003", [], "Rewrite the billing module")]
    assert child["retired_ids"] == ["O-002"]


def test_a_continuation_that_names_a_retired_id_on_its_own_item_does_not_retire_it(capsys, project):
    parent = _capture(capsys, project, {"open_items": [
        {"description": "Ship the release"}, {"description": "Fix the flaky login test"}]})["id"]
    run_json(capsys, project, "handoff", "amend", parent, "--close-item", "O-002")
    child = _capture(capsys, project, {"open_items": [
        {"id": "O-002", "description": "Fix the flaky login test, again"}]}, "--from", parent)
    assert child["retired_ids"] == ["O-001"]  # the parent's item it left behind; O-002 is its own again


def test_a_continuation_does_not_give_a_parents_item_it_left_behind_to_a_new_item(capsys, project):
    parent = _capture(capsys, project, {"open_items": [
        {"description": "Ship the parser", "blocked_by": ["O-003"]}, {"description": "Write the docs"},
        {"description": "Fix the flaky auth test"}]})["id"]
    child = _capture(capsys, project, {"open_items": [
        {"id": "O-001", "description": "Ship the parser", "blocked_by": ["O-003"]},
        {"description": "Bump the version"}, {"description": "Rotate the signing key"}]}, "--from", parent)
    assert _items(child) == [("O-001", ["O-003"], "Ship the parser"), ("O-004", [], "Bump the version"),
                             ("O-005", [], "Rotate the signing key")]
    assert child["retired_ids"] == ["O-002", "O-003"]
