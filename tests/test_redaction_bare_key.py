"""A bare ``key`` names a database's or an index's field as often as a secret (tester T9): under it,
a value is redacted only when it does not read as a name made of words (``names_something``) —
``key: primary``, ``sort key: created_at``, ``{"key": "customer_email"}`` stay as written, while a
random token under it stays redacted, and every secret-like name (``api_key``, ``secret_key``)
keeps the rule as it was. Secrets are redacted before anything is persisted."""

from __future__ import annotations

import pytest

from baton.domain.redaction.policy import RedactionPolicy
from baton.domain.redaction.rules import names_something
from baton.domain.redaction.walk import redact_payload, redact_text
from tests.cli_support import run_json

POLICY = RedactionPolicy()
MARK = "[REDACTED:generic-secret-assignment]"

NAMES = ["customer_email", "order_number_v2", "shipping-address-line", "composite_index_name", "createdAtTimestamp",
         "sha256_of_payload", "tenant_id, created_at", "utf8_text"]
SECRETS = ["Xk9pQ2mZ7wL4vB8nR3tY", "kqwhdnvbsmalrutpzxcv", "3f9a2c7e1b8d4f60a9c3e7b2d1f8a4c6",
           "dGhpc2lzYXNlY3JldHZhbHVl", "Abc9Xy7Qwe2Rt5Lp", "hunter2hunter2xx", "a1b2c3d4e5f6g7h8"]


@pytest.mark.parametrize("text", ["key: primary", *(f"key: {n}" for n in NAMES), "sort key: customer_email",
                                  "primary key: customerId", 'key = "composite_index_name"'])
def test_a_name_under_a_bare_key_is_not_redacted(text):
    assert redact_text(text, POLICY) == text


@pytest.mark.parametrize("value", NAMES)
def test_a_name_under_a_bare_key_field_is_not_redacted(value):
    assert redact_payload({"key": value}, POLICY).payload == {"key": value}


@pytest.mark.parametrize("value", SECRETS)
def test_a_random_token_under_a_bare_key_is_still_redacted(value):
    assert redact_text(f"key: {value}", POLICY) == f"key: {MARK}"
    assert redact_payload({"key": value}, POLICY).payload == {"key": MARK}


@pytest.mark.parametrize("key", ["api_key", "secret_key", "API_KEY", "signing_key", "encryption_key_v2"])
def test_a_secret_like_name_redacts_a_high_entropy_value_whatever_it_reads_as(key):
    assert redact_text(f"{key}: customer_email_address", POLICY) == f"{key}: {MARK}"


@pytest.mark.parametrize("value", ["ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5",
                                   "AKIAQ7XJ3KZP5HWN4TLA", "sk-ant-api03-" + "Xk9pQ2mZ7wL4vB8nR3tY" * 4])
def test_a_known_token_shape_under_a_bare_key_is_redacted(value):
    assert value not in redact_text(f"key: {value}", POLICY)


def test_a_name_is_words_and_a_random_token_is_not():
    assert all(names_something(n) for n in NAMES)
    assert not any(names_something(s) for s in SECRETS)


def test_a_captured_note_keeps_a_bare_key_name_and_never_persists_a_bare_key_secret(capsys, repo):
    secret = "Xk9pQ2mZ7wL4vB8nR3tY"
    handoff_id = run_json(capsys, repo, "checkpoint", "create", "--no-input", "--title", "Orders table",
                          "--objective", "Index the orders table",
                          "--current-state", f"key: customer_email on orders; cache key: {secret}")["id"]
    state = run_json(capsys, repo, "handoff", "show", handoff_id)["handoff"]["summary"]["current_state"]
    assert state == f"key: customer_email on orders; cache key: {MARK}"
    for path in (repo / ".baton").rglob("*"):  # the ledger, the index, the handoff files
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
