"""A harness ends a session (``baton hook HARNESS SessionEnd``, Codex's
``Stop``): end it, handing on the ready handoff it wrote as a baton (see
``harness_start``). The hand-on (``baton_hand_on``) is not imported here: a
session that wrote no handoff to hand on never loads it (``finish_session``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from baton.commands.batons import current_batons
from baton.commands.identity import DETACHED_BRANCH, SessionContext, context_of
from baton.commands.objectives import required_session_id
from baton.commands.session_drafts import (
    SESSION_WINDOW,
    captured_since,
    draft_to_complete,
    parents_of,
    session_handoffs,
)
from baton.commands.sessions import end_in_scope, settled
from baton.domain.batons import CLAIMED, shown_name
from baton.domain.repeated_start import received_baton
from baton.domain.short_ids import short_id
from baton.errors import Conflict, InputError
from baton.ledger.ids import is_uuid7, uuid7_millis
from baton.projections import handoffs
from baton.projections.handoffs import origin_session
from baton.projections.sessions import open_at, session_doc
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any

    from baton.commands.baton_claim import CreatedBaton
    from baton.commands.context import Deferral, Project
    from baton.domain.batons import BatonRecord

HandOnInScope = Callable[..., "CreatedBaton"]
"""``baton_hand_on.hand_on_in_scope``: a handoff handed on as a baton, inside a write scope."""


class EndNotice(Value):
    """What a session's end says it did not do, for the next session start."""

    text: str
    handoff: str | None = None
    """The handoff it is about (its id): it says that handoff was not handed on,
    which a later end that hands it on makes out of date."""
    was: str | None = None
    """The status ``handoff`` had when this end said so (``draft``: the draft
    Baton prepared, unfinished): a session start that finds it changed since
    says what is true now (``Baton.notice_fates``)."""


class SessionFinishResult(Value):
    session_id: str
    ended: bool
    """False: the session had already ended and nothing new was handed on."""
    baton: str | None
    reason: str | None
    told: tuple[EndNotice, ...] = ()
    """What the end says it did not do, each with the handoff it is about."""
    settles: tuple[str, ...] = ()
    """The handoffs this end carried on (the one it handed on, and the session's
    handoffs it continues): a notice left earlier about one of them ("was not handed
    on", ``about``) is out of date (Codex ends a session after every turn: ``Stop``)."""
    exit_code: int = 0
    end: Any = None
    """The end this call recorded (``sessions.SessionEndResult``, its baton the handoff handed
    on), for ``session end`` to answer with; None when it recorded none."""

    @property
    def notices(self) -> tuple[str, ...]:
        """The texts of ``told``."""
        return tuple(notice.text for notice in self.told)

    def to_json(self) -> dict[str, Any]:
        return {"sessionId": self.session_id, "ended": self.ended, "batonHandoffId": self.baton,
                "reason": self.reason, "notices": list(self.notices),
                "noticesAbout": [notice.handoff for notice in self.told], "settles": list(self.settles)}

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


def _handoff_to_hand_on(runner: Any, writer: str, session_id: str,
                        owner: str | None = None) -> tuple[dict | None, list[EndNotice]]:
    """The newest ready handoff the session wrote that was never a baton (or
    None), and notices of those left alone on purpose.

    A handoff names its session when the agent passed ``session_id`` (the
    brief gives it the id) or continues one that does — handed on only when its
    recorded owner (who captured it) is ``owner``, the person ending the session,
    or it recorded none and this clone's feed captured it (an older Baton's
    capture, before owners were recorded): another person's handoff naming this
    session (a teammate's, synced in, or one from another feed that does not say
    whose) is passed over with a notice
    (``_captured_by_another``), and the session's own older one is looked for.
    Else, the session's own work is also the newest ready handoff that names no
    session, was captured by the session's owner (the handoff's own recorded
    owner, not only the person ending the session) while it was open, when no
    other session of that owner could have captured it (``_captured_during``):
    an agent that captured over MCP without the id. With a rival, it is
    nobody's: nothing is handed on, and the notice says so.
    """
    scoped = "baton_scopes" in runner.by_name
    told: list[EndNotice] = []
    ready = [doc for doc in session_handoffs(runner, writer, session_id) if doc.get("status") == "ready"]
    captured_by = handoffs.authors_of(runner.db, [doc["id"] for doc in ready]) if ready else {}
    for doc in ready:
        if scoped and runner.get("baton_scopes", doc["id"]) is not None:
            return None, told  # the session's newest ready handoff is already a baton
        capture_writer, capturer = captured_by.get(doc["id"], ("", ""))
        if capturer != owner and not (not capturer and capture_writer == writer):
            # A capture that recorded no owner (an older Baton's: ``actor`` null)
            # in this clone's own feed is this clone's (``authorship.wrote``).
            told.append(_captured_by_another(doc["id"], session_id, capturer, owner))
            continue
        return doc, told
    during, withheld = _captured_during(runner, writer, session_id, owner)
    if during is None and withheld is None:
        during = _left_under_an_ended_session(runner, writer, session_id, owner)
    return during, told + ([withheld] if withheld else [])


