"""The secret corpus (tests/secret_corpus.py): every synthetic secret is
redacted by the rule named for it, and no look-alike is touched — the figure
docs/security.md prints (100% recall, 0 false positives)."""

from __future__ import annotations

import pytest

from baton.domain.redaction import DEFAULT_RULES, PathRule, RedactionPolicy, redact_payload
from tests.secret_corpus import _PARITY_SECRETS, LOOK_ALIKES, PARITY_NEAR_MISSES, secrets

POLICY = RedactionPolicy()
SECRETS = secrets()


def test_the_corpus_holds_150_secrets_of_60_providers_and_40_look_alikes():
    assert len(SECRETS) >= 150
    assert len({s.provider for s in SECRETS}) >= 60
    assert len(LOOK_ALIKES) >= 40


def test_every_default_text_rule_has_a_secret_in_the_corpus():
    text_rules = {r.name for r in DEFAULT_RULES if not isinstance(r, PathRule)}
    assert text_rules - {s.rule for s in SECRETS} == set()


@pytest.mark.parametrize("secret", SECRETS, ids=lambda s: s.rule)
def test_a_corpus_secret_is_redacted_by_its_rule(secret):
    outcome = redact_payload(secret.line, POLICY)
    assert secret.value not in outcome.payload
    assert secret.rule in {r.rule for r in outcome.redactions}


@pytest.mark.parametrize("look_alike", LOOK_ALIKES, ids=lambda a: a.kind)
def test_a_look_alike_survives_redaction(look_alike):
    outcome = redact_payload(look_alike.line, POLICY)
    assert outcome.payload == look_alike.line, outcome.redactions


# -- parity with gitleaks and trufflehog (issue 25) ---------------------------------------

PARITY_RULES = sorted({rule for _, rule, _ in _PARITY_SECRETS})


def test_every_parity_rule_has_a_near_miss():
    assert set(PARITY_RULES) - set(PARITY_NEAR_MISSES) == set()


def test_every_near_miss_names_a_default_rule():
    assert set(PARITY_NEAR_MISSES) <= {r.name for r in DEFAULT_RULES}


@pytest.mark.parametrize("rule,line", [(r, line) for r, lines in sorted(PARITY_NEAR_MISSES.items()) for line in lines])
def test_a_parity_rule_keeps_its_near_miss(rule, line):
    outcome = redact_payload(line, POLICY)
    assert outcome.payload == line, outcome.redactions
