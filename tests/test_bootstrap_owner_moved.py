"""A session start tells, once, of a pending baton this clone left on its branch
for another owner: the same person's baton left under the owner resolved
before (a plain ``user.email``, before an ``includeIf`` in ``~/.gitconfig``
applied) is otherwise never delivered nor mentioned. A teammate's baton
(another clone's writer), or one left here for a teammate on purpose, is
never named. Driven through the command line.
"""

from __future__ import annotations

import pytest

from tests.cli_support import run, run_json
from tests.sync_support import make_team

OLD = ("--owner", "ann@home.example", "--branch", "main")
NEW = ("--owner", "ann@corp.example", "--branch", "main")


def _leave(capsys, project, *who: str) -> str:
    return run_json(capsys, project, "session", "end", "s-old", "--handoff-steps", "step left before", *who)["handoffId"]


def _owner_notices(out: dict, baton_id: str) -> list[str]:
    return [n for n in out["notices"] if baton_id in n]


def test_a_start_is_told_once_of_a_baton_this_clone_left_for_another_owner_on_its_branch(project, capsys):
    baton_id = _leave(capsys, project, *OLD)

    peeked = run_json(capsys, project, "bootstrap", "--peek", *NEW)
    first = run_json(capsys, project, "bootstrap", "--session-id", "s-new", *NEW)
    second = run_json(capsys, project, "bootstrap", "--session-id", "s-next", *NEW)

    [notice] = _owner_notices(peeked, baton_id)
    assert "ann@home.example" in notice and "ann@corp.example" in notice and "not delivered" in notice
    assert notice in peeked["brief"]
    assert _owner_notices(first, baton_id) == [notice]  # a peek does not use it up
    assert first["claimed"] is False
    assert _owner_notices(second, baton_id) == []
    # It still waits for its owner, who receives it.
    assert run_json(capsys, project, "bootstrap", "--session-id", "s-old-owner", *OLD)["handoff"]["id"] == baton_id


def test_a_start_that_receives_a_baton_or_runs_on_another_branch_is_not_told_of_one_left_for_another_owner(
        project, capsys):
    baton_id = _leave(capsys, project, *OLD)
    run_json(capsys, project, "session", "end", "s-mine", "--handoff-steps", "mine", *NEW)

    mine = run_json(capsys, project, "bootstrap", "--session-id", "s-new", *NEW)
    elsewhere = run_json(capsys, project, "bootstrap", "--peek", "--owner", "ann@corp.example",
                         "--branch", "feature")

    assert mine["claimed"] is True and _owner_notices(mine, baton_id) == []
    assert _owner_notices(elsewhere, baton_id) == []


def test_a_baton_a_session_here_left_on_purpose_for_a_teammate_is_not_told_to_the_leaver(project, capsys):
    run_json(capsys, project, "session", "begin", "s-ann", *NEW)
    baton_id = run_json(capsys, project, "session", "end", "s-ann", "--handoff-steps", "for bob",
                        "--owner", "bob@corp.example", "--branch", "main")["handoffId"]

    out = run_json(capsys, project, "bootstrap", "--session-id", "s-ann-2", *NEW)

    assert _owner_notices(out, baton_id) == [] and "for bob" not in out["brief"]


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def test_a_teammates_baton_for_another_owner_is_never_named_in_a_start_on_another_clone(capsys, team):
    _remote, a, b = team
    baton_id = _leave(capsys, a, *OLD)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    assert [i["id"] for i in run_json(capsys, b, "session", "handoff", "--all")["items"]] == [baton_id]

    out = run_json(capsys, b, "bootstrap", "--session-id", "s-bob", "--owner", "bob@corp.example",
                   "--branch", "main")

    assert _owner_notices(out, baton_id) == []
    assert "step left before" not in out["brief"]


def test_session_handoff_with_none_here_counts_the_pending_batons_for_other_owners_and_names_all(project, capsys):
    _leave(capsys, project, *OLD)

    code, text, err = run(capsys, project, "session", "handoff", *NEW)
    shown = run_json(capsys, project, "session", "handoff", *NEW)

    assert (code, err) == (0, "")
    assert text == ("No active session handoff for ann@corp.example on main; 1 pending baton is for another "
                    "owner or branch: `baton session handoff --all`.\n")
    assert shown["handoff"] is None and shown["claimedElsewhere"] is None
    assert set(shown) == {"owner", "branch", "handoff", "handoffMarkdown", "claimedElsewhere"}  # no count


def test_the_command_line_names_its_options_in_the_notice_of_a_baton_left_for_another_owner(project, capsys):
    baton_id = _leave(capsys, project, *OLD)
    [notice] = _owner_notices(run_json(capsys, project, "bootstrap", "--peek", *NEW), baton_id)
    assert "`baton session begin --owner ann@home.example` claims it" in notice
    assert notice.endswith(f"`baton resume {baton_id}` reads it.")


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_bootstrap_names_its_tools_in_the_notice_of_a_baton_left_for_another_owner(project, capsys):
    from mcp import Client

    from baton.mcp_server import build_server

    baton_id = _leave(capsys, project, *OLD)
    async with Client(build_server(project)) as client:
        brief = await client.call_tool("bootstrap", {"peek": True, "owner": "ann@corp.example", "branch": "main"})
    [notice] = _owner_notices(brief.structured_content, baton_id)
    assert "Baton's `baton_session` tool (action `session_start`, `owner` ann@home.example) claims it" in notice
    assert notice.endswith(f"Baton's `handoff_resume` tool, with `id` {baton_id}, reads it.")
    assert "--" not in notice
