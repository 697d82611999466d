"""A YAML value written below its key is redacted whole when the one-line form of
its key redacts it: after a blank line, every line of a block scalar or of a plain
scalar over several lines, each item of a sequence under a secret-named key; a
mapping below the key is no value (docs/security.md, "Line continuations").

SYNTHETIC SECRETS ONLY: every credential here is assembled at runtime from
pieces.
"""

from __future__ import annotations

import pytest

from baton.domain.redaction import redact_text
from tests.redaction_support import POLICY, kept_whole

KEY = "Zx9Qw8Er7" + "Ty6Ui5Op4As3" + "Df2Gh1Jk0Lm"
OTHER = "Qq1Ww2Ee3Rr4" + "Tt5Yy6Uu7Ii8Oo9Pp0Aa"
MARK = "[REDACTED:generic-secret-assignment]"


@pytest.mark.parametrize("text", [f"password: |\n\n  {KEY}", f"password:\n\n  {KEY}", f"password:\r\n\r\n  {KEY}"],
                         ids=["block-scalar", "plain", "crlf"])
def test_a_yaml_secret_after_a_blank_line_below_its_key_is_redacted(text):
    assert KEY not in redact_text(text, POLICY)


def test_every_line_of_a_block_scalar_under_a_secret_key_is_redacted():
    cleaned = redact_text(f"token: |\n  line1_visible_text_here\n  {KEY}\nnext: 1\n", POLICY)
    assert cleaned == f"token: |\n  {MARK}\n  {MARK}\nnext: 1\n"


@pytest.mark.parametrize("indicator", [">", "|", ">-", ""], ids=["folded", "literal", "folded-strip", "plain"])
def test_a_yaml_secret_split_over_two_lines_is_redacted_whole(indicator):
    key = f"password: {indicator}".rstrip()
    cleaned = redact_text(f"{key}\n  {KEY[:15]}\n  {KEY[15:]}", POLICY)
    assert cleaned == f"{key}\n  {MARK}\n  {MARK}"


@pytest.mark.parametrize("indent", ["  ", ""], ids=["indented", "at-the-keys-indent"])
def test_each_item_of_a_sequence_under_a_secret_named_key_is_redacted(indent):
    cleaned = redact_text(f"api_keys:\n{indent}- {KEY}\n{indent}- {OTHER}\nother: x", POLICY)
    assert cleaned == f"api_keys:\n{indent}- {MARK}\n{indent}- {MARK}\nother: x"


def test_a_sequence_item_whose_value_is_on_the_next_line_is_redacted():
    cleaned = redact_text(f"api_keys:\n  -\n    {KEY}\n", POLICY)
    assert cleaned == f"api_keys:\n  -\n    {MARK}\n"


def test_an_item_that_is_itself_a_sequence_under_a_secret_key_is_redacted():
    cleaned = redact_text(f"passwords:\n  - - {KEY}\n", POLICY)
    assert cleaned == f"passwords:\n  - - {MARK}\n"


def test_a_mapping_on_the_lines_after_a_dash_alone_is_no_value_and_kept():
    text = f"api_keys:\n  -\n    name: db\n    note: {OTHER}\n"
    assert redact_text(text, POLICY) == text


def test_a_placeholder_item_of_a_secret_sequence_is_kept():
    assert redact_text(f"tokens:\n  - ${{TOKEN}}\n  - {KEY}", POLICY) == f"tokens:\n  - ${{TOKEN}}\n  - {MARK}"


@pytest.mark.parametrize("text", [
    "Steps:\n  - run make\n  - deploy",
    "api_keys:\n  - name: primary\n    region: eu",
    "api_key:\n  description: the key\n  valueFrom:\n    secretKeyRef: x",
    "password:\n\n  description: kept",
], ids=["plain-list", "sequence-of-mappings", "mapping-below", "mapping-after-a-blank-line"])
def test_a_mapping_or_a_list_under_a_key_that_names_no_secret_is_kept(text):
    assert kept_whole(text)


def test_a_secret_in_a_mapping_item_of_a_sequence_is_redacted_and_its_keys_kept():
    cleaned = redact_text(f"passwords:\n  - name: db\n    password: {KEY}", POLICY)
    assert cleaned == f"passwords:\n  - name: db\n    password: {MARK}"


def test_a_block_scalar_under_a_key_that_names_no_secret_is_kept():
    text = "run: |\n  make build\n  make test\n"
    assert kept_whole(text)


@pytest.mark.parametrize("text", [f"password: |\n\n  {KEY}", f"api_keys:\n  - {KEY}", f"token: |\n  a\n  {KEY}"])
def test_redacting_a_yaml_value_twice_changes_nothing_more(text):
    once = redact_text(text, POLICY)
    assert redact_text(once, POLICY) == once
