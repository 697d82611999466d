"""A baton's claim as its handoff's resume, decided from the record the index stores.

A claim is its handoff's resume when the lifecycle allows one (a ready or
resumed record; never a session baton's draft). The claim reads the stored
record's status and flags and asks the lifecycle's table
(``baton.domain.lifecycle_table``), the one the handoff aggregate asks through
``lifecycle.allowed_actions``, so it loads neither the record model nor the
aggregate; the event it builds is the aggregate's for a ``Resume``. The handoff
events' family (``baton.events.handoff``) is loaded only when it builds one: a claim
of a session's draft (the baton a session's end leaves) records no resume.
"""

from __future__ import annotations

from baton.domain.lifecycle_table import RESUME, allowed_for

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from baton.events.handoff import HandoffResumed


def resume_of_stored(doc: Mapping[str, Any], *, session: str | None,
                     harness: str | None) -> list[HandoffResumed]:
    """The events that record a resume of the record the index stores as ``doc``
    (``handoff_to_json``'s shape): ``handoff.resumed``, as the handoff aggregate
    decides it for a ``Resume`` naming no freshness state, when the table allows
    a resume from its status; none otherwise (a draft, a superseded or archived record)."""
    if RESUME not in allowed_for(doc["status"], doc.get("flags") or ()):
        return []
    resumed = __import__("baton.events.handoff", fromlist=["HandoffResumed"]).HandoffResumed  # a resume's only
    return [resumed(key=doc["id"], session=session, harness=harness, freshness_state=None)]
