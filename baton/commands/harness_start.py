"""A harness's session starts (``baton hook HARNESS SessionStart``): its brief,
delivered once per session.

A harness's session lifecycle, as its hooks report it, is three use cases
behind ``baton hook HARNESS EVENT`` (the adapters in ``baton.harnesses`` only
translate a payload and answer), each in a module of its own so that a
start loads neither the compaction's capture and detector nor the end's
hand-on: this one, ``harness_compaction`` (before compaction, a draft
prefilled only with what Baton observed, once per session) and
``harness_finish`` (at the end, the newest ready handoff the session wrote
handed on as a baton; the session ended either way, in one append), with
``session_drafts`` what they share. Baton never reads the harness's
transcript: the session id, the event and the harness's own fields
(source, trigger, reason) are all it uses. docs/hooks.md tells the rules.

The session's ``session.begun`` event is the record that it already received
its brief, so a repeated start delivers nothing and writes nothing; after a
compaction it points the agent at the draft saved before it
(``harness_compaction``), when that is still open, and after a compaction, a
resume or a fork it repeats read-only the baton the session received and names
a newer one waiting (``repeated_start.continued_notice``). The brief ends with the
session's id and asks the agent to pass it as ``session_id`` to Baton's MCP
tools: the harness gives the id to its hooks, never to the model or to an
MCP server, so this is how a capture over MCP names its session.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import orjson

from baton.commands.batons import peek_at_start, received_at_start
from baton.commands.bootstrap import BRIEF_PROJECTIONS, BootstrapResult, Stale, Start, begin
from baton.commands.identity import DETACHED_BRANCH, context_of
from baton.commands.objectives import required_session_id
from baton.commands.session_records import StartOnce, record_resumed, started_before
from baton.domain.batons import DEFAULT_MAX_BYTES, waiting_for_them_json
from baton.domain.claimed_elsewhere import CONTINUING_SOURCES
from baton.domain.limits import MIN_MAX_BYTES
from baton.domain.repeated_start import continued_notice, received_baton
from baton.domain.short_ids import short_id
from baton.domain.unended import left_waiting, unended_for
from baton.errors import BatonError, IndexBehind
from baton.projections import handoffs
from baton.projections.sessions import open_at, session_doc
from baton.values import Value, replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any

    from baton.commands.context import Limits, Project


class SessionStartResult(Value):
    session_id: str
    harness: str | None
    source: str | None
    repeated: bool
    """The session had started before: its brief was delivered then, nothing is delivered now."""
    delivered: "BootstrapResult | None" = None
    draft: str | None = None
    """A start after a compaction: the draft Baton saved for the session before it, still open."""
    missing: tuple[str, ...] = ()
    """The fields of ``draft`` still to complete."""
    continues: str | None = None
    """The baton the session received at its start, when ``draft`` continues it (its lineage parent)."""
    recalled: str | None = None
    """A repeated start that continues the conversation (``RECALLED_SOURCES``): the baton the session
    received and a newer one waiting, read-only (``repeated_start.continued_notice``)."""
    exit_code: int = 0
    kept: tuple = ()
    """Hooks kept while the index was too far behind or the ledger locked, run before this start
    (``baton.commands.deferred.DeferredRun``): their notices are the adapter's to leave."""

    @property
    def held_up(self) -> str | None:
        """Why the brief delivered was read without the ledger lock, claiming and
        recording nothing (another process held the lock past the wait), in one
        line; None for a start that took it."""
        reason = self.delivered.held_up if self.delivered is not None else None
        if reason is None:
            return None
        return (f"{reason}; the brief was delivered from the index as it stands, "
                "and nothing was claimed or recorded (the next session start claims a baton waiting)")

    @property
    def behind(self) -> str | None:
        """Why the brief delivered was read from the index as it stands, claiming
        and recording nothing (the index too far behind the ledger to bring up
        to date in the hook's time: a process of its own does it), in one line;
        None for a start that brought it up to date."""
        reason = self.delivered.behind if self.delivered is not None else None
        if reason is None:
            return None
        return (f"{reason}; the brief was delivered from the index as it stands (it may miss the newest events), "
                "and nothing was claimed or recorded (the next session start claims a baton waiting)")

    @property
    def said(self) -> str | None:
        """What the hook says on stderr of the brief it delivered (``held_up`` or ``behind``), or None."""
        return self.held_up or self.behind

    @property
    def context(self) -> str | None:
        """The text to put in front of the agent (the brief, or after a compaction
        the draft to complete; then the session's id for Baton's MCP tools), or None."""
        return self.context_for()

    def context_for(self, *, complete_with: str = "", also: str = "") -> str | None:
        """``context`` in an adapter's words: ``complete_with``, its way to complete the
        draft after a compaction (``notice``); ``also``, its other way to pass the session
        id, put after the MCP tools in the session line: the one the start was given
        (``start_session``), whose brief left room for it."""
        if self.delivered is not None:
            return self.delivered.brief.text.rstrip("\n") + "\n\n" + session_line(
                self.session_id, self.harness, also, continued=self.source in CONTINUING_SOURCES)
        return self.notice(complete_with, also=also)

    def notice(self, complete_with: str = "", *, also: str = "") -> str | None:
        """After a compaction, what the agent is told of its open draft (then the
        session line), or None. ``complete_with`` is the adapter's way to complete
        the draft, in its own words, put right after "Complete it"."""
        if self.delivered is not None:
            return None
        parts = ([compaction_notice(self.draft, self.missing, complete_with, continues=self.continues)]
                 if self.draft is not None else []) \
            + ([self.recalled] if self.recalled else [])
        if not parts:
            return None
        return "\n".join(p.rstrip("\n") + "\n" for p in parts) + "\n" + session_line(
            self.session_id, self.harness, also, continued=self.source in CONTINUING_SOURCES)

    def to_json(self) -> dict[str, Any]:
        brief = self.delivered
        return {"sessionId": self.session_id, "harness": self.harness, "source": self.source,
                "repeated": self.repeated, "brief": brief.brief.text if brief else None,
                "claimed": bool(brief and brief.record is not None),
                "handoffId": brief.record.id if brief and brief.record else None,
                "notices": list(brief.notices) if brief else [],
                "claimedElsewhere": brief.claimed_elsewhere.to_json() if brief and brief.claimed_elsewhere else None,
                "leftPending": [waiting_for_them_json(b) for b in brief.left_pending] if brief else [],
                "draft": self.draft, "recalled": self.recalled, "context": self.context, "ledgerBusy": self.held_up,
                "indexBehind": self.behind}

    def render(self) -> str:
        return (self.context or "").rstrip("\n")


