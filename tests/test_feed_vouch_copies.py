"""A handoff from a feed no trusted key vouches for is not laundered into this clone's own feed
(docs/security.md, "Batons from unverified feeds"; ``baton.domain.feed_vouch.copy_rule``):
with signatures required, ``fork``, ``handoff amend``, ``merge``, ``handoff prepare --from`` and
MCP ``handoff_fork`` refuse a withheld one as ``resume`` does; without, they copy it and say the
copy continues an unverified handoff. Real git remotes, real ssh-keygen keys."""

from __future__ import annotations

import shutil

import pytest

from baton.domain.short_ids import short_id
from tests.cli_support import run, run_json
from tests.test_feed_vouch_reads import _handoff_from_a, _ready, _unsign, signing_team, unsigned_team  # noqa: F401
from tests.test_sync_signing import require_signatures

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="needs OpenSSH's ssh-keygen")

WITHHELD = "was withheld: it comes from an unsigned feed"
MARK = "continues an unverified handoff"


def _withheld(capsys, team) -> tuple[object, str]:
    _remote, a, b = team
    _unsign(a)
    ident = _handoff_from_a(capsys, a, b)
    require_signatures(b)
    return b, ident


def _count(capsys, b) -> int:
    return len(run_json(capsys, b, "handoff", "list", "--json")["handoffs"])


def test_fork_refuses_a_withheld_handoff_in_resumes_words(capsys, signing_team):
    b, ident = _withheld(capsys, signing_team)
    _code, _out, resumed = run(capsys, b, "resume", ident)
    before = _count(capsys, b)
    code, _out, err = run(capsys, b, "fork", ident)
    assert code == 4 and f"A handoff ({ident}) {WITHHELD}" in err and err == resumed
    assert _count(capsys, b) == before


def test_amend_refuses_a_withheld_handoff(capsys, signing_team):
    b, ident = _withheld(capsys, signing_team)
    code, _out, err = run(capsys, b, "handoff", "amend", ident, "--current-state", "x")
    assert code == 4 and f"A handoff ({ident}) {WITHHELD}" in err


def test_merge_refuses_when_one_parent_is_withheld(capsys, signing_team):
    b, ident = _withheld(capsys, signing_team)
    mine = _ready(capsys, b, "mine")
    code, _out, err = run(capsys, b, "merge", ident, mine, "--title", "joined")
    assert code == 4 and f"A handoff ({ident}) {WITHHELD}" in err


def test_prepare_from_a_withheld_handoff_refuses_and_prints_none_of_it(capsys, signing_team):
    b, ident = _withheld(capsys, signing_team)
    code, out, err = run(capsys, b, "handoff", "prepare", "--from", ident)
    assert code == 4 and "evil.example" not in out and f"A handoff ({ident}) {WITHHELD}" in err


def test_fork_of_an_unsigned_handoff_says_the_copy_continues_an_unverified_handoff(capsys, unsigned_team):
    _remote, a, b = unsigned_team
    ident = _handoff_from_a(capsys, a, b)
    code, out, _err = run(capsys, b, "fork", ident)
    assert code == 0 and MARK in out
    forked = run_json(capsys, b, "fork", ident)
    assert any(MARK in line and ident[:13] in line for line in forked["unverified"])


def test_amend_of_an_unsigned_handoff_says_the_copy_continues_an_unverified_handoff(capsys, unsigned_team):
    _remote, a, b = unsigned_team
    ident = _handoff_from_a(capsys, a, b)
    amended = run_json(capsys, b, "handoff", "amend", ident, "--current-state", "x")
    assert amended["unverified"] and MARK in amended["unverified"][0]


def test_amend_of_this_clones_own_handoff_says_nothing_of_it(capsys, unsigned_team):
    _remote, _a, b = unsigned_team
    mine = _ready(capsys, b, "mine")
    amended = run_json(capsys, b, "handoff", "amend", mine, "--current-state", "x")
    assert "unverified" not in amended


def test_prepare_from_an_unsigned_handoff_says_the_template_continues_an_unverified_handoff(capsys, unsigned_team):
    _remote, a, b = unsigned_team
    ident = _handoff_from_a(capsys, a, b)
    code, out, _err = run(capsys, b, "handoff", "prepare", "--from", ident)
    assert code == 0 and MARK in out


@pytest.mark.anyio
async def test_the_mcp_handoff_fork_tool_refuses_a_withheld_handoff(capsys, signing_team):
    from mcp import Client

    from baton.mcp_server import build_server

    b, ident = _withheld(capsys, signing_team)
    async with Client(build_server(b)) as client:
        result = await client.call_tool("handoff_fork", {"id": ident})
    error = result.structured_content["error"]
    assert result.is_error and error["exit_code"] == 4 and WITHHELD in error["message"]


@pytest.fixture
def anyio_backend():
    return "asyncio"


def test_the_status_pages_handoff_table_marks_a_withheld_handoff(capsys, signing_team):
    b, ident = _withheld(capsys, signing_team)
    code, out, _err = run(capsys, b, "status")
    row = next(line for line in out.splitlines() if line.lstrip().startswith(short_id(ident)))
    assert code == 0 and "(not verified; withheld)" in row


def test_the_draft_before_a_compaction_does_not_continue_a_baton_from_an_unverified_feed(project, tmp_path):
    """A copied folder makes the original writer's feed another feed (review15 F6)."""
    from baton.app import Baton
    from tests.app_support import promote_handoff, validate_handoff_command
    from tests.handoff_support import git_init, payload
    from tests.harness_support import fixture, hook

    git_init(project, {"src/app.py": "x = 1\n"})
    hook(project, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.startup", project, session_id="s0"))
    with Baton.open(project) as app:
        received = app.capture(payload(), session="s0").handoff_id
    validate_handoff_command(project, received)
    promote_handoff(project, received, accept_warnings="tests")
    hook(project, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", project, session_id="s0"))
    copy = tmp_path / "copy"
    shutil.copytree(project, copy, symlinks=True)
    with Baton.open(copy) as app:  # the copy now writes as a writer of its own
        app.capture({"work": {"title": "mine", "objective": "o"}, "summary": {"current_state": "s"}})
    started = hook(copy, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.startup", copy, session_id="s9"))
    assert started.result.delivered.record.id == received
    draft = hook(copy, "claude-code", "PreCompact",
                 fixture("claude-code", "PreCompact.manual", copy, session_id="s9")).result.handoff_id
    with Baton.open(copy) as app:
        shown = app.show(draft).record
    assert shown["lineage"]["parents"] == [] and shown["open_items"] == []
