"""Explicit handoff requests: the documented phrase set (docs/detector.md, "Explicit requests")."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.domain import handoff_requests
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
    # to another harness or the next agent (harness15 G2), and a clause cut by an em or en dash
    "hand off to codex", "hand off to the next agent", "please hand this off to gemini", "handoff to claude please",
    "hand it over to the next session", "hand off to Claude Code", "Context is almost full — hand off.",
    "running low on context – handoff", "let us continue this in a new chat", "finish it tomorrow",
    # a stop with nothing after it but a sentence that does not go on working
    "Stop here. We are almost out of context.", "Wrap up. I will continue tomorrow.",
    # ... the same after ';' or a spaced dash, and the harnesses' other spellings (review15 F14, F5)
    "Stop here — we are out of context", "Stop here - we are out of context", "Stop here; context is full",
    "hand off to Codex CLI", "hand off to claude-code", "hand off to gemini-cli", "hand off to openai codex",
    "context almost full -- hand off",
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
    # a file name, path or dotted name holding the word (harness14 F3: `handoff.py` was cut into `handoff`)
    "handoff.py has a bug. fix it", "baton.md is out of date", "look at src/handoff.py", "see docs/handoff.md",
    "open handoff.ts", "HANDOFF.md: fix the typo", "run tests/test_handoff.py", "hand-off.js crashes",
    "handover.rs does not build, then fix it", "call baton.handoff() twice",
    # stopping only to go on working (debugger talk), not to stop the session
    "stop here and fix the bug on line 3", "pause here and inspect the variable x",
    "stop here, then step into parse()", "ok, pause here and print the stack", "wrap up and commit the change",
    # ... in the next sentence (harness15 G9)
    "Stop here. Fix the bug on line 3.", "Pause here. Inspect x.", "Wrap up. Then run the tests.",
    "Stop here – fix it", "hand off to the worker thread", "hand this off to bob", "stop here; fix it",
    "Stop here -- inspect x",
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


STOPS = ["stop here", "pause here", "wrap up", "stop for now", "pause for now", "ok stop here", "let's pause here"]
WORK_VERBS = ["fix", "inspect", "print", "check", "run", "step into", "look at", "explain", "test", "log"]
THINGS = ["the bug on line 3", "the variable x", "the stack", "parse()", "the loop", "this value", "it"]
NOUN_FILES = ["handoff", "hand-off", "handover", "baton", "test_handoff", "Handoff"]
EXTENSIONS = ["py", "md", "ts", "json", "rs", "txt"]


@given(st.sampled_from(STOPS), st.sampled_from([" and ", ", then ", " then ", ", "]), st.sampled_from(WORK_VERBS),
       st.sampled_from(THINGS))
def test_stopping_here_only_to_go_on_working_is_not_a_request(stop, cut, verb, thing):
    assert is_explicit_request(f"{stop}{cut}{verb} {thing}") is False


@given(st.sampled_from(STOPS), st.sampled_from(["", ", thanks", " please", ". thanks!", " and hand off",
                                                ", write a handoff"]))
def test_stopping_here_with_nothing_more_to_do_is_a_request(stop, ending):
    assert is_explicit_request(f"{stop}{ending}") is True


@given(st.sampled_from(NOUN_FILES), st.sampled_from(EXTENSIONS),
       st.sampled_from(["", "src/", "./", "baton/domain/"]),
       st.sampled_from([" has a bug. fix it", " fails", ": please look", ". handle it", ", then continue"]))
def test_a_file_name_holding_the_word_is_not_a_request(name, extension, folder, rest):
    assert is_explicit_request(f"{folder}{name}.{extension}{rest}") is False


def test_a_request_after_a_file_name_is_still_one():
    assert is_explicit_request("I changed handoff.py. write a handoff") is True


@given(st.sampled_from(STOPS), st.sampled_from([". ", "! ", "? ", ". then ", ". now ", ". ok, "]), st.sampled_from(WORK_VERBS),
       st.sampled_from(THINGS))
def test_stopping_here_then_going_on_working_in_the_next_sentence_is_not_a_request(stop, cut, verb, thing):
    assert is_explicit_request(f"{stop}{cut}{verb} {thing}.") is False


# -- linear and bounded (tester-use21 T2: one long unbroken token took minutes) --------------------------------------

_NAME_AS_BEFORE = r"[\w./:-]*\w[./:]\w(?:[\w./:-]*\w)?"
"""The pattern that found file names before: quadratic in a long run of word characters with no joint."""


def _as_before(prompt: str) -> bool:
    """The recogniser as it answered before it was made linear and bounded."""
    stripped = prompt.strip().casefold()
    if any(stripped == c or stripped.startswith(c + " ") for c in handoff_requests.COMMANDS):
        return True
    folded = handoff_requests._fold(prompt)
    if not folded or len(folded.split()) > MAX_WORDS:
        return False
    named = re.sub(_NAME_AS_BEFORE, " file ", folded)
    sentences = [sentence for sentence in handoff_requests._SENTENCE_CUT.split(named) if sentence.strip()]
    return any(handoff_requests._asks(sentence, sentences[at + 1:]) for at, sentence in enumerate(sentences))


@given(st.text(alphabet="ab_1é.:/- ,;!?", max_size=80))
def test_file_names_are_found_in_one_pass_where_the_pattern_found_them(text):
    assert handoff_requests._names_marked(text) == re.sub(_NAME_AS_BEFORE, " file ", text)


_WORDS = ["handoff", "hand", "off", "over", "write", "a", "the", "baton", "please", "stop", "here", "and", "then",
          "fix", "bug", "continue", "later", "new", "session", "to", "codex", "handoff.py", "src/handoff",
          "baton.handoff()", "wrap", "up", "call", "it", "day", "ok", "let's", "Let’s", "/handoff", "HANDOFF",
          "x" * 40, "next", "agent", "—", "--", "-", "tomorrow", "save", "progress", "for", "🙂"]


@given(st.lists(st.tuples(st.sampled_from(_WORDS), st.sampled_from([" ", ", ", ". ", "; ", "! ", "? ", "  "])),
                max_size=2 * MAX_WORDS))
def test_a_prompt_of_ordinary_shape_is_answered_as_before(words):
    prompt = "".join(word + cut for word, cut in words)
    assert is_explicit_request(prompt) is _as_before(prompt)


@pytest.mark.parametrize("token", ["0123456789abcdef" * 4096, "x" * 200_000, "a." * 100_000, "é" * 100_000])
def test_a_prompt_of_one_long_unbroken_token_is_no_request_and_runs_no_pattern(token, monkeypatch):
    for name in ("_RUN", "_JOINED", "_NON_WORD", "_SPACES", "_SENTENCE_CUT", "_CLAUSE_CUT", "_WHOLE"):
        monkeypatch.setattr(handoff_requests, name, handoff_requests.lazy(getattr(handoff_requests, name).regex))
    assert is_explicit_request("Why does this fail to parse: " + token) is False
    assert is_explicit_request(token + " handoff") is False
    assert not any(getattr(handoff_requests, name).compiled
                   for name in ("_RUN", "_JOINED", "_NON_WORD", "_SPACES", "_SENTENCE_CUT", "_CLAUSE_CUT", "_WHOLE"))


def test_a_slash_command_is_a_request_whatever_follows_it():
    assert is_explicit_request("/handoff " + "x" * 200_000) is True
    assert is_explicit_request("  /HANDOFF" + " " * 200_000) is True


def test_a_request_with_a_long_path_in_it_is_still_one():
    assert is_explicit_request("I changed src/" + "deep/" * 100 + "handoff.py. write a handoff") is True