def session_line(session_id: str, harness: str | None, also: str = "", *, continued: bool = False) -> str:
    """The last lines of a session's brief: its id, for the MCP tools (the
    harness tells its hooks the id, never the model); ``also``: an adapter's other
    way to pass it (``, or …``), put after them. ``continued``: the session goes on
    from an earlier conversation (a fork, a resume: ``CONTINUING_SOURCES``), whose
    transcript may hold an earlier brief naming another id — this one is current."""
    quoted = orjson.dumps(session_id).decode()
    current = (" This id is the current one: a line above naming another session id is from the conversation "
               "this one continues (forked or resumed), whose end is not this session's — do not pass that one.") \
        if continued else ""
    return (f"This is {harness or 'a'} session `{session_id}`. Pass `\"session_id\": {quoted}` to Baton's MCP "
            f"tools (`handoff_capture`, `handoff_detect`, `baton_session`){also}: the handoff you make ready is then "
            f"handed on to the next session when this one ends.{current}\n")


class Starting(Value):
    """A harness's session start, read (``start_session``): ``done`` when it
    delivers no brief (a repeated start), else ``brief``, the session-start
    brief's steps (``bootstrap.Start``), then ``delivered``."""

    session_id: str
    harness: str | None
    source: str | None
    done: SessionStartResult | None = None
    brief: Start | None = None
    gate: "StartOnce | None" = None
    unended: "Unended | None" = None
    """Neither ``done`` nor ``brief``: a session of this owner that never reported its end
    readied a handoff no baton carries (``unended_handoff``). The application decides what
    to do of it (``unended_sessions.take_over``) and starts again, ``told`` what it did."""

    def delivered(self, brief: BootstrapResult) -> SessionStartResult:
        """The result once the brief is built (and its baton claimed). A start
        held up by the ledger lock (``brief.held_up``) delivers its brief too,
        read without the lock: its start is not recorded, so a later one of the
        session delivers the brief again, with the baton. So does a start whose
        index was too far behind (``brief.behind``), read from it as it stands."""
        assert self.gate is not None
        if not brief.unrecorded and not self.gate.admitted:
            # another hook of this session recorded its start first, and delivers the brief
            return SessionStartResult(self.session_id, self.harness, self.source, repeated=True)
        return SessionStartResult(self.session_id, self.harness, self.source, repeated=False, delivered=brief)


