"""A session's handoffs, as a harness's hooks look for them: those it
captured, those that continue them, and the draft Baton prepared for it
that is still open (see ``harness_start``).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from baton.projections import handoffs
from baton.projections.handoffs import origin_session
from baton.projections.sessions import session_doc

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any

SESSION_WINDOW = 50
"""How many of the newest handoffs are searched for the ones a session captured:
a session's handoffs are recent, and a hook must not read the whole project."""


def session_handoffs(runner: Any, writer: str, session_id: str) -> list[dict[str, Any]]:
    """The handoffs of the session ``session_id`` of the clone ``writer`` (captured
    by that clone: a teammate's session of the same id is another session),
    newest first (among the newest ``SESSION_WINDOW``
    captured since it began, when it reported its start: ``captured_since``).

    Those it captured, and those captured naming no session that continue one
    of them or the baton the session received at its start: an agent
    completing its session's draft over MCP (which has no amend), or carrying
    on the handoff it was given, captures a child with ``parent`` set, and
    knows no session id to give it. The child is that session's work all the
    same.
    """
    if "handoffs" not in runner.by_name:
        return []
    session = session_doc(runner, writer, session_id) if "sessions" in runner.by_name else None
    window = handoffs.newest(runner.db, limit=SESSION_WINDOW, since=captured_since(session))
    docs = [doc for doc in (runner.get("handoffs", summary.id) for summary in window if summary.writer == writer)
            if isinstance(doc, dict)]
    mine = {doc["id"] for doc in docs if origin_session(doc) == session_id}
    # What the session works from: its own handoffs, and the baton it received
    # at its start (continuing that one over MCP names no session either).
    received = session.get("receivedBaton") if isinstance(session, dict) else None
    sources = mine | ({received} if isinstance(received, str) and received else set())
    for doc in reversed(docs):  # oldest first: a continuation of a continuation is found too
        if origin_session(doc) is None and sources.intersection(parents_of(doc)) and doc["id"] != received:
            mine.add(doc["id"])
            sources.add(doc["id"])
    return [doc for doc in docs if doc["id"] in mine]


CLOCK_SLACK = timedelta(minutes=5)
"""How much earlier than its session's start a handoff the session captured may
say it was created: a wall clock set back a little between the two (NTP) must
not hide the session's work."""


def captured_since(session: Any) -> str | None:
    """A lower bound of when a session captured anything: its ``beganAt`` less
    ``CLOCK_SLACK``, to the second, as ``created_at`` compares (None when it
    never reported its start). Its handoffs are looked for among those created
    since: at the end of a session that captured nothing, no record is read."""
    began = session.get("beganAt") if isinstance(session, dict) else None
    if not isinstance(began, str):
        return None
    try:
        start = datetime.fromisoformat(began[:19])
    except ValueError:
        return None
    return (start - CLOCK_SLACK).strftime("%Y-%m-%dT%H:%M:%S")


def open_session_draft(runner: Any, writer: str, session: str | None) -> dict[str, Any] | None:
    """The newest draft Baton prepared for this session (a detector's request or
    a compaction) that is still a draft and that no handoff continues, or
    None: a session asking for a handoff again is pointed at the draft it
    has, not given another."""
    if not session:
        return None
    docs = session_handoffs(runner, writer, session)
    continued = {parent for doc in docs for parent in parents_of(doc)}
    for doc in docs:
        if (doc.get("status") == "draft" and (doc.get("automation") or {}).get("trigger")
                and doc["id"] not in continued):
            return doc
    return None


def draft_to_complete(runner: Any, writer: str, sid: str) -> tuple[str, tuple[str, ...]] | None:
    """The session's open draft (the one Baton saved before a compaction, or the
    draft continuing it) and its fields still to complete, or None."""
    draft = open_session_draft(runner, writer, sid)
    if draft is None:
        return None
    # ``__import__``, as ``baton.policy``'s trust rules: what a draft still lacks is
    # read only when the session has a draft open, never at a steady end or start.
    fields = __import__("baton.commands.draft_fields", fromlist=["still_to_complete"])
    return draft["id"], fields.still_to_complete(draft)


def parents_of(doc: dict[str, Any]) -> list[str]:
    lineage = doc.get("lineage")
    parents = lineage.get("parents") if isinstance(lineage, dict) else None
    return [p for p in parents if isinstance(p, str)] if isinstance(parents, list) else []
