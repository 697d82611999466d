"""``baton.domain.shell_words`` writes and reads shell words exactly as ``shlex`` does."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.domain.shell_words import quote, split

SHELL_TEXT = st.text(alphabet=st.sampled_from(list(" \t\r\n\\'\"$`#;&|*?~ab-_./:@%+=,é\x00\x0b")), max_size=40)
"""Text made of what the shell treats specially, and a few ordinary and non-ASCII characters."""


def _shlex_split(line: str) -> list[str] | str:
    try:
        return shlex.split(line)
    except ValueError as exc:
        return str(exc)


def _split(line: str) -> list[str] | str:
    try:
        return split(line)
    except ValueError as exc:
        return str(exc)


@settings(max_examples=300, deadline=None)
@given(st.one_of(SHELL_TEXT, st.text(max_size=30)))
def test_quote_writes_what_shlex_quote_writes(text):
    assert quote(text) == shlex.quote(text)


@settings(max_examples=300, deadline=None)
@given(SHELL_TEXT)
def test_split_reads_what_shlex_split_reads_and_refuses_what_it_refuses(line):
    assert _split(line) == _shlex_split(line)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(SHELL_TEXT, st.text(max_size=12)), max_size=5))
def test_split_reads_back_the_words_quote_wrote(words):
    assert split(" ".join(quote(word) for word in words)) == words


@pytest.mark.parametrize("line,refusal", [("'open", "No closing quotation"), ('say "open', "No closing quotation"),
                                          ("end\\", "No escaped character"), ('"end\\', "No escaped character")])
def test_an_unclosed_quote_or_a_trailing_backslash_is_refused_with_shlex_words(line, refusal):
    with pytest.raises(ValueError, match=refusal):
        split(line)


def test_an_empty_quoted_word_is_a_word():
    assert split("baton '' \"\" x") == ["baton", "", "", "x"]
