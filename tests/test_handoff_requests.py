"""Explicit handoff requests: the documented phrase set (docs/detector.md, "Explicit requests")."""

from __future__ import annotations

import pytest

from baton.domain.handoff_requests import MAX_WORDS, is_explicit_request

REQUESTS = [
    "handoff", "Handoff.", "handoff please", "hand off", "hand-off", "HANDOFF NOW",
    "please write a handoff", "Can you write a handoff?", "prepare a handoff", "write the handoff now",
    "make a baton", "leave a handoff for tomorrow", "pass the baton",
    "I need to stop here, hand off", "ok, hand it off", "hand this over",
    "continue later", "let's continue later", "Let’s continue later.", "we'll continue tomorrow",
    "compact and continue tomorrow", "pick this up later", "resume in a new session", "carry on next time",
    "new session", "start a new session", "open a fresh session please",
    "wrap up", "let's call it a day", "ok stop here", "stop for today, thanks",
    "save your progress for the next session", "write a note for the next session",
    "/handoff", "/handoff now please", "/baton-handoff", "/baton:handoff", "/mcp__baton__handoff",
]

NEAR_MISSES = [
    "", "hi", "continue", "stop", "baton", "fix the handoff parser", "write a handoff test",
    "why does the handoff fail?", "what is a baton handoff", "hand off the request to the worker thread",
    "don't hand off yet", "do not write a handoff", "no handoff", "the new session id is wrong",
    "wrap up the parser refactor", "continue with the tests", "let's continue", "rename the baton module",
    "new session handling is broken in the cli", "start the server", "stop the server here",
    "add a /handoff route to the api", "please handle the handoff event in the reducer",
    "refactor the tokenizer so it handles unicode in every identifier, then continue later with the docs"
    " and the changelog for the release",
]


@pytest.mark.parametrize("prompt", REQUESTS)
def test_a_request_in_the_documented_phrase_set_is_recognised(prompt):
    assert is_explicit_request(prompt) is True


@pytest.mark.parametrize("prompt", NEAR_MISSES)
def test_a_prompt_that_only_mentions_a_handoff_is_not_a_request(prompt):
    assert is_explicit_request(prompt) is False


def test_a_long_prompt_ending_in_a_request_phrase_is_not_a_request():
    prompt = " ".join(["word"] * MAX_WORDS) + ", continue later"
    assert is_explicit_request(prompt) is False


def test_a_value_that_is_not_text_is_not_a_request():
    assert is_explicit_request(None) is False  # type: ignore[arg-type]
