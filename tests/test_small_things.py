"""The small frictions of a day of use (issue 14), one behaviour each: a flag
that would be ignored is refused (exit 2), messages name only what a user can
do, lists stay aligned, and what a command did is said."""

from __future__ import annotations

import json
import re

import pytest

from baton.cli_input import ask_for_missing
from baton.errors import InputError
from tests.cli_support import run, run_json


def help_text(capsys, *args: str) -> str:
    from baton.cli import main

    capsys.readouterr()
    with pytest.raises(SystemExit):
        main([*args, "--help"])
    return " ".join(capsys.readouterr().out.split())


def _ready(capsys, project, title="OAuth replay") -> str:
    hid = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", title, "--objective", "o",
                   "--completed", "x", "--current-state", "y",
                   "--open-item", json.dumps({"description": "finish", "suggested_action": "write it",
                                              "acceptance_check": "its test passes"}))["id"]
    run_json(capsys, project, "handoff", "validate", hid)
    run_json(capsys, project, "handoff", "ready", hid, "--accept-warnings", "no git here")
    return hid


def test_resume_session_without_mark_resumed_is_refused(capsys, project):
    hid = _ready(capsys, project)
    code, _, err = run(capsys, project, "resume", hid, "--session", "s-1")
    assert code == 2 and "--session" in err and "--mark-resumed" in err


def test_resume_harness_without_mark_resumed_is_refused(capsys, project):
    hid = _ready(capsys, project)
    code, _, err = run(capsys, project, "resume", hid, "--harness", "codex")
    assert code == 2 and "--harness" in err


def test_session_handoff_shared_without_from_is_refused(capsys, project):
    code, _, err = run(capsys, project, "session", "handoff", "--shared")
    assert code == 2 and "--shared applies only with --from" in err


def test_a_refused_transition_offers_only_what_a_command_does(capsys, project):
    hid = _ready(capsys, project)
    code, _, err = run(capsys, project, "handoff", "validate", hid)
    assert code == 4
    assert "supersede" not in err and "flag_conflicted" not in err


def test_invalid_rows_keep_the_list_aligned(capsys, project):
    good = _ready(capsys, project, "good")
    bad = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "bad", "--objective", "o",
                   "--artifact", "missing.py")["id"]
    run(capsys, project, "handoff", "validate", bad)
    _, out, _ = run(capsys, project, "handoff", "list")
    lines = out.splitlines()
    assert any("[invalid]" in line for line in lines) and any(good[-8:] in line for line in lines)
    # the created column starts at one offset (found as a timestamp: a short id may hold "20")
    created_at = [re.search(r"\d{4}-\d\d-\d\dT", line).start() for line in lines]
    assert len(set(created_at)) == 1


def test_the_id_help_says_what_the_docs_say(capsys, project):
    assert "prefix of it of 4+ characters" in help_text(capsys, "resume")


@pytest.mark.parametrize("command", ["validate", "ready"])
def test_latest_is_not_offered_where_it_cannot_apply(capsys, project, command):
    assert "latest" not in help_text(capsys, "handoff", command)
    code, _, err = run(capsys, project, "handoff", command, "latest")
    assert code == 2 and "'latest' names the newest ready handoff" in err


def test_end_of_input_at_the_title_question_aborts():
    def ended(question: str) -> str:
        raise EOFError

    with pytest.raises(InputError) as caught:
        ask_for_missing({"title": None}, [("title", "Title (what is this work?)")], ended)
    assert "aborted" in caught.value.message


def test_session_end_says_what_was_redacted(capsys, project):
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2
    code, out, _ = run(capsys, project, "session", "end", "s-1", "--handoff-steps", f"rotate {token} first")
    assert code == 0
    assert "Redacted before writing:" in out and token not in out


def test_limit_zero_means_every_one_and_a_negative_limit_is_an_input_error_for_log_and_handoff_list(capsys, project):
    """One meaning for one flag (tester team15 G8: ``log --limit 0`` was an error)."""
    for command in (("log",), ("handoff", "list")):
        assert run(capsys, project, *command, "--limit", "0")[0] == 0
        assert run(capsys, project, *command, "--limit", "-1")[0] == 2


def test_handoff_steps_repeated_keep_their_commas(capsys, project):
    answer = run_json(capsys, project, "session", "end", "s-1", "--handoff-steps", "fix a, b and c",
                      "--handoff-steps", "run the tests")
    assert answer["handoff"]["nextSteps"] == ["fix a, b and c", "run the tests"]


def test_a_backslash_keeps_a_comma_in_one_handoff_steps_flag(capsys, project):
    answer = run_json(capsys, project, "session", "end", "s-1", "--handoff-steps", "fix a\\, b,run the tests")
    assert answer["handoff"]["nextSteps"] == ["fix a, b", "run the tests"]


def test_full_email_owners_keep_the_status_table_narrow(capsys, project):
    owner = "a.very.long.name.of.a.person@engineering.example-corporation.com"
    run_json(capsys, project, "session", "end", "s-1", "--owner", owner, "--branch",
             "feature/a-rather-long-branch-name-for-oauth-replay", "--handoff-steps",
             "a next step that is long enough to need clipping in a table of pending batons")
    _, out, _ = run(capsys, project, "status")
    assert max(len(line) for line in out.splitlines()[1:]) <= 150


def test_status_json_rows_are_camel_case_like_the_rest(capsys, project):
    _ready(capsys, project)
    body = run_json(capsys, project, "status")
    row = body["latestHandoffs"][0]
    assert {"shortId", "createdAt", "updatedAt"} <= set(row)
    assert not [k for k in row if "_" in k]
