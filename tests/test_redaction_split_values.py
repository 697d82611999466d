"""A secret's value that a line continuation splits — ``API_KEY=Zx9…\\`` and the
rest of the value on the next line, one word to the shell — is redacted whole, as
the one-line form is, and that never exposes anything the redaction of main
(pinned at ``MAIN``, read from git into a folder of its own) redacts
(docs/security.md, "Line continuations").

SYNTHETIC SECRETS ONLY: every credential here is assembled at runtime from
pieces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.domain.redaction import redact_payload
from tests.redaction_support import POLICY, in_clear, redaction_at

GITHUB = "ghp_" + "A1b2C3d4E5f6" + "G7h8I9j0K1l2M3n4O5p6Q7r8"
KEY = "Zx9Qw8Er7" + "Ty6Ui5Op4As3" + "Df2Gh1Jk0Lm"
MAIN = "12d9e8eb"
"""main when the split value was fixed: the redaction whose every removal must stay removed."""


def _redacted(text: str) -> str:
    cleaned: str = redact_payload(text, POLICY).payload
    return cleaned


@pytest.mark.parametrize("text", [
    f"export GITHUB_TOKEN={GITHUB[:16]}\\\n{GITHUB[16:]}",
    f"export API_KEY={KEY[:12]}\\\n{KEY[12:]}",
    f"API_KEY={KEY[:9]}\\\n{KEY[9:21]}\\\n{KEY[21:]}",
    f"API_KEY={KEY[:9]}\\\r\n{KEY[9:21]}\\\r\n{KEY[21:]}",
    f"set API_KEY={KEY[:12]}^\r\n{KEY[12:]}",
], ids=["github-token", "two-pieces", "three-pieces", "crlf", "cmd-caret"])
def test_a_value_a_continuation_splits_is_redacted_whole(text):
    cleaned = in_clear(_redacted(text))
    pieces = [piece for piece in (GITHUB[4:16], GITHUB[16:], KEY[:9], KEY[9:21], KEY[21:]) if piece in text]
    assert pieces and not [piece for piece in pieces if piece in cleaned]


def test_the_line_after_a_split_value_is_kept():
    cleaned = _redacted(f"API_KEY={KEY[:9]}\\\n{KEY[9:]}\necho done")
    assert cleaned == "API_KEY=[REDACTED:generic-secret-assignment]\necho done"


def test_an_indented_line_after_a_split_value_is_another_word_and_kept():
    cleaned = _redacted(f"API_KEY={KEY[:12]}\\\n  --verbose")
    assert cleaned == "API_KEY=[REDACTED:generic-secret-assignment]\n  --verbose"


# -- the property: nothing main redacts comes back, and a split value is gone whole --

@pytest.fixture(scope="module")
def main_redaction(tmp_path_factory) -> Iterator[Callable[[str], str]]:
    """``redact_payload`` of ``MAIN``, in a process of its own (its ``baton`` package
    extracted from git), asked one text at a time."""
    yield from redaction_at(MAIN, tmp_path_factory.mktemp("main"))


def test_the_pinned_main_is_the_redaction_before_this_fix(main_redaction):
    text = f"API_KEY={KEY[:9]}\\\n{KEY[9:]}"
    assert KEY[9:] in main_redaction(text) and KEY[9:] not in _redacted(text)


NAMES = st.sampled_from(["API_KEY", "password", "token", "GITHUB_TOKEN", "secret", "MY_APP_PROD_API_KEY_2",
                         "client_3f9a7c2e_secret", "api_keys", "note", "description"])
OPERATORS = st.sampled_from(["=", " = ", ": ", ":", "%3D", " %3D ", "%22", "="])
VALUES = st.one_of(
    st.text(alphabet="ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789", min_size=12, max_size=36),
    st.just(GITHUB), st.just("AKIA" + "Q3EGRZ7XW4YH2KTM"), st.just("${API_KEY}"), st.just("[REDACTED]"))
BREAKS = st.sampled_from(["\\\n", "\\\r\n", "^\r\n", "`\n", "\\\n  ", "\\\\\n", "\n", "\r\n", ":\n  ",
                          ": |\n  ", ": >\n  ", ":\n\n  ", ":\n  - ", "\n  - ", "\n  "])
SEPARATORS = st.sampled_from(["\n", " ", "\r\n", "\n\n", "\n  ", " \\\n"])


@st.composite
def _statement(draw: st.DrawFn) -> tuple[str, str]:
    """A name, an operator and a value cut at random places by a line break or a
    continuation: the shapes the one-line, percent and joined rules know. The text and
    its value."""
    value = draw(VALUES)
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(value) - 1)), max_size=3)))
    pieces = [value[a:b] for a, b in zip([0, *cuts], [*cuts, len(value)])]
    text = draw(st.sampled_from(["", "export ", "set ", "  "])) + draw(NAMES) + draw(OPERATORS)
    for piece in pieces[:-1]:
        text += piece + draw(BREAKS)
    return text + pieces[-1], value


def _grams(text: str) -> set[str]:
    return {text[i:i + 4] for i in range(len(text) - 3) if text[i:i + 4].isalnum()}


@settings(max_examples=400, deadline=None)
@given(statements=st.lists(_statement(), min_size=1, max_size=4), separators=st.lists(SEPARATORS, min_size=4,
                                                                                      max_size=4))
def test_the_redaction_never_leaves_in_clear_what_main_redacts(main_redaction, statements, separators):
    text = "".join(sep + statement for (statement, _), sep in zip(statements, separators)).lstrip("\n")
    before, after = in_clear(main_redaction(text)), in_clear(_redacted(text))
    assert not [gram for gram in _grams(text) if gram not in before and gram in after], (text, before, after)


@settings(max_examples=300, deadline=None)
@given(prefix=st.sampled_from(["", "export ", "set "]),
       name=st.sampled_from(["API_KEY", "password", "DB_PASSWORD", "secret", "auth_token", "GITHUB_TOKEN"]),
       operator=st.sampled_from(["=", " = ", ": "]),
       value=st.text(alphabet="ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789", min_size=12, max_size=36),
       cuts=st.sets(st.integers(1, 11), min_size=1, max_size=3),
       continuation=st.sampled_from(["\\\n", "\\\r\n", "^\r\n"]), after=st.sampled_from(["", "\necho done"]))
def test_the_whole_value_of_a_split_assignment_is_gone(prefix, name, operator, value, cuts, continuation, after):
    one_line = _redacted(f"{prefix}{name}{operator}{value}")
    if value in one_line:
        return  # the one-line form keeps it (too little entropy): nothing to hide
    pieces = [value[a:b] for a, b in zip([0, *sorted(cuts)], [*sorted(cuts), len(value)])]
    text = f"{prefix}{name}{operator}{continuation.join(pieces)}{after}"
    cleaned = in_clear(_redacted(text))
    head = f"{prefix}{name}{operator}"
    assert cleaned.startswith(head) and cleaned.endswith(after), (text, cleaned)
    assert set(cleaned[len(head):len(cleaned) - len(after)]) <= set("\0\\^\r\n"), (text, cleaned)


@settings(max_examples=300, deadline=None)
@given(statements=st.lists(_statement(), min_size=1, max_size=4), separators=st.lists(SEPARATORS, min_size=4,
                                                                                      max_size=4))
def test_redacting_a_redacted_text_again_changes_nothing(statements, separators):
    text = "".join(sep + statement for (statement, _), sep in zip(statements, separators)).lstrip("\n")
    once = _redacted(text)
    assert _redacted(once) == once, (text, once)
