"""The codes of a record's readiness problems (``baton.domain.readiness``), apart
from the rules, which load the handoff record's model: a command that only names
a problem (``baton.cli_handlers.record_fields``: which flag fixes it) loads these."""

from __future__ import annotations

MISSING = "missing"
"""A problem's code: a required field is blank or empty (``work.title``, ``open_items``)."""
NOT_VALIDATED = "not_validated"
VALIDATION_FAILED = "validation_failed"
WARNINGS_NOT_ACCEPTED = "warnings_not_accepted"
"""Validation warned and no reason acknowledges it (``accept_warnings``)."""
POLICY_FAILED = "policy_failed"
RAW_TRANSCRIPT = "raw_transcript"
FLAGGED = "flagged"
VALIDATION_STALE = "validation_stale"
"""The repository moved since the validation report was made (``moved_since_validation``)."""
NOT_HASHED_YET = "not_hashed_yet"
"""An artifact a budgeted capture recorded not hashed yet, its hash never computed (validation computes it)."""
MALFORMED = "malformed"
"""Any other draft requirement (an unsupported version, a bad id or timestamp)."""
