"""A fork made on another clone while ``baton forget`` erased its parent keeps the forgotten
content, and is named (tester-team23 T1; docs/cli.md "forget", docs/sync.md "Forgetting across
replicas"): the sync that brings the fork and the forget together says so on either clone,
``baton status`` and the MCP ``baton_status`` say so while the clone holds it, and ``baton forget`` of the erased handoff
lists it instead of only saying the record is gone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from baton.domain.short_ids import short_id
from baton.mcp_server import build_server
from tests.cli_support import run, run_json
from tests.sync_support import make_team

SECRET_TITLE = "SECRET-TITLE oops"


def forked_while_forgotten(capsys, tmp_path: Path) -> tuple[Path, Path, str, str]:
    """Alice (clone a) captures a handoff and syncs; Bob (clone b) syncs and forks it; Alice,
    before Bob's fork reaches her, forgets it and syncs. Nothing else synced yet.
    (a, b, the forgotten handoff, Bob's fork)."""
    _remote, a, b = make_team(tmp_path)
    parent = run_json(capsys, a, "checkpoint", "create", "--no-input", "--title", SECRET_TITLE,
                      "--objective", "o")["id"]
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    fork = run_json(capsys, b, "fork", parent, "--label", "bob's try")["handoff"]["id"]
    run_json(capsys, a, "forget", parent, "--yes")
    run_json(capsys, a, "sync")
    return a, b, parent, fork


def line_for(fork: str, parent: str) -> str:
    return (f"FORGOTTEN: handoff {short_id(fork)} (a fork) still holds content of the forgotten handoff "
            f"{short_id(parent)}: `baton forget {short_id(fork)}` erases it")


def test_the_sync_that_brings_a_forget_to_the_clone_that_forked_names_the_fork_still_holding_its_content(
        capsys, tmp_path):
    _a, b, parent, fork = forked_while_forgotten(capsys, tmp_path)
    code, out, err = run(capsys, b, "sync")
    assert code == 0, err
    assert line_for(fork, parent) in out and SECRET_TITLE not in out


def test_the_sync_that_brings_the_fork_to_the_clone_that_forgot_names_it_in_json_too(capsys, tmp_path):
    a, b, parent, fork = forked_while_forgotten(capsys, tmp_path)
    run_json(capsys, b, "sync")
    result = run_json(capsys, a, "sync")
    assert result["derived_of_forgotten"] == [{"handoff": fork, "forgotten": parent, "relation": "fork", "via": None}]


def test_a_later_sync_that_brings_nothing_new_does_not_name_the_fork_again(capsys, tmp_path):
    a, b, _parent, _fork = forked_while_forgotten(capsys, tmp_path)
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    assert run_json(capsys, a, "sync")["derived_of_forgotten"] == []


def test_status_names_every_handoff_still_holding_content_of_a_forgotten_one(capsys, tmp_path):
    a, b, parent, fork = forked_while_forgotten(capsys, tmp_path)
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    for clone in (a, b):
        assert run_json(capsys, clone, "status")["derivedOfForgotten"] == [line_for(fork, parent)]
        code, out, err = run(capsys, clone, "status")
        assert code == 0, err
        assert line_for(fork, parent) in out


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_baton_status_names_every_handoff_still_holding_content_of_a_forgotten_one_as_status_does(
        capsys, tmp_path):
    a, b, parent, fork = forked_while_forgotten(capsys, tmp_path)
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    for clone in (a, b):
        async with Client(build_server(clone)) as client:
            status = (await client.call_tool("baton_status", {})).structured_content
        assert status["derived_of_forgotten"] == [{"handoff": fork, "forgotten": parent, "relation": "fork",
                                                   "via": None, "line": line_for(fork, parent)}]
        assert [d["line"] for d in status["derived_of_forgotten"]] == run_json(capsys, clone, "status")["derivedOfForgotten"]


@pytest.mark.anyio
async def test_mcp_baton_status_names_none_once_the_fork_is_forgotten_too(capsys, tmp_path):
    a, b, _parent, fork = forked_while_forgotten(capsys, tmp_path)
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    run_json(capsys, a, "forget", fork, "--yes")
    async with Client(build_server(a)) as client:
        status = (await client.call_tool("baton_status", {})).structured_content
    assert "derived_of_forgotten" not in status


def test_forget_of_the_erased_handoff_lists_the_derived_fork_it_now_knows(capsys, tmp_path):
    a, b, parent, fork = forked_while_forgotten(capsys, tmp_path)
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    for token in (short_id(parent), parent):
        code, out, err = run(capsys, a, "forget", token, "--yes")
        assert code == 4
        assert short_id(fork) in err and f"`baton forget {short_id(fork)}`" in err
        code, out, _ = run(capsys, a, "forget", token, "--yes", "--json")
        assert code == 4
        assert json.loads(out)["error"]["details"]["derived"] == [fork]


def test_forgetting_the_fork_too_leaves_nothing_to_name(capsys, tmp_path):
    a, b, _parent, fork = forked_while_forgotten(capsys, tmp_path)
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    run_json(capsys, a, "forget", fork, "--yes")
    assert "derivedOfForgotten" not in run_json(capsys, a, "status")


def forked_twice_while_forgotten(capsys, tmp_path: Path) -> tuple[Path, Path, str, str, str]:
    """As ``forked_while_forgotten``, Bob also forking his fork (a fork of a fork, made apart):
    (a, b, the forgotten handoff, Bob's fork, the fork of that fork)."""
    a, b, parent, fork = forked_while_forgotten(capsys, tmp_path)
    grandchild = run_json(capsys, b, "fork", fork, "--label", "bob's second try")["handoff"]["id"]
    return a, b, parent, fork, grandchild


def deep_line_for(grandchild: str, fork: str, parent: str) -> str:
    return (f"FORGOTTEN: handoff {short_id(grandchild)} (a fork of {short_id(fork)}, itself derived from "
            f"{short_id(parent)}) still holds content of the forgotten handoff {short_id(parent)}: "
            f"`baton forget {short_id(grandchild)}` erases it")


def test_the_sync_that_brings_a_forget_names_a_fork_of_a_fork_still_holding_its_content(capsys, tmp_path):
    _a, b, parent, fork, grandchild = forked_twice_while_forgotten(capsys, tmp_path)
    code, out, err = run(capsys, b, "sync")
    assert code == 0, err
    assert line_for(fork, parent) in out and deep_line_for(grandchild, fork, parent) in out
    assert SECRET_TITLE not in out


def test_the_sync_that_brings_a_fork_of_a_fork_to_the_clone_that_forgot_names_both_in_json(capsys, tmp_path):
    a, b, parent, fork, grandchild = forked_twice_while_forgotten(capsys, tmp_path)
    run_json(capsys, b, "sync")
    assert run_json(capsys, a, "sync")["derived_of_forgotten"] == [
        {"handoff": h, "forgotten": parent, "relation": "fork", "via": via}
        for h, via in sorted([(fork, None), (grandchild, fork)])]


def test_status_and_forget_name_a_fork_of_a_fork_of_a_forgotten_handoff(capsys, tmp_path):
    a, b, parent, fork, grandchild = forked_twice_while_forgotten(capsys, tmp_path)
    run_json(capsys, b, "sync")
    run_json(capsys, a, "sync")
    assert deep_line_for(grandchild, fork, parent) in run_json(capsys, a, "status")["derivedOfForgotten"]
    code, out, _ = run(capsys, a, "forget", parent, "--yes", "--json")
    assert code == 4 and sorted(json.loads(out)["error"]["details"]["derived"]) == sorted([fork, grandchild])


def test_a_chain_of_100000_records_made_from_a_forgotten_one_is_named_to_its_end_without_recursion(
        capsys, tmp_path):
    from baton.commands.context import Project
    from baton.commands.forgotten_derived import held_copies
    from baton.projections.handoffs import ROWS_TABLE
    from baton.projections.lineage import EDGES_TABLE

    _a, b, parent, fork = forked_while_forgotten(capsys, tmp_path)
    run_json(capsys, b, "sync")
    opened = Project.open(b)
    try:
        db = opened.runner.db.conn
        chain = [fork] + [f"{fork[:-6]}{n:06d}" for n in range(100_000)]  # each made from the one before
        db.executemany(f"INSERT INTO {ROWS_TABLE} (id) VALUES (?)", [(h,) for h in chain[1:]])
        db.executemany(f"INSERT INTO {EDGES_TABLE} (parent, child, relation) VALUES (?, ?, 'fork')",
                       list(zip(chain, chain[1:])))
        held = held_copies(opened.runner)
        db.rollback()
    finally:
        opened.close()
    assert len(held) == 100_001 and {d.forgotten for d in held} == {parent}
    assert any(d.handoff == chain[-1] and d.via == chain[-2] for d in held)
