"""A session's end that supersedes a baton another session left and nobody read never loses it
silently (harness14 F7/F8: two terminals on one branch; a resumed conversation that never received
the newer baton): the newer baton names it (``replacedUnseen``, ``unread``), the brief that delivers
the newer baton says so in one line with the command that reads it, and ``session end`` says so
(text and ``--json``). The spec's rule stays: the newer baton is the one delivered."""

from __future__ import annotations

from tests.batons_support import ALICE
from tests.cli_support import run, run_json

HERE = ("--owner", ALICE, "--branch", "main")


def two_terminals(capsys, project) -> tuple[dict, dict]:
    """Terminal 1 ends, leaving a baton; terminal 2 (begun before, never received it) ends too."""
    run_json(capsys, project, "session", "begin", "t2", *HERE)
    first = run_json(capsys, project, "session", "end", "t1", "--handoff-steps", "Parse the feed's local dates",
                     *HERE)
    second = run_json(capsys, project, "session", "end", "t2", "--handoff-steps", "Wire the retry queue", *HERE)
    return first, second


def test_an_end_that_replaces_another_sessions_unread_baton_says_so_in_its_json(project, capsys):
    first, second = two_terminals(capsys, project)
    assert second["superseded"] == first["handoffId"]
    unread = second["supersededUnread"]
    assert (unread["id"], unread["sessionId"], unread["firstStep"]) == (first["handoffId"], "t1",
                                                                        "Parse the feed's local dates")


def test_an_end_that_replaces_another_sessions_unread_baton_says_so_in_its_text(project, capsys):
    first = run_json(capsys, project, "session", "end", "t1", "--handoff-steps", "Parse the feed's local dates",
                     *HERE)
    code, out, _err = run(capsys, project, "session", "end", "t2", "--handoff-steps", "Wire the retry queue", *HERE)
    assert code == 0 and "replaced an unread baton from session t1 (Parse the feed's local dates)" in out
    assert f"`baton resume {first['handoffId']}` reads it." in out  # the brief with live freshness (tester-use22 T8)


def test_the_brief_delivering_the_newer_baton_names_the_unread_one_it_replaced(project, capsys):
    first, second = two_terminals(capsys, project)
    brief = run_json(capsys, project, "bootstrap", "--session-id", "t3", *HERE)
    markdown = brief["handoffMarkdown"]
    assert f"`{second['handoffId']}`" in markdown and "Wire the retry queue" in markdown
    assert "replaced an unread baton from session `t1` (Parse the feed's local dates)" in markdown
    assert f"`baton resume {first['handoffId']}` continues it" in markdown


def test_a_session_replacing_its_own_baton_names_nothing_unread(project, capsys):
    run_json(capsys, project, "session", "end", "t1", "--handoff-steps", "First try", *HERE)
    again = run_json(capsys, project, "session", "end", "t1", "--handoff-steps", "Second try", *HERE)
    assert again["superseded"] and again["supersededUnread"] is None
    markdown = run_json(capsys, project, "bootstrap", "--session-id", "t3", *HERE)["handoffMarkdown"]
    assert "unread baton" not in markdown


def test_a_baton_replacing_a_claimed_one_names_nothing_unread(project, capsys):
    run_json(capsys, project, "session", "end", "t1", "--handoff-steps", "Parse the feed's local dates", *HERE)
    run_json(capsys, project, "bootstrap", "--session-id", "t2", *HERE)  # t2 receives it
    ended = run_json(capsys, project, "session", "end", "t2", "--handoff-steps", "Wire the retry queue", *HERE)
    assert ended["superseded"] is None and ended["supersededUnread"] is None


def test_a_third_baton_keeps_naming_the_unread_one_the_second_replaced(project, capsys):
    first, _second = two_terminals(capsys, project)
    run_json(capsys, project, "session", "end", "t2", "--handoff-steps", "Wire the retry queue, again", *HERE)
    markdown = run_json(capsys, project, "bootstrap", "--session-id", "t3", *HERE)["handoffMarkdown"]
    assert f"`baton resume {first['handoffId']}` continues it" in markdown


def test_the_unread_baton_is_listed_as_superseded_unseen_by_status(project, capsys):
    first, second = two_terminals(capsys, project)
    [listed] = run_json(capsys, project, "status")["supersededUnseen"]
    assert (listed["id"], listed["supersededBy"], listed["unread"]) == (first["handoffId"], second["handoffId"], True)
    code, out, _err = run(capsys, project, "session", "handoff", "--all")
    assert code == 0 and f"SUPERSEDED-UNSEEN baton {first['handoffId']}" in out
    assert "left by another session before any session read it" in out


def _two_shared(capsys, project) -> tuple[str, str]:
    first = run_json(capsys, project, "session", "end", "s1", "--shared", "--handoff-steps", "shared one", *HERE)
    second = run_json(capsys, project, "session", "end", "s2", "--shared", "--handoff-steps", "shared two", *HERE)
    return first["handoffId"], second["handoffId"]


def test_a_superseded_shared_baton_is_listed_as_shared_not_for_its_author(project, capsys):
    first, _second = _two_shared(capsys, project)
    code, out, _err = run(capsys, project, "session", "handoff", "--all")
    [line] = [x for x in out.splitlines() if x.startswith(f"SUPERSEDED-UNSEEN baton {first}")]
    assert f"shared (left on main by {ALICE}):" in line and f"{ALICE} on main" not in line
    [listed] = run_json(capsys, project, "session", "handoff", "--all")["supersededUnseen"]
    assert (listed["shared"], listed["owner"], listed["branch"]) == (True, ALICE, "main")  # --json keys unchanged

