"""A baton another session already claimed: what a session start that receives none is told.

Claiming is single-use: a second session on the same owner and branch — a
second ``--fork-session`` of one conversation, a second terminal — finds the
baton claimed and receives nothing. Without a word it would read "no active
session handoff yet", as if nothing had been handed on, and lose the context
its sibling received. The rule (``claimed_elsewhere``), pure — the key's
document and the times are parameters:

- only when no baton is delivered to this session (none pending for this
  owner and branch, nor a shared one);
- the newest baton of exactly this owner and branch — the current baton of
  their key, never one of a name that merely shares the key, never a shared
  baton (anyone's to take) — is claimed;
- by another session than this one (a session's own claim is its own brief);
- that has not ended (no ``session.ended`` recorded for it: a sibling works
  beside it), unless this start continues an earlier conversation (a
  harness's ``fork`` or ``resume``, ``CONTINUING_SOURCES``: a second fork of
  one conversation, run headless after the first one ended). An ordinary
  relay — A leaves a baton, B claims it and ends, C starts fresh — is quiet:
  C gets the "Latest ready handoff" pointer, as any later session does;
- at most ``WINDOW_HOURS`` before this start (or at a time that cannot be
  read as older: a clock behind the claimer's): the pointer is for the
  sessions around the claim, not for every start on the branch from then on.
  A newer baton for this owner and branch ends it at once (it is then the
  key's current baton, delivered or told of in its own right).

Told to a session leaving a baton (``session end``, ``session handoff --from``), it is left out when
the baton left is the very one claimed, handed on again (``beside_left``).

The notice names who claimed it, when, and the command that reads it
(``baton resume ID``: a baton is a handoff record, and a plain resume writes nothing). A start that peeked
the baton pending and lost the claim to another session at the same instant
is told by this same rule, of the baton as that claim left it (``bootstrap``).
"""

from __future__ import annotations

from datetime import timedelta

from baton.domain.batons import CLAIMED, BatonRecord, record_only, shown_name
from baton.domain.short_ids import parse_timestamp
from baton.values import Value, replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (baton/values.py)
if TYPE_CHECKING:
    from typing import Any

WINDOW_HOURS = 24
"""How long after a claim other session starts on the same owner and branch are told of it."""

CONTINUING_SOURCES = frozenset({"fork", "resume"})
"""The start sources (a harness's SessionStart ``source``) of a session that goes on
from an earlier conversation: told of a claim even by a session that has ended."""


class ClaimedElsewhere(Value):
    """The newest baton of this owner and branch, claimed by another session."""

    handoff_id: str
    owner: str
    branch: str
    claimed_by_session: str | None
    claimed_at: str | None
    left_by_session: str | None
    created_at: str
    record_only: bool = False
    """The handoff was archived or superseded since (``as_recorded``): ``baton resume`` refuses it,
    so the notice names the full record (``baton handoff show``) instead (tester-use23 T2, T4)."""
    newer_baton: str | None = None
    """The baton the command that tells it just left (``beside_left``): the claimed one is then the
    previous, no longer the newest (tester-team24 T4)."""

    @property
    def read_command(self) -> str:
        return f"baton {'handoff show' if self.record_only else 'resume'} {self.handoff_id}"

    def to_json(self) -> dict[str, Any]:
        return {"handoffId": self.handoff_id, "owner": self.owner, "branch": self.branch,
                "claimedBySession": self.claimed_by_session, "claimedAt": self.claimed_at,
                "leftBySession": self.left_by_session, "createdAt": self.created_at,
                "readCommand": self.read_command, "newerBaton": self.newer_baton}


def claimed_elsewhere(current: BatonRecord | None, *, owner: str, branch: str, session_id: str | None,
                      now: str, claimer_ended: bool = False, continues: bool = False) -> ClaimedElsewhere | None:
    """The fact a session start receiving no baton is told (see the module), or None.

    ``current``: the current baton of this owner and branch's key (any status);
    ``session_id``: this session (None: a start that names none, a peek);
    ``now``: this start's time, RFC 3339; ``claimer_ended``: the claiming
    session's end is recorded; ``continues``: this start goes on from an
    earlier conversation (``CONTINUING_SOURCES``)."""
    if current is None or current.status != CLAIMED or current.shared:
        return None
    if current.owner != owner or current.branch != branch:
        return None
    if session_id is not None and current.claimed_by_session == session_id:
        return None
    if claimer_ended and not continues:
        return None  # an ordinary relay: the claimer worked and ended before this start
    if not _within_window(current.claimed_at, now):
        return None
    return ClaimedElsewhere(current.id, current.owner, current.branch, current.claimed_by_session,
                            current.claimed_at, current.session_id, current.created_at)


def beside_left(fact: ClaimedElsewhere | None, left_id: str | None) -> ClaimedElsewhere | None:
    """``fact``, told beside a baton just left whose handoff id is ``left_id`` — unless that is the very
    baton ``fact`` names: a claimed handoff handed on again (``session handoff --from``, an end handing
    on the session's ready handoff) leaves a new, pending baton of the same id, and its earlier claim is
    what the new one replaces, not a sibling's context (tester-use22b T5). Beside another baton just
    left, the claimed one is the previous: ``newer_baton`` names the one left."""
    if fact is None or (left_id is not None and fact.handoff_id == left_id):
        return None
    return fact if left_id is None else replace(fact, newer_baton=left_id)


def _within_window(claimed_at: str | None, now: str) -> bool:
    try:
        age = parse_timestamp(now) - parse_timestamp(claimed_at or "")
    except ValueError:
        return False  # a claim time that cannot be read says nothing about how recent it is
    return age <= timedelta(hours=WINDOW_HOURS)


def claimed_elsewhere_notice(fact: ClaimedElsewhere) -> str:
    """One line for the brief: which session claimed the baton, when, and how to read it."""
    by = f"session {fact.claimed_by_session}" if fact.claimed_by_session else "another session"
    when = f" at {fact.claimed_at}" if fact.claimed_at else ""
    which = (f"The previous session handoff for {shown_name(fact.owner)} on {shown_name(fact.branch)} "
             f"(baton {fact.handoff_id}), before baton {fact.newer_baton} left now,"
             if fact.newer_baton else
             f"The newest session handoff for {shown_name(fact.owner)} on {shown_name(fact.branch)} "
             f"(baton {fact.handoff_id})")
    return f"{which} was already claimed by {by}{when}; read it with `{fact.read_command}`."


def as_recorded(fact: ClaimedElsewhere, status: Any) -> ClaimedElsewhere:
    """``fact``, naming the command that reads its handoff as it now is: ``status`` is the handoff's
    status in the index (None when it is not there)."""
    if not record_only(status):
        return fact
    return replace(fact, record_only=True)
