"""A harness's session lifecycle, as its hooks report it: a session starts,
its context is about to be compacted, it ends.

These are the use cases behind ``baton hook HARNESS EVENT`` (the hook
adapters in ``baton.harnesses`` only translate a harness's payload and
answer). They are built from the session-baton use cases and keep their
rules; what they add is what a hook needs and a person typing commands does
not:

- **A brief is delivered once per session.** A harness fires its start hook
  again for the same session after a compaction, a resume or a ``/clear``
  that keeps the id; the session's ``session.begun`` event is the record
  that it already received its brief, so a repeated start delivers nothing
  and writes nothing. After a compaction (``source`` ``compact``) it points
  the agent at the draft saved before it, when that is still open.
- **Before compaction, a draft.** The agent is about to lose detail, so
  Baton captures a draft handoff for the session, prefilled only with what
  it observed itself (``handoff prepare``: repository, changed files, the
  session objective) and marked ``automation.trigger: hook`` with the
  detector inputs that caused it. One per session: a later compaction finds
  it and adds nothing. The agent completes, validates and promotes it.
- **The agent knows its session.** The brief a start delivers ends with the
  session's id and asks the agent to pass it as ``session_id`` to Baton's
  MCP tools: the harness gives the id to its hooks, never to the model or
  to an MCP server, so this is how a capture over MCP names its session.
- **At the end, the baton the session wrote.** The newest ready handoff
  captured by this session (and not yet a baton) is handed on to the next
  session on this owner and branch; the session is ended either way, in
  the same single append. An agent that captured over MCP without the id
  still hands on: the newest ready handoff naming no session, captured on
  the session's branch by its owner while it was open, is the session's —
  unless another session of that owner was open on that branch then (it
  is then nobody's, and the end says so). A
  session that already ended (its agent called ``prompt`` with
  ``session_end``, or a harness fires its end hook after every turn) is not
  ended again.

Baton never reads the harness's transcript: the session id, the event and
the harness's own fields (source, trigger, reason) are all it uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from baton.model import frozen

from baton.commands.sessions import check_session_id
from baton.domain.batons import DEFAULT_MAX_BYTES
from baton.errors import Conflict, InputError

if TYPE_CHECKING:
    from baton.commands.bootstrap import BootstrapResult
    from baton.commands.context import Project

HOOK_TRIGGER = "hook"
SESSION_WINDOW = 50
"""How many of the newest handoffs are searched for the ones a session captured:
a session's handoffs are recent, and a hook must not read the whole project."""


def _session_id(session_id: str | None) -> str:
    checked = check_session_id(session_id, required=True)
    assert checked is not None
    return checked


def session_handoffs(runner: Any, session_id: str) -> list[dict[str, Any]]:
    """The handoffs of this session, newest first (among the newest ``SESSION_WINDOW``).

    Those it captured, and those captured naming no session that continue one
    of them or the baton the session received at its start: an agent
    completing its session's draft over MCP (which has no amend), or carrying
    on the handoff it was given, captures a child with ``parent`` set, and
    knows no session id to give it. The child is that session's work all the
    same.
    """
    from baton.projections import handoffs

    if "handoffs" not in runner.by_name:
        return []
    docs = [doc for doc in (runner.get("handoffs", summary.id)
                            for summary in handoffs.newest(runner.db, limit=SESSION_WINDOW))
            if isinstance(doc, dict)]
    mine = {doc["id"] for doc in docs if _origin_session(doc) == session_id}
    # What the session works from: its own handoffs, and the baton it received
    # at its start (continuing that one over MCP names no session either).
    session = runner.get("sessions", session_id) if "sessions" in runner.by_name else None
    received = session.get("receivedBaton") if isinstance(session, dict) else None
    sources = mine | ({received} if isinstance(received, str) and received else set())
    for doc in reversed(docs):  # oldest first: a continuation of a continuation is found too
        if _origin_session(doc) is None and sources.intersection(parents_of(doc)) and doc["id"] != received:
            mine.add(doc["id"])
            sources.add(doc["id"])
    return [doc for doc in docs if doc["id"] in mine]


