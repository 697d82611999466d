"""The short form of a handoff id, in a module light enough for the hook path.

``baton.domain.handoff`` (the record model and its converter) re-exports it;
a session-start brief that only names a handoff need not import the model.
"""

from __future__ import annotations


def short_id(handoff_id: str) -> str:
    """The 8-hex-digit short form of an id, used in file names and listings.

    A UUIDv7 starts with its timestamp, so two handoffs minted in the same
    minute share a prefix; the short id is taken from the random tail instead.
    """
    return handoff_id.replace("-", "")[-8:].lower()