def _left_under_an_ended_session(runner: Any, writer: str, session_id: str, owner: str | None) -> dict | None:
    """For a session Baton never saw begin (Codex's ``exec fork``: no SessionStart, the
    fork's agent sees only its parent's brief and passes the parent's id), the newest
    ready handoff of ``owner`` and this clone naming another session that had already
    ended when it was captured: that session's end is over and will hand nothing on, so
    the conversation ending now — one that continues it under an id of its own — does.
    None when the newest such handoff is a baton already (the fork's earlier end, or the
    parent's own later turn, handed it on), or there is none."""
    if not owner or "sessions" not in runner.by_name or "handoffs" not in runner.by_name:
        return None
    session = session_doc(runner, writer, session_id)
    if isinstance(session, dict) and session.get("beganAt"):
        return None  # a session with a brief of its own names its own id
    scoped = "baton_scopes" in runner.by_name
    for summary in handoffs.newest(runner.db, status="ready", limit=SESSION_WINDOW):
        if summary.owner != owner or summary.writer != writer:
            continue
        doc = runner.get("handoffs", summary.id)
        named = origin_session(doc) if isinstance(doc, dict) else None
        if named is None or named == session_id or doc.get("status") != "ready":
            continue
        parent = session_doc(runner, writer, named)
        ended = parent.get("endedAt") if isinstance(parent, dict) else None
        created = doc.get("created_at")
        if not isinstance(ended, str) or not isinstance(created, str) \
                or _captured_ms(doc["id"], created) <= _millis(ended):
            continue
        if scoped and runner.get("baton_scopes", doc["id"]) is not None:
            return None
        return doc
    return None


def _captured_by_another(handoff_id: str, session_id: str, capturer: str, owner: str | None) -> EndNotice:
    """Why a ready handoff naming the session was not handed on: another person captured it."""
    by = shown_name(capturer) if capturer else "an owner the ledger does not record"
    return EndNotice(f"Handoff {handoff_id} names session {session_id} but was captured by {by}, not by "
                     f"{shown_name(owner) if owner else 'the owner ending it'}: it was not handed on as this session's baton (only a "
                     f"handoff its owner captured is); read it with `baton resume {short_id(handoff_id)}`.",
                     handoff_id, "ready")


