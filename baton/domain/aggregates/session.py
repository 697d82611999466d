"""The session aggregate (stream ``session/<id>``) and the objective of an
owner and branch (stream ``objective/<owner__branch>``).

A session is its writer's: the clone that records its events (where its
harness and hooks run). Session ids are chosen by people and harnesses, so
teammates pick the same ones (``s2``); a ``session.*`` event of another
writer with the same id is another session, so a session's state is the
document of its writer and id (``session_doc_key``), and each of its events
folds into that of the writer whose feed holds it. One person's two clones
are two places, and a ``--owner`` given at a start does not move a session
to another writer, so a session is never keyed by its owner. The events
themselves are unchanged (their stream is still ``session/<id>``): a ledger
written before replays into the same documents, one writer per id.

A session is begun (with the harness, owner, branch, objective and the baton
it received) and ended, once (with the baton it left; a later end of it records
nothing: ``decide_session``). An objective is set by the
session working on an owner/branch and cleared when that session ends or a
later one begins without one. Whether an objective still counts (its session
must exist and be open) is decided when it is read, not here. The state an
objective command is decided on, and an objective event folds into, is the
document of its exact owner and branch (``objective_doc_key``), not of its
stream: ``feature/x`` and ``feature_x`` share a stream but not an objective.

A session's end, and a session's start without an objective, retire the
objective of its owner and branch: Baton writes ``objective.cleared`` with
them. A ledger written before the names kept their own objectives (the
objectives index's version 1: one document per key) lacks that clear where
the other name's objective held the key's document at the time: the clear was
skipped. So the objective document also folds those two session events
(``retires_objective``): it keeps the merge key of the newest one
(``endedKey``), and an objective set before it (``setKey``) is gone, as it
was on that ledger's own index. On a ledger Baton writes now, the clear came
with the session event and this changes nothing. Folding the newest key
commutes, so the document is the same in any order its session events come
(``STREAM_ORDER``: the objective events still fold in their stream's order).
"""

from __future__ import annotations

from baton.domain.batons import context_key
from baton.domain.unended import taken_for_ended
from baton.events.base import DomainEvent, decode
from baton.events.session import ObjectiveCleared, ObjectiveSet, SessionBegun, SessionEnded, SessionResumed
from baton.ledger.envelope import Event
from baton.values import Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a hook never needs it)
if TYPE_CHECKING:
    from typing import Any


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


# -- sessions ----------------------------------------------------------------------

class BeginSession(Value):
    session: str
    owner: str
    branch: str
    harness: str | None = None
    objective: str | None = None
    received_baton: str | None = None
    harness_process: dict[str, Any] | None = None
    kept_objective: str | None = None
    """The other session whose objective this start without one leaves standing (``keeps_objective``)."""


class EndSession(Value):
    session: str
    owner: str
    branch: str
    harness: str | None = None
    left_baton: str | None = None
    kept_objective: str | None = None
    """The other session whose objective this end leaves standing (``keeps_objective``)."""


class ResumeSession(Value):
    """A started session's repeated start, in the harness process ``harness_process``."""

    session: str
    harness: str | None = None
    harness_process: dict[str, Any] | None = None


def ended_already(state: dict[str, Any] | None) -> bool:
    """Whether the session of ``state`` (its document, None when never seen) is ended: its
    end is recorded and no start since begun it again."""
    return isinstance(state, dict) and state.get("status") == "ended"