def open_session_draft(runner: Any, session: str | None) -> dict[str, Any] | None:
    """The newest draft Baton prepared for this session (a detector's request or
    a compaction) that is still a draft and that no handoff continues, or
    None: a session asking for a handoff again is pointed at the draft it
    has, not given another."""
    if not session:
        return None
    docs = session_handoffs(runner, session)
    continued = {parent for doc in docs for parent in parents_of(doc)}
    for doc in docs:
        if (doc.get("status") == "draft" and (doc.get("automation") or {}).get("trigger")
                and doc["id"] not in continued):
            return doc
    return None


def _origin_session(doc: dict[str, Any]) -> str | None:
    origin = doc.get("origin")
    value = origin.get("session_id") if isinstance(origin, dict) else None
    return value if isinstance(value, str) and value else None


def parents_of(doc: dict[str, Any]) -> list[str]:
    lineage = doc.get("lineage")
    parents = lineage.get("parents") if isinstance(lineage, dict) else None
    return [p for p in parents if isinstance(p, str)] if isinstance(parents, list) else []


# -- a session starts -----------------------------------------------------------------

@frozen
class SessionStartResult:
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
    exit_code: int = 0

    @property
    def context(self) -> str | None:
        """The text to put in front of the agent (the brief, or after a compaction
        the draft to complete; then the session's id for Baton's MCP tools), or None."""
        if self.delivered is not None:
            return self.delivered.brief.text.rstrip("\n") + "\n\n" + session_line(self.session_id, self.harness)
        return self.notice()

    def notice(self, complete_with: str = "") -> str | None:
        """After a compaction, what the agent is told of its open draft (then the
        session line), or None. ``complete_with`` is the adapter's way to complete
        the draft, in its own words, put right after "Complete it"."""
        if self.delivered is not None or self.draft is None:
            return None
        return compaction_notice(self.draft, self.missing, complete_with).rstrip("\n") + "\n\n" + session_line(
            self.session_id, self.harness)

    def to_json(self) -> dict[str, Any]:
        brief = self.delivered
        return {"sessionId": self.session_id, "harness": self.harness, "source": self.source,
                "repeated": self.repeated, "brief": brief.brief.text if brief else None,
                "claimed": bool(brief and brief.record is not None),
                "handoffId": brief.record.id if brief and brief.record else None,
                "notices": list(brief.notices) if brief else [],
                "draft": self.draft, "context": self.context}

    def render(self) -> str:
        return (self.context or "").rstrip("\n")


def session_line(session_id: str, harness: str | None) -> str:
    """The last lines of a session's brief: its id, for the MCP tools (the
    harness tells its hooks the id, never the model)."""
    import orjson

    quoted = orjson.dumps(session_id).decode()
    return (f"This is {harness or 'a'} session `{session_id}`. Pass `\"session_id\": {quoted}` to Baton's MCP "
            "tools (`handoff_capture`, `handoff_detect`, `baton_session`): the handoff you make ready is then handed on "
            "to the next session when this one ends.\n")


def start_session(project: "Project", session_id: str | None, *, harness: str | None = None,
                  source: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES) -> SessionStartResult:
    """Deliver the session-start brief once: claim the baton waiting for this
    owner and branch for ``session_id`` and record that the session began.

    Raises:
        InputError: no session id, or a malformed one.
    """
    from baton.commands.bootstrap import bootstrap

    sid = _session_id(session_id)
    runner = project.reading()
    if _began(runner, sid):
        if source == COMPACT:
            return _after_compaction(runner, sid, harness, source)
        return SessionStartResult(sid, harness, source, repeated=True)
    gate = _StartOnce(project, sid, harness)
    from baton.domain.limits import MIN_MAX_BYTES

    # The session line comes after the brief, inside the same budget.
    room = max(MIN_MAX_BYTES, max_bytes - len(session_line(sid, harness).encode("utf-8")) - 2)
    brief = bootstrap(project, session_id=sid, max_bytes=room, gate=gate)
    if not gate.admitted:  # another hook of this session recorded its start first, and delivers the brief
        return SessionStartResult(sid, harness, source, repeated=True)
    return SessionStartResult(sid, harness, source, repeated=False, delivered=brief)


COMPACT = "compact"
"""The start ``source`` a harness reports when it starts the session again after compacting its context."""