def _captured_during(runner: Any, writer: str, session_id: str,
                     owner: str | None) -> tuple[dict | None, EndNotice | None]:
    """The newest ready handoff naming no session captured by the session's owner
    while it was open, on the session's branch — or on another one, the session
    having switched branch (``git checkout -b``, often an agent's first action)
    — that no other session could have captured (see ``_handoff_to_hand_on``).

    On the session's branch, a rival is another session of the owner open on that
    branch when it was captured (began within ``ATTRIBUTION_HORIZON_HOURS``). On
    another branch, a handoff is left to a session of the owner open on *that*
    branch then (its own branch's capture), and a rival is any other session of
    the owner open then, on any branch (it may have switched as well)."""
    session = session_doc(runner, writer, session_id) if "sessions" in runner.by_name else None
    if not isinstance(session, dict) or "handoffs" not in runner.by_name:
        return None, None
    began, branch = session.get("beganAt"), session.get("branch")
    if not isinstance(began, str) or not branch or not owner or session.get("owner") != owner:
        return None, None
    if session.get("leftBaton"):  # the agent ended it with a baton of its own (`baton_session` session_end)
        return None, None
    scoped = "baton_scopes" in runner.by_name
    # Only those created since the session began can be (``captured_since``: a cheap bound, the test is below).
    for summary in handoffs.newest(runner.db, limit=SESSION_WINDOW, since=captured_since(session)):
        if summary.owner != owner or summary.writer != writer:  # another person's or clone's capture (or one
            continue  # that does not say whose) is not handed on
        doc = runner.get("handoffs", summary.id)
        if not isinstance(doc, dict) or origin_session(doc) is not None:
            continue
        created = doc.get("created_at")
        repository = (doc.get("project") or {}).get("repository") or {}
        captured_on = repository.get("branch")
        if not captured_on and repository.get("head"):  # in git with no branch: on a detached HEAD
            captured_on = DETACHED_BRANCH
        # No upper bound: Codex reports an end after every turn (``Stop``), and a
        # later turn's handoff is the same session's work.
        if not isinstance(created, str) or _captured_ms(doc["id"], created) < _millis(began):
            continue
        if doc.get("status") != "ready" or not isinstance(captured_on, str) or not captured_on \
                or doc["id"] == session.get("receivedBaton"):
            continue
        try:
            since = (datetime.fromisoformat(created[:19]) - timedelta(hours=ATTRIBUTION_HORIZON_HOURS)).isoformat()
        except ValueError:
            return None, None
        switched = captured_on != branch
        if switched and open_at(runner.db, owner=owner, branch=captured_on, at=created, since=since,
                                exclude=session_id):
            continue  # a session at work on that branch captured it: its end hands it on
        if scoped and runner.get("baton_scopes", doc["id"]) is not None:
            return None, None  # the newest such handoff is a baton already
        rivals = open_at(runner.db, owner=owner, branch=None if switched else branch, at=created, since=since,
                         exclude=session_id)
        if rivals and switched:
            return None, EndNotice(f"Handoff {doc['id']} names no session and was captured on {captured_on}, "
                                   f"after this session (begun on {branch}) switched branch, while other sessions "
                                   f"were open ({', '.join(rivals[:3])}): it was not handed on (still ready: it can be "
                                   f"handed on from {captured_on}). Pass `session_id` when capturing over MCP.",
                                   doc["id"], "ready")
        if rivals:
            return None, EndNotice(f"Handoff {doc['id']} names no session and was captured while another session "
                                   f"on {branch} was open ({', '.join(rivals[:3])}): it was not handed on. Pass "
                                   "`session_id` when capturing over MCP.", doc["id"], "ready")
        return doc, None
    return None, None


def _branch_of(candidate: dict | None, session: Any) -> str | None:
    """The branch a handoff to hand on is keyed to: the one it was captured on,
    else the one its session began on (None: the branch this end runs on)."""
    if candidate is None:
        return None
    captured_on = ((candidate.get("project") or {}).get("repository") or {}).get("branch")
    if isinstance(captured_on, str) and captured_on:
        return captured_on
    began_on = session.get("branch") if isinstance(session, dict) else None
    return began_on if isinstance(began_on, str) and began_on else None


def _unfinished_draft(runner: Any, writer: str, sid: str) -> list[EndNotice]:
    """What to tell the next session when this one ends with nothing to hand on but the
    draft Baton prepared for it (the person asked for a handoff, or the context was
    compacted) still a draft: the handoff that was asked for is not lost without a word."""
    left = draft_to_complete(runner, writer, sid)
    if left is None or _saved_before_automatic_compaction(runner.get("handoffs", left[0])):
        return []
    draft = short_id(left[0])
    return [EndNotice(f"Handoff {draft} was not handed on: the session ended with the draft Baton prepared for "
                      f"it unfinished; `baton handoff show {draft}` has what it holds: complete it (`baton handoff "
                      f"amend {draft}`), validate it and make it ready", left[0], "draft")]


def _left_at_its_end(session: Any, candidate: dict | None) -> bool:
    """Whether ``candidate``, a ready handoff a later end of the ended ``session`` would
    hand on, was captured before that session's end, which left a baton (``leftBaton``):
    that end handed it on, or left a baton of the session's own instead of it (pointing
    to it: ``sessions.left_behind``). Either way a repeated end (the harness's
    ``SessionEnd`` after the agent's ``session end``, Codex's ``Stop`` after each turn)
    neither hands it on nor supersedes that baton; only a handoff captured since the
    end (a later Codex turn's) is handed on by it."""
    if candidate is None or not isinstance(session, dict) or not session.get("leftBaton"):
        return False
    ended, created = session.get("endedAt"), candidate.get("created_at")
    if not isinstance(ended, str) or not isinstance(created, str):
        return False
    return _captured_ms(candidate["id"], created) <= _millis(ended)


