"""A session that never reported its end: whether a start takes it for ended.

A harness's end hook hands on the handoff its session made ready; a harness
killed (SIGKILL, the OOM killer, a laptop whose battery died) runs no end
hook, and that handoff would wait as no baton, for nobody. The next start of
the same owner, branch and clone finds it (``harness_start.unended_handoff``)
and asks this rule whether that session is over: then the start ends it as
its end hook would have, handing the handoff on as its baton, and receives it
(``unended_sessions.take_over``); else the session may still be at work in
another terminal, and the start is only told, plainly, what waits there.

The ledger records no heartbeat, so "over" is known for sure when the
machine restarted since the session began (the clone's processes all died with
it), or when the harness process that ran the session is gone from this
machine (its start recorded that process: ``harness_gone``, on Linux), and is
presumed when nothing was heard of the session for ``UNENDED_HOURS`` after it
readied the handoff. docs/batons.md ("A session that never ended") tells the
rule and its limits.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from baton.domain.short_ids import short_id

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (this module is on the start hook's path)
if TYPE_CHECKING:
    from typing import Any

UNENDED_HOURS = 12
"""How long after it readied a handoff a session never heard of again is taken for ended
(the horizon past which a session's end takes another session that never reported its end
for a harness that was killed: ``harness_finish.ATTRIBUTION_HORIZON_HOURS``)."""

BOOT_SLACK = timedelta(minutes=2)
"""How much earlier than the machine's boot, as read from its uptime, a session must have
begun to be taken for one that did not survive it (the wall clock and the uptime are read
apart, and NTP may step the clock after boot)."""

ENDS_EVERY_TURN = frozenset({"codex"})
"""The harnesses whose end hook runs at the end of every turn, for want of a session end (Codex's
``Stop``): Baton records the session's end at its first turn's, and a later turn's hands on what
that turn readied, recording no other end (``aggregate.decide_session``). A session of one that
readied a handoff after its recorded end, no later turn's end having handed it on, and was
killed before that turn's end, is as unended as a session that never reported one."""

RESTARTED = "the machine restarted since it began"
HARNESS_GONE = "its harness process is gone"
SILENT = f"nothing was heard of it for {UNENDED_HOURS} hours after it readied the handoff"


def _at(stamp: str | None) -> datetime | None:
    """An RFC 3339 UTC timestamp (``…Z``, seconds or finer), or None when unreadable."""
    if not isinstance(stamp, str) or not stamp:
        return None
    try:
        parsed = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def harness_process(value: Any) -> tuple[int, int, str, int] | None:
    """The harness process a session's start recorded (``harnessProcess`` of its document, from
    ``session.begun`` or ``session.resumed``: ``{"pid", "start", "boot", "pidns"}``) as
    ``(pid, start, boot, pidns)``, or None when none was recorded (an older event, a machine
    without ``/proc``) or it is not one: nothing is then known of that process."""
    if not isinstance(value, dict):
        return None
    pid, start, boot, pidns = (value.get(name) for name in ("pid", "start", "boot", "pidns"))
    numbers = [n for n in (pid, start, pidns) if isinstance(n, int) and not isinstance(n, bool) and n > 0]
    if len(numbers) != 3 or not isinstance(boot, str) or not boot:
        return None
    return numbers[0], numbers[1], boot, numbers[2]


def harness_gone(recorded: Any, *, boot: str | None, pidns: int | None, started: int | None) -> bool:
    """Whether the harness process a session's start recorded (``recorded``: see
    ``harness_process``) is gone, as this machine reads now: the same boot (``boot``,
    the kernel's boot id — one per machine and boot, so another machine's never
    matches) and the same process-id namespace (``pidns``), and no live process has
    that pid with that start time (``started``: the start time of the live process
    with that pid now, None when there is none). A pid reused by another process
    (another start time) is gone too. False whenever that cannot be said: nothing
    recorded, another boot or machine, another namespace, nothing read here (no
    ``/proc``: ``boot`` None) — the other rules then decide, as before."""
    fields = harness_process(recorded)
    if fields is None or boot is None or pidns is None:
        return False
    _pid, start, recorded_boot, recorded_ns = fields
    if recorded_boot != boot or recorded_ns != pidns:
        return False
    return started != start


