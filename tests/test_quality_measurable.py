"""The objective's measurable cue (``baton.domain.quality.measurable``): an ASCII objective is
read word by word instead of by ``_MEASURABLE``, whose compile is 5 M instructions of every
``resume``. The pattern stays the definition: these tests hold the word reading to it, on texts
built from its words, their near misses and the characters that bound a word."""

from __future__ import annotations

import re
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from baton.domain import quality
from baton.domain.quality import measurable

PATTERN = re.compile(quality._MEASURABLE.regex, quality._MEASURABLE.flags)

PIECES = st.sampled_from([
    "pass", "passes", "passing", "passed", "fail", "FAILS", "failing", "failed", "reject", "Rejected", "rejecting",
    "accept", "accepts", "accepted", "return", "returns", "returned", "returning", "must", "mustard", "so", "that",
    "so that", "so  that", "so_that", "at", "least", "most", "at least", "At Most", "at-most", "until", "untill",
    "without", "never", "nevermore", "only", "lonely", "within", "succeed", "succeeds", "succeeded", "error",
    "errors", "erroring", "test", "tests", "tested", "testing", "verified", "verify", "measure", "Measurable",
    "measur", "measu", "immeasurable", "_", "-", "'", ".", ",", " ", "\n", "\t", "x", "the handler", "tokens",
    "7", "%", "é", "ſo that", "K", "İ",
])
"""Its outcome words, their inflections it does not name, words that hold them, the characters
a word's bounds turn on (``_`` joins, ``-`` and ``'`` part), a digit, ``%``, and letters
outside ASCII (where the pattern itself is searched)."""


@settings(max_examples=400)
@given(st.lists(PIECES, max_size=8).map("".join))
def test_measurable_says_what_the_pattern_says(text):
    assert measurable(text) is (PATTERN.search(text) is not None), text


def test_an_outcome_word_only_counts_as_a_whole_word():
    assert measurable("Requests with a replayed token are rejected")
    assert not measurable("Requests with a replayed token are rejectedly handled")
    assert not measurable("keep the test_helper module")
    assert measurable("keep the test-helper module")
    assert measurable("hold so that readers see it") and not measurable("hold so thatch readers see it")


def test_an_ascii_objective_compiles_no_pattern():
    """Scoring a record whose objective is ASCII leaves ``_MEASURABLE`` uncompiled (a fresh process)."""
    code = ("from baton.domain import quality; assert quality.measurable('Requests are rejected'); "
            "assert not quality.measurable('Document the handler'); print(quality._MEASURABLE.compiled)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
