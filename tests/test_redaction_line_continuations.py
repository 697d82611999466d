"""A secret's value written on the line after its name — a shell line
continuation (``export API_KEY=\\`` and the value below), PowerShell's backquote,
cmd's caret, a YAML key whose value is indented below it — is redacted as the
one-line form is (docs/security.md, "Line continuations").

SYNTHETIC SECRETS ONLY: every credential here is assembled at runtime from
pieces.
"""

from __future__ import annotations

import json
import re
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.domain.redaction import redact_payload, walk
from baton.domain.regexes import compiled
from tests.conftest import run_baton
from tests.redaction_support import POLICY, kept_whole, next_start, redacted

VALUE = "q8Zr2" + "LmX9vT4wK7pN3sJ6hB1"
HEROKU = "01234567-89ab-" + "cdef-0123-456789abcdef"


@pytest.mark.parametrize("text", [
    f"export API_KEY=\\\n{VALUE}",
    f"export API_KEY=\\\r\n{VALUE}",
    f"export API_KEY= \\\n\\\n{VALUE}",
    f'export API_KEY=\\\n"{VALUE}"',
    f'export API_KEY="\\\n{VALUE}"',
    f"password = \\\n    {VALUE}",
], ids=["lf", "crlf", "two-continuations", "quoted-below", "quote-opened-above", "env-or-ini-indented"])
def test_a_secret_assignment_continued_on_the_next_line_by_a_backslash_is_redacted(text):
    cleaned, rules = redacted(text)
    assert VALUE not in cleaned and rules == {"generic-secret-assignment"}


def test_the_continuation_and_the_line_break_are_kept_only_the_value_replaced():
    cleaned, _ = redacted(f"export API_KEY=\\\n{VALUE}\necho done")
    assert cleaned == "export API_KEY=\\\n[REDACTED:generic-secret-assignment]\necho done"


@pytest.mark.parametrize("text", [f"$env:API_KEY = `\r\n{VALUE}", f"set PASSWORD=^\r\n{VALUE}"],
                         ids=["powershell-backquote", "cmd-caret"])
def test_a_secret_assignment_continued_by_powershell_or_cmd_is_redacted(text):
    cleaned, _ = redacted(text)
    assert VALUE not in cleaned


@pytest.mark.parametrize("text", [f"password:\n  {VALUE}", f"password: |\n  {VALUE}", f"password: >-\n  {VALUE}"],
                         ids=["plain", "literal-block", "folded-block"])
def test_a_yaml_secret_whose_value_is_indented_below_its_key_is_redacted(text):
    cleaned, _ = redacted(text)
    assert VALUE not in cleaned


@pytest.mark.parametrize("text", [f"password: # prod\n  {VALUE}", f"password: !!str\n  {VALUE}",
                                  f"password: &db\n  {VALUE}", f"password: !!str &db # prod\n  {VALUE}"],
                         ids=["comment", "tag", "anchor", "tag-anchor-comment"])
def test_a_yaml_secret_below_a_key_followed_by_a_comment_tag_or_anchor_is_redacted(text):
    cleaned, _ = redacted(text)
    assert VALUE not in cleaned and cleaned.startswith(text.split("\n")[0] + "\n")


def test_a_yaml_key_with_a_mapping_below_it_is_not_taken_for_a_secret():
    text = "password:\n  file: /run/secrets/db\n  mode: 0400"
    assert kept_whole(text)


@pytest.mark.parametrize("text", [
    "inputs:\n  api_key:\n    description: 'The API key to use'\n    required: true\n",
    "password:\n  valueFrom:\n    secretKeyRef:\n      name: db\n",
    "password:\n  from_env: DATABASE_PASSWORD_VARIABLE\n",
    "password:\n  default: changeme_default_value\n",
], ids=["github-action-input", "kubernetes-value-from", "from-env", "default"])
def test_a_mapping_nested_under_a_secret_named_yaml_key_keeps_its_child_keys(text):
    assert kept_whole(text)