def decide_session(state: dict[str, Any] | None,
                   command: BeginSession | EndSession | ResumeSession) -> list[DomainEvent]:
    """A start is recorded whatever came before: a harness may resume a session
    id (it is open again). An end is recorded once: of a session never seen, or
    one open (Baton may have missed its start: hooks installed mid-session); the
    end of a session already ended records nothing — Codex reports an end at
    every turn (``Stop``), and ``session end ID`` may be run twice. What a later
    end hands on is its own record, ``baton.created`` naming the session
    (its ``session``), not another end: a session ends once, as ``metrics``
    counts it. A repeated start (``ResumeSession``) of a started session records the
    harness process it runs in when that is not the one recorded (a conversation
    resumed in another process): the process whose end tells that the session's
    harness is gone (``baton.domain.unended.harness_gone``); nothing otherwise (a
    compaction, a second hook of one start: the same process)."""
    match command:
        case BeginSession():
            return [SessionBegun(key=command.session, session=command.session, harness=command.harness,
                                 owner=command.owner, branch=command.branch, objective=command.objective,
                                 received_baton=command.received_baton, harness_process=command.harness_process,
                                 kept_objective=command.kept_objective)]
        case EndSession():
            if ended_already(state):
                return []
            return [SessionEnded(key=command.session, session=command.session, owner=command.owner,
                                 branch=command.branch, harness=command.harness, left_baton=command.left_baton,
                                 kept_objective=command.kept_objective)]
        case ResumeSession():
            if not isinstance(state, dict) or not state.get("beganAt") \
                    or state.get("harnessProcess") == command.harness_process:
                return []
            return [SessionResumed(key=command.session, session=command.session, harness=command.harness,
                                   harness_process=command.harness_process)]
    raise TypeError(f"not a session command: {command!r}")


def _process(out: dict[str, Any], process: Any) -> None:
    """The harness process a start recorded (Linux), or none."""
    if isinstance(process, dict):
        out["harnessProcess"] = process
    else:
        out.pop("harnessProcess", None)


def initial_session(key: str, writer: str | None = None) -> dict[str, Any]:
    return {"id": key, "writer": writer, "harness": None, "owner": None, "branch": None, "objective": None, "status": "open",
            "beganAt": None, "endedAt": None, "receivedBaton": None, "leftBaton": None}


def evolve_session(state: dict[str, Any] | None, recorded: Event, key: str) -> dict[str, Any]:
    """``key``: the session's id (its stream's key); the document is its writer's (``recorded.writer``)."""
    out = dict(state or initial_session(key, recorded.writer))
    event = decode(recorded)
    if isinstance(event, SessionBegun):
        out.update(status="open", beganAt=recorded.at, endedAt=None, harness=_text(event.harness),
                   owner=_text(event.owner), branch=_text(event.branch), objective=_text(event.objective),
                   receivedBaton=_text(event.received_baton))
        _process(out, event.harness_process)
    elif isinstance(event, SessionResumed):
        _process(out, event.harness_process)
    elif isinstance(event, SessionEnded):
        out.update(status="ended", endedAt=recorded.at, leftBaton=_text(event.left_baton))
        for field, value in (("owner", event.owner), ("branch", event.branch), ("harness", event.harness)):
            if out.get(field) is None:
                out[field] = _text(value)
    return out


# -- objectives ----------------------------------------------------------------------

class SetObjective(Value):
    owner: str
    branch: str
    objective: str
    session: str | None = None


class ClearObjective(Value):
    owner: str
    branch: str
    session: str | None
    reason: str


def decide_objective(state: dict[str, Any] | None, command: SetObjective | ClearObjective,
                     *, key: str) -> list[DomainEvent]:
    """Clearing what is not set here is no event (nor is an objective that
    belongs to another name that merely encodes to the same key)."""
    if state is not None and not isinstance(state.get("objective"), str):
        state = None  # a document that only remembers a session's end (``endedKey``) holds no objective
    match command:
        case SetObjective():
            return [ObjectiveSet(key=key, owner=command.owner, branch=command.branch, objective=command.objective,
                                 session=command.session)]
        case ClearObjective():
            if state is None or state.get("owner") != command.owner or state.get("branch") != command.branch:
                return []
            return [ObjectiveCleared(key=key, owner=command.owner, branch=command.branch, session=command.session,
                                     reason=command.reason, previous_session=state.get("sessionId"))]
    raise TypeError(f"not an objective command: {command!r}")


OBJECTIVE_INDEX_FIELDS = ("setKey", "endedKey")
"""What an objective document keeps for the index's own use (merge keys), not about the objective."""


def retires_objective(event: Any) -> bool:
    """Does this session event end the objective of its owner and branch (a session's end, or a
    session's start without an objective)? Baton writes ``objective.cleared`` with each. Not one
    that kept another session's objective (``kept_objective``: that session was open, ``keeps_objective``):
    Baton wrote no clear with it. An event written before that field has none, and folds as before."""
    if _text(getattr(event, "kept_objective", None)) is not None:
        return False
    return isinstance(event, SessionEnded) or (isinstance(event, SessionBegun) and _text(event.objective) is None)


