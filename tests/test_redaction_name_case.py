"""The generic assignment rule matches a secret-like name in any case; a
low-randomness value is kept by the entropy threshold, whatever the name's
case (docs/security.md, "The generic rule and the entropy threshold")."""

from __future__ import annotations

import pytest

from baton.domain.redaction import RedactionPolicy, redact_strings

POLICY = RedactionPolicy()


@pytest.mark.parametrize("name", ["password", "PASSWORD", "Password", "DB_PASSWORD", "dbPassword"])
def test_a_random_value_after_a_secret_name_is_redacted_in_any_case(name):
    outcome = redact_strings(f"{name}=Xy7kQ9pLm2vRt8Zw", POLICY)
    assert outcome.payload == f"{name}=[REDACTED:generic-secret-assignment]"


@pytest.mark.parametrize("name", ["password", "PASSWORD"])
def test_a_low_entropy_value_is_kept_by_the_threshold_not_by_the_name_case(name):
    assert redact_strings(f"{name}=hunter2hunter2", POLICY).redactions == ()
    lowered = RedactionPolicy(entropy_threshold=2.5)
    assert redact_strings(f"{name}=hunter2hunter2", lowered).payload == f"{name}=[REDACTED:generic-secret-assignment]"
