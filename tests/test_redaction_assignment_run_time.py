"""The assignment rules' pre-check pattern (``_could_assign_regex``: a secret
word, separators and qualifiers, an operator) runs in time linear in the text:
a secret word followed by a long run of digits (``key1111…1a=``) or of
``base64`` made the pattern it replaced try every way of cutting the run
(exponential: each two more digits took four times as long), and the screen
runs on hook input and everything persisted. The new pattern finds exactly
the matches the old one found (docs/security.md, "Pattern run time").

SYNTHETIC SECRETS ONLY: every credential here is assembled at runtime from
pieces.
"""

from __future__ import annotations

import re
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from baton.domain.redaction import RedactionPolicy
from baton.domain.redaction.rules import _QUALIFIER, QUALIFIERS, AssignmentRule, _could_assign_regex
from baton.domain.redaction.walk import _prefilter

POLICY = RedactionPolicy()
LAST_WORDS = sorted({rule.last_words for rule in _prefilter(POLICY).rules
                     if isinstance(rule, AssignmentRule) and rule.last_words})
SECRET = "hF8sK2pQ9xZ4v" + "B7nM1cL6tR3wY0dG5jA"


def _before_the_possessive_run(last_words: tuple[str, ...]) -> str:
    """The pattern as it was (exponential on a run of digits)."""
    words = "|".join(re.escape(w) for w in sorted(last_words, key=lambda w: (-len(w), w)))
    return rf"""(?:{words})(?:[_.\-]*{_QUALIFIER})*[_.\-]*["']?[ \t]*[:=]"""


ALL_WORDS = sorted({w for words in LAST_WORDS for w in words})
# A secret word, qualifiers (and the pieces of the ones that hold a shorter one:
# "prev"+"ious", "base"+"64"), short runs of digits, separators, other letters,
# quotes, blanks and operators: every character the pattern reads between a word
# and its operator, and a character away from it. Runs are short so the old
# pattern finishes: digit fragments drawn side by side join into one run, and the
# old pattern tries 2**(n-1) cuts of a run of n digits, so a text whose longest
# run of digits is over 8 is not drawn (CI's derandomized draw joined enough of
# them to search for hours).
FRAGMENTS = st.sampled_from([
    *ALL_WORDS, *sorted(QUALIFIERS), "ious", "ing", "ue", "v", "V2", "64", "x", "a", "K", "_", ".", "-", "__",
    '"', "'", " ", "\t", ":", "=", ":=", "=>", "\n", "API_", "s", "é",
])
DIGITS = st.text(alphabet="0123456789", min_size=1, max_size=6)
TEXTS = st.lists(FRAGMENTS | DIGITS, max_size=14).map("".join).filter(
    lambda text: max(map(len, re.findall(r"[0-9]+", text)), default=0) <= 8)


@settings(max_examples=600, deadline=None)
@given(TEXTS)
def test_the_pattern_finds_exactly_the_match_the_old_one_found(text: str) -> None:
    for last_words in LAST_WORDS:
        old = re.search(_before_the_possessive_run(last_words), text.lower())
        new = re.search(_could_assign_regex(last_words), text.lower())
        assert (new and new.span()) == (old and old.span()), (last_words, text)


def test_a_qualifier_holding_a_shorter_one_still_reaches_its_operator() -> None:
    for text in ("api_key_base64=", "token_previous:", "secret_string =", "password_value2:", "key_v2_prod64="):
        assert re.search(_could_assign_regex(("key", "token", "secret", "password")), text), text


_SCREEN = """
import sys
from baton.domain.redaction import RedactionPolicy, redact_payload
text = sys.stdin.read()
sys.stdout.write(redact_payload(text, RedactionPolicy()).payload)
"""


def _screened_in_a_child(text: str) -> str:
    """The screen run in a child process: a search that never ends fails by the timeout
    (the suite has no per-test timeout)."""
    done = subprocess.run([sys.executable, "-c", _SCREEN], input=text, capture_output=True, text=True,
                          timeout=120, check=True)
    return done.stdout


def test_a_secret_word_then_100_kb_of_digits_is_screened_and_the_secret_below_redacted() -> None:
    bad = "api_key" + "1" * 100_000 + "a="
    cleaned = _screened_in_a_child(f"{bad}\nAPI_KEY={SECRET}\n")
    assert cleaned.startswith(bad + "\nAPI_KEY=[REDACTED:") and SECRET not in cleaned


def test_a_secret_word_then_100_kb_of_qualifiers_is_screened_and_the_secret_below_redacted() -> None:
    bad = "token_" + "base64" * 17_000 + "x: 1"
    cleaned = _screened_in_a_child(f"{bad}\npassword: {SECRET}\n")
    assert cleaned.startswith(bad + "\npassword: [REDACTED:") and SECRET not in cleaned
