"""A DEL (U+007F) or C1 control character (U+0080–U+009F) in a handoff keeps
every harness's session-start answer JSON (review 19, V2): written as a
``\\u`` escape, the same string to the harness, where ``\\x7f`` would not
be JSON and Gemini CLI would drop the brief. A text for a terminal shows the
character as an escape, as it shows any control character."""

from __future__ import annotations

import json

import pytest

from baton.cli_handlers.output import screened_json_answer
from baton.domain.redaction import RedactionPolicy, visible_json
from tests.conftest import run_baton
from tests.handoff_support import git_init
from tests.harness_support import fixture, injected

CONTROLS = ["\x7f", "\x80", "\x85", "\x9b", "\x9f"]
START = {"claude-code": ("SessionStart", "SessionStart.startup"), "codex": ("SessionStart", "SessionStart.startup"),
         "cursor": ("sessionStart", "sessionStart"), "gemini-cli": ("SessionStart", "SessionStart.startup")}
FIELDS = {"--handoff-steps": "run the tool{c} then next", "--handoff-failed": "tried the{c} cache",
          "--handoff-questions": "why the{c} lock?"}


@pytest.mark.parametrize("ch", CONTROLS, ids=lambda c: f"U+{ord(c):04X}")
def test_a_json_answer_holding_a_del_or_c1_character_stays_json_with_the_same_string(ch):
    text = json.dumps({"hookSpecificOutput": {"additionalContext": f"a{ch}b"}}, ensure_ascii=False)
    shown = screened_json_answer(text, RedactionPolicy())
    assert ch not in shown and f"\\u{ord(ch):04x}" in shown
    assert json.loads(shown) == {"hookSpecificOutput": {"additionalContext": f"a{ch}b"}}


@pytest.mark.parametrize("ch", CONTROLS, ids=lambda c: f"U+{ord(c):04X}")
def test_json_output_writes_a_del_or_c1_character_as_a_json_escape(ch):
    text = json.dumps({"title": f"a{ch}b"}, ensure_ascii=False)
    assert visible_json(text) == json.dumps({"title": f"a{ch}b"})  # \u escapes, as ensure_ascii writes them


@pytest.fixture
def ended(project):
    """A baton whose every free-text handoff field holds DEL and C1 characters."""
    git_init(project, {"src/app.py": "x = 1\n"})
    assert run_baton("session", "begin", "s1", cwd=project).returncode == 0
    words = [w for flag, item in FIELDS.items() for c in ("\x7f", "\x9b") for w in (flag, item.format(c=c))]
    done = run_baton("session", "end", "s1", *words, cwd=project)
    assert done.returncode == 0, done.stderr
    return project


@pytest.mark.parametrize("harness", sorted(START))
def test_every_harness_start_answer_stays_json_with_del_and_c1_in_every_handoff_field(ended, harness):
    event, name = START[harness]
    done = run_baton("hook", harness, event, cwd=ended,
                     input=json.dumps(fixture(harness, name, ended, session_id=f"s-{harness}")))
    assert done.returncode == 0, done.stderr
    assert "\x7f" not in done.stdout and "\x9b" not in done.stdout and "\\x7f" not in done.stdout
    brief = injected(harness, done.stdout)  # json.loads: it fails on a \x7f escape
    assert brief is not None
    for item in FIELDS.values():
        for c in ("\x7f", "\x9b"):
            assert item.format(c=c) in brief  # the same characters, to the harness


def test_a_terminal_text_shows_del_and_c1_as_escapes_and_json_output_as_json_escapes(ended):
    text = run_baton("session", "handoff", cwd=ended)
    assert text.returncode == 0, text.stderr
    assert "\x7f" not in text.stdout and "\x9b" not in text.stdout
    assert "run the tool\\x7f then next" in text.stdout and "why the\\x9b lock?" in text.stdout
    answer = run_baton("session", "handoff", "--json", cwd=ended)
    assert answer.returncode == 0, answer.stderr
    assert "\x7f" not in answer.stdout and "run the tool\\u007f then next" in answer.stdout
    assert "run the tool\x7f then next" in json.loads(answer.stdout)["handoffMarkdown"]