def _validated_not_ready(runner: Any, writer: str, sid: str, said: set[str | None]) -> list[EndNotice]:
    """The session's newest own handoff left validated, not made ready (the "forgot
    ``handoff ready``" slip): named at its end, as an unfinished prepared draft is,
    so the session's last state is not dropped from the relay without a word — also
    when an older ready handoff of the session is handed on instead (stale work)."""
    for doc in session_handoffs(runner, writer, sid):
        if doc.get("status") == "ready":
            return []  # a later ready one is the session's work; this end would have handed it on
        if doc.get("status") == "validated" and doc["id"] not in said:
            left = short_id(doc["id"])
            return [EndNotice(f"Handoff {left} was not handed on: the session ended with it validated but not "
                              f"ready; `baton handoff show {left}` reads it; make it ready (`baton handoff ready "
                              f"{left}`), then hand it on (`session handoff` with `from` {left})", doc["id"],
                              "validated")]
    return []


def own_ready_handoff(project: "Project", session_id: str) -> dict | None:
    """The session's own ready handoff an end would hand on (``_handoff_to_hand_on``),
    or None: read, for an end that leaves a baton of its own instead to point to it."""
    runner = project.reading()
    if "handoffs" not in runner.by_name:
        return None
    candidate, _ = _handoff_to_hand_on(runner, project.writer, session_id, context_of(project).owner)
    return candidate


def _saved_before_automatic_compaction(doc: Any) -> bool:
    """Whether ``doc`` is a draft Baton saved defensively before an *automatic* compaction
    (the harness found the context full: ``harness_compaction.detector_inputs``), which
    nobody asked for: a session that carried on and ended normally did not fail to hand it
    on, so the next session is not told to complete it (tester harness15 G8). A manual
    compaction or a person's request is one, and is still told."""
    automation = doc.get("automation") if isinstance(doc, dict) else None
    inputs = automation.get("inputs") if isinstance(automation, dict) else None
    return isinstance(inputs, dict) and bool(inputs.get("context_pressure")) and not inputs.get("handoff_request")


def _carried(runner: Any, writer: str, sid: str, handed: str) -> tuple[str, ...]:
    """``handed`` and the handoffs of the session it continues (its draft, completed
    over MCP as a child): what a notice left at an earlier end may have named."""
    parents = {doc["id"]: parents_of(doc) for doc in session_handoffs(runner, writer, sid)}
    doc = runner.get("handoffs", handed)
    carried, frontier = [handed], list(parents_of(doc) if isinstance(doc, dict) else [])
    while frontier:
        parent = frontier.pop()
        if parent in parents and parent not in carried:
            carried.append(parent)
            frontier += parents[parent]
    return tuple(carried)


def _millis(stamp: str) -> int:
    """An RFC 3339 UTC timestamp (``…Z``, seconds or finer) as Unix milliseconds (-1 if unreadable)."""
    try:
        return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return -1


def _captured_ms(handoff_id: str, created_at: str) -> int:
    """When a handoff was captured, to the millisecond: its UUIDv7 id's time
    (``created_at`` keeps only the second), else ``created_at``."""
    return uuid7_millis(handoff_id) if is_uuid7(handoff_id) else _millis(created_at)


def begun_here(project: "Project", session_id: str | None) -> bool:
    """Whether this clone recorded session ``session_id``'s start in ``project`` (its document in the
    ``sessions`` projection): what a hook that found the project only above a session folder that is
    gone asks before it records anything there (a project moved away from inside this one is not this one)."""
    if not session_id or not session_id.strip():
        return False
    runner = project.reading()
    return "sessions" in runner.by_name and session_doc(runner, project.writer, session_id.strip()) is not None


