"""A session's start and its objective, recorded inside a write scope.

The step ``baton session begin``, ``baton bootstrap`` with a session id and
a harness's session start (``harness_start``) share, and the objective
events a session's end shares with them. Whether a session already started,
and with which baton, is decided here, once for all of them
(``started_before``, ``StartOnce``, ``NamedStart``): its start is recorded
(``session.begun``, naming the baton it received), and a session receives
one baton, so a repeated start of one that received a baton claims nothing. Kept apart from ``baton.commands.sessions`` (the use cases
``session begin`` and ``session end``, their results and the baton a
session's end leaves), so that a hook's session start defines none of those.
"""

from __future__ import annotations

import time

from baton.commands.identity import SessionContext
from baton.commands.record import record
from baton.domain.aggregates import session as aggregate
from baton.domain.batons import context_key, objective_doc_key, objective_stream, session_stream
from baton.domain.repeated_start import received_baton, repeated_start_notice
from baton.domain.unended import harness_gone, harness_process
from baton.errors import BatonError
from baton.launch import process_now
from baton.ledger.clock import rfc3339_micros
from baton.projections.sessions import session_doc

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any


def objective_events(scope, ctx: SessionContext, objective: str | None, session: str | None,
                     reason: str) -> bool:
    """Set, or clear, the objective of ``ctx``; True when anything changed."""
    key = context_key(ctx.owner, ctx.branch)
    version = scope.txn.stream_version(objective_stream(key))
    command = (aggregate.SetObjective(ctx.owner, ctx.branch, objective, session) if objective is not None
               else aggregate.ClearObjective(ctx.owner, ctx.branch, session, reason))
    state = scope.runner.get("objectives", objective_doc_key(ctx.owner, ctx.branch))
    decided = aggregate.decide_objective(state, command, key=key)
    record(scope, decided, version=version, actor=ctx.owner, session=session)
    return bool(decided)


def booted_at(now_ns: int) -> int | None:
    """When this machine booted, in the wall clock's nanoseconds (``now_ns``, the
    project's clock, less the time since boot: ``CLOCK_BOOTTIME`` on Linux, which
    counts suspended time, else ``CLOCK_MONOTONIC``), or None where neither is read."""
    which = getattr(time, "CLOCK_BOOTTIME", None)
    if which is None:
        which = getattr(time, "CLOCK_MONOTONIC", None)
    if which is None:
        return None
    try:
        return now_ns - time.clock_gettime_ns(which)
    except OSError:
        return None


def harness_gone_here(recorded: Any) -> bool:
    """Whether the harness process a session's start recorded (``recorded``) is gone from this
    machine (``unended.harness_gone``), from what ``/proc`` says now of its pid (``launch.process_now``)."""
    fields = harness_process(recorded)
    now = process_now(fields[0]) if fields is not None else None
    if now is None:
        return False
    boot, pidns, started = now
    return harness_gone(recorded, boot=boot, pidns=pidns, started=started)


def kept_objective(scope, ctx: SessionContext, session_id: str) -> str | None:
    """The other session whose objective of ``ctx`` this session's start without an objective, or
    its end, leaves standing (``aggregate.keeps_objective``: that session is open, and not taken
    for ended), its id; None when this session retires the objective as before."""
    state = scope.runner.get("objectives", objective_doc_key(ctx.owner, ctx.branch))
    writer = scope.project.writer
    holder = aggregate.objective_holder(state, owner=ctx.owner, branch=ctx.branch, session=session_id, writer=writer)
    if holder is None:
        return None
    by, sid = holder
    session = session_doc(scope.runner, by, sid)
    here = by == writer  # this clone's session: this machine's boot and processes tell of it
    now = scope.project.clock()
    boot = booted_at(now) if here else None
    gone = here and isinstance(session, dict) and harness_gone_here(session.get("harnessProcess"))
    kept = aggregate.keeps_objective(session, now=rfc3339_micros(now), gone=gone,
                                     booted=rfc3339_micros(boot) if boot is not None and boot > 0 else None)
    return sid if kept else None


def record_begin(scope, ctx: SessionContext, session_id: str, *, harness: str | None, objective: str | None,
                 received_baton: str | None, harness_process: dict[str, Any] | None = None) -> tuple[bool, str | None]:
    """Inside a write scope: record the session's start (and set or clear the
    objective). ``harness_process``: the harness process it runs in, on this machine
    (``launch.harness_process``). A start without an objective leaves another open session's
    standing (``kept_objective``), and its ``session.begun`` names that session. Returns whether
    the objective events changed anything, and the session whose objective stands (or None)."""
    kept = kept_objective(scope, ctx, session_id) if objective is None else None
    stream = session_stream(session_id)
    decided = aggregate.decide_session(session_doc(scope.runner, scope.project.writer, session_id),
                                       aggregate.BeginSession(
        session_id, ctx.owner, ctx.branch, harness=harness, objective=objective, received_baton=received_baton,
        harness_process=harness_process, kept_objective=kept))
    record(scope, decided, version=scope.txn.stream_version(stream), actor=ctx.owner, session=session_id)
    if kept is not None:
        return False, kept
    return objective_events(scope, ctx, objective, session_id, reason="session_begin_without_objective"), None


