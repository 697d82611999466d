"""Patterns compiled on first use (``baton.domain.regexes``)."""

from __future__ import annotations

import re

from baton.domain import handoff_requests
from baton.domain.regexes import compiled, lazy


def test_a_lazy_pattern_is_not_compiled_until_first_used():
    pattern = lazy(r"(?P<word>[a-z]+)-(\d+)", re.I)
    assert not pattern.compiled
    assert pattern.fullmatch("Ab-12").group("word") == "Ab"
    assert pattern.compiled


def test_a_lazy_pattern_answers_as_the_compiled_one_does():
    regex = r"\s*(?:[,.;]+|\band\b)\s*"
    pattern = lazy(regex)
    text = "one, two and three; four"
    assert pattern.split(text) == re.compile(regex).split(text)
    assert pattern.sub("|", text) == re.compile(regex).sub("|", text)
    assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in re.finditer(regex, text)]
    assert pattern.pattern == regex and pattern.groupindex == {}


def test_the_same_regex_is_compiled_once_per_process():
    assert compiled(r"once-\d") is compiled(r"once-\d")
    pattern = lazy(r"once-\d")
    assert pattern.search("once-1") and pattern._pattern is compiled(r"once-\d")


def test_a_prompt_too_long_to_be_a_request_never_compiles_the_request_phrases():
    """Most prompts are longer than any request (``MAX_WORDS``): answering them compiles
    only the two small patterns that fold the text, not the phrase table."""
    whole = handoff_requests.lazy(handoff_requests._WHOLE.regex)  # a fresh one: the module's may be compiled
    handoff_requests._WHOLE, saved = whole, handoff_requests._WHOLE
    try:
        long_prompt = " ".join(["word"] * (handoff_requests.MAX_WORDS + 1))
        assert not handoff_requests.is_explicit_request(long_prompt)
        assert not whole.compiled
        assert handoff_requests.is_explicit_request("handoff please")
        assert whole.compiled
    finally:
        handoff_requests._WHOLE = saved
