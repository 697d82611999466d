"""The screen's fast paths find exactly what the straightforward algorithms
find: the keyword prefilter (pairs cut, pairs searched, the compiled keyword
scanner) against asking every rule's keywords in turn, and the assignment
rule's head scan against the search-again-after-each-candidate loop it
replaced. Texts mix keywords, ``name = value`` text in every spelling, and
JSON lines (``baton log --json``'s) holding secrets."""

from __future__ import annotations

import string
from typing import Iterator

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.domain.redaction import RedactionPolicy, redact_strings
from baton.domain.redaction.rules import (
    _ASSIGNMENT,
    AssignmentRule,
    KeywordPrefilter,
    Rule,
    _could_assign_regex,
    assignment_heads,
    could_assign,
    key_words,
)
from baton.domain.redaction.walk import _prefilter
from baton.domain.regexes import compiled

POLICY = RedactionPolicy()
RULES = _prefilter(POLICY).rules
KEYWORDS = sorted({k for rule in RULES for k in getattr(rule, "keywords", ())})
PAIR_RULES = [rule for rule in RULES if isinstance(rule, AssignmentRule)]

SECRET = "hF8sK2pQ9xZ4vB7nM1cL6tR3wY0dG5jA"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzzzKEYabc"
FRAGMENTS = [
    *KEYWORDS, "password", "api_key", "apiKey", "DB_PASSWORD", "aws_secret_access_key", "primary_key", "token",
    "password_", "AWS_SECRET_KEY.", "token--", "tokens", "secret-derived",
    "x", "-", "--", ".", "_", '"', "'", "`", " ", "\t", "\n", "\\", ":", "=", ":=", "=>", "==", ",", ";", "&", "{",
    "}", "[", "]", "(", ")", "<", ">", "ghp_", "sk-ant-api03-", "eyJhbGciOiJIUzI1NiJ9", "[REDACTED]", SECRET,
    AWS_SECRET, "null", "${TOKEN}", "https://user:", "@host",
]

texts = st.lists(st.sampled_from(FRAGMENTS) | st.text(string.printable, max_size=6), max_size=40).map("".join)


@st.composite
def json_lines(draw) -> str:
    """A canonical JSON line whose members may be named for a secret and hold one."""
    names = st.sampled_from(["password", "apiKey", "api_key", "token", "aws_secret_access_key", "id", "key",
                             "primary_key", "note", "env", "url"]) | st.text(string.ascii_letters + "_-.", max_size=8)
    values = st.sampled_from([SECRET, AWS_SECRET, "short", "", "${TOKEN}", f"password={SECRET}",
                              f"x: api_key={SECRET}", f'say "token: {SECRET}"']) | texts
    tree = st.recursive(values | st.none() | st.integers(-1000, 1000),
                        lambda children: st.lists(children, max_size=3) | st.dictionaries(names, children, max_size=4),
                        max_leaves=8)
    return orjson.dumps(draw(st.dictionaries(names, tree, max_size=6)), option=orjson.OPT_SORT_KEYS).decode()


def reference_candidates(rules: tuple[Rule, ...], lowered: str) -> list[Rule]:
    """Every rule without keywords, and every rule one of whose keywords occurs."""
    return [rule for rule in rules if not getattr(rule, "keywords", ()) or
            any(keyword in lowered for keyword in rule.keywords)]


def reference_spans(rule: AssignmentRule, text: str) -> Iterator[tuple[int, int]]:
    """The loop the head scan replaced: search, and search again right after
    the key of a candidate not redacted (after the value of one redacted)."""
    pos = 0
    while (m := _ASSIGNMENT.search(text, pos)) is not None:
        group = next(g for g in ("dq", "sq", "bq", "bare") if m.group(g) is not None)
        # a bare ``key`` also needs a secret's shape, not a name's (``bare_keys``: ``key=access-development-``)
        if rule.key_test(key_words(m.group("key"))) and rule._value_passes(m.group("key"), m.group(group), POLICY):
            yield m.span(group)
            pos = m.end()
        else:
            pos = m.end("key")


def _prefilters() -> dict[str, KeywordPrefilter]:
    cut, searched, scanned = KeywordPrefilter(RULES), KeywordPrefilter(RULES), KeywordPrefilter(RULES)
    cut.long = 1 << 30  # always cut into pairs
    searched.long = 0  # always search each pair
    scanned.SCANNED_LENGTH, scanned.SCANNER_AFTER = 0, -1  # the scanner from the first string on
    return {"cut": cut, "searched": searched, "scanned": scanned}


PREFILTERS = _prefilters()


@settings(max_examples=300, deadline=None)
@given(st.one_of(texts, json_lines()))
def test_every_prefilter_way_finds_the_rules_a_keyword_search_finds(text: str) -> None:
    lowered = text.lower()
    expected = reference_candidates(RULES, lowered)
    for way, prefilter in PREFILTERS.items():
        assert prefilter.candidates(lowered) == expected, way


def test_the_scanner_finds_a_keyword_inside_a_longer_one_and_overlapping_ones() -> None:
    scanned = PREFILTERS["scanned"]
    for text in ("sk-ant-api03-", "xsk-or-v1", "ghp_ghp_", "kind: secret", "keyey", "a" * 30, "zzzz://"):
        assert scanned.candidates(text) == reference_candidates(RULES, text), text
    assert scanned.scanner is not None


def test_the_scanner_is_built_only_after_enough_text() -> None:
    prefilter = KeywordPrefilter(RULES)
    prefilter.candidates("x" * 100)
    assert prefilter.scanner is None
    prefilter.candidates("x" * (prefilter.SCANNER_AFTER + 1))
    assert prefilter.scanner is not None


