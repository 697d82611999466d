"""An assignment whose quoted value is never closed (``export
DB_PASSWORD="…`` pasted cut short) is still a secret value, to the end of
its line or text (review 19, V1): redacted before it is stored and before
it is printed, as the closed one is.

SYNTHETIC SECRETS ONLY: every value here is fake.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from baton.domain.redaction import RedactionPolicy, screen_output, screen_text
from tests.conftest import run_baton
from tests.harness_support import fixture, injected

POLICY = RedactionPolicy()
SECRET = "Zx9Qw8Er7Ty6Ui5Op4"
MARK = "[REDACTED:generic-secret-assignment]"


@pytest.mark.parametrize("opened", ['export DB_PASSWORD="', 'password: "', "api_key='", "token=`", 'secret := "'])
def test_a_quote_never_closed_before_the_line_ends_holds_a_secret_value(opened):
    shown = screen_text(f"1. {opened}{SECRET}\n2. then run it", POLICY)
    assert SECRET not in shown
    assert shown == f"1. {opened}{MARK}\n2. then run it"  # the next line is kept


def test_a_quote_never_closed_before_the_text_ends_holds_a_secret_value():
    assert screen_text(f'DB_PASSWORD="{SECRET}', POLICY) == f'DB_PASSWORD="{MARK}'


def test_an_unclosed_quote_holds_the_rest_of_its_line_blanks_and_all():
    shown = screen_output(f'DB_PASSWORD="{SECRET} and more words\r\nnext', POLICY)
    assert shown == f'DB_PASSWORD="{MARK}\r\nnext'


def test_a_quote_closed_on_its_line_ends_the_value_as_before():
    assert screen_text(f'DB_PASSWORD="{SECRET}" and then', POLICY) == f'DB_PASSWORD="{MARK}" and then'


@pytest.mark.parametrize("value", ["$DB_PASSWORD", "short", "{{ secrets.DB }}", "xxxxxxxxxxxx"])
def test_an_unclosed_quote_around_a_placeholder_or_a_weak_value_is_kept(value):
    text = f'export DB_PASSWORD="{value}\nnext'
    assert screen_text(text, POLICY) == text


def _stored(root: Path) -> bytes:
    """Every byte the project keeps: the ledger, the index, the materialized files."""
    return b"".join(p.read_bytes() for p in sorted((root / ".baton").rglob("*")) if p.is_file())


def test_a_handoff_step_with_an_unclosed_quote_is_stored_and_delivered_redacted(repo):
    assert run_baton("session", "begin", "s1", cwd=repo).returncode == 0
    ended = run_baton("session", "end", "s1", "--handoff-steps", f'export DB_PASSWORD="{SECRET}',
                      "--handoff-steps", "then run it", cwd=repo)
    assert ended.returncode == 0, ended.stderr
    assert SECRET.encode() not in _stored(repo)
    started = run_baton("hook", "claude-code", "SessionStart", cwd=repo, env={"BATON_HOOK_SERVER": "0"},
                        input=json.dumps(fixture("claude-code", "SessionStart.startup", repo, session_id="s2")))
    assert started.returncode == 0, started.stderr
    brief = injected("claude-code", started.stdout)  # the answer is JSON
    assert SECRET not in started.stdout
    assert brief is not None and f'export DB_PASSWORD="{MARK}' in brief and "then run it" in brief
