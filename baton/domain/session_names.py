"""Whether a session id given to a capture names a session Baton saw begin, and
if not, which recorded ones it may have been meant for.

A handoff captured with ``--session ID`` (MCP ``session``) is that session's: its
end hands it on. An id mistyped (``real-l`` for ``real-1``) names a session
that never begins or ends, and the handoff is never handed on — so the capture
says so, as ``session end`` does for an end without a start.
"""

from __future__ import annotations

from typing import Iterable

CLOSE_NAMED = 3
"""At most this many recorded sessions are named as what the id may have meant."""


def one_edit_apart(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with one character changed, added or taken out."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b)) == 1
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k, (x, y) in enumerate(zip(short, long)) if x != y), len(short))
    return short[i:] == long[i + 1:]


def no_start_hint(session_id: str, *, begun: bool, recorded: Iterable[str]) -> str | None:
    """The line a capture under ``session_id`` adds when no start was recorded for
    it (``begun`` false): what that means, and the recorded sessions one edit
    away, if any. None when it began."""
    if begun:
        return None
    close = sorted(other for other in set(recorded) if one_edit_apart(session_id, other))[:CLOSE_NAMED]
    said = (f"no start was recorded for session {session_id}: only that session's end hands this handoff "
            "on")
    if close:
        return said + f"; did you mean {' or '.join(close)}?"
    return said + " (check the id if you meant a session begun here)"


def ended_session_hint(session_id: str, ended_at: str | None, live: Iterable[str]) -> str:
    """The line a capture under ``session_id`` adds when that session has ended (a forked or resumed
    conversation passing the id of the one it continues, from an earlier brief in its transcript):
    its end is over, so it hands nothing on; ``live``: the sessions of its owner and branch still
    open, the one meant most likely among them."""
    when = f" (at {ended_at})" if ended_at else ""
    named = sorted(set(live))[:CLOSE_NAMED]
    also = (f"; the session{'s' if len(named) > 1 else ''} of its owner and branch still open: "
            f"{' or '.join(named)} — pass the id the newest brief line names") if named else \
        "; pass the id the newest brief line names (`This is … session …`)"
    return (f"session {session_id} already ended{when}: its end will not hand this handoff on (a forked or "
            f"resumed conversation has an id of its own; a session whose start Baton never saw, as Codex's "
            f"`exec fork`, hands it on at its own end){also}")