def taken_for_ended(*, began: str | None, readied: str | None, now: str, booted: str | None,
                    gone: bool = False) -> str | None:
    """Why a session that began at ``began`` and readied its handoff at ``readied``,
    never reporting its end, is over at ``now`` (the machine having booted at
    ``booted``, None when not known; ``gone``: its harness process is gone from this
    machine, ``harness_gone``): ``RESTARTED``, ``HARNESS_GONE`` or ``SILENT``; None when
    it may still be running (a second terminal on the branch), and its handoff is not
    to be taken from it."""
    started, last, current, boot = _at(began), _at(readied), _at(now), _at(booted)
    if current is None:
        return None
    if started is not None and boot is not None and started < boot - BOOT_SLACK:
        return RESTARTED
    if gone:
        return HARNESS_GONE
    heard = max((t for t in (started, last) if t is not None), default=None)
    if heard is not None and current - heard >= timedelta(hours=UNENDED_HOURS):
        return SILENT
    return None


def unended_for(*, status: str | None, harness: str | None, ended_at: str | None, left_baton: str | None,
                readied: str | None) -> bool:
    """Whether a session of this owner and clone counts as one that never reported its end, for the
    handoff it readied at ``readied``: it never ended (and left no baton: an end that did is over); or
    its harness reports an end at every turn (``ENDS_EVERY_TURN``) and its last recorded end came
    before it readied the handoff — the turn that readied it never reached its end (its end hook
    would have handed the handoff on). A later turn's end records no other end (a session's end is
    recorded once: ``aggregate.decide_session``), so the recorded end is the first turn's (a ledger
    written before that rule: the last turn's that handed something on); a handoff a later turn's end
    handed on is a baton, never looked for. Compared to the second, as a handoff's
    times are kept: a ready handoff of the session readied in the second of its end, before it,
    would have been handed on by that end (it reads under the ledger lock), so one still waiting
    was readied after."""
    if status != "ended":
        return not left_baton
    if harness not in ENDS_EVERY_TURN:
        return False
    ended, ready = _at(ended_at), _at(readied)
    return ended is not None and ready is not None and ended.replace(microsecond=0) <= ready.replace(microsecond=0)


def left_waiting(newest_first: list[tuple[str, str]]) -> str | None:
    """Of the owner's handoffs on the branch in this clone, newest first (``(id, status)``, ready
    or resumed), the one a session that never ended may have left waiting: the newest, and only
    while it is still ``ready``. One readied or resumed since — a later session took the work up
    (resumed with ``mark_resumed``, or readied its own after reading it) — or its own resumption
    means it waits for nobody: it is never taken over, however long its session stays silent."""
    if not newest_first:
        return None
    ident, status = newest_first[0]
    return ident if status == "ready" else None


def _who(session: str, harness: str | None, began: str | None) -> str:
    said = ", ".join(part for part in (harness, f"begun {began[:19]}Z" if began else None) if part)
    return f"Session `{session}`" + (f" ({said})" if said else "")


def handed_on_notice(session: str, harness: str | None, began: str | None, handoff: str, why: str,
                     *, after_a_turn: bool = False) -> str:
    """What the start that ended such a session, and handed its handoff on, is told. ``after_a_turn``:
    its end was recorded at an earlier turn's end (``ENDS_EVERY_TURN``), not at the one that readied it."""
    if after_a_turn:
        return (f"{_who(session, harness, began)} readied handoff `{handoff}` for the next session in a turn "
                f"whose end it never reported ({why}; {harness or 'its harness'} reports an end at every turn): "
                "Baton handed that handoff on now as the baton that turn's end would have left — the session "
                "handoff in this brief.")
    return (f"{_who(session, harness, began)} never reported its end ({why}) after it readied handoff "
            f"`{handoff}` for the next session: Baton ended it now and handed that handoff on as the baton its "
            "end would have left — the session handoff in this brief.")


def unended_notice(session: str, harness: str | None, began: str | None, handoff: str, *,
                   after_a_turn: bool = False) -> str:
    """What a start is told of a handoff readied by a session that has not reported its end
    and may still be running: the command that continues it, and why nothing was claimed.
    ``after_a_turn``: its end was recorded at an earlier turn's end (``ENDS_EVERY_TURN``)."""
    short = short_id(handoff)
    unreported = (f"has not reported the end of the turn in which it readied handoff `{handoff}` for the next "
                  f"session ({harness or 'its harness'} reports an end at every turn)" if after_a_turn else
                  f"has not reported its end, and it readied handoff `{handoff}` for the next session")
    ender = "the end of that turn" if after_a_turn else "its end"
    return (f"{_who(session, harness, began)} {unreported}, which no baton carries yet. If that session is no "
            "longer running (its "
            f"harness was killed, or the machine stopped), this session continues its work: `baton resume {short}` "
            "reads it (with `mark_resumed`, it records that this session took it up: never handed on again). If it "
            f"still runs (another terminal on this branch), leave it: {ender} hands it on. "
            "Nothing was claimed.")