def start_session(project: "Project", session_id: str | None, *, harness: str | None = None,
                  source: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
                  limits: Limits | None = None, also: str = "", told: tuple[str, ...] | None = None,
                  process: dict[str, Any] | None = None) -> Starting:
    """Deliver the session-start brief once: claim the baton waiting for this
    owner and branch for ``session_id`` and record that the session began.
    The brief's steps (``bootstrap.begin``) are carried out by the application,
    which then calls ``Starting.delivered``. ``limits``: the brief's writing
    steps' (None: the project's). ``also``: the adapter's other way to pass the
    session id (``SessionStartResult.context_for``): the brief, then the session
    line with it, fit in ``max_bytes`` (when the line leaves the brief at least
    ``MIN_MAX_BYTES``, as any valid id does in the default budget). ``process``: the
    harness process the start runs for, on this machine (the hook's
    ``launch.harness_process``), recorded with the session's start, and with a
    repeated start in another process (``record_resumed``).

    A first start (not ``told``) that finds a ready handoff of its owner and branch
    readied by a session that never reported its end (``unended_handoff``) reads
    nothing more: ``Starting.unended`` names it, for the application to take over; it
    starts again ``told`` the notices that says what it did (shown in the brief).

    An index too far behind the ledger to bring up to date in the hook's
    time (``IndexBehind``: its catch-up handed to a process of its own) that
    can still be read (``as_it_stands``) gives the brief as it stands,
    claiming and recording nothing.

    Raises:
        InputError: no session id, or a malformed one.
        IndexBehind: the index is too far behind, and cannot be read as it stands.
    """
    sid = required_session_id(session_id)
    stale: Stale | None = None
    try:
        runner = project.reading()
    except IndexBehind as exc:
        stale = as_it_stands(project, exc)
        if stale is None:
            raise
        runner = stale[0]
    before = started_before(runner, project.writer, sid)
    if before is not None:  # a repeated start: nothing delivered, nothing claimed
        if stale is None and not project.read_only:  # in another harness process: that one recorded
            record_resumed(project, sid, before, harness=harness, process=process, limits=limits)
        again = _after_compaction(runner, project.writer, sid, harness, source) if source == COMPACT \
            else SessionStartResult(sid, harness, source, repeated=True)
        if source in RECALLED_SOURCES:
            again = replace(again, recalled=_recalled(project, runner, before, sid))
        return Starting(sid, harness, source, again)
    ctx = None
    if told is None and stale is None and not project.read_only:
        ctx = context_of(project)
        unended = unended_handoff(runner, project.writer, ctx.owner, ctx.branch, sid)
        if unended is not None:
            return Starting(sid, harness, source, unended=unended)
    gate = StartOnce(project, sid, harness, process)
    # The session line, as it will be delivered, comes after the brief (and a blank line), inside the same budget.
    room = max(MIN_MAX_BYTES, max_bytes - len(session_line(sid, harness, also, continued=source in CONTINUING_SOURCES)
                                              .encode("utf-8")) - 2)
    return Starting(sid, harness, source, brief=begin(project, session_id=sid, max_bytes=room, gate=gate,
                                                         limits=limits, stale=stale,
                                                         continues=source in CONTINUING_SOURCES,
                                                         owner=ctx.owner if ctx else None,
                                                         branch=ctx.branch if ctx else None, told=told or ()),
                    gate=gate)