def objective_holder(objective: dict[str, Any] | None, *, owner: str, branch: str, session: str,
                     writer: str) -> tuple[str, str] | None:
    """The session (``(writer, id)``) that set the objective of ``objective`` (the document of the
    owner ``owner`` and branch ``branch``), when it is another session than ``session`` of the clone
    ``writer``: one whose objective this session's start without one, or its end, may leave standing
    (``keeps_objective``). None when no objective is set there, or it is this session's own."""
    if not isinstance(objective, dict) or _text(objective.get("objective")) is None \
            or objective.get("owner") != owner or objective.get("branch") != branch:
        return None
    sid, by = _text(objective.get("sessionId")), _text(objective.get("sessionWriter"))
    if sid is None or by is None or (by, sid) == (writer, session):
        return None
    return by, sid


def keeps_objective(holder: dict[str, Any] | None, *, now: str, booted: str | None, gone: bool) -> bool:
    """Does the objective another session set (``holder``: that session's document, as
    ``objective_holder`` names it) stand past this session's start without an objective, or its
    end? Yes while that session is open and not taken for ended (``unended.taken_for_ended``, read
    with no handoff readied: the machine restarted since it began — ``booted``, None for another
    clone's session —, its harness process is gone — ``gone`` —, or nothing was heard of it for
    ``UNENDED_HOURS``): two terminals on one branch, and the second never retires the first's
    objective. An objective whose session ended, or never began, is retired as before."""
    if not isinstance(holder, dict) or holder.get("status") != "open" or not _text(holder.get("beganAt")):
        return False
    return taken_for_ended(began=holder.get("beganAt"), readied=None, now=now, booted=booted, gone=gone) is None


if TYPE_CHECKING:
    MergeKey = tuple[Any, ...]
    """An event's ``(hlc, writer, seq)``, as a document keeps it (a list) read back."""


def _merge_key(value: Any) -> MergeKey | None:
    return tuple(value) if isinstance(value, list) and len(value) == 3 else None


def _with_end(objective: dict[str, Any] | None, ended: MergeKey | None,
              names: tuple[str, str, str]) -> dict[str, Any] | None:
    """The document: the objective (unless set before ``ended``), and ``ended``."""
    if objective is not None and ended is not None:
        set_key = _merge_key(objective.get("setKey"))
        if set_key is None or set_key <= ended:
            objective = None
    if objective is None and ended is None:
        return None
    key, owner, branch = names
    doc: dict[str, Any] = dict(objective) if objective is not None else {"key": key, "owner": owner, "branch": branch}
    if ended is not None:
        doc["endedKey"] = list(ended)
    else:
        doc.pop("endedKey", None)
    return doc


def evolve_objective(state: dict[str, Any] | None, recorded: Event, key: str) -> dict[str, Any] | None:
    """``state``: the document of the event's exact owner and branch; ``key``:
    its stream's key (the document's ``key``; of a session event, its names' key)."""
    event = decode(recorded)
    ended = _merge_key(state.get("endedKey")) if isinstance(state, dict) else None
    if isinstance(event, ObjectiveCleared):
        return _with_end(None, ended, (key, _text(event.owner) or "", _text(event.branch) or ""))
    if isinstance(event, ObjectiveSet):
        owner, branch, objective = _text(event.owner), _text(event.branch), _text(event.objective)
        if owner is None or branch is None or objective is None:
            return state
        return _with_end({"key": key, "owner": owner, "branch": branch, "objective": objective,
                          "sessionId": _text(event.session), "sessionWriter": recorded.writer,
                          "updatedAt": recorded.at,
                          "setKey": list(recorded.merge_key)}, ended, (key, owner, branch))
    if isinstance(event, (SessionBegun, SessionEnded)) and retires_objective(event):
        owner, branch = _text(event.owner), _text(event.branch)
        if owner is None or branch is None:
            return state
        mark = recorded.merge_key
        current = state if isinstance(state, dict) and isinstance(state.get("objective"), str) else None
        return _with_end(current, max(mark, ended) if ended is not None else mark,
                         (context_key(owner, branch), owner, branch))
    return state
