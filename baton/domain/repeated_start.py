"""A session started again: what its repeated start is told.

A session's start is recorded once (``session.begun``, with the baton it
received). A later start of the same session id — ``baton bootstrap
--session-id`` or ``baton session begin`` run again, the MCP ``bootstrap``
tool called again (the ``pickup`` prompt asks for it), a second hook —
claims nothing once the session received a baton: a session receives one,
and the next one waiting is for the next session
(``commands.session_records`` decides it, for every entry point; a
harness's hook, which delivers the brief itself, delivers no brief on a
repeated start: after a compaction, a resume or a fork it is told read-only
of the baton received and of a newer one waiting, ``continued_notice``). ``bootstrap`` answers it with the brief and the
baton the session received, as the index still shows it; this is the line
that says so, and how to read that baton whatever the brief shows.
"""

from __future__ import annotations

from baton.domain.batons import clipped_text, shown_name

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any

    from baton.domain.batons import BatonRecord

ESSENTIALS_KEPT = 10
"""Next steps (and failed approaches) a continued start shows of the baton the session received."""


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
    return head + (f" It received baton {received} then: `baton resume {received}` reads it (or "
                   "Baton's `bootstrap` tool, given this session's id, shows it again).")


def continued_notice(session: dict[str, Any], received: "BatonRecord | None",
                     newer: "BatonRecord | None", *, session_id: str | None = None,
                     unverified: str = "", withheld: str = "") -> str | None:
    """What a repeated start that continues the conversation (after a compaction, a resumed or forked
    conversation: its context may have lost the brief) is told, read-only, claiming nothing again:
    the baton the session received (``received``, when the index still holds it: its next steps
    and failed approaches; else its id and the command that reads it), and a baton waiting for its
    owner and branch left *after* the session started (``newer``: pending, newer than its
    ``beganAt``) — it is the next session's, and this session's own baton would replace it; when
    this very session (``session_id``) left it (a conversation resumed after it handed off), it
    is told as its own, waiting for the next session. ``unverified``: the line saying the received
    baton's feed is not vouched for (``FeedVouch.line``), shown above what it asked; the caller
    gives no ``received`` (nor ``newer``) that is withheld. ``withheld``: the received baton is
    withheld since (``FeedVouch.withheld_notice``): said in those words instead of a command that would
    refuse to read it. None when there is nothing to say."""
    lines: list[str] = []
    ident = received_baton(session)
    if ident is not None:
        if received is not None and received.id == ident:
            by = f" (left by session `{received.session_id}`)" if received.session_id else ""
            lines += [f"This session received baton `{ident}`{by} at its start; it is still this session's, and "
                      "nothing was claimed again. What it asked, read-only:", ""]
            lines += [unverified, ""] if unverified else []
            lines += ["### Next steps"]
            lines += [f"{i}. {clipped_text(step)}" for i, step in enumerate(received.next_steps[:ESSENTIALS_KEPT], 1)]
            if received.failed_approaches:
                lines += ["", "### Failed approaches — do not retry"]
                lines += [f"- {clipped_text(item)}" for item in received.failed_approaches[:ESSENTIALS_KEPT]]
            lines += ["", f"`baton resume {ident}` reads the rest of it (`baton handoff show {ident}`: the full record)."]
        elif withheld:
            lines.append(f"This session received baton `{ident}` at its start (nothing was claimed again); "
                         f"its steps are not shown again: {withheld}")
        else:
            lines.append(f"This session received baton `{ident}` at its start (nothing was claimed again): "
                         f"`baton resume {ident}` reads it.")
    began = session.get("beganAt")
    if (newer is not None and newer.pending and newer.id != ident and isinstance(began, str)
            and newer.created_at > began):
        if session_id is not None and newer.session_id == session_id:
            step = f" ({clipped_text(newer.next_steps[0])})" if newer.next_steps else ""
            lines += [""] if lines else []
            lines += [f"This conversation left baton `{newer.id}`{step} when it ended before; it is waiting for "
                      f"the next session (nothing was claimed): `baton resume {newer.id}` reads it. Make "
                      "another handoff ready only if the plan changed: the baton this session leaves then "
                      "replaces it."]
            return "\n".join(["## Baton", "", *lines]) + "\n"
        by = f"session `{newer.session_id}`" if newer.session_id else "another session"
        if newer.harness:
            by += f" ({newer.harness})"
        step = f" ({clipped_text(newer.next_steps[0])})" if newer.next_steps else ""
        lines += [""] if lines else []
        lines += [f"A newer baton is waiting for `{shown_name(newer.owner)}` on `{shown_name(newer.branch)}`, left by {by} after this "
                  f"session started: `{newer.id}`{step}. It is for the next session, so this one did not claim it: "
                  f"`baton handoff show {newer.id}` reads it. A baton this session leaves replaces it (and names it)."]
    if not lines:
        return None
    return "\n".join(["## Baton", "", *lines]) + "\n"
