"""Percent-escapes without ``urllib.parse`` (``baton.domain.percent``): the
hook path escapes a baton's key and decodes a stream's name with them, and
they give what ``urllib.parse.quote`` and ``unquote`` give for any text."""

from __future__ import annotations

import re
import urllib.parse

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.domain.percent import escapes, quote, unquote

ESCAPED = st.text(alphabet=st.sampled_from("%%%0123456789abcdefABCDEFgG/_ ~-.é€😀\x00\x7f"), max_size=30)
"""Text dense in ``%``, hex digits and characters on either side of ASCII:
where an unquote can go wrong."""
SAFE = st.sampled_from(["/", "", "-_.!~*'()", "é/", "%"])
"""``safe`` as Baton passes it (a baton's key, a URL part), and odd ones."""


@given(st.text() | ESCAPED, SAFE)
def test_quote_gives_what_urllib_gives(text, safe):
    assert quote(text, safe=safe) == urllib.parse.quote(text, safe=safe)


@given(st.text() | ESCAPED)
def test_quote_keeps_only_a_slash_by_default(text):
    assert quote(text) == urllib.parse.quote(text)


@given(st.text() | ESCAPED)
def test_unquote_gives_what_urllib_gives(text):
    assert unquote(text) == urllib.parse.unquote(text)


@given(st.text(), SAFE)
def test_unquote_reverses_quote(text, safe):
    assert unquote(quote(text, safe=safe)) == text


@pytest.mark.parametrize("text", ["%", "%4", "%4g", "%%41", "a%C3%A9b", "%C3é%A9", "%E2%82", "%ZZ%41", "😀%F0%9F%98%80"])
def test_unquote_reads_a_stray_or_split_escape_as_urllib_does(text):
    assert unquote(text) == urllib.parse.unquote(text)


def test_quote_refuses_a_lone_surrogate_as_urllib_does():
    with pytest.raises(UnicodeEncodeError):
        urllib.parse.quote("a\ud800")
    with pytest.raises(UnicodeEncodeError):
        quote("a\ud800")


ESCAPE_PATTERN = r"%(?:25)*[0-9A-Fa-f]{2}"
"""The redaction's percent-escape view's pattern (``baton.domain.redaction.walk._ESCAPE``)."""
ENCODED_AGAIN = st.lists(st.sampled_from(["%", "25", "2", "5", "3D", "a", "F", "g", "%25", " ", "é"]),
                         max_size=20).map("".join)
"""Text dense in escapes encoded again (``%2525…``) and cut short: where ``(?:25)*`` backs off."""


@given(st.text() | ESCAPED | ENCODED_AGAIN)
def test_escapes_finds_what_the_escape_pattern_finds(text):
    assert escapes(text) == [m.span() for m in re.finditer(ESCAPE_PATTERN, text)]


def test_the_escape_pattern_is_the_redaction_views():
    from baton.domain.redaction import walk

    assert walk._ESCAPE == ESCAPE_PATTERN


@pytest.mark.parametrize("text,spans", [("%3D", [(0, 3)]), ("%253D", [(0, 5)]), ("%2525", [(0, 5)]),
                                        ("%25", [(0, 3)]), ("%252", [(0, 3)]), ("%%41", [(1, 4)]),
                                        ("%g1%", []), ("a%2", [])])
def test_escapes_takes_the_longest_encoding_then_backs_off(text, spans):
    assert escapes(text) == spans
