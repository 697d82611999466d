"""A harness's session start that finds a handoff readied by a session which never
reported its end (``harness_start.unended_handoff``): it ends that session as its
end hook would have, handing the handoff on as its baton, when the domain's rule
takes it for over (``baton.domain.unended``), and says so; else it only says what
waits, and how to continue it. Loaded only then: a steady start never imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from baton.commands.baton_hand_on import hand_on_in_scope
from baton.commands.harness_finish import finish_session
from baton.commands.session_records import booted_at, harness_gone_here
from baton.domain.unended import handed_on_notice, taken_for_ended, unended_notice
from baton.ledger.clock import rfc3339_micros

if TYPE_CHECKING:
    from baton.commands.context import Project


def take_over(project: "Project", unended: tuple[str, dict[str, Any], str]) -> tuple[str, ...]:
    """What a start is told of ``unended`` (``harness_start.Unended``): a session of
    its owner and clone that never reported its end readied a handoff no baton carries.

    Over (``taken_for_ended``: the machine restarted, its harness process is gone
    from this machine — ``harness_gone_here`` — or it was silent too long): the session is ended now with that handoff handed on
    as its baton — ``baton.created`` and ``session.ended`` in one append, as its end
    hook would have written them (``finish_session``) — and the start, reading next,
    claims it as any waiting baton, once. Two starts taking it over at once end it
    once: the second finds it ended and is told nothing here. Else the session may
    still be running: nothing is written, and the notice says what waits and how
    to continue it."""
    handoff_id, session, readied = unended
    sid, harness, began = session["id"], session.get("harness"), session.get("beganAt")
    now = project.clock()
    boot = booted_at(now)
    why = taken_for_ended(began=began, readied=readied, now=rfc3339_micros(now),
                          booted=rfc3339_micros(boot) if boot is not None and boot > 0 else None,
                          gone=harness_gone_here(session.get("harnessProcess")))
    after_a_turn = session.get("status") == "ended"  # recorded at an earlier turn's end (Codex's Stop)
    if why is None:
        return (unended_notice(sid, harness, began, handoff_id, after_a_turn=after_a_turn),)
    finished = finish_session(project, sid, harness=harness, hand_on_in_scope=hand_on_in_scope)
    if finished is None or finished.baton is None:  # ended first by another start, or nothing to hand on
        return tuple(finished.notices) if finished is not None and finished.ended else ()
    return (handed_on_notice(sid, harness, began, finished.baton, why, after_a_turn=after_a_turn), *finished.notices)