def started_before(runner: Any, writer: str, session_id: str) -> dict[str, Any] | None:
    """The document of the session ``session_id`` of the clone ``writer`` (a
    teammate's session of the same id is another one) when its start is recorded (``session.begun``):
    the session started before, received its brief (and its baton, named by
    ``receivedBaton``) then, and a repeated start claims nothing. None for a
    session not started yet (never seen, or only its end recorded)."""
    known = session_doc(runner, writer, session_id)
    return known if known is not None and known.get("beganAt") else None


def record_resumed(project: Any, sid: str, before: dict[str, Any], *, harness: str | None,
                   process: dict[str, Any] | None, limits: Any = None) -> bool:
    """A started session's repeated start (``before``: its document) in the harness process
    ``process``: when that is not the one its start recorded — the conversation resumed in
    another process (``claude --resume``, ``codex exec resume``) — record it
    (``session.resumed``), so that the end of the process that ran it before never reads as
    the end of this one (``baton.domain.unended.harness_gone``). Nothing is written for the
    same process (a compaction, a second hook of one start). A start never fails for it: a
    lock held past the wait, an index too far behind, leave it unrecorded (False)."""
    command = aggregate.ResumeSession(sid, harness=harness, harness_process=process)
    if not aggregate.decide_session(before, command):
        return False
    try:
        project.check_streams(session_stream(sid))
        with project.writing(limits) as scope:
            decided = aggregate.decide_session(session_doc(scope.runner, project.writer, sid), command)
            record(scope, decided, version=scope.txn.stream_version(session_stream(sid)),
                   actor=before.get("owner"), session=sid)
    except BatonError:
        return False
    return True


class StartOnce:
    """The gate of a session start that must happen once (``bootstrap.SessionGate``):
    asked under the ledger lock, with the index caught up, whether the session
    started before (``started_before``); the start is then recorded in the lock
    hold that claims the baton, so starts of one session at the same moment
    claim one baton between them. ``process``: the harness process the start runs for
    (``launch.harness_process``), recorded with it."""

    def __init__(self, project: Any, sid: str, harness: str | None,
                 process: dict[str, Any] | None = None) -> None:
        self.project, self.sid, self.harness, self.process = project, sid, harness, process
        self.admitted = False
        self.before: dict[str, Any] | None = None
        """When not admitted: the session's document, as the start recorded first left it."""

    def admit(self, scope: Any) -> bool:
        self.project.check_streams(session_stream(self.sid))
        self.before = started_before(scope.runner, self.project.writer, self.sid)
        self.admitted = self.before is None
        return self.admitted

    def record(self, scope: Any, claimed: Any, ctx: Any) -> None:
        record_begin(scope, ctx, self.sid, harness=self.harness, objective=None,
                     received_baton=claimed.id if claimed is not None else None, harness_process=self.process)


class NamedStart(StartOnce):
    """The gate of a start that names its session outside a harness's hook
    (``bootstrap --session-id``, the MCP ``bootstrap`` with ``session_id``):
    a session receives one baton. Admitted unless the session's recorded
    start received one (the caller answers it as a repeated start); the start
    is recorded when the session never started, or with the baton it claims
    now (a session whose start claimed nothing: its baton did not fit, or
    none was waiting), keeping the objective it began with."""

    def repeated(self, runner: Any) -> dict[str, Any] | None:
        """The session's document when its recorded start received a baton (a repeated start), else None."""
        before = started_before(runner, self.project.writer, self.sid)
        return before if received_baton(before) is not None else None

    def notice(self, before: dict[str, Any]) -> str:
        """What a repeated start is told (``domain.repeated_start``)."""
        return repeated_start_notice(self.sid, before)

    def admit(self, scope: Any) -> bool:
        self.project.check_streams(session_stream(self.sid))
        self.before = started_before(scope.runner, self.project.writer, self.sid)
        self.admitted = received_baton(self.before) is None
        return self.admitted

    def record(self, scope: Any, claimed: Any, ctx: Any) -> None:
        if self.before is None:
            super().record(scope, claimed, ctx)
        elif claimed is not None:  # started before with no baton: this start receives one
            objective = self.before.get("objective")
            record_begin(scope, ctx, self.sid, harness=self.before.get("harness"),
                         objective=objective if isinstance(objective, str) and objective else None,
                         received_baton=claimed.id)
