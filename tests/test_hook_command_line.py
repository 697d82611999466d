"""A hook whose own command line Baton cannot read (an unknown option, a missing event, an extra
word) still never breaks its harness: exit 0 — Claude Code reads exit 2 as a hook that blocks (the
prompt dropped, the Stop refused), Gemini CLI as a deny — the harness's "nothing" on stdout, one
line on stderr, and a notice the next brief says (docs/hooks.md, "When a hook fails")."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import run_baton
from tests.harness_support import fixture, injected

PAYLOAD = json.dumps({"session_id": "z", "cwd": "."})


@pytest.mark.parametrize("words", [
    ("claude-code", "Stop", "--bogus"),
    ("claude-code",),
    ("claude-code", "Stop", "extra"),
    ("--bogus", "claude-code", "Stop"),
    (),
], ids=lambda words: " ".join(words) or "nothing")
def test_a_malformed_hook_command_line_exits_0_with_one_line_on_stderr(project, words):
    result = run_baton("hook", *words, cwd=project, input=PAYLOAD)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("baton hook") and "is not one Baton reads" in line
    assert "usage:" not in result.stderr


def test_a_malformed_hook_command_line_says_why_the_parser_refused_it(project):
    result = run_baton("hook", "claude-code", "Stop", "--verbose", cwd=project, input=PAYLOAD)
    assert "`baton hook claude-code Stop --verbose` is not one Baton reads (unrecognized arguments: --verbose)" \
        in result.stderr
    assert "`baton hook HARNESS EVENT`" in result.stderr


def test_a_malformed_hook_command_line_is_said_by_the_next_brief(project):
    run_baton("hook", "claude-code", "Stop", "--bogus", cwd=project, input=PAYLOAD)
    start = run_baton("hook", "claude-code", "SessionStart", cwd=project,
                      input=json.dumps(fixture("claude-code", "SessionStart.startup", project)))
    said = injected("claude-code", start.stdout)
    assert "Baton's claude-code Stop hook (session z) failed" in said
    assert "`baton hook claude-code Stop --bogus` is not one Baton reads" in said


def test_a_malformed_hook_command_line_answers_the_harness_s_nothing(project):
    """Cursor's prompt hook holds the prompt back without ``{"continue": true}``; Gemini CLI parses ``{}``."""
    cursor = run_baton("hook", "cursor", "beforeSubmitPrompt", "--bogus", cwd=project,
                       input=json.dumps(fixture("cursor", "beforeSubmitPrompt", project)))
    gemini = run_baton("hook", "gemini-cli", "SessionEnd", "extra", cwd=project,
                       input=json.dumps(fixture("gemini-cli", "SessionEnd", project)))
    assert (cursor.returncode, json.loads(cursor.stdout)) == (0, {"continue": True})
    assert (gemini.returncode, json.loads(gemini.stdout)) == (0, {})


def test_a_hook_argument_that_is_not_utf8_exits_0_too(project):
    result = subprocess.run([sys.executable, "-m", "baton", "hook", "claude-code", "Stop", b"\xff"], cwd=project,
                            input=PAYLOAD.encode(), capture_output=True)
    assert result.returncode == 0
    assert b"not valid UTF-8" in result.stderr


def test_a_malformed_hook_command_line_with_json_prints_the_outcome_as_json(project):
    result = run_baton("hook", "claude-code", "Stop", "--bogus", "--json", cwd=project, input=PAYLOAD)
    assert result.returncode == 0
    assert "is not one Baton reads" in json.loads(result.stdout)["problem"]


def test_the_hook_s_help_still_prints_its_help(project):
    result = run_baton("hook", "--help", cwd=project)
    assert result.returncode == 0 and result.stdout.startswith("usage: baton hook")


def test_a_malformed_line_of_another_command_still_exits_2(project):
    result = run_baton("bootstrap", "--bogus", cwd=project)
    assert result.returncode == 2