Unended = tuple[str, dict[str, "Any"], str]
"""A ready handoff a session that never reported its end readied (``unended_handoff``):
its id, that session's document, and when the handoff last changed (its readiness). A
tuple, not a class: the steady hook path defines none it does not use."""

UNENDED_WINDOW = 5
"""How many of the newest ready handoffs on the branch a start looks through for this
owner's and clone's newest: one keyed query, never the project's history."""

UNENDED_ATTRIBUTION_HOURS = 12
"""How long before a handoff naming no session was captured a session that was open then
may have begun (``harness_finish.ATTRIBUTION_HORIZON_HOURS``, the same rule)."""


def unended_handoff(runner: Any, writer: str, owner: str, branch: str | None, sid: str) -> Unended | None:
    """The newest ready handoff of ``owner`` on ``branch`` captured in this clone
    (``writer``), when no baton carries it and a session of this clone that never
    reported its end readied it: it names that session, or it names none and that
    session was the only one of the owner open on the branch when it was captured
    (as a session's end attributes it: ``harness_finish._captured_during``). Not
    the starting session's (``sid``), not a teammate's or another clone's, never a
    handoff already a baton, resumed, superseded or archived (only ``ready`` ones).
    None otherwise: the steady case, one indexed query and a keyed read or two."""
    if not branch or "handoffs" not in runner.by_name or "sessions" not in runner.by_name:
        return None
    recorded_as = "" if branch == DETACHED_BRANCH else branch  # a capture on a detached HEAD records no branch
    mine = [r for r in handoffs.newest(runner.db, statuses=("ready", "resumed"), branch=recorded_as, kind="handoff",
                                       limit=UNENDED_WINDOW)
            if r.owner == owner and r.writer == writer]
    waiting = left_waiting([(r.id, r.status) for r in mine])
    row = mine[0] if waiting is not None else None
    if row is None or ("baton_scopes" in runner.by_name and runner.get("baton_scopes", row.id) is not None):
        return None
    doc = runner.get("handoffs", row.id)
    if not isinstance(doc, dict):
        return None
    named = handoffs.origin_session(doc)
    if named is None:
        created = row.created_at
        try:
            since = (datetime.fromisoformat(created[:19])
                     - timedelta(hours=UNENDED_ATTRIBUTION_HOURS)).strftime("%Y-%m-%dT%H:%M:%S")
        except ValueError:
            return None
        found = open_at(runner.db, owner=owner, branch=branch, at=created, since=since, exclude=sid,
                        writer=writer)
        if len(found) != 1:  # none, or rivals: nobody's to take over (a session's end says so)
            return None
        named = found[0]
    if named == sid:
        return None
    session = session_doc(runner, writer, named)
    readied = row.updated_at or row.created_at
    if (session is None or not session.get("beganAt") or session.get("owner") != owner
            or not unended_for(status=session.get("status"), harness=session.get("harness"),
                               ended_at=session.get("endedAt"), left_baton=session.get("leftBaton"),
                               readied=readied)):
        return None
    return row.id, session, readied


def as_it_stands(project: "Project", behind: IndexBehind) -> Stale | None:
    """The index as it stands, when a brief can be read from it safely though
    it is too far behind the ledger (``behind``): its tables are of this
    Baton's schema and every projection the brief reads (``BRIEF_PROJECTIONS``)
    was folded by this Baton's version of it, as the index's signature
    records (``ProjectionRunner.recorded_versions``) — after an upgrade that
    changed only others, or a large sync. None when it cannot be: an index
    that is new, of another schema, or whose documents the brief reads were
    folded by another version (an upgrade that changed them: read as they
    stand they could mean something else)."""
    if project.read_only:
        return None
    runner = project.runner
    recorded = runner.recorded_versions()
    if recorded is None:
        return None
    for name in BRIEF_PROJECTIONS:
        projection = runner.by_name.get(name)
        if projection is None or recorded.get(name) != projection.version:
            return None
    details = behind.details
    catching_up = details.get("background_pid") is not None and not details.get("background_failed")
    return runner, behind.message.rstrip(". "), catching_up


