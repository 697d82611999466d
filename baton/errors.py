"""Every error Baton reports, as one small hierarchy that maps onto exit codes.

Exit codes follow the specification (§11): 2 input error, 3 validation
failure, 4 not found or conflict, 5 policy block. Storage failures that are not
the user's doing exit 1. Nothing above the ledger ever sees an ``OSError`` or a
``sqlite3`` error: they are translated here, at the boundary.
"""

from __future__ import annotations

from typing import Any


class BatonError(Exception):
    """Base of every error Baton raises on purpose."""

    exit_code = 1
    code = "error"

    def __init__(self, message: str, *, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message, "exit_code": self.exit_code}
        if self.details:
            out["details"] = self.details
        return out


class InputError(BatonError):
    """The user's input is malformed or incomplete; nothing was written."""

    exit_code = 2
    code = "input_error"


class ValidationFailed(BatonError):
    """A handoff or the ledger failed a check."""

    exit_code = 3
    code = "validation_failed"


class LedgerCorrupt(ValidationFailed):
    """A feed is damaged somewhere other than its tail: reported, never skipped."""

    code = "ledger_corrupt"


class NotFound(BatonError):
    exit_code = 4
    code = "not_found"


class NotInitialized(NotFound):
    code = "not_initialized"


class Conflict(BatonError):
    """The state changed under the caller (optimistic concurrency), or the
    requested transition is not allowed from the current state."""

    exit_code = 4
    code = "conflict"


class StreamVersionConflict(Conflict):
    code = "stream_version_conflict"

    def __init__(self, stream: str, expected: int, actual: int) -> None:
        super().__init__(
            f"stream {stream!r} is at version {actual}, but version {expected} was expected",
            details={"stream": stream, "expected": expected, "actual": actual},
        )
        self.stream = stream
        self.expected = expected
        self.actual = actual


class PolicyBlock(BatonError):
    """A security or privacy policy refused the operation."""

    exit_code = 5
    code = "policy_block"


class StorageError(BatonError):
    """The disk or the index failed; the operation did not complete."""

    exit_code = 1
    code = "storage_error"
