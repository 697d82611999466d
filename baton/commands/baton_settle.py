"""Settling the pending batons that carry a handoff just resumed (``baton.domain.taken_up``).

A resume (``resume --mark-resumed``, the MCP ``handoff_resume`` tool with
``mark_resumed``, a session start's claim of one of its batons) dismisses every
other pending baton carrying the same handoff, ``via: "resumed"``, naming the
resuming session, in the resume's own batch. The keys to look at come from the
``baton_scopes`` projection (every scope the handoff was given as a baton): a
lookup per scope, nothing that grows with the project.

A session start that meets a pending baton whose handoff was resumed after it
was left (another clone resumed it apart, and ``baton sync`` brought the resume
here: ``taken_up_before``) dismisses it the same way instead of claiming it
(``settle_taken_up``).
"""

from __future__ import annotations

from baton.commands.batons import as_taken_up, taken_up_in, version_expected
from baton.commands.record import record as record_events
from baton.domain.aggregates import baton as baton_aggregate
from baton.domain.aggregates.baton import BatonKey
from baton.domain.batons import RESUMED_VIA, BatonRecord, baton_key
from baton.domain.taken_up import left_to_their_owner, settled_by_resume

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a session start claims through here)
if TYPE_CHECKING:
    from baton.commands.context import WriteScope


def keys_carrying(runner, handoff_id: str) -> list[str]:
    """The baton keys ``handoff_id`` was ever given to as a baton (``baton_scopes``), sorted."""
    if "baton_scopes" not in runner.by_name or "batons" not in runner.by_name:
        return []
    doc = runner.get("baton_scopes", handoff_id)
    scopes = doc.get("scopes") if isinstance(doc, dict) else None
    keys = set()
    for s in scopes if isinstance(scopes, list) else ():
        if isinstance(s, dict) and isinstance(s.get("owner"), str) and isinstance(s.get("branch"), str):
            keys.add(baton_key(s["owner"], s["branch"], s.get("shared") is True))
    return sorted(keys)


def settle_carrying(scope: "WriteScope", handoff_id: str, *, session: str | None, actor: str | None,
                    skip_key: str | None = None, resumer: str | None = None,
                    left: list[BatonRecord] | None = None) -> list[BatonRecord]:
    """Dismiss (``via: "resumed"``) each pending baton carrying ``handoff_id``, but the one on
    ``skip_key`` (the baton a claim takes), and, for a resume by hand (``resumer``: who resumes),
    but a teammate's (``taken_up.settled_by_resume``), which go to ``left``; returns those dismissed
    as they were. Call inside the resume's batch."""
    settled = []
    for key in keys_carrying(scope.runner, handoff_id):
        if key == skip_key:
            continue
        state = BatonKey.from_doc(key, scope.runner.get("batons", key))
        if not settled_by_resume(state.current, handoff_id, resumer):
            if resumer is not None and left is not None and left_to_their_owner(state.current, handoff_id, resumer):
                assert state.current is not None  # left_to_their_owner: it is pending
                left.append(state.current)
            continue
        decided = baton_aggregate.decide(state, baton_aggregate.DismissBaton(handoff_id, session=session,
                                                                             via=RESUMED_VIA, with_resume=True))
        record_events(scope, decided, version=version_expected(scope, decided, key, state.version), actor=actor,
                      session=session)
        assert state.current is not None  # settled_by_resume: it is pending
        settled.append(state.current)
    return settled


def taken_up_here(scope: "WriteScope", state: BatonKey) -> bool:
    """Whether the key's current baton, pending, carries a handoff resumed after it was left
    (``batons.taken_up_in``, on the index as it stands under the lock)."""
    return taken_up_in(scope.runner, state.current)


def settle_taken_up(scope: "WriteScope", state: BatonKey, *, session: str | None) -> BatonRecord:
    """Dismiss the key's current baton (``via: "resumed"``) instead of claiming it: its handoff was
    resumed elsewhere after it was left; returns it as dismissed. ``session``: the start that met it
    (the envelope's; the event names no resuming session: the resume did not see this baton)."""
    current = state.current
    assert current is not None  # taken_up_here: it is pending
    decided = baton_aggregate.decide(state, baton_aggregate.DismissBaton(current.id, via=RESUMED_VIA))
    record_events(scope, decided, version=version_expected(scope, decided, state.key, state.version), session=session)
    return as_taken_up(scope.project, current)

