"""The MCP ``baton_status`` names a baton superseded unseen (docs/sync.md "Batons left apart on
one owner/branch") as ``baton status`` does: who left it, its objective, what replaced it and how
to read it. Built with real clones and a real remote (``tests/sync_support``), asked through the
SDK's in-process client."""

from __future__ import annotations

import pytest
from mcp import Client

from baton.domain.batons import CARRIED_TEXT_MAX, clipped_text
from baton.mcp_server import build_server
from tests.cli_support import run_json
from tests.sync_support import BATON_OWNER, batons_left_apart, leave_baton_for, make_team, writer_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


async def _status(project) -> dict:
    async with Client(build_server(project)) as client:
        answer = await client.call_tool("baton_status", {})
    assert not answer.is_error, answer.content
    return answer.structured_content


async def test_baton_status_names_the_baton_a_newer_one_superseded_unseen(capsys, team):
    a, b, alices, bobs = batons_left_apart(capsys, team)
    status = await _status(b)
    [unseen] = status["superseded_unseen"]
    assert (unseen["id"], unseen["status"], unseen["superseded_by"]) == (alices, "superseded-unseen", bobs)
    assert (unseen["owner"], unseen["branch"], unseen["session_id"]) == (BATON_OWNER, "main", "alice-s")
    assert (unseen["writer"], unseen["objective"]) == (writer_of(a), "alice's step for bob")
    assert unseen["read_with"] == [f"baton resume {alices}", f"baton handoff show {alices}"]
    assert status["pending_batons"] == 1


async def test_baton_status_names_the_older_unread_when_the_newer_batons_writer_saw_it(capsys, team):
    _remote, a, b = team
    alices = leave_baton_for(capsys, a, "alice-s", "alice's step for bob")
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")  # bob's clone sees alice's baton before he leaves his own
    leave_baton_for(capsys, b, "bob-s", "bob's own step")
    [listed] = (await _status(b))["superseded_unseen"]
    assert (listed["id"], listed["unread"], listed["first_step"]) == (alices, True, "alice's step for bob")


async def test_the_unseen_baton_named_by_baton_status_reads_with_handoff_resume(capsys, team):
    _a, b, alices, _bobs = batons_left_apart(capsys, team)
    async with Client(build_server(b)) as client:
        [unseen] = (await client.call_tool("baton_status", {})).structured_content["superseded_unseen"]
        read = await client.call_tool("handoff_resume", {"id": unseen["id"], "format": "md"})
    assert not read.is_error, read.content
    assert read.structured_content["id"] == alices
    assert "alice's step for bob" in str(read.structured_content["brief"])


async def test_baton_status_clips_the_unseen_batons_objective_as_the_cli_text_does(capsys, team):
    _remote, a, b = team
    leave_baton_for(capsys, a, "alice-s", "y" * 3000)
    run_json(capsys, a, "sync")
    leave_baton_for(capsys, b, "bob-s", "bob's own step")
    run_json(capsys, b, "sync")
    [unseen] = (await _status(b))["superseded_unseen"]
    assert unseen["objective"] == clipped_text("y" * 3000)
    assert len(unseen["objective"]) == CARRIED_TEXT_MAX


async def test_baton_status_names_the_other_owner_and_branch_whose_baton_replaced_one_sharing_its_key(
        capsys, tmp_path):
    from tests.test_sync_baton_key_collision import _left_apart

    a, _c, first, second = _left_apart(capsys, tmp_path)
    [unseen] = (await _status(a))["superseded_unseen"]
    assert (unseen["id"], unseen["superseded_by"]) == (first, second)
    assert unseen["superseded_for"] == {"owner": "x", "branch": "y__z"}


async def test_baton_status_names_no_other_owner_and_branch_for_batons_left_apart_on_one(capsys, team):
    _a, b, _alices, _bobs = batons_left_apart(capsys, team)
    [unseen] = (await _status(b))["superseded_unseen"]
    assert "superseded_for" not in unseen