def _after_compaction(runner: Any, sid: str, harness: str | None, source: str) -> SessionStartResult:
    """A start after a compaction delivers no brief again, but points the agent at
    the session's open draft (the one Baton saved before the compaction, or the
    draft continuing it), or says nothing."""
    from baton.commands.detect import still_to_complete

    draft = open_session_draft(runner, sid)
    if draft is None:
        return SessionStartResult(sid, harness, source, repeated=True)
    return SessionStartResult(sid, harness, source, repeated=True, draft=draft["id"],
                              missing=still_to_complete(draft))


def compaction_notice(draft: str, missing: tuple[str, ...] = (), complete_with: str = "") -> str:
    """What the agent is told when its session starts again after a compaction:
    the draft Baton saved before it, and how to complete and hand it on."""
    from baton.domain.short_ids import short_id

    short = short_id(draft)
    lines = ["## Baton", "",
             f"Baton saved this session's work before the compaction: draft handoff {short} ({draft}) is "
             "still open, so what the summary left out can still be handed on."]
    if missing:
        lines.append(f"Still to complete: {', '.join(missing)}.")
    lines.append(f"Complete it{complete_with or f' (a capture continuing {draft})'}; then validate and ready "
                 "it (`baton handoff validate`, `baton handoff ready`, or `handoff_validate`, `handoff_ready`): "
                 "the session's end hands it on to the next session.")
    return "\n".join(lines) + "\n"


def _began(runner: Any, sid: str) -> bool:
    known = runner.get("sessions", sid)
    return isinstance(known, dict) and bool(known.get("beganAt"))


class _StartOnce:
    """The gate of ``bootstrap``: the start is recorded once, in the lock hold
    that claims the baton, so two hooks of one session reporting its start at
    the same moment deliver one brief between them."""

    def __init__(self, project: "Project", sid: str, harness: str | None) -> None:
        self.project, self.sid, self.harness = project, sid, harness
        self.admitted = False

    def admit(self, scope: Any) -> bool:
        from baton.domain.batons import session_stream

        self.project.check_streams(session_stream(self.sid))
        self.admitted = not _began(scope.runner, self.sid)
        return self.admitted

    def record(self, scope: Any, claimed: Any) -> None:
        from baton.commands.identity import context_of
        from baton.commands.sessions import record_begin

        record_begin(scope, context_of(self.project), self.sid, harness=self.harness, objective=None,
                     received_baton=claimed.id if claimed is not None else None)


# -- the context is about to be compacted --------------------------------------------------

@frozen
class CompactionDraftResult:
    session_id: str
    handoff_id: str
    created: bool
    """False: the session already had a draft prepared before an earlier compaction."""
    trigger: str | None
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"sessionId": self.session_id, "handoffId": self.handoff_id, "created": self.created,
                "trigger": self.trigger}

    def render(self) -> str:
        from baton.domain.short_ids import short_id

        verb = "Prepared" if self.created else "Kept"
        return (f"{verb} draft handoff {short_id(self.handoff_id)} for session {self.session_id} before "
                f"compaction; complete it, then `baton handoff validate {short_id(self.handoff_id)}`.")


def detector_inputs(trigger: str | None) -> dict[str, Any]:
    """What the compaction tells the detector (spec §9): a manual compaction is
    an explicit request; an automatic one means the harness found the context
    full. Nothing else is known, so nothing else is claimed."""
    if trigger == "manual":
        return {"score": 1.0, "reasons": ["pre_compact: manual compaction (explicit request)"],
                "inputs": {"handoff_request": 1.0}}
    return {"score": 0.7, "reasons": ["pre_compact: automatic compaction (context full)"],
            "inputs": {"context_pressure": 1.0}}


def _objective_for(runner: Any, session: dict[str, Any] | None, observed: dict[str, Any] | None,
                   label: str) -> str:
    """The session's own objective, else the objective of the handoff it received
    at its start, else a placeholder that says it must be completed."""
    if observed and observed.get("objective"):
        return observed["objective"]
    received = (session or {}).get("receivedBaton")
    doc = runner.get("handoffs", received) if received and "handoffs" in runner.by_name else None
    work = doc.get("work") if isinstance(doc, dict) else None
    if isinstance(work, dict) and isinstance(work.get("objective"), str) and work["objective"].strip():
        return work["objective"]
    from baton.commands.prepare import PLACEHOLDER

    return f"{PLACEHOLDER} what {label} was working towards"


