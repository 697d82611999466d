"""Cancelling a baton is held to the rule dismissing one is (tester-use16 U2; docs/batons.md,
"Cancel and dismiss"): `session handoff --cancel --owner OTHER` (and the MCP `baton_session`
`cancel_handoff` with an owner) cannot end a teammate's baton someone else left, unless
`--not-mine` says so; the one who ends it is the event's actor, and the owner is told once,
after sync, as a dismissal is told.

Alice (clone ``a``) leaves a baton for Bob; clone ``b`` is Carol (or Bob), by ``git config
user.email`` in that clone, through a bare remote as a team works.
"""

from __future__ import annotations

import json

import pytest
from mcp import Client

from baton.domain.aggregates import baton as aggregate
from baton.domain.batons import BatonRecord, context_key
from baton.errors import BatonNotYours
from baton.mcp_server import build_server
from tests.cli_support import ledger_size, run, run_json
from tests.sync_support import writer_of as writer
from tests.test_sync_baton_owners import as_user, events, left_for_bob

BOB = "bob@example.com"
CAROL = "carol@example.com"


def pending_ids(capsys, clone) -> list[str]:
    return [i["handoffId"] for i in run_json(capsys, clone, "session", "handoff", "--all")["items"]]


def test_cancelling_another_owners_baton_left_by_someone_else_is_refused_and_writes_nothing(capsys, tmp_path):
    _a, b, ident = left_for_bob(capsys, tmp_path, CAROL)
    before = ledger_size(b)
    code, out, _ = run(capsys, b, "session", "handoff", "--cancel", "--owner", BOB, "--branch", "main", "--json")
    assert code == 4
    error = json.loads(out)["error"]
    assert error["code"] == "baton_not_yours"
    assert "not yours (carol@example.com) to cancel" in error["message"] and "--not-mine" in error["message"]
    assert ledger_size(b) == before
    assert pending_ids(capsys, b) == [ident]


def test_not_mine_cancels_it_and_the_event_records_the_cancellers_git_identity(capsys, tmp_path):
    _a, b, ident = left_for_bob(capsys, tmp_path, CAROL)
    out = run_json(capsys, b, "session", "handoff", "--cancel", "--owner", BOB, "--branch", "main", "--not-mine")
    assert out["cancelled"] is True and out["handoffId"] == ident
    [cancelled] = events(capsys, b, "baton.cancelled")
    assert cancelled["actor"] == CAROL


def test_whoever_left_a_baton_for_someone_else_may_cancel_it(capsys, tmp_path):
    a, _b, ident = left_for_bob(capsys, tmp_path, BOB)
    out = run_json(capsys, a, "session", "handoff", "--cancel", "--owner", BOB, "--branch", "main")
    assert out["cancelled"] is True and out["handoffId"] == ident


def test_the_owner_may_cancel_the_baton_left_for_them(capsys, tmp_path):
    _a, b, ident = left_for_bob(capsys, tmp_path, "Bob@Example.com")
    out = run_json(capsys, b, "session", "handoff", "--cancel", "--branch", "main")
    assert out["cancelled"] is True and out["handoffId"] == ident


def test_the_owner_is_told_once_at_the_next_start_that_a_teammate_cancelled_their_baton(capsys, tmp_path):
    a, b, ident = left_for_bob(capsys, tmp_path, CAROL)
    run_json(capsys, b, "session", "handoff", "--cancel", "--owner", BOB, "--branch", "main", "--not-mine")
    run_json(capsys, b, "sync")
    as_user(a, BOB)  # the clone that syncs it is Bob's, as far as the notice goes
    run_json(capsys, a, "sync")
    brief = run_json(capsys, a, "bootstrap", "--branch", "main")["brief"]
    assert (f"CANCELLED: the baton alice@example.com left for you on main (baton {ident}" in brief
            and f"cancelled by writer {writer(b)} (carol@example.com, as claimed)" in brief)
    assert "CANCELLED" not in run_json(capsys, a, "bootstrap", "--branch", "main")["brief"]


def test_whoever_left_the_baton_is_told_that_a_teammate_cancelled_it(capsys, tmp_path):
    a, b, ident = left_for_bob(capsys, tmp_path, CAROL)
    run_json(capsys, b, "session", "handoff", "--cancel", "--owner", BOB, "--branch", "main", "--not-mine")
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    brief = run_json(capsys, a, "bootstrap", "--branch", "main")["brief"]
    assert f"CANCELLED: the baton you left for {BOB} on main (baton {ident}" in brief


def test_not_mine_without_dismiss_or_cancel_is_an_input_error(capsys, tmp_path):
    _a, b, _ident = left_for_bob(capsys, tmp_path, CAROL)
    code, _, err = run(capsys, b, "session", "handoff", "--all", "--not-mine")
    assert code == 2 and "--not-mine applies only with --dismiss ID or --cancel" in err


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_cancel_handoff_of_another_owners_baton_is_refused(capsys, tmp_path):
    _a, b, ident = left_for_bob(capsys, tmp_path, CAROL)
    async with Client(build_server(b)) as client:
        result = await client.call_tool("baton_session", {"action": "cancel_handoff", "owner": BOB,
                                                          "branch": "main"})
    assert result.is_error
    assert result.structured_content["error"]["code"] == "baton_not_yours"
    assert pending_ids(capsys, b) == [ident]


def _pending_for_bob_left_by_alice() -> aggregate.BatonKey:
    record = BatonRecord(id="h1", key=context_key(BOB, "main"), owner=BOB, branch="main", shared=False,
                         next_steps=("step",), left_by="alice@example.com")
    return aggregate.BatonKey(record.key, 1, record)


@pytest.mark.parametrize("command", [aggregate.CancelBaton(by=CAROL), aggregate.DismissBaton("h1", by=CAROL)],
                         ids=["cancel", "dismiss"])
def test_cancel_and_dismiss_are_refused_by_one_rule(command):
    with pytest.raises(BatonNotYours):
        aggregate.decide(_pending_for_bob_left_by_alice(), command)


@pytest.mark.parametrize("by", [BOB, "BOB@example.com", "alice@example.com"])
def test_cancel_by_the_owner_or_whoever_left_it_is_decided(by):
    [event] = aggregate.decide(_pending_for_bob_left_by_alice(), aggregate.CancelBaton(by=by))
    assert event.handoff_id == "h1"
