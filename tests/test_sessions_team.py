"""Session ids across a team (docs/batons.md, "Sessions are their clone's").

Teammates pick the same session ids (the README's ``s2``, a harness's
default): a session is its writer's, so a session event of another clone
with the same id is another session. Two clones of one bare remote, each
its own person (``user.email``), syncing through it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from dulwich.repo import Repo

from tests.cli_support import run, run_json
from tests.sync_support import FAST, make_team

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


def _ready(capsys, project: Path, title: str) -> str:
    made = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", title, "--objective", "O",
                    "--open-item", OPEN_ITEM)
    run_json(capsys, project, "handoff", "validate", made["id"])
    run_json(capsys, project, "handoff", "ready", made["id"])
    return made["id"]




def _fast(project: Path, ahead: int, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-c", FAST, str(ahead), *args, "--json", "--project", str(project)],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "BATON_HOOK_SERVER": "0"})
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return json.loads(done.stdout)


def test_latest_is_the_handoff_captured_after_a_teammates_whose_clock_runs_fast(capsys, team):
    bob, carol = team
    ahead = 13 * 3600
    made = _fast(bob, ahead, "checkpoint", "create", "--no-input", "--title", "Bob task", "--objective", "O",
                 "--open-item", OPEN_ITEM)
    _fast(bob, ahead, "handoff", "validate", made["id"])
    _fast(bob, ahead, "handoff", "ready", made["id"])
    _fast(bob, ahead, "sync")
    _sync(capsys, carol)
    newer = _ready(capsys, carol, "Carol newer task")
    assert run_json(capsys, carol, "resume", "latest")["id"] == newer
    assert run_json(capsys, carol, "handoff", "list")["handoffs"][0]["id"] == newer


def _writer(project: Path) -> str:
    return json.loads((project / ".baton" / "local.json").read_text())["writer"]


def test_a_sync_imports_a_feed_stamped_far_ahead_and_names_it_and_so_does_verify(capsys, team):
    bob, carol = team
    _fast(bob, 3 * 86400, "checkpoint", "create", "--no-input", "--title", "From the future", "--objective", "O")
    _fast(bob, 3 * 86400, "sync")
    synced = run_json(capsys, carol, "sync")
    assert [a["feed"] for a in synced["clock_ahead"]] == [_writer(bob)]
    assert synced["imported"][_writer(bob)] > 0
    code, out, _ = run(capsys, carol, "verify")
    assert code == 0 and f"CLOCK AHEAD feed {_writer(bob)}" in out, out


def test_a_sync_of_feeds_stamped_by_clocks_that_agree_names_none(capsys, team):
    bob, carol = team
    run_json(capsys, bob, "checkpoint", "create", "--no-input", "--title", "Now", "--objective", "O")
    _sync(capsys, bob)
    assert run_json(capsys, carol, "sync")["clock_ahead"] == []