def prepare_before_compaction(project: "Project", session_id: str | None, *, harness: str | None = None,
                              trigger: str | None = None) -> CompactionDraftResult:
    """Capture the session's draft before its context is compacted (once per
    session), and tell the detector what the compaction means
    (``detector_inputs``): its ``detector.recommended`` names the draft and
    lands in the same append as the draft (one batch, all or nothing).

    Raises:
        InputError: no session id, or a malformed one.
        PolicyBlock: a changed file's path was refused by the path policy.
    """
    from baton.commands.capture import capture_in_scope
    from baton.commands.detect import assess, record_recommendation
    from baton.commands.prepare import prepare_handoff

    sid = _session_id(session_id)
    assessed = assess(project, detector_inputs(trigger)["inputs"], session=sid, harness=harness, source="hook")
    runner = project.reading()
    kept = _compaction_draft(runner, sid)
    template = None
    if kept is None:
        prepared = prepare_handoff(project, trigger=HOOK_TRIGGER)  # reads git: outside the lock
        label = f"{harness or 'the'} session {sid}"
        template = dict(prepared.template)
        template["work"] = {**template["work"], "title": f"Work of {label}, before compaction",
                            "objective": _objective_for(runner, runner.get("sessions", sid), prepared.objective,
                                                        label)}
        template["automation"] = {"trigger": HOOK_TRIGGER, **detector_inputs(trigger)}
    elif not assessed.records:
        return CompactionDraftResult(sid, kept, False, trigger)
    with project.writing() as scope, scope.batch():
        # Looked at again under the lock: two hooks of one session compacting
        # at the same moment leave one draft between them.
        now = _compaction_draft(scope.runner, sid)
        created = now is None and template is not None
        draft = capture_in_scope(scope, template, trigger=HOOK_TRIGGER, origin={"harness": harness},
                                 session=sid).handoff_id if created and template is not None else (now or kept)
        assert draft is not None  # no template: a draft was kept
        if assessed.records:
            record_recommendation(scope, assessed, draft)
    return CompactionDraftResult(sid, draft, created, trigger)


def _compaction_draft(runner: Any, sid: str) -> str | None:
    """The id of the draft Baton already prepared for this session (an earlier
    compaction, or a prompt asking for a handoff) and still a draft, or None."""
    kept = open_session_draft(runner, sid)
    return kept["id"] if kept is not None else None


# -- the session ends ------------------------------------------------------------------------

@frozen
class SessionFinishResult:
    session_id: str
    ended: bool
    """False: the session had already ended and nothing new was handed on."""
    baton: str | None
    reason: str | None
    notices: tuple[str, ...] = ()
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"sessionId": self.session_id, "ended": self.ended, "batonHandoffId": self.baton,
                "reason": self.reason, "notices": list(self.notices)}

    def render(self) -> str:
        lines = [f"Session {self.session_id} {'ended' if self.ended else 'had already ended'}."]
        if self.baton:
            lines.append(f"Left a baton for the next session: handoff {self.baton}.")
        lines += list(self.notices)
        return "\n".join(lines)


ATTRIBUTION_HORIZON_HOURS = 12
"""How far back another session's start makes it a rival for a handoff captured
naming no session: one that began longer ago and never reported its end is
taken for a harness that was killed, not for a session still at work."""


def _handoff_to_hand_on(runner: Any, session_id: str, owner: str | None = None) -> tuple[dict | None, str | None]:
    """The newest ready handoff the session wrote that was never a baton (or
    None), and a notice when one was left alone on purpose.

    A handoff names its session when the agent passed ``session_id`` (the
    brief gives it the id) or continues one that does. Else, the session's
    own work is also the newest ready handoff that names no session, was
    captured on the session's branch by its owner while it was open, when
    no other session of that owner on that branch was open then (began
    within ``ATTRIBUTION_HORIZON_HOURS``): an agent that captured over MCP
    without the id. With a rival, it is nobody's: nothing is handed on.
    """
    scoped = "baton_scopes" in runner.by_name
    for doc in session_handoffs(runner, session_id):
        if doc.get("status") != "ready":
            continue
        if scoped and runner.get("baton_scopes", doc["id"]) is not None:
            return None, None  # the session's newest ready handoff is already a baton
        return doc, None
    return _captured_during(runner, session_id, owner)


