"""A handoff resumed while a pending baton carries it: the baton is settled, and its owner told once.

A baton is claimed exactly once (session-handoff-baton.txt). A handoff handed on
as a baton (``session handoff --from``, a session's end) can also be resumed
another way while the baton waits: ``baton resume --mark-resumed`` in another
terminal, the MCP ``handoff_resume`` tool with ``mark_resumed``, or the claim of
*another* baton carrying the same handoff (a private and a shared one). Left
pending, the baton would hand the same work to a second session as fresh
work. The rule, pure (the baton and the handoff's record are parameters):

- **at the resume** (``settled_by_resume``): every pending baton carrying the
  resumed handoff is dismissed in the same batch as ``handoff.resumed``, with
  ``via: "resumed"`` and the resuming session; a claim settles the other batons
  carrying its handoff the same way. These are events, so ``baton rebuild``
  replays the same outcome, and ``baton sync`` carries it to every clone that
  has the baton;
- **at a session start** (``taken_up_before``, in ``baton.domain.batons`` with the
  notices, so a start that meets no resumed handoff loads no module for it): a baton left on one clone while
  another clone, apart, resumed its handoff (``baton sync`` brought the two
  together, and the resume there never saw the baton) is met pending with its
  handoff resumed *after* it was left: it is dismissed the same way instead of
  claimed. A handoff resumed *before* the baton was left was handed on again on
  purpose (``--from`` of a resumed handoff) and is delivered. Times compare at
  the events' own precision, microseconds: the newest ``handoff.resumed``
  event's ``at`` (the handoff index's ``resumed``) against the baton's
  ``createdAt`` (its ``baton.created`` event's ``at``), so a resume in the same
  second as the baton, after it, still settles it; only without the precise
  time (an index written before it was kept) do the record's whole seconds
  decide, a resume in the baton's second counting as before it;
- **told once** (``baton.domain.batons.taken_up_notices``, beside the other
  notices a session start reads, so a start loads no module for it): the
  next session start of the baton's owner (or of whoever left it; every
  owner's, for a shared baton) reads one line saying the handoff was taken
  up elsewhere, by which session and who, instead of receiving it.
"""

from __future__ import annotations

from baton.domain.batons import BatonRecord, taken_up_before, yours_to_end

__all__ = ["left_to_their_owner", "settled_by_resume", "taken_up_before"]


def settled_by_resume(current: BatonRecord | None, handoff_id: str, resumer: str | None = None) -> bool:
    """Whether resuming ``handoff_id`` settles ``current`` (a key's current baton): it is
    pending and carries that handoff, and it is the resumer's (``resumer``: who resumes it by
    hand, ``resume --mark-resumed``) to end — left for them, or left by them (``yours_to_end``).
    A teammate's pending baton stays pending: batons are owner-scoped, so another owner's resume
    never takes its context from them (tester26 T9); its owner receives it at their next start.
    ``resumer`` None (a claim settling the other batons of the handoff it received): any."""
    if current is None or not current.pending or current.id != handoff_id:
        return False
    return resumer is None or yours_to_end(current.owner, current.left_by, resumer)


def left_to_their_owner(current: BatonRecord | None, handoff_id: str, resumer: str) -> bool:
    """Whether ``current``, pending with ``handoff_id``, is left pending by ``resumer``'s resume: a
    teammate's baton (``settled_by_resume``), which the resume's output names."""
    return current is not None and current.pending and current.id == handoff_id \
        and not settled_by_resume(current, handoff_id, resumer)
