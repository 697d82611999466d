"""Objectives on a ledger written before names that share a key kept their own (objectives 1).

Before, the objectives index kept one document per key: ``feature/x`` and
``feature_x`` (``/`` is stored as ``_``) shared one, and a session's end, or a
later start without an objective, cleared the objective only when the key's
document was its own name's. When the other name had set one since, the clear
was skipped: no ``objective.cleared`` was written. Replayed one document per
exact name, such a ledger brought the old objective back — into the brief of a
session that began without one, and as an "earlier objective cleared" at the
next start. The ledgers here are written as that code wrote them, with the
real event types; then the index is built from them, as an upgrade does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from baton.commands.context import Project
from baton.domain.batons import context_key, objective_doc_key
from baton.events.session import ObjectiveCleared, ObjectiveSet, SessionBegun, SessionEnded
from baton.ledger.envelope import Event, seal
from baton.projections.folds.sessions import Objectives
from tests.batons_support import ALICE
from tests.cli_support import run, run_json

UNDERSCORE, SLASH = "feat_x", "feat/x"
KEY = context_key(ALICE, UNDERSCORE)
assert KEY == context_key(ALICE, SLASH)


def _written_by_the_old_code(project: Path, *batches: list) -> None:
    """Append each batch of events in one append, as a command of the old code did."""
    opened = Project.open(project)
    try:
        for batch in batches:
            with opened.writing() as scope:
                drafts = [event.draft(actor=ALICE, session=getattr(event, "session", None)) for event in batch]
                scope.append(drafts, expected={d.stream: scope.txn.stream_version(d.stream) for d in drafts})
        opened.runner.rebuild()  # the upgrade: the index built again from the ledger
    finally:
        opened.close()


def _begin(session: str, branch: str, objective: str | None = None) -> list:
    began = SessionBegun(key=session, session=session, owner=ALICE, branch=branch, objective=objective)
    if objective is None:
        return [began]
    return [began, ObjectiveSet(key=KEY, owner=ALICE, branch=branch, objective=objective, session=session)]


def _end(session: str, branch: str, *, cleared: bool) -> list:
    clear = [ObjectiveCleared(key=KEY, owner=ALICE, branch=branch, session=session, reason="session_end",
                              previous_session=session)] if cleared else []
    return [*clear, SessionEnded(key=session, session=session, owner=ALICE, branch=branch)]


def _objective_events(capsys, project: Path) -> list[str]:
    code, out, err = run(capsys, project, "log", "--type", "objective.*", "--json")
    assert code == 0, err
    return [line for line in out.splitlines() if line.strip()]


def test_an_objective_whose_clear_was_skipped_at_its_sessions_end_is_not_cleared_again_at_the_next_start(
        project, capsys):
    # s1 sets an objective on feat_x; s2 sets one on feat/x (the shared document was s2's from then on);
    # s1 ends: its clear was skipped; s2 ends, clearing its own.
    _written_by_the_old_code(project, _begin("s1", UNDERSCORE, "Underscore goal"), _begin("s2", SLASH, "Slash goal"),
                             _end("s1", UNDERSCORE, cleared=False), _end("s2", SLASH, cleared=True))
    written = _objective_events(capsys, project)

    code, out, err = run(capsys, project, "session", "begin", "--session-id", "s3", "--owner", ALICE,
                         "--branch", UNDERSCORE)

    assert code == 0, err
    assert "objective" not in out.lower()  # no "earlier session objective … was cleared"
    assert _objective_events(capsys, project) == written  # nothing cleared: nothing was set
    again = run_json(capsys, project, "session", "begin", "--session-id", "s4", "--owner", ALICE,
                     "--branch", UNDERSCORE)
    assert again["objectiveCleared"] is False


def test_an_objective_whose_clear_was_skipped_at_a_later_start_is_not_in_that_starts_brief(project, capsys):
    # s1 sets an objective on feat_x and stays open; s2 sets one on feat/x; s3 begins on feat_x without
    # one: the old code's clear of the stale objective was skipped (the document was feat/x's).
    _written_by_the_old_code(project, _begin("s1", UNDERSCORE, "Underscore goal"), _begin("s2", SLASH, "Slash goal"),
                             _begin("s3", UNDERSCORE))

    brief = run_json(capsys, project, "bootstrap", "--session-id", "s3", "--owner", ALICE, "--branch", UNDERSCORE)

    assert brief["sessionObjective"] is None
    assert "Underscore goal" not in brief["brief"]
    slash = run_json(capsys, project, "bootstrap", "--session-id", "s2", "--owner", ALICE, "--branch", SLASH)
    assert slash["sessionObjective"]["objective"] == "Slash goal"


def test_audit_counts_no_objective_a_skipped_clear_left_behind(project, capsys):
    _written_by_the_old_code(project, _begin("s1", UNDERSCORE, "Underscore goal"), _begin("s2", SLASH, "Slash goal"),
                             _end("s1", UNDERSCORE, cleared=False), _end("s2", SLASH, cleared=True))
    audited = run_json(capsys, project, "audit")
    assert audited["records"]["objectives"] == 0
    assert audited["fields"]["objectives"] == {}


# -- the fold: the same document in any order its session events arrive ------------------------------

def _sealed(event, hlc: int) -> Event:
    return seal(event.draft(), event_id=f"{hlc:036d}", writer="w", seq=hlc, at="2026-12-05T19:00:00.000000Z",
                hlc=hlc, stream_version=1, prev=None)


_KINDS = st.sampled_from(["set", "cleared", "ended", "begun", "begun with objective"])


def _event_of(kind: str, n: int):
    if kind == "set":
        return ObjectiveSet(key=KEY, owner=ALICE, branch=UNDERSCORE, objective=f"goal {n}", session=f"s{n}")
    if kind == "cleared":
        return ObjectiveCleared(key=KEY, owner=ALICE, branch=UNDERSCORE, session=f"s{n}", reason="session_end")
    if kind == "ended":
        return SessionEnded(key=f"s{n}", session=f"s{n}", owner=ALICE, branch=UNDERSCORE)
    return SessionBegun(key=f"s{n}", session=f"s{n}", owner=ALICE, branch=UNDERSCORE,
                        objective=f"goal {n}" if kind == "begun with objective" else None)


def _fold(events: list[Event]) -> Any:
    projection, doc_key, doc = Objectives(), objective_doc_key(ALICE, UNDERSCORE), None
    for event in events:
        if doc_key in projection.keys(event):
            doc = projection.apply(doc_key, doc, event)
    return doc


@given(kinds=st.lists(_KINDS, min_size=1, max_size=10), data=st.data())
def test_an_objective_document_is_the_same_whatever_order_its_session_events_arrive_in(kinds, data):
    """Its objective events fold in their stream's order (``STREAM_ORDER``); a session event may
    arrive late (another clone's feed, after ``baton sync``) and still fold without a replay."""
    events = [_sealed(_event_of(kind, n), hlc=n + 1) for n, kind in enumerate(kinds)]
    in_order = _fold(events)
    arrived = [e for e in events if e.type.startswith("objective.")]  # in their stream's order
    session_events = data.draw(st.permutations([e for e in events if e.type.startswith("session.")]))
    for event in session_events:  # each session event lands anywhere among the objective events
        at = data.draw(st.integers(0, len(arrived)))
        arrived = arrived[:at] + [event] + arrived[at:]
    assert _fold(arrived) == in_order
