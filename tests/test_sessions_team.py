"""Session ids across a team (docs/batons.md, "Sessions are their clone's").

Teammates pick the same session ids (the README's ``s2``, a harness's
default): a session is its writer's, so a session event of another clone
with the same id is another session. Two clones of one bare remote, each
its own person (``user.email``), syncing through it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dulwich.repo import Repo

from tests.cli_support import run, run_json
from tests.sync_support import make_team

BOB, CAROL = "bob@example.com", "carol@example.com"
OPEN_ITEM = json.dumps({"description": "carol item", "suggested_action": "s", "acceptance_check": "c"})


def _as(project: Path, email: str) -> None:
    with Repo(str(project)) as repo:
        config = repo.get_config()
        config.set((b"user",), b"email", email.encode())
        config.write_to_path()


@pytest.fixture
def team(tmp_path):
    _remote, bob, carol = make_team(tmp_path)
    _as(bob, BOB)
    _as(carol, CAROL)
    return bob, carol


def _sync(capsys, *projects: Path) -> None:
    for project in projects:
        run_json(capsys, project, "sync")


def _objective(capsys, project: Path) -> str | None:
    return (run_json(capsys, project, "bootstrap", "--peek").get("sessionObjective") or {}).get("objective")


def test_a_teammates_end_of_a_session_with_the_same_id_leaves_your_objective(capsys, team):
    bob, carol = team
    run_json(capsys, bob, "session", "begin", "dflt", "--objective", "bob objective")
    _sync(capsys, bob)
    run_json(capsys, carol, "session", "begin", "dflt", "--objective", "carol objective")
    run_json(capsys, carol, "session", "end", "dflt")
    _sync(capsys, carol, bob)
    assert _objective(capsys, bob) == "bob objective"


def test_a_teammates_start_of_a_session_with_the_same_id_is_not_your_repeated_start(capsys, team):
    bob, carol = team
    run_json(capsys, carol, "session", "end", "cprev", "--handoff-steps", "carol's own step")
    run_json(capsys, carol, "session", "begin", "s7")
    _sync(capsys, carol, bob)
    left = run_json(capsys, bob, "session", "end", "bprev", "--handoff-steps", "bob's step")
    began = run_json(capsys, bob, "session", "begin", "s7")
    assert not began["repeated"]
    assert began["receivedBaton"] == left["handoffId"]


def test_a_teammates_draft_for_a_session_with_the_same_id_is_not_yours(capsys, team, tmp_path):
    bob, carol = team
    request = tmp_path / "req.json"
    request.write_text(json.dumps({"handoff_request": 1}))
    hers = run_json(capsys, carol, "detect", "--event", str(request), "--prepare", "--session", "x9")
    _sync(capsys, carol, bob)
    mine = run_json(capsys, bob, "detect", "--event", str(request), "--prepare", "--session", "x9")
    assert mine["draft"] and mine["draft"] != hers["draft"]
    assert mine["draftKept"] is False


def test_a_session_end_does_not_hand_on_a_teammates_ready_handoff_of_the_same_session_id(capsys, team):
    bob, carol = team
    made = run_json(capsys, carol, "checkpoint", "create", "--no-input", "--session", "z1", "--title",
                    "Carol's private work", "--objective", "O", "--open-item", OPEN_ITEM)
    run_json(capsys, carol, "handoff", "validate", made["id"])
    run_json(capsys, carol, "handoff", "ready", made["id"])
    _sync(capsys, carol, bob)
    run_json(capsys, bob, "session", "begin", "z1")
    ended = run_json(capsys, bob, "session", "end", "z1")
    assert ended["handoffId"] is None and not ended["handedOn"]


def test_a_session_of_the_same_id_on_each_clone_folds_on_a_rebuild_as_it_did_event_by_event(capsys, team):
    bob, carol = team
    run_json(capsys, bob, "session", "begin", "dflt", "--objective", "bob objective")
    run_json(capsys, carol, "session", "begin", "dflt", "--objective", "carol objective")
    run_json(capsys, carol, "session", "end", "dflt")
    _sync(capsys, bob, carol, bob)
    before = _objective(capsys, bob)
    run_json(capsys, bob, "rebuild")
    assert _objective(capsys, bob) == before == "bob objective"
    code, out, _ = run(capsys, bob, "verify", "--json")
    assert code == 0, out
