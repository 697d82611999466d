"""A handoff edited apart on two clones of one team remote (docs/handoffs.md, "Edits made apart").

Real ``baton`` processes on two git clones of a bare remote: Alice captures a
draft and syncs; Bob amends it on his clone; before she syncs again Alice
validates and readies her body. After both sync, the ready record on every
clone is the body Alice validated, flagged ``conflicted``, naming Bob's
revision as not applied — and the sync that brought the other's events says so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.sync_support import writer_of
from tests.team_support import baton, baton_json, git, team

pytestmark = pytest.mark.slow

OPEN_ITEM = '{"description":"x","suggested_action":"y","acceptance_check":"z"}'
EVIDENCE = '{"type":"command","claim":"c","ref":"r","result":"passed"}'


def draft(clone: Path, state: str) -> str:
    made = baton_json(clone, "checkpoint", "create", "--no-input", "--title", "draft race", "--objective", "o race",
                      "--current-state", state, "--open-item", OPEN_ITEM, "--evidence", EVIDENCE)
    return made["handoff"]["id"]


def ok(clone: Path, *args: str) -> str:
    done = baton(clone, *args)
    assert done.returncode == 0 and "Traceback" not in done.stderr, (clone.name, args, done.stdout, done.stderr)
    return done.stdout


def shown(clone: Path, ident: str) -> dict:
    return baton_json(clone, "handoff", "show", ident)["handoff"]


def test_a_ready_handoff_keeps_the_body_it_was_validated_with_when_a_teammate_amended_the_draft_apart(tmp_path):
    with team(tmp_path, 2, "path") as (_remote, (alice, bob)):
        ident = draft(alice, "alice original state")
        ok(alice, "sync")
        ok(bob, "sync")
        ok(bob, "handoff", "amend", ident, "--current-state", "BOB REWROTE THIS", "--risk", "bob added risk")
        ok(alice, "handoff", "validate", ident)
        ok(alice, "handoff", "ready", ident)
        first = ok(bob, "sync")
        told_alice = ok(alice, "sync")
        told_bob = ok(bob, "sync")
        for clone in (alice, bob):
            record = shown(clone, ident)
            assert record["status"] == "ready", clone.name
            assert record["summary"]["current_state"] == "alice original state", clone.name
            assert "conflicted" in record["flags"]
            (edit,) = record["concurrent_edits"]
            assert edit["outcome"] == "not_applied" and edit["by"]["action"] in ("validated", "promoted")
        short = ident[-8:]
        assert f"CONFLICT handoff {short}" in told_alice, told_alice
        assert "not applied" in told_alice
        assert f"CONFLICT handoff {short}" not in first  # Bob's first sync brought nothing of Alice's
        assert f"CONFLICT handoff {short}" in told_bob, told_bob
        assert f"CONFLICT handoff {short}" in ok(bob, "handoff", "show", ident, "--format", "md")
        assert f"CONFLICT handoff {short}" not in ok(alice, "sync")  # told once
        assert f"CONFLICT handoff {short}" in ok(alice, "status")
        assert baton_json(alice, "status")["concurrentEdits"][0]["handoff"] == ident


def test_a_handoff_made_ready_and_handed_on_stays_ready_when_a_teammate_amended_it_between_validation_and_ready(
        tmp_path):
    with team(tmp_path, 2, "path") as (_remote, (alice, bob)):
        ident = draft(alice, "alice v1")
        ok(alice, "sync")
        ok(bob, "sync")
        ok(alice, "handoff", "validate", ident)
        ok(bob, "handoff", "amend", ident, "--current-state", "bob v2")
        ok(alice, "handoff", "ready", ident)
        ok(bob, "sync")
        ok(alice, "sync")
        record = shown(alice, ident)
        assert record["status"] == "ready" and record["summary"]["current_state"] == "alice v1"
        assert record["concurrent_edits"][0]["writer"] == writer_of(bob)
        resumed = baton(alice, "resume", ident, "--json")
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr


def test_two_teammates_amending_one_draft_apart_keep_the_later_edit_and_name_the_other(tmp_path):
    with team(tmp_path, 2, "path") as (_remote, (alice, bob)):
        ident = draft(alice, "first")
        ok(alice, "sync")
        ok(bob, "sync")
        ok(bob, "handoff", "amend", ident, "--current-state", "bob edited")
        ok(alice, "handoff", "amend", ident, "--current-state", "alice edited")
        ok(bob, "sync")
        ok(alice, "sync")
        ok(bob, "sync")
        views = [shown(clone, ident) for clone in (alice, bob)]
        assert views[0] == views[1]
        record = views[0]
        assert record["summary"]["current_state"] == "alice edited" and "conflicted" in record["flags"]
        (edit,) = record["concurrent_edits"]
        assert edit["outcome"] == "overwritten"
        ok(alice, "handoff", "validate", ident)
        refused = baton(alice, "handoff", "ready", ident, "--json")
        assert refused.returncode == 4 and "conflicted" in json.loads(refused.stdout)["error"]["message"]


def named(*clones: Path) -> None:
    for clone, who in zip(clones, ("alice", "bob")):
        git(clone, "config", "user.email", f"{who}@example.com")


def edits(record: dict) -> list[tuple[str, str]]:
    return [(e.get("owner"), e.get("action") or e["by"].get("action")) for e in record["concurrent_edits"]]


AMEND, VALIDATE, READY = ("handoff", "amend"), ("handoff", "validate"), ("handoff", "ready")


def made_apart(alice: Path, bob: Path, state: str, *steps: tuple) -> tuple[str, str, dict]:
    """Alice's draft of ``state`` reaches Bob; ``steps`` (clone, command, arguments after the id) run
    before either syncs again; then Bob, Alice and Bob sync. (id, what Alice's sync said, the record
    on both clones, which must be the same.)"""
    named(alice, bob)
    ident = draft(alice, state)
    ok(alice, "sync")
    ok(bob, "sync")
    for clone, command, *rest in steps:
        ok(clone, *command, ident, *rest)
    ok(bob, "sync")
    told = ok(alice, "sync")
    ok(bob, "sync")
    views = [shown(clone, ident) for clone in (alice, bob)]
    assert views[0] == views[1]
    return ident, told, views[0]


def test_a_ready_handoff_keeps_its_validated_body_when_a_teammate_amended_the_draft_twice_apart(tmp_path):
    with team(tmp_path, 2, "path") as (_remote, (alice, bob)):
        ident, told, record = made_apart(alice, bob, "alice original state",
                                         (bob, AMEND, "--current-state", "bob first"),
                                         (bob, AMEND, "--current-state", "bob second"),
                                         (alice, VALIDATE), (alice, READY))
        assert record["status"] == "ready" and record["summary"]["current_state"] == "alice original state"
        assert "conflicted" in record["flags"]
        assert edits(record) == [("bob@example.com", "validated"), ("bob@example.com", "validated")]
        assert told.count(f"CONFLICT handoff {ident[-8:]}: bob@example.com (writer ") == 2, told


def test_a_validated_handoff_made_ready_after_two_amends_apart_does_not_go_back_to_draft(tmp_path):
    with team(tmp_path, 2, "path") as (_remote, (alice, bob)):
        _ident, _told, record = made_apart(alice, bob, "alice v1", (alice, VALIDATE),
                                           (bob, AMEND, "--current-state", "bob v2"),
                                           (bob, AMEND, "--current-state", "bob v3"), (alice, READY))
        assert record["status"] == "ready" and record["summary"]["current_state"] == "alice v1"
        assert edits(record) == [("bob@example.com", "promoted"), ("bob@example.com", "promoted")]
        assert "conflicted" in record["flags"]


def test_the_authors_ready_body_is_not_replaced_silently_when_a_teammates_amend_and_ready_came_first(tmp_path):
    with team(tmp_path, 2, "path") as (_remote, (alice, bob)):
        ident, told, record = made_apart(alice, bob, "alice wrote this",
                                         (bob, AMEND, "--current-state", "bob wrote this"), (bob, VALIDATE),
                                         (bob, READY), (alice, VALIDATE), (alice, READY))
        assert record["status"] == "ready" and record["summary"]["current_state"] == "bob wrote this"
        assert "conflicted" in record["flags"]
        assert edits(record) == [("alice@example.com", "validated"), ("alice@example.com", "promoted")]
        short = ident[-8:]
        assert f"CONFLICT handoff {short}: alice@example.com (writer " in told, told
        assert "'s ready (" in told and "already ready with another body" in told
        assert f"CONFLICT handoff {short}" in ok(alice, "status")


def test_an_edit_made_apart_taken_into_a_corrected_child_made_ready_is_no_longer_listed_in_status(tmp_path):
    with team(tmp_path, 2, "path") as (_remote, (alice, bob)):
        ident, _told, _record = made_apart(alice, bob, "alice original state",
                                           (bob, AMEND, "--current-state", "bob rewrote this"),
                                           (alice, VALIDATE), (alice, READY))
        short = ident[-8:]
        assert f"CONFLICT handoff {short}" in ok(alice, "status")
        child = baton_json(alice, "handoff", "amend", ident, "--current-state", "both rewrites")["handoff"]["id"]
        ok(alice, "handoff", "validate", child)
        ok(alice, "handoff", "ready", child)
        assert shown(alice, ident)["status"] == "superseded"
        assert f"CONFLICT handoff {short}" not in ok(alice, "status")
        assert baton_json(alice, "status").get("concurrentEdits", []) == []
        assert f"CONFLICT handoff {short}" in ok(alice, "handoff", "show", ident, "--format", "md")  # its history


def test_two_amends_apart_resolved_by_amending_again_are_no_longer_listed_in_status(tmp_path):
    with team(tmp_path, 2, "path") as (_remote, (alice, bob)):
        ident, _told, _record = made_apart(alice, bob, "first", (bob, AMEND, "--current-state", "bob edited"),
                                           (alice, AMEND, "--current-state", "alice edited"))
        assert f"CONFLICT handoff {ident[-8:]}" in ok(alice, "status")
        ok(alice, "handoff", "amend", ident, "--current-state", "both edits")
        ok(alice, "handoff", "validate", ident)
        ok(alice, "handoff", "ready", ident)
        ok(alice, "sync")
        ok(bob, "sync")
        for clone in (alice, bob):
            assert f"CONFLICT handoff {ident[-8:]}" not in ok(clone, "status"), clone.name
            assert shown(clone, ident)["status"] == "ready"
