"""A hook's JSON answer (the brief a harness injects) is screened as a document:
its strings as the text they are, once, and the answer printed as it was
rendered when nothing in it is screened (``output.screened_json_answer``)."""

from __future__ import annotations

import orjson

from baton.cli_handlers.output import screened_json_answer
from baton.domain.redaction import RedactionPolicy
from baton.harnesses.hook import HookOutcome

POLICY = RedactionPolicy()
SECRET = "hF8sK2pQ9xZ4vB7nM1cL6tR3wY0dG5jA"
TOKEN = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def _answer(context: str) -> str:
    return orjson.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                "additionalContext": context}}).decode()


def test_a_clean_answer_is_printed_as_it_was_rendered():
    text = _answer('## Latest ready handoff\n\n**Compare tokens in constant time**: "a secret-derived value"\n')
    assert screened_json_answer(text, POLICY) == text


def test_a_secret_in_the_brief_is_redacted_and_the_answer_stays_json():
    text = _answer(f"Use the token {TOKEN} to push.\n")
    shown = screened_json_answer(text, POLICY)
    assert TOKEN not in shown
    context = orjson.loads(shown)["hookSpecificOutput"]["additionalContext"]
    assert context == "Use the token [REDACTED:github-token] to push.\n"


def test_an_assignment_quoted_in_the_brief_is_redacted_though_json_escapes_its_quotes():
    text = _answer(f'config: password="{SECRET}"\n')
    assert '\\"' in text  # the text screen would have had to undo the escapes to see it
    shown = screened_json_answer(text, POLICY)
    assert SECRET not in shown and "[REDACTED" in orjson.loads(shown)["hookSpecificOutput"]["additionalContext"]


def test_an_invisible_character_in_the_brief_is_shown_as_an_escape_as_before():
    text = _answer("look \u202e here\n")
    assert "\u202e" not in screened_json_answer(text, POLICY)


def test_an_answer_that_is_not_json_is_screened_as_text():
    text = "{not json " + TOKEN
    assert screened_json_answer(text, POLICY) == "{not json [REDACTED:github-token]"


def test_only_a_hook_answer_that_is_a_json_object_is_read_as_one():
    assert HookOutcome(_answer("brief")).answers_json
    assert not HookOutcome("").answers_json and not HookOutcome("plain words").answers_json