def test_a_markdown_line_ending_in_a_backquote_is_no_continuation():
    text = "Run `export API_KEY=`\nthen_paste_here_the_value_you_got"
    assert kept_whole(text)


def test_a_provider_key_continued_on_the_next_line_is_redacted_by_its_own_rule():
    cleaned, rules = redacted(f"HEROKU_API_KEY=\\\n{HEROKU}")
    assert HEROKU not in cleaned and rules == {"heroku-api-key"}


@pytest.mark.parametrize("text", [f"curl -u \\\n  admin:{VALUE} https://x", f"mysql -u root -p\\\n{VALUE}"],
                         ids=["curl-user", "mysql-password"])
def test_a_password_argument_continued_on_the_next_line_is_redacted(text):
    cleaned, _ = redacted(text)
    assert VALUE not in cleaned


def test_a_backslash_ending_a_line_without_a_secret_changes_nothing():
    text = "make build \\\n  CFLAGS=-O2 \\\n  TARGET=release"
    assert kept_whole(text)


@pytest.mark.parametrize("text", ["export PASSWORD=\\\\\n./deploy_production_cluster_now.sh",
                                  "PASSWORD=\\\\\\\\\n./deploy_production_cluster_now.sh"],
                         ids=["one-escaped-backslash", "two-escaped-backslashes"])
def test_an_escaped_backslash_ending_a_line_is_no_continuation_and_the_next_line_is_kept(text):
    assert kept_whole(text)


NAMES = st.sampled_from(["API_KEY", "password", "DB_PASSWORD", "secret", "auth_token", "clientSecret", "PASSWD"])
OPERATORS = st.sampled_from(["=", " = ", ": ", "=>", ":="])
VALUES = st.text(alphabet="ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789+/_", min_size=8, max_size=40)
CONTINUATIONS = st.sampled_from(["\\\n", "\\\r\n", "\\\n  ", "\\\n\t", "\\\n\\\n", "`\r\n", "^\r\n"])


@given(prefix=st.sampled_from(["", "export ", "set ", "  "]), name=NAMES, operator=OPERATORS, value=VALUES,
       continuation=CONTINUATIONS)
def test_a_line_continuation_never_exposes_a_value_the_one_line_form_redacts(prefix, name, operator, value,
                                                                             continuation):
    one_line, _ = redacted(f"{prefix}{name}{operator}{value}")
    if value in one_line:
        return  # the one-line form keeps it (a placeholder, too little entropy): nothing to hide
    continued, _ = redacted(f"{prefix}{name}{operator}{continuation}{value}")
    assert value not in continued


