"""Archiving a handoff whose baton waits for a teammate is held to the rule dismissing that baton
is (tester-team24 T2; docs/batons.md, "Dismissing a baton"): `handoff archive` of a handoff that
carries another owner's pending baton, left by someone else, is refused unless `--not-mine` says
so, and the one who archives it is the actor of both `handoff.archived` and `baton.dismissed`.

The team is test_cancel_not_yours's: Alice leaves a baton for Bob, clone ``b`` is Carol (or Bob).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_support import ledger_size, run, run_json
from tests.test_cancel_not_yours import BOB, CAROL, pending_ids
from tests.test_sync_archive_apart import shared
from tests.test_sync_baton_owners import as_user, events, left_for_bob

ALICE = "alice@example.com"


def test_archiving_a_handoff_whose_baton_waits_for_a_teammate_is_refused_and_writes_nothing(capsys, tmp_path):
    _a, b, ident = left_for_bob(capsys, tmp_path, CAROL)
    refused_and_nothing_written(capsys, b, ident)


def refused_and_nothing_written(capsys, b, ident: str) -> None:
    """Carol's `handoff archive IDENT` on ``b`` is refused, `baton_not_yours`, and writes nothing."""
    before = ledger_size(b)
    code, out, _ = run(capsys, b, "handoff", "archive", ident, "--reason", "cleanup", "--json")
    assert code == 4
    error = json.loads(out)["error"]
    assert error["code"] == "baton_not_yours"
    assert "not yours (carol@example.com) to dismiss" in error["message"] and "--not-mine" in error["message"]
    assert ledger_size(b) == before
    assert pending_ids(capsys, b) == [ident]
    assert run_json(capsys, b, "handoff", "show", ident)["handoff"]["status"] != "archived"


def test_not_mine_archives_it_and_both_events_record_the_archivers_git_identity(capsys, tmp_path):
    _a, b, ident = left_for_bob(capsys, tmp_path, CAROL)
    out = run_json(capsys, b, "handoff", "archive", ident, "--reason", "cleanup", "--not-mine")
    assert [d["owner"] for d in out["dismissed_batons"]] == [BOB]
    assert pending_ids(capsys, b) == []
    [dismissed] = events(capsys, b, "baton.dismissed")
    [archived] = events(capsys, b, "handoff.archived")
    assert (dismissed["actor"], dismissed["data"]["via"]) == (CAROL, "archive")
    assert archived["actor"] == CAROL


def test_the_owner_may_archive_the_handoff_of_a_baton_left_for_them(capsys, tmp_path):
    _a, b, ident = left_for_bob(capsys, tmp_path, BOB)
    out = run_json(capsys, b, "handoff", "archive", ident)
    assert [d["owner"] for d in out["dismissed_batons"]] == [BOB]
    [dismissed] = events(capsys, b, "baton.dismissed")
    assert dismissed["actor"] == BOB


def test_whoever_left_the_baton_may_archive_its_handoff(capsys, tmp_path):
    a, _b, ident = left_for_bob(capsys, tmp_path, CAROL)
    out = run_json(capsys, a, "handoff", "archive", ident)
    assert [d["owner"] for d in out["dismissed_batons"]] == [BOB]


# -- a shared baton is its owner's to end, as a private one is (tester25 T4) ---------------------

def handed_on_shared(capsys, tmp_path, *more: str) -> tuple[Path, Path, str]:
    """Alice (a) makes a handoff ready and hands it on as a shared baton (``more``: ``--owner``,
    say), both clones sync; clone ``b`` is Carol."""
    a, b, ident = shared(capsys, tmp_path, made_ready=True, users=(ALICE, CAROL))
    run_json(capsys, a, "session", "handoff", "--from", ident, "--shared", *more)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    return a, b, ident


def test_archiving_a_handoff_handed_on_as_a_shared_baton_for_a_teammate_is_refused(capsys, tmp_path):
    _a, b, ident = handed_on_shared(capsys, tmp_path, "--owner", BOB)
    refused_and_nothing_written(capsys, b, ident)


def test_handing_your_handoff_on_as_a_shared_baton_keeps_a_teammate_from_archiving_it(capsys, tmp_path):
    _a, b, ident = handed_on_shared(capsys, tmp_path)
    code, out, _ = run(capsys, b, "handoff", "archive", ident, "--json")
    assert code == 4
    assert json.loads(out)["error"]["code"] == "baton_not_yours"


def test_dismissing_a_teammates_shared_baton_is_refused_and_writes_nothing(capsys, tmp_path):
    _a, b, ident = handed_on_shared(capsys, tmp_path)
    before = ledger_size(b)
    code, out, _ = run(capsys, b, "session", "handoff", "--dismiss", ident, "--json")
    assert code == 4
    assert json.loads(out)["error"]["code"] == "baton_not_yours"
    assert ledger_size(b) == before
    assert pending_ids(capsys, b) == [ident]


def test_not_mine_archives_the_handoff_of_a_teammates_shared_baton(capsys, tmp_path):
    _a, b, ident = handed_on_shared(capsys, tmp_path, "--owner", BOB)
    out = run_json(capsys, b, "handoff", "archive", ident, "--not-mine")
    assert [(d["owner"], d["shared"]) for d in out["dismissed_batons"]] == [(BOB, True)]
    assert pending_ids(capsys, b) == []


def test_whoever_left_a_shared_baton_may_archive_its_handoff(capsys, tmp_path):
    a, _b, ident = handed_on_shared(capsys, tmp_path, "--owner", BOB)
    out = run_json(capsys, a, "handoff", "archive", ident)
    assert [d["shared"] for d in out["dismissed_batons"]] == [True]


def test_the_owner_a_shared_baton_was_left_under_may_dismiss_it(capsys, tmp_path):
    _a, b, ident = handed_on_shared(capsys, tmp_path, "--owner", BOB)
    as_user(b, BOB)
    code, _, err = run(capsys, b, "session", "handoff", "--dismiss", ident)
    assert code == 0, err
    assert pending_ids(capsys, b) == []


def test_a_teammate_may_still_take_up_a_shared_baton_at_their_session_start(capsys, tmp_path):
    _a, b, ident = handed_on_shared(capsys, tmp_path)
    out = run_json(capsys, b, "bootstrap", "--session", "carol-1")
    assert ident in json.dumps(out)
    assert pending_ids(capsys, b) == []
