"""How many sessions began, ended and are open, counted from their documents (``baton metrics``).

A session is one document of the sessions index (its writer and id), open or
ended, whatever events it took: a session resumed (begun again) is one session,
and a ledger written before an end was recorded once (``decide_session``) holds
a ``session.ended`` for each later end of a session (Codex's every ``Stop``
that handed something on, each ``session end ID``) — one session, ended.
So the counts agree for any sequence of events:
``sessions_begun + sessions_start_missed == sessions_ended + sessions_open``.
"""

from __future__ import annotations

from typing import Any, Iterable


def session_counts(sessions: Iterable[dict[str, Any]]) -> dict[str, int]:
    """``sessions_begun`` (a start recorded), ``sessions_ended`` (ended now, not begun again
    since), ``sessions_open`` and ``sessions_start_missed`` (ended with no start recorded:
    a harness's end hook ends a session whose start Baton missed) of the session documents
    ``sessions``."""
    begun = ended = opened = missed = 0
    for doc in sessions:
        started = bool(doc.get("beganAt"))
        begun += started
        if doc.get("status") == "ended":
            ended += 1
            missed += not started
        else:
            opened += 1
    return {"sessions_begun": begun, "sessions_ended": ended, "sessions_open": opened,
            "sessions_start_missed": missed}