def _captured_during(runner: Any, session_id: str, owner: str | None) -> tuple[dict | None, str | None]:
    """The newest ready handoff naming no session captured on this session's
    branch by its owner while it was open (see ``_handoff_to_hand_on``)."""
    from datetime import datetime, timedelta

    from baton.projections import handoffs
    from baton.projections.sessions import open_at

    session = runner.get("sessions", session_id) if "sessions" in runner.by_name else None
    if not isinstance(session, dict) or "handoffs" not in runner.by_name:
        return None, None
    began, branch = session.get("beganAt"), session.get("branch")
    if not isinstance(began, str) or not branch or not owner or session.get("owner") != owner:
        return None, None
    if session.get("leftBaton"):  # the agent ended it with a baton of its own (`baton_session` session_end)
        return None, None
    scoped = "baton_scopes" in runner.by_name
    for summary in handoffs.newest(runner.db, limit=SESSION_WINDOW):
        doc = runner.get("handoffs", summary.id)
        if not isinstance(doc, dict) or _origin_session(doc) is not None:
            continue
        created = doc.get("created_at")
        repository = (doc.get("project") or {}).get("repository") or {}
        # No upper bound: Codex reports an end after every turn (``Stop``), and a
        # later turn's handoff is the same session's work.
        if not isinstance(created, str) or _captured_ms(doc["id"], created) < _millis(began):
            continue
        if doc.get("status") != "ready" or repository.get("branch") != branch \
                or doc["id"] == session.get("receivedBaton"):
            continue
        if scoped and runner.get("baton_scopes", doc["id"]) is not None:
            return None, None  # the newest such handoff is a baton already
        try:
            since = (datetime.fromisoformat(created[:19]) - timedelta(hours=ATTRIBUTION_HORIZON_HOURS)).isoformat()
        except ValueError:
            return None, None
        rivals = open_at(runner.db, owner=owner, branch=branch, at=created, since=since, exclude=session_id)
        if rivals:
            return None, (f"Handoff {doc['id']} names no session and was captured while another session on "
                          f"{branch} was open ({', '.join(rivals[:3])}): it was not handed on. Pass `session_id` "
                          "when capturing over MCP.")
        return doc, None
    return None, None


def _millis(stamp: str) -> int:
    """An RFC 3339 UTC timestamp (``…Z``, seconds or finer) as Unix milliseconds (-1 if unreadable)."""
    from datetime import datetime

    try:
        return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return -1


def _captured_ms(handoff_id: str, created_at: str) -> int:
    """When a handoff was captured, to the millisecond: its UUIDv7 id's time
    (``created_at`` keeps only the second), else ``created_at``."""
    from baton.ledger.ids import is_uuid7, uuid7_millis

    return uuid7_millis(handoff_id) if is_uuid7(handoff_id) else _millis(created_at)


def finish_session(project: "Project", session_id: str | None, *, harness: str | None = None,
                   reason: str | None = None) -> SessionFinishResult:
    """End the session, handing on the ready handoff it wrote as a baton.

    The least work that makes the baton durable, first and only: one lock
    hold, one append. ``baton.created`` (when a handoff is handed on), the
    objective cleared and ``session.ended`` are one batch (``end_in_scope``):
    a kill leaves the session either ended with its baton, or neither.

    Raises:
        InputError: no session id, or a malformed one.
    """
    from baton.commands.baton_cases import hand_on_in_scope
    from baton.commands.identity import context_of
    from baton.commands.sessions import end_in_scope

    sid = _session_id(session_id)
    notices: list[str] = []
    here = context_of(project)  # git's identity and branch: read before the lock
    with project.writing() as scope:
        runner = scope.runner
        session = runner.get("sessions", sid)
        ended_before = isinstance(session, dict) and session.get("status") == "ended"
        candidate, withheld = _handoff_to_hand_on(runner, sid, here.owner)
        if withheld:
            notices.append(withheld)
        handed = None
        with scope.batch():
            if candidate is not None:
                try:
                    handed = hand_on_in_scope(scope, candidate["id"], here, session=sid, harness=harness)
                except (Conflict, InputError) as exc:
                    notices.append(f"Handoff {candidate['id']} was not handed on: {exc.message}")
            if ended_before and handed is None:
                return SessionFinishResult(sid, False, None, reason, tuple(notices))
            end_in_scope(scope, sid, None, harness=harness, left=handed)
    return SessionFinishResult(sid, True, handed.record.id if handed else None, reason, tuple(notices))