COMPACT = "compact"
"""The start ``source`` a harness reports when it starts the session again after compacting its context."""

RECALLED_SOURCES = frozenset({COMPACT, "resume", "fork"})
"""Repeated starts whose context may have lost the brief (a compaction, a resumed or forked
conversation): told again, read-only, of the baton the session received and of a newer one waiting."""


def _recalled(project: "Project", runner: Any, before: dict[str, Any], sid: str) -> str | None:
    """``repeated_start.continued_notice`` for a started session (``before``: its document), from
    the two baton keys of its owner and branch; None when it cannot be read (a start never fails)."""
    try:
        ctx = context_of(project)
        received = received_at_start(runner, ctx, received_baton(before))
        waiting = peek_at_start(runner, ctx)[0]
        # Judged as the start judged them (``feed_vouch``, loaded only when there is a baton):
        # a withheld one's steps are not told again.
        judged = __import__("baton.commands.feed_vouch", fromlist=["baton_vouch"]).baton_vouch \
            if received is not None or waiting is not None else None
        mark = judged(project, runner, received.record) if judged and received is not None else None
        if judged and waiting is not None and (found := judged(project, runner, waiting.record)) is not None \
                and found.withheld:
            waiting = None
    except BatonError:
        return None
    withheld = ""
    if mark is not None and mark.withheld and received is not None:
        withheld = mark.withheld_notice("baton", received.record.id)
        received, mark = None, None
    claimed = received.record.owner if received is not None and received.record.shared else None
    return continued_notice(before, received.record if received else None, waiting.record if waiting else None,
                            session_id=sid, unverified=mark.line(claimed) if mark is not None else "",
                            withheld=withheld)


def _after_compaction(runner: Any, writer: str, sid: str, harness: str | None, source: str) -> SessionStartResult:
    """A start after a compaction delivers no brief again, but points the agent at
    the session's open draft (the one Baton saved before the compaction, or the
    draft continuing it), or says nothing."""
    drafts = _drafts()
    kept = drafts.draft_to_complete(runner, writer, sid)
    if kept is None:
        return SessionStartResult(sid, harness, source, repeated=True)
    session, doc = session_doc(runner, writer, sid), runner.get("handoffs", kept[0])
    received = received_baton(session)
    continues = received if received is not None and isinstance(doc, dict) and received in drafts.parents_of(doc) \
        else None
    return SessionStartResult(sid, harness, source, repeated=True, draft=kept[0], missing=kept[1],
                              continues=continues)


def compaction_notice(draft: str, missing: tuple[str, ...] = (), complete_with: str = "", *,
                      continues: str | None = None) -> str:
    """What the agent is told when its session starts again after a compaction:
    the draft Baton saved before it, and how to complete and hand it on.
    ``continues``: the baton the session received, which the draft continues."""
    short = short_id(draft)
    lines = ["## Baton", "",
             f"Baton saved this session's work before the compaction: draft handoff {short} ({draft}) is "
             "still open, so what the summary left out can still be handed on."]
    if continues is not None:
        lines.append(f"It continues baton `{continues}`, which this session received at its start: its work and "
                     "open items are carried in it; write where this session left the work (`baton resume "
                     f"{short_id(continues)}` reads the baton).")
    if missing:
        lines.append(f"Still to complete: {', '.join(missing)}.")
    lines.append(f"Complete it{complete_with or f' (a capture continuing {draft})'}; then validate and ready "
                 "it (`baton handoff validate`, `baton handoff ready`, or `handoff_validate`, `handoff_ready`): "
                 "the session's end hands it on to the next session.")
    return "\n".join(lines) + "\n"


def _drafts() -> Any:
    """``baton.commands.session_drafts``, loaded by name: only a start after a compaction reads
    the session's open draft; a steady start reads none. ``__import__``, as ``_recalled``'s rule."""
    return __import__("baton.commands.session_drafts", fromlist=["draft_to_complete"])
