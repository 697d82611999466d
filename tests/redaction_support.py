"""What the redaction tests share: the default policy, and what redacting a text under it
did (the cleaned text and the rules that fired).

SYNTHETIC SECRETS ONLY: nothing here holds a credential.
"""

from __future__ import annotations

from baton.domain.redaction import RedactionPolicy, redact_payload

POLICY = RedactionPolicy()


def redacted(text: str) -> tuple[str, set[str]]:
    """``text`` redacted under ``POLICY``, and the names of the rules that fired."""
    outcome = redact_payload(text, POLICY)
    return outcome.payload, {r.rule for r in outcome.redactions}


def kept_whole(text: str) -> bool:
    """Whether redaction leaves ``text`` as it is: no rule fired, not a character changed."""
    return redacted(text) == (text, set())
