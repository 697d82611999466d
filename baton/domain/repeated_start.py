"""A session started again: what its repeated start is told.

A session's start is recorded once (``session.begun``, with the baton it
received). A later start of the same session id — ``baton bootstrap
--session-id`` or ``baton session begin`` run again, the MCP ``bootstrap``
tool called again (the ``pickup`` prompt asks for it), a second hook —
claims nothing once the session received a baton: a session receives one,
and the next one waiting is for the next session
(``commands.session_records`` decides it, for every entry point; a
harness's hook, which delivers the brief itself, delivers nothing at all
on a repeated start). ``bootstrap`` answers it with the brief and the
baton the session received, as the index still shows it; this is the line
that says so, and how to read that baton whatever the brief shows.
"""

from __future__ import annotations

from typing import Any


def received_baton(session: dict[str, Any] | None) -> str | None:
    """The baton a started session received with its start (``receivedBaton``), or None."""
    received = session.get("receivedBaton") if isinstance(session, dict) else None
    return received if isinstance(received, str) and received else None


def repeated_start_notice(session_id: str, session: dict[str, Any]) -> str:
    """One line for a repeated start of ``session_id`` (``session``: its
    document, whose start is recorded with the baton it received): when it
    started, and that baton, with the command that reads it."""
    began = session.get("beganAt") or "an earlier start"
    received = received_baton(session) or "?"
    head = (f"Session {session_id} already started (at {began}), so nothing new was claimed: a session "
            "receives one baton, and one still waiting is for the next session.")
    return head + (f" It received baton {received} then: `baton handoff show {received}` reads it (or "
                   "Baton's `bootstrap` tool, given this session's id, shows it again).")