def test_a_continued_secret_reaches_neither_the_ledger_nor_the_next_session_starts_brief(project):
    steps = f"run the deploy with\nexport API_KEY=\\\n{VALUE}\nthen check it"
    ended = run_baton("session", "end", "s-before", "--handoff-steps", steps, "--project", str(project))
    assert ended.returncode == 0, ended.stderr
    for path in (project / ".baton").rglob("*"):
        if path.is_file():
            assert VALUE.encode() not in path.read_bytes(), path
    started = next_start(project, "s-after")
    assert started.returncode == 0, started.stderr
    brief = json.loads(started.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "then check it" in brief and "[REDACTED:generic-secret-assignment]" in brief
    assert VALUE not in started.stdout and VALUE not in started.stderr


# -- no view makes another miss what it finds (review 20, V9) --

SECRET = "Zx9Qw8Er7" + "Ty6Ui5Op4As3Df2Gh1Jk0Lm"


@pytest.mark.parametrize("text", [
    f"token:\n  MY_APP_PROD_API_KEY_2 %3D {SECRET}",
    f"export SECRET=\\\n  stripe_sk_live_key %3D {SECRET}",
    f"secret:\n  tenant_8f3c2a91d4_token %3D {SECRET}",
], ids=["yaml-key", "shell-continuation", "yaml-key-tenant-name"])
def test_a_percent_escaped_assignment_below_a_secret_name_still_has_its_value_redacted(text):
    cleaned, _ = redacted(text)
    assert SECRET not in cleaned


def test_a_secret_below_a_nested_yaml_key_is_redacted_and_the_nested_key_kept():
    cleaned, _ = redacted(f"password:\n  client_3f9a7c2e_secret:\n    {SECRET}")
    assert cleaned == "password:\n  client_3f9a7c2e_secret:\n    [REDACTED:generic-secret-assignment]"


def _without_the_joined_view(text: str) -> str:
    """The redaction as it was before the joined view (25b919ba): the fixed point, then the percent view."""
    walk._SCRUBBED.clear()
    try:
        with mock.patch.object(walk, "joined", lambda text: None):
            cleaned: str = redact_payload(text, POLICY).payload
            return cleaned
    finally:
        walk._SCRUBBED.clear()


SHAPE_NAMES = st.sampled_from(["token", "API_KEY", "password", "secret", "MY_APP_PROD_API_KEY_2",
                               "client_3f9a7c2e_secret", "stripe_sk_live_key", "auth_token", "note"])
SHAPE_BREAKS = st.sampled_from([":\n  ", ": |\n  ", "=\\\n", "=\\\n  ", " \\\n  ", "\\\r\n", "`\r\n",
                                "^\r\n", "\n  ", "\n", " "])
SHAPE_JOINS = st.sampled_from(["=", " = ", ": ", "%3D", " %3D ", "%253D", "%3A", "%22", "&", " "])
SHAPE_VALUES = st.text(alphabet="ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789", min_size=16,
                       max_size=32)


@settings(max_examples=300)
@given(lines=st.lists(st.tuples(SHAPE_NAMES, SHAPE_BREAKS, st.one_of(SHAPE_NAMES, SHAPE_VALUES), SHAPE_JOINS,
                                SHAPE_VALUES), min_size=1, max_size=3))
def test_the_joined_view_never_exposes_a_value_the_redaction_without_it_redacted(lines):
    # A name, a line break the joined view reads through (or none), a name or a value, a
    # separator of the one-line or percent rules, a value: the shapes each view knows.
    text = "\n".join("".join(line) for line in lines)
    before = _without_the_joined_view(text)
    cleaned, _ = redacted(text)
    for _name, _break, word, _join, value in lines:
        for secret in (word, value):
            if len(secret) >= 16 and secret not in before:
                assert secret not in cleaned, (text, before, cleaned)


# -- a line without a colon reads no YAML decoration (hook21: a brief's "## " headings) --

LINE_PIECES = st.sampled_from(["password", "key", ":", " ", "\t", "#", "##", "!", "!!str", "&", "&db", "|", ">-",
                               "+", "2", "x", "Recent decisions", "\\", "`", "^"])


@settings(max_examples=500)
@given(st.lists(LINE_PIECES, max_size=10).map("".join))
def test_a_line_continues_as_it_did_before_the_colon_check(line):
    # The decoration pattern opens with a colon: searching it on every line with "#", "!"
    # or "&" (the check before) answers as searching it only when the line holds a colon.
    def before(line):
        if line.endswith(walk._SHELLS) and not walk._escaped(line) and not walk._quoting(line):
            return len(line) - 1, False
        blank = line.rstrip(" \t")
        indicator = blank.rstrip("+-123456789")
        if indicator.endswith(("|", ">")) and len(blank) - len(indicator) <= 2:
            blank = indicator[:-1].rstrip(" \t")
        if blank.endswith(":"):
            return len(blank), True
        if "#" in blank or "!" in blank or "&" in blank:
            decorated = re.search(walk._DECORATED, blank)
            if decorated is not None:
                return decorated.start() + 1, True
        return None

    assert walk._continued(line) == before(line)


def test_a_markdown_heading_compiles_no_decoration_pattern():
    compiled.cache_clear()
    for line in ("## Recent decisions", "# Baton brief", "- keep #42 & #43 open!"):
        assert walk._continued(line) is None
    assert compiled.cache_info().currsize == 0
