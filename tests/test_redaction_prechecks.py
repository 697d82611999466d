"""The output screen's pre-checks (``baton.domain.redaction.rules``): a rule
whose keyword most texts hold (``.`` for a Discord bot token, ``ey`` for a
JWT, ``1/`` for an Asana token) is searched only when a string test says its
pattern can match. A pre-check may say yes to a text the pattern does not
match; it never says no to one it does: these tests hold each to its rule's
own pattern, on texts built to match and texts a character away from it."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.domain.redaction import DEFAULT_RULES, RedactionPolicy
from baton.domain.redaction.rules import (
    PRECHECKED_LENGTH,
    could_be_asana_token,
    could_be_discord_bot_token,
    could_be_jwt,
    could_be_named_in_prose,
)

RULES = {rule.name: rule for rule in DEFAULT_RULES}
PRECHECKED = {"discord-bot-token": could_be_discord_bot_token, "jwt": could_be_jwt,
              "asana-personal-access-token": could_be_asana_token}


def _search(name: str, text: str) -> bool:
    rule = RULES[name]
    return re.compile(rule.regex, rule.flags).search(text) is not None


TOKEN = "ABCXYZabcxyz0189_-"
PIECES = {
    "discord-bot-token": st.sampled_from(["M", "N", "O", ".", "a", "Z", "9", "_", "-", " ", "é", "aaaaaa",
                                           "Mabcdefghijklmnopqrstuvw", "x" * 27, ".abcdef.", "\n"]),
    "jwt": st.sampled_from(["ey", "ewogIC", "ewoi", "ew", "e", ".", "a", "_", "-", " ", "é", "abcdefgh",
                            "abcdefghij", "=", "\n"]),
    "asana-personal-access-token": st.sampled_from(["1/", "2/", "1", "2", "/", ":", "0", "9", "٣", "a", "f",
                                                    "1234567890123", "0123456789abcdef", " "]),
}
"""Each rule's alphabet: its pattern's parts and their near misses (a character
too few, another script's digit, a dot out of place)."""
MATCHING = {
    "discord-bot-token": st.builds("{}{}.{}.{}".format, st.sampled_from("MNO"),
                                   st.text(st.sampled_from("Ab9"), min_size=23, max_size=25),
                                   st.text(st.sampled_from(TOKEN), min_size=6, max_size=6),
                                   st.text(st.sampled_from(TOKEN), min_size=27, max_size=38)),
    "jwt": st.builds("{}{}.{}.{}".format, st.sampled_from(["ey", "ewogIC", "ewoi"]),
                     st.text(st.sampled_from(TOKEN), min_size=8, max_size=30),
                     st.text(st.sampled_from(TOKEN), min_size=10, max_size=30),
                     st.text(st.sampled_from(TOKEN), max_size=30)),
    "asana-personal-access-token": st.builds("{}/{}{}{}".format, st.sampled_from("12"),
                                             st.text(st.sampled_from("0123456789٣"), min_size=13, max_size=19),
                                             st.sampled_from(":/"),
                                             st.text(st.sampled_from("0123456789abcdef"), min_size=32, max_size=32)),
}
"""A text each pattern matches, built from its parts."""
AROUND = st.text(st.sampled_from("ab .-_/1é\n"), max_size=12)


@pytest.mark.parametrize("name", sorted(PRECHECKED))
def test_each_prechecked_rule_carries_its_precheck(name):
    assert RULES[name].could_match is PRECHECKED[name]


@pytest.mark.parametrize("name", sorted(PRECHECKED))
@given(data=st.data())
def test_a_precheck_says_yes_to_every_text_its_pattern_matches(name, data):
    text = f"{data.draw(AROUND)} {data.draw(MATCHING[name])} {data.draw(AROUND)}"
    assert _search(name, text)
    assert PRECHECKED[name](text)


@pytest.mark.parametrize("name", sorted(PRECHECKED))
@given(data=st.data())
def test_a_precheck_says_no_only_to_texts_its_pattern_cannot_match(name, data):
    text = "".join(data.draw(st.lists(PIECES[name], max_size=40)))
    assert PRECHECKED[name](text) or not _search(name, text)


@pytest.mark.parametrize("name", sorted(PRECHECKED))
@given(text=st.text())
def test_a_precheck_says_no_only_to_texts_its_pattern_cannot_match_in_any_text(name, text):
    assert PRECHECKED[name](text) or not _search(name, text)


@pytest.mark.parametrize("name", sorted(PRECHECKED))
def test_a_text_too_long_to_precheck_is_searched(name):
    assert PRECHECKED[name]("x" * (PRECHECKED_LENGTH + 1))


@pytest.mark.parametrize("text", ["bench@example.invalid", "see docs.example.com/a.b for the key.",
                                  "2026-12-06T10:04:06.574032Z", "they read src/app.py and key.json."])
def test_prose_with_the_keywords_fails_every_precheck(text):
    assert not any(check(text) for check in PRECHECKED.values())


@pytest.mark.parametrize("name,text", [
    ("discord-bot-token", "token MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs here"),
    ("jwt", "Authorization: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("asana-personal-access-token", "ASANA=1/1234567890123456:0123456789abcdef0123456789abcdef"),
])
def test_a_real_shaped_token_passes_its_precheck_and_is_redacted(name, text):
    from baton.domain.redaction import RedactionPolicy, redact_text

    assert PRECHECKED[name](text)
    assert f"[REDACTED:{name}]" in redact_text(text, RedactionPolicy())


PROSE_PIECES = st.sampled_from(["token ", "the secret is ", "password was '", "api key ", " ", "\n", "é", "=",
                                "Zq8Wm3Rt7Yp2Kx5Lb4Nc6Vd", "wJalrXUtnFEMI/K7MDENG/bPxRfiCY", "abcdefgh", "ABCDEFGH",
                                "01234567", "Ab9", "+/_-", "01a25116-6d81-7713-ad79-c722908b1787", "ß", "٣", ".", "`"])
"""``named-secret-in-prose``'s parts and near misses: its nouns and fillers, token characters of one
class only, a UUID (hex, no upper case), another script's digit and letter, punctuation."""


def _named_in_prose_redacts(text: str) -> bool:
    return any(span for span in RULES["named-secret-in-prose"].spans(text, RedactionPolicy()))


def test_named_secret_in_prose_carries_its_precheck():
    assert RULES["named-secret-in-prose"].could_match is could_be_named_in_prose


@given(st.lists(PROSE_PIECES, max_size=30))
def test_named_secret_in_prose_precheck_says_no_only_to_texts_the_rule_redacts_nothing_from(pieces):
    """Its pre-check holds the rule's value test (upper- and lower-case letters and digits in the
    token), not only its pattern: a UUID or a commit id after ``token`` matches the pattern and is
    never redacted by it, and is the ordinary text the check lets through uncompiled."""
    text = "".join(pieces)
    assert could_be_named_in_prose(text) or not _named_in_prose_redacts(text)


@pytest.mark.parametrize("text", [
    "the token is Zq8Wm3Rt7Yp2Kx5Lb4Nc6Vd", "aws secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Ws2Kd9e",
    "password was 'Zq8Wm3Rt7Yp2Kx5Lb4Nc6Vd'", "the leaked credentials Zq8Wm3Rt7Yp2Kx5Lb4Nc6Vd were rotated",
])
def test_named_secret_in_prose_precheck_says_yes_to_a_named_secret(text):
    assert _named_in_prose_redacts(text) and could_be_named_in_prose(text)


@pytest.mark.parametrize("text", [
    "Compare tokens in constant time (round 118): baton 01a25116-6d81-7713-ad79-c722908b1787",
    "the secret fixed in commit 1f2e3d4c5b6a79880f1e2d3c4b5a69788f0e1d2c",
    "password hashing moved to RedactionPolicyThresholds",
])
def test_named_secret_in_prose_precheck_says_no_to_ordinary_prose_and_ids(text):
    assert not could_be_named_in_prose(text)


def test_named_secret_in_prose_precheck_says_yes_to_a_text_too_long_to_precheck():
    assert could_be_named_in_prose("token " + "a" * PRECHECKED_LENGTH)


def test_screening_prose_that_names_tokens_beside_ids_compiles_no_named_secret_pattern():
    """A brief's ``Compare tokens in constant time`` beside a baton's id and a commit id: the screen
    leaves the text as it is without compiling the rule's pattern (3.9 M instructions, in every
    start and ``bootstrap`` whose brief says ``token``, issue 27)."""
    import subprocess
    import sys

    line = ("- Compare tokens in constant time (round 118), baton 01a25116-6d81-7713-ad79-c722908b1787, "
            "head 870e0104fe13, the secret fixed in commit 1f2e3d4c5b6a79880f1e2d3c4b5a69788f0e1d2c")
    code = (
        "import re, sys\n"
        "made, compile_now = [], re._compile\n"
        "re._compile = lambda pattern, flags: made.append(pattern) or compile_now(pattern, flags)\n"
        "from baton.domain.redaction import RedactionPolicy, redact_payload\n"
        "from baton.domain.redaction.table import _NAMED_IN_PROSE\n"
        f"assert redact_payload({line!r}, RedactionPolicy()).payload == {line!r}\n"
        "print(_NAMED_IN_PROSE in made)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "False", (r.stdout, r.stderr[-2000:])


@given(text=st.text(st.sampled_from("aZ09+/_-=. \n\té—٣\u2028\x85?"), max_size=60), shortest=st.integers(1, 16))
def test_token_runs_are_the_runs_a_pattern_of_token_characters_finds(text, shortest):
    """``token_runs`` (read as bytes, another script's character a ``?``) finds what
    ``[A-Za-z0-9+/_-]{shortest,}`` does: the pre-checks of the prose and base64 rules read them."""
    from baton.domain.redaction.rules import token_runs

    assert token_runs(text, shortest) == re.findall(r"[A-Za-z0-9+/_-]{%d,}" % shortest, text)