def finish_session(project: "Project", session_id: str | None, *, harness: str | None = None,
                   reason: str | None = None, hand_on_in_scope: HandOnInScope | None = None,
                   deferral: "Deferral | None" = None, unprompted: bool = False, owner: str | None = None,
                   branch: str | None = None, shared: bool = False) -> SessionFinishResult | None:
    """End the session, handing on the ready handoff it wrote as a baton
    (with ``hand_on_in_scope``; without it, None and nothing written when
    there is one: the application then loads the hand-on and calls again).
    ``owner``, ``branch``, ``shared``: that baton's scope, each when given (``session end
    --shared``); the handoff is the session's own all the same (its owner's, the person ending it).
    ``deferral``: a hook's, kept should its catch-up be handed on (``Project.behind``).
    ``unprompted``: the session's start claimed a baton and the session made no request since
    (``baton.harnesses.hook_project.leave_mark``): a session that readied nothing hands that baton on again,
    for the next session, when it is still the one this session claimed (``claimed_unprompted``).

    The least work that makes the baton durable, first and only: one lock
    hold, one append. ``baton.created`` (when a handoff is handed on), the
    objective cleared and ``session.ended`` are one batch (``end_in_scope``):
    a kill leaves the session either ended with its baton, or neither.

    Raises:
        InputError: no session id, or a malformed one.
    """
    sid = required_session_id(session_id)
    notices: list[EndNotice] = []
    here = context_of(project)  # git's identity and branch: read before the lock
    given = context_of(project, owner=owner, branch=branch) if owner or branch else None
    with project.writing(deferral=deferral) as scope:
        runner = scope.runner
        session = session_doc(runner, project.writer, sid)
        ended_before = isinstance(session, dict) and session.get("status") == "ended"
        candidate, withheld = _handoff_to_hand_on(runner, project.writer, sid, here.owner)
        if ended_before and _left_at_its_end(session, candidate):
            candidate = None  # that end left a baton instead of it, on purpose: the baton is kept
        key_branch = _branch_of(candidate, session)
        if candidate is not None and key_branch and key_branch != here.branch:
            # the baton is the branch the handoff was captured on (the session's, or the one it switched to:
            # ``git checkout -b``), wherever this end runs (a kept end run from the main worktree once the
            # session's linked worktree was removed; a session that switched back before it ended)
            here = SessionContext(owner=here.owner, branch=key_branch)
        to = _scoped(here, given, owner, branch)
        again = claimed_unprompted(runner, session, sid) \
            if unprompted and candidate is None and not withheld and not ended_before else None
        if (candidate is not None or again is not None) and hand_on_in_scope is None:
            return None
        notices += withheld
        if not withheld and not ended_before:
            if candidate is None:
                notices += _unfinished_draft(runner, project.writer, sid)
            notices += _validated_not_ready(runner, project.writer, sid, {n.handoff for n in notices})
        handed = None
        with scope.batch():
            if candidate is not None and hand_on_in_scope is not None:
                try:
                    handed = hand_on_in_scope(scope, candidate["id"], to, shared=shared, session=sid,
                                              harness=harness)
                except (Conflict, InputError) as exc:
                    notices.append(EndNotice(f"Handoff {candidate['id']} was not handed on: {exc.message}",
                                             candidate["id"], "ready"))
            elif again is not None and hand_on_in_scope is not None:
                try:
                    handed = hand_on_in_scope(scope, again.id, SessionContext(owner=again.owner, branch=again.branch),
                                              shared=again.shared, session=sid, harness=harness, reason=UNPROMPTED)
                except (Conflict, InputError) as exc:
                    notices.append(EndNotice(f"Baton {again.id}, which this session claimed before any request, "
                                             f"was not handed on again: {exc.message}", again.id))
            if ended_before and handed is None:
                return SessionFinishResult(sid, False, None, reason, tuple(notices))
            end = end_in_scope(scope, sid, None, harness=harness, left=handed)
        settles = _carried(runner, project.writer, sid, handed.record.id) if handed else ()
        end = settled(scope, end)
    return SessionFinishResult(sid, True, handed.record.id if handed else None, reason, tuple(notices),
                               settles=settles, end=end)


def _scoped(here: SessionContext, given: SessionContext | None, owner: str | None,
            branch: str | None) -> SessionContext:
    """The owner and branch a handed-on baton is for: ``here`` (the session's owner, on the branch its
    handoff was captured on), with the ``owner`` and ``branch`` given (``given``) in their place."""
    if given is None:
        return here
    return SessionContext(owner=given.owner if owner else here.owner, branch=given.branch if branch else here.branch)


UNPROMPTED = "unprompted"
"""``baton.created``'s ``reason`` for a baton handed on again by the end of the session that claimed
it before any request (its brief reached no model)."""


def claimed_unprompted(runner: Any, session: dict[str, Any] | None, sid: str) -> "BatonRecord | None":
    """The baton session ``sid`` received at its start (``receivedBaton``), when it is still its key's
    current baton and claimed by ``sid``: nothing newer on that key, not handed on again already (by
    an earlier end of the session, or ``session handoff --from``), so handing it on again gives it to
    one more session, once. None otherwise."""
    received = received_baton(session)
    if received is None or "batons" not in runner.by_name:
        return None
    for peek in current_batons(runner):
        record = peek.record
        if record.id == received:
            return record if record.status == CLAIMED and record.claimed_by_session == sid else None
    return None
