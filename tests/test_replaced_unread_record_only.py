"""A notice naming a baton replaced unread or unseen names a command that works from where it is given
(docs/batons.md, "Where a notice sends you"): `baton resume ID` while its handoff can be resumed,
`baton handoff show ID` once that handoff is archived or superseded — `baton resume` refuses both
(exit 4). Leaving a baton over an unread one, the brief of the next session, `session handoff`,
`session begin`, `status` and the notices of batons superseded unseen all follow it."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from baton.domain.batons import (
    BatonRecord,
    baton_key,
    collided_notice,
    dismissed_elsewhere,
    lost_claim_notices,
    missed_notice,
    replaced_unread_notice,
    unseen_lines,
)
from baton.mcp_server import build_server
from tests.cli_support import run, run_json

HERE = ("--owner", "alice@example.com", "--branch", "main")
ITEM = {"description": "Add the fixture", "suggested_action": "Write it", "acceptance_check": "It runs",
        "priority": "high"}


def _handoff_handed_on_then_superseded(capsys, repo) -> str:
    """A ready handoff handed on as a baton (no session named), then amended and the amendment
    made ready: the baton still waits, unread, and its handoff is superseded."""
    handoff_id = run_json(capsys, repo, "checkpoint", "create", "--no-input", "--title", "Fixture",
                          "--objective", "Add the fixture", "--current-state", "Started",
                          "--open-item", json.dumps(ITEM))["id"]
    run_json(capsys, repo, "handoff", "validate", handoff_id)
    run_json(capsys, repo, "handoff", "ready", handoff_id, "--accept-warnings", "test fixture")
    run_json(capsys, repo, "session", "handoff", "--from", handoff_id, *HERE)
    child = run_json(capsys, repo, "handoff", "amend", handoff_id, "--current-state", "Fixture written")["id"]
    run_json(capsys, repo, "handoff", "validate", child)
    run_json(capsys, repo, "handoff", "ready", child, "--accept-warnings", "test fixture")
    return handoff_id


def test_ending_a_session_over_an_unread_baton_whose_handoff_was_superseded_names_handoff_show(capsys, repo):
    old = _handoff_handed_on_then_superseded(capsys, repo)
    code, out, err = run(capsys, repo, "session", "end", "s-1", "--handoff-steps", "Run the suite", *HERE)
    assert code == 0, err
    line = next(line for line in out.splitlines() if line.startswith("It replaced an unread baton"))
    assert f"`baton handoff show {old}`" in line and "baton resume" not in line
    assert run(capsys, repo, "resume", old)[0] == 4  # what the notice no longer names


def test_the_json_of_an_end_over_such_a_baton_names_the_command_that_reads_it(capsys, repo):
    old = _handoff_handed_on_then_superseded(capsys, repo)
    unread = run_json(capsys, repo, "session", "end", "s-1", "--handoff-steps", "Run the suite", *HERE)["supersededUnread"]
    assert unread["handoffStatus"] == "superseded" and unread["readCommand"] == f"baton handoff show {old}"


def test_ending_a_session_over_an_unread_baton_that_can_be_resumed_names_resume(capsys, repo):
    run_json(capsys, repo, "session", "end", "s-1", "--handoff-steps", "step A", *HERE)
    ended = run_json(capsys, repo, "session", "end", "s-2", "--handoff-steps", "step B", *HERE)
    old = ended["supersededUnread"]["id"]
    assert ended["supersededUnread"]["readCommand"] == f"baton resume {old}"
    assert run(capsys, repo, "resume", old)[0] == 0


def _unread_baton_archived_since(capsys, repo) -> str:
    """Session s-1's baton, replaced unread by session s-2's, then its handoff archived."""
    run_json(capsys, repo, "session", "end", "s-1", "--handoff-steps", "step A", *HERE)
    old = run_json(capsys, repo, "session", "end", "s-2", "--handoff-steps", "step B", *HERE)["supersededUnread"]["id"]
    run_json(capsys, repo, "handoff", "archive", old, "--reason", "done elsewhere")
    return old


def _unread_line(text: str) -> str:
    return next(line for line in text.splitlines() if "replaced an unread baton" in line)


def test_the_next_brief_names_handoff_show_for_an_unread_baton_archived_since(capsys, repo):
    old = _unread_baton_archived_since(capsys, repo)
    line = _unread_line(run_json(capsys, repo, "bootstrap", "--session-id", "s-3", *HERE)["brief"])
    assert f"`baton handoff show {old}`" in line and "baton resume" not in line and "archived" in line


def test_session_begin_and_session_handoff_name_handoff_show_for_it_too(capsys, repo):
    old = _unread_baton_archived_since(capsys, repo)
    waiting = _unread_line(run(capsys, repo, "session", "handoff", *HERE)[1])
    begun = _unread_line(run(capsys, repo, "session", "begin", "s-3", *HERE)[1])
    for line in (waiting, begun):
        assert f"`baton handoff show {old}`" in line and "baton resume" not in line


def test_the_pending_batons_listing_names_it_with_handoff_show_only(capsys, repo):
    old = _unread_baton_archived_since(capsys, repo)
    code, out, _ = run(capsys, repo, "session", "handoff", "--all")
    line = next(line for line in out.splitlines() if "SUPERSEDED-UNSEEN" in line)
    assert f"`baton handoff show {old}`" in line and "baton resume" not in line
    [unseen] = run_json(capsys, repo, "session", "handoff", "--all")["supersededUnseen"]
    assert unseen["handoffStatus"] == "archived"


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_baton_status_reads_it_with_handoff_show_only(capsys, repo):
    old = _unread_baton_archived_since(capsys, repo)
    async with Client(build_server(repo)) as client:
        status = (await client.call_tool("baton_status", {})).structured_content
    [unseen] = status["superseded_unseen"]
    assert unseen["handoff_status"] == "archived" and unseen["read_with"] == [f"baton handoff show {old}"]


def test_the_brief_names_resume_first_for_an_unread_baton_whose_handoff_can_be_resumed(capsys, repo):
    run_json(capsys, repo, "session", "end", "s-1", "--handoff-steps", "step A", *HERE)
    old = run_json(capsys, repo, "session", "end", "s-2", "--handoff-steps", "step B", *HERE)["supersededUnread"]["id"]
    line = _unread_line(run_json(capsys, repo, "bootstrap", "--session-id", "s-3", *HERE)["brief"])
    assert line.index(f"`baton resume {old}`") < line.index(f"`baton handoff show {old}`")


UNSEEN = {"id": "b-old", "owner": "alice@example.com", "branch": "main", "sessionId": "t1",
          "createdAt": "2026-01-01T00:00:00Z"}


def _record(**kw) -> BatonRecord:
    return BatonRecord(id="b-new", key=baton_key("bob", "main", False), owner="bob", branch="main", shared=False,
                       next_steps=("go on",), created_at="2026-01-02T00:00:00Z", **kw)


def test_each_notice_of_a_baton_superseded_unseen_names_handoff_show_alone_once_it_is_archived_or_superseded():
    record = _record(replaced_unseen=(UNSEEN,))
    for status in ("archived", "superseded"):
        for line in (*unseen_lines(record, statuses={"b-old": status}), missed_notice(record, UNSEEN, status=status),
                     collided_notice(record, UNSEEN, status=status),
                     replaced_unread_notice({**UNSEEN, "handoffStatus": status})):
            assert "`baton handoff show b-old`" in line and "baton resume" not in line, line


def test_each_notice_of_a_baton_superseded_unseen_names_resume_while_it_can_be_resumed():
    record = _record(replaced_unseen=(UNSEEN,))
    for line in (*unseen_lines(record, statuses={"b-old": "draft"}), missed_notice(record, UNSEEN, status="ready"),
                 collided_notice(record, UNSEEN), replaced_unread_notice(UNSEEN)):
        assert "`baton resume b-old`" in line, line


def test_a_baton_a_teammate_dismissed_by_archiving_its_handoff_is_read_with_handoff_show():
    dismissed = _record(status="dismissed", ended_at="2026-01-03T00:00:00Z", ended_by_writer="w-bob")
    [(_, notice)] = dismissed_elsewhere([dismissed], writer="w-me", owner="bob", told=[],
                                        statuses={"b-new": "archived"})
    assert notice.endswith("its handoff is archived now, so `baton handoff show b-new` reads it.")
    [(_, still)] = dismissed_elsewhere([dismissed], writer="w-me", owner="bob", told=[], statuses={"b-new": "draft"})
    assert still.endswith("`baton resume b-new` reads it.")


def test_a_claim_lost_to_an_archive_elsewhere_is_read_with_handoff_show():
    conflicts = [{"eventId": "e-1", "writer": "me", "handoffId": "h-1", "sessionId": "s-1",
                  "claimedAt": "2026-01-01T00:00:00Z", "winner": {"status": "dismissed"}}]
    [(_, notice)] = lost_claim_notices(conflicts, writer="me", told=[], statuses={"h-1": "archived"})
    assert notice.endswith("Its handoff is archived now, so `baton handoff show h-1` reads it.")
    [(_, still)] = lost_claim_notices(conflicts, writer="me", told=[], statuses={"h-1": "draft"})
    assert still.endswith("`baton resume h-1` reads it.")
