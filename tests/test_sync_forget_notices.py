"""A teammate's forget that erases this clone's handoff is named, not silent: ``baton sync`` names
each handoff erased (its id, the forgetting writer and actor; never its title), and the next ``status`` and
session-start brief tell the user (team14 F7; docs/sync.md, "Forgetting across replicas")."""

from __future__ import annotations

import pytest

from baton.domain.short_ids import short_id
from tests.cli_support import run, run_json
from tests.sync_support import make_team
from tests.sync_support import writer_of as writer


def _forgotten_by_bob(capsys, tmp_path):
    """Alice (clone a) captures a handoff and syncs; bob (clone b) syncs, forgets it and syncs.
    (a, b, the handoff's id): alice has not synced since."""
    _remote, a, b = make_team(tmp_path)
    ident = run_json(capsys, a, "checkpoint", "create", "--no-input", "--title", "alice important",
                     "--objective", "keep me")["id"]
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    run_json(capsys, b, "forget", ident, "--yes")
    run_json(capsys, b, "sync")
    return a, b, ident


@pytest.fixture
def erased_by_bob(capsys, tmp_path):
    """``_forgotten_by_bob``, then alice syncs. (a, b, the handoff's id, alice's sync --json)."""
    a, b, ident = _forgotten_by_bob(capsys, tmp_path)
    code, out, _ = run(capsys, a, "sync", "--json")
    assert code == 0
    import json
    return a, b, ident, json.loads(out)


def test_sync_names_each_handoff_a_teammates_forget_erased_with_the_forgetting_writer(capsys, erased_by_bob):
    a, b, ident, result = erased_by_bob
    [told] = result["forgotten"]
    assert (told["handoff"], told["writer"], told["yours"]) == (ident, writer(b), True)
    assert "title" not in told  # the forget may be for a secret the title holds
    assert told["short"] == short_id(ident)  # the short id every list shows


def test_sync_names_the_git_identity_the_forget_was_recorded_under(capsys, erased_by_bob):
    _a, b, _ident, result = erased_by_bob
    assert result["forgotten"][0]["actor"] == run_json(capsys, b, "session", "handoff")["owner"]


def test_the_sync_text_says_whose_forget_erased_which_handoff(capsys, tmp_path):
    a, b, ident = _forgotten_by_bob(capsys, tmp_path)
    code, text, _ = run(capsys, a, "sync")
    assert f"FORGOTTEN: your handoff {short_id(ident)} was erased here by a forget that writer {writer(b)}" in text
    assert "alice important" not in text


def test_status_shows_the_erasure_until_a_brief_tells_it_once(capsys, erased_by_bob):
    a, b, ident, _result = erased_by_bob
    shown = run_json(capsys, a, "status").get("forgottenByTeammates", [])
    assert len(shown) == 1 and short_id(ident) in shown[0] and "alice important" not in shown[0]
    assert run_json(capsys, a, "status").get("forgottenByTeammates", []) == shown  # status writes nothing
    brief = run_json(capsys, a, "bootstrap", "--json")["brief"]
    assert f"Your handoff {short_id(ident)} was erased here by a forget that writer {writer(b)}" in brief
    assert "Your handoff" not in run_json(capsys, a, "bootstrap", "--json")["brief"]
    assert run_json(capsys, a, "status").get("forgottenByTeammates", []) == []


def test_a_peeking_brief_tells_without_using_the_notice_up(capsys, erased_by_bob):
    a, _b, ident, _result = erased_by_bob
    assert "was erased here by a forget" in run_json(capsys, a, "bootstrap", "--peek", "--json")["brief"]
    assert "was erased here by a forget" in run_json(capsys, a, "bootstrap", "--json")["brief"]


def test_the_clone_that_forgot_is_told_nothing_of_its_own_forget(capsys, erased_by_bob):
    _a, b, _ident, _result = erased_by_bob
    assert run_json(capsys, b, "status").get("forgottenByTeammates", []) == []
