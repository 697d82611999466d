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
    assert result["derived_of_forgotten"] == [{"handoff": fork, "forgotten": parent, "relation": "fork"}]


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
                                                   "line": line_for(fork, parent)}]
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