@settings(max_examples=300, deadline=None)
@given(st.one_of(texts, json_lines()))
def test_assignment_spans_are_those_of_the_search_again_loop(text: str) -> None:
    for rule in PAIR_RULES:
        assert list(rule.spans(text, POLICY)) == list(reference_spans(rule, text)), rule.name


def test_a_head_is_every_candidate_start_with_its_key() -> None:
    text = f'x: password={SECRET} "apiKey" :  "{SECRET}" --token=>{SECRET}'
    heads = assignment_heads(text)
    starts = []
    pos = 0
    while (m := _ASSIGNMENT.search(text, pos)) is not None:
        starts.append((m.start(), m.group("key")))
        pos = m.end("key")
    assert set(starts) <= set(heads)
    assert [key for _, key in heads] == ["x", "password", "apiKey", "--token"]


def test_a_json_line_with_secrets_is_redacted_as_the_reference_spans_say() -> None:
    line = orjson.dumps({"data": {"password": SECRET, "note": f"api_key={SECRET}", "id": "D-001"}}).decode()
    screened = redact_strings(line, POLICY).payload
    assert SECRET not in screened
    assert "D-001" in screened
    spans = sorted({span for rule in PAIR_RULES for span in reference_spans(rule, line)})
    assert len(spans) == 2


def test_a_text_dense_with_keywords_is_left_to_the_pairs_and_finds_the_same() -> None:
    scanned = PREFILTERS["scanned"]
    text = "a" * 5000 + " ghp_ "
    assert scanned._scanned(text, set()) is False
    assert scanned.candidates(text) == reference_candidates(RULES, text)


keys = st.lists(st.sampled_from(["api", "Key", "key", "SECRET", "secret", "token", "Token", "password", "pwd", "aws", "PG",
                                 "access", "Access", "primary", "max", "_", ".", "-", "x", "2", "KEY", "tokens", "PASS", "pw",
                                 "auth", "base", "V2", "prod", "id"]),
                min_size=1, max_size=6).map("".join)


@settings(max_examples=300, deadline=None)
@given(keys)
def test_a_key_an_assignment_rule_passes_is_never_hidden_by_its_prefilter(key: str) -> None:
    for rule in PAIR_RULES:
        assert rule.last_words
        if rule.key_test(key_words(key)):
            # a name glued in one word (PGPASSWORD) and one with a qualifier after its
            # last word (SECRET_KEY_BASE, TOKEN2, KEY_V2) pass too: could_assign must find them
            for text in (f"{key}=v", f'"{key}": "v"', f"{key} := v"):
                assert could_assign(rule.last_words, text), (rule.name, text)


def test_a_text_whose_secret_words_are_prose_is_not_searched_for_candidates() -> None:
    prose = '{"decision":"compare tokens in constant time","why":"a secret-derived value","apiKeys":3}'
    assert not any(could_assign(rule.last_words, prose) for rule in PAIR_RULES)
    assert all(could_assign(rule.last_words, 'AWS_SECRET_KEY = "x"') for rule in PAIR_RULES)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_the_assignment_prefilter_answers_as_its_pattern_does(text: str) -> None:
    """``could_assign`` tests with string methods what its pattern implies before it
    compiles the pattern: the answer is the pattern's own, whatever the text."""
    for rule in PAIR_RULES:
        expected = compiled(_could_assign_regex(rule.last_words)).search(text.lower()) is not None
        assert could_assign(rule.last_words, text) == expected, (rule.name, text)


def test_a_secret_word_far_from_its_operator_or_repeated_is_left_to_the_pattern() -> None:
    for text in ("token" + "_" * 200 + "= x", "token_" * 40 + "= x", "tokens " * 40 + ": x", "token" + "-" * 70):
        for rule in PAIR_RULES:
            expected = compiled(_could_assign_regex(rule.last_words)).search(text.lower()) is not None
            assert could_assign(rule.last_words, text) == expected, (rule.name, text)


def test_a_session_id_or_prose_compiles_no_assignment_pattern() -> None:
    """A steady session start screens its session id, its owner and a brief whose
    prose says "tokens": none of them compiles the assignment patterns (~2-4 M
    instructions each: docs/performance.md)."""
    compiled.cache_clear()
    for text in ("h18-2d3f9a", "bench@example.invalid", "## Recent decisions\n- Compare tokens in constant time "
                 "(round 7): a secret-derived value\n", '{"additionalContext":"> keep the key safe"}'):
        assert not any(could_assign(rule.last_words, text) for rule in PAIR_RULES)
    assert compiled.cache_info().currsize == 0  # nothing was compiled


def test_a_secret_word_then_underscores_dots_or_dashes_then_an_operator_is_searched() -> None:
    for text in (f"api_key_={SECRET}", f'"password." : "{SECRET}"', f"token-- => {SECRET}"):
        spans = [list(reference_spans(rule, text)) for rule in PAIR_RULES]
        assert any(spans), text
        assert [list(rule.spans(text, POLICY)) for rule in PAIR_RULES] == spans, text


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from([*string.ascii_letters[:4], "_", "0", "9", "\n", "-", " ", "é", "ſ"]), max_size=6))
def test_a_field_is_spelled_as_its_identifier_pattern_says(key: str) -> None:
    """A field's path names a key ``.key`` when ``_IDENT`` matches it, ``["key"]`` otherwise;
    tested with string methods, the pattern compiled by no screen."""
    import re

    from baton.domain.redaction.walk import _IDENT, _child

    expected = f"p.{key}" if re.match(_IDENT, key) else f"p[{orjson.dumps(key).decode()}]"
    assert _child("p", key) == expected
