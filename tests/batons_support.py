"""Small helpers shared by the baton, session and bootstrap tests."""

from __future__ import annotations

from pathlib import Path

from baton.commands.capture import capture_in_scope
from baton.commands.context import Project
from baton.ledger.envelope import EventDraft
from tests.app_support import bootstrap, end_session, show_active_baton

ALICE = "alice@example.com"
BOB = "bob@example.com"


def leave(project: Path, session: str = "s-end", steps=("next step",), *, owner=ALICE, branch="main",
          shared=False, failed=(), questions=()):
    """End a session leaving a baton; returns the baton record (JSON)."""
    payload = {"nextSteps": list(steps), "failedApproaches": list(failed), "openQuestions": list(questions),
               "shared": shared}
    result = end_session(project, session, payload, owner=owner, branch=branch)
    assert result.created is not None
    return result.created.record


def start(project: Path, *, owner=ALICE, branch="main", session=None, max_bytes=8192):
    """A session start through bootstrap; returns the result."""
    return bootstrap(project, owner=owner, branch=branch, session_id=session, max_bytes=max_bytes)


def active(project: Path, *, owner=ALICE, branch="main"):
    return show_active_baton(project, owner=owner, branch=branch).record


def events(project: Path, prefix: str = "") -> list:
    opened = Project.open(project)
    try:
        return [e for e in opened.ledger.read_all() if e.type.startswith(prefix)]
    finally:
        opened.close()


def append_raw(project: Path, event_type: str, stream: str, data: dict) -> None:
    """Append an event the commands would never write (malformed data, orphan references)."""
    opened = Project.open(project)
    try:
        with opened.writing() as scope:
            scope.append([EventDraft(event_type, stream, data)],
                         expected={stream: scope.txn.stream_version(stream)})
    finally:
        opened.close()


def capture_handoff(project: Path, payload: dict) -> str:
    """Capture a draft handoff (not a baton) through the standard command path; returns its id."""
    opened = Project.open(project)
    try:
        with opened.writing() as scope:
            return capture_in_scope(scope, payload).handoff_id
    finally:
        opened.close()
