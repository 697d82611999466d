"""Redaction of a token right after a backslash escape (``\\n``, ``\\t``, ``\\r\\n``,
``\\u003d`` written as a backslash and letters, as JSON- or repr-escaped command output pasted
into a capture holds them) or glued to a word (``xghp_…``, ``id=abcAKIA…``): the escape's
letter hid the boundary a token rule needs, as a percent escape's hex digit did
(docs/security.md, "Backslash escapes and glued tokens"; tester27 T1).

SYNTHETIC SECRETS ONLY: every credential here is assembled at runtime from pieces.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.domain.redaction.walk import backslash_escapes
from tests.conftest import run_baton
from tests.redaction_support import gone_for_good, kept_whole, redacted

GITHUB = "ghp" + "_" + "R8mK2pQ7vX4nL9sT3wY6zB1cD5fG0hJ2kM4q"
AWS_ID = "AKIA" + "Q7R3XW5T2LMNB4VD"
OPENAI = "sk" + "-proj-" + "Zx8Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz2Xc4Vb6Nm8"
OPENAI_LEGACY = "sk" + "-" + "Zx8Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz2Xc4Vb6Nm8Qa1Ws2"
SLACK = "xoxb" + "-2318476512-4819273645182-" + "Zq8RtY6uI9oP2aS5dF8gH1jK"
HUGGING_FACE = "hf" + "_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567"
TOKENS = {"github-token": GITHUB, "aws-access-key-id": AWS_ID, "openai-api-key": OPENAI, "slack-token": SLACK}


@pytest.mark.parametrize("escape", ["\\n", "\\t", "\\r\\n", "\\u000a", "\\x0a", "\\\\n"])
@pytest.mark.parametrize("rule", TOKENS)
def test_a_token_right_after_a_backslash_escape_is_redacted(escape: str, rule: str):
    text, rules = redacted(f"log: done{escape}{TOKENS[rule]}")
    assert text == f"log: done{escape}[REDACTED:{rule}]" and rules == {rule}


def test_a_token_after_an_escaped_equals_sign_is_redacted():
    text, _ = redacted(f"tok\\u003d{GITHUB}")
    assert text == "tok\\u003d[REDACTED:github-token]"


@pytest.mark.parametrize("token", [OPENAI_LEGACY, HUGGING_FACE])
def test_a_token_whose_prefix_is_too_short_to_glue_is_redacted_after_an_escape(token: str):
    # ``sk-`` and ``hf_`` are found only at a boundary: the escape decoded gives them one.
    text, _ = redacted('{"stdout":"done\\n' + token + '"}')
    assert token not in text and text.startswith('{"stdout":"done\\n[REDACTED:')


def test_a_secret_assignment_with_an_escaped_equals_sign_is_redacted():
    text, rules = redacted("api_key\\u003dZx9Qw8Er7Ty6Ui5Op4")
    assert text == "api_key\\u003d[REDACTED:generic-secret-assignment]"


def test_a_secret_in_escaped_json_is_redacted_and_its_escaped_quotes_kept():
    text, _ = redacted('{\\"api_key\\": \\"Zx9Qw8Er7Ty6Ui5Op4\\"}')
    assert text == '{\\"api_key\\": \\"[REDACTED:generic-secret-assignment]\\"}'


@pytest.mark.parametrize("text", [f"x{GITHUB}", f"id=abc{AWS_ID}", f"key{OPENAI}", f"note{SLACK}"])
def test_a_token_with_a_distinctive_prefix_glued_to_a_word_is_redacted(text: str):
    cleaned, _ = redacted(text)
    assert cleaned.endswith("]") and not any(token in cleaned for token in TOKENS.values())


@pytest.mark.parametrize("line", [
    "task-proj-management-dashboard-for-the-new-client-v2-2024",
    "risk-assessment-for-the-quarterly-review-of-2024-and-beyond",
    "disk-usage-report-2024-quarterly-summary-final-v3-and-more-text",
    "task-proj-V2-Management-Dashboard-2024-New-Client-App-Release",
    "desk-admin-console-settings-page-layout-v2-update-2024-final",
    "ask_live_stream_recording_of_the_meeting_2024_part_two_final",
    "laughs_0123456789012345678901234567890123456789",
    "hugsxoxo-love-from-all-of-us-2024",
    "BACKAKIAABCDEFGHIJKLMNOP",
    "the script prints done\\nand exits\\twith status 0",
    "C:\\\\Users\\\\nobody\\\\task-list.txt",
])
def test_ordinary_words_ending_in_a_token_prefix_are_kept(line: str):
    assert kept_whole(line)


@pytest.mark.parametrize("text", ["x\\x41", "\\u0041", "\\U00000041"])
def test_an_escape_of_a_letter_is_no_boundary(text: str):
    assert backslash_escapes(text) == []


def test_an_escape_decodes_to_the_separator_it_stands_for():
    assert backslash_escapes('a\\nb\\u003dc\\"d\\\\te') == [(1, 3, "\n"), (4, 10, "="), (11, 13, '"'), (14, 17, "\t")]


_ESCAPES = st.sampled_from(["\\n", "\\t", "\\r", "\\r\\n", "\\u003d", "\\x3a", '\\"', "\\\\n", "\\/"])


@given(st.lists(_ESCAPES, min_size=1, max_size=3), st.sampled_from(sorted(TOKENS.values())),
       st.lists(_ESCAPES, max_size=2))
def test_property_a_token_wrapped_in_backslash_escapes_is_redacted_and_redaction_is_idempotent(before, token, after):
    text = "x" + "".join(before) + token + "".join(after)
    gone_for_good(text, token)


def _files_holding(folder: Path, secret: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def test_escaped_and_glued_tokens_given_to_the_cli_never_reach_the_ledger(project: Path):
    r = run_baton("--json", "checkpoint", "create", "--no-input", "--title", f"x{GITHUB}", "--project", str(project),
                  "--objective", "x", "--discovery", f"log: \\n{GITHUB}", f"a\\t{AWS_ID}", f"b\\n{OPENAI}",
                  f"c\\n{SLACK}", f"tok\\u003d{GITHUB}", f"id=abc{AWS_ID}", f"key{OPENAI}")
    assert r.returncode == 0, r.stderr
    for token in TOKENS.values():
        assert token not in r.stdout + r.stderr
        assert _files_holding(project / ".baton", token) == []


def test_a_glued_token_in_a_hook_payload_that_is_not_json_is_redacted_in_its_notice(project: Path):
    # The payload is cut short, not JSON: its notice quotes how it began, on stderr and in the notices file.
    r = run_baton("hook", "claude-code", "PreCompact", cwd=project, input='{"s":"x' + GITHUB)
    assert r.returncode == 0
    assert "not JSON" in r.stderr and GITHUB[:12] not in r.stderr
    notices = (project / ".baton" / "hook-notices.jsonl").read_text()
    assert "not JSON" in notices and GITHUB[:12] not in notices
    assert [json.loads(line) for line in notices.splitlines()]
