"""A session's end is recorded once (tester use16 U6).

Codex reports an end at every turn (``Stop``) and ``baton session end ID`` may
be run twice: the first end records ``session.ended``; a later end of the
ended session records no other (``aggregate.decide_session``) — a later
turn's hand-on is its ``baton.created``, naming the session — and clears no
objective set since (a later session's). ``baton metrics`` counts sessions,
not their events: begun, ended and open agree for any sequence of starts,
ends and turn ends, on the index built as they ran and on a replay of it.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from baton.app import Baton
from baton.commands.context import Project
from baton.commands.objectives import get_session_objective
from baton.domain.aggregates.session import EndSession, decide_session
from baton.domain.session_counts import session_counts
from tests.batons_support import ALICE, append_raw, events
from tests.conftest import run_baton
from tests.handoff_support import git_init, payload
from tests.harness_support import codex_start, codex_stop


def _ready(app: Baton, session: str) -> str:
    handoff_id = app.capture(payload(), session=session).handoff_id
    app.validate(handoff_id)
    app.promote(handoff_id, accept_warnings="tests")
    return handoff_id


def _ended(repo, session):
    return [e for e in events(repo, "session.ended") if e.stream == f"session/{session}"]


def _session_docs(root):
    opened = Project.open(root)
    try:
        return sorted(opened.reading().docs("sessions"))
    finally:
        opened.close()


def _metrics(root):
    with Baton.open(root) as app:
        counts = app.metrics().counts
    return {k: v for k, v in counts.items() if k.startswith("sessions_")}


# -- the decider ----------------------------------------------------------------------------------

def test_the_end_of_a_session_never_seen_or_open_is_recorded():
    end = EndSession("s1", ALICE, "main")
    assert [e.TYPE for e in decide_session(None, end)] == ["session.ended"]
    assert [e.TYPE for e in decide_session({"status": "open", "beganAt": "2026-12-06T10:00:00Z"}, end)] \
        == ["session.ended"]


def test_the_end_of_an_ended_session_records_nothing():
    assert decide_session({"status": "ended", "endedAt": "2026-12-06T10:00:00Z"},
                          EndSession("s1", ALICE, "main", left_baton="0193-later")) == []


# -- Codex: an end at every turn ------------------------------------------------------------------

def test_a_later_codex_turn_that_hands_a_handoff_on_records_no_second_end(repo):
    codex_start(repo, "cx-1")
    codex_stop(repo, "cx-1")
    with Baton.open(repo) as app:
        first = _ready(app, "cx-1")
    assert codex_stop(repo, "cx-1").result.baton == first
    with Baton.open(repo) as app:
        second = _ready(app, "cx-1")
    assert codex_stop(repo, "cx-1").result.baton == second
    assert len(_ended(repo, "cx-1")) == 1
    handed = [e.data.get("session") for e in events(repo, "baton.created")]
    assert handed == ["cx-1", "cx-1"]  # each hand-on is its own record, naming the session


def test_metrics_count_a_codex_session_that_handed_on_at_later_turns_as_one_ended_session(repo):
    codex_start(repo, "cx-1")
    codex_stop(repo, "cx-1")
    for _ in range(2):
        with Baton.open(repo) as app:
            _ready(app, "cx-1")
        codex_stop(repo, "cx-1")
    assert _metrics(repo) == {"sessions_begun": 1, "sessions_ended": 1, "sessions_open": 0,
                              "sessions_start_missed": 0}


def test_a_later_codex_turns_hand_on_leaves_the_objective_of_a_session_begun_since(repo):
    codex_start(repo, "cx-1")
    codex_stop(repo, "cx-1")  # its end: its objective, if any, was cleared then
    with Baton.open(repo) as app:
        begun = app.begin_session(session_id="next", objective="Ship the login page", claim=False)
        handoff_id = _ready(app, "cx-1")
    assert codex_stop(repo, "cx-1").result.baton == handoff_id
    assert events(repo, "objective.cleared") == []
    opened = Project.open(repo)
    try:
        kept = get_session_objective(opened.reading(), begun.context)
    finally:
        opened.close()
    assert kept is not None and kept.objective == "Ship the login page" and kept.session_id == "next"


# -- `baton session end`, run again ---------------------------------------------------------------

def test_session_end_run_twice_records_one_end_and_says_the_session_had_already_ended(project):
    assert run_baton("session", "begin", "e1", cwd=project).returncode == 0
    assert run_baton("session", "end", "e1", cwd=project).returncode == 0
    again = run_baton("session", "end", "e1", cwd=project)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("Session e1 had already ended (at ")
    assert "a session's end is recorded once, and this one recorded no other." in again.stdout
    assert len(_ended(project, "e1")) == 1


def test_session_end_run_twice_answers_already_ended_in_json(project):
    run_baton("session", "end", "e1", cwd=project)
    first_end = _ended(project, "e1")[0].at
    again = json.loads(run_baton("session", "end", "e1", "--json", cwd=project).stdout)
    assert again["ended"] is True and again["alreadyEnded"] is True and again["endedBefore"] == first_end
    assert again["begun"] is False  # said without the "no start was recorded" line: no end was recorded now


def test_metrics_count_a_session_ended_twice_by_the_cli_once(project):
    run_baton("session", "begin", "e1", cwd=project)
    run_baton("session", "end", "e1", cwd=project)
    run_baton("session", "end", "e1", cwd=project)
    assert _metrics(project)["sessions_ended"] == 1


def test_metrics_count_sessions_not_the_ends_an_older_ledger_recorded_again(project):
    run_baton("session", "begin", "e1", cwd=project)
    run_baton("session", "end", "e1", cwd=project)
    append_raw(project, "session.ended", "session/e1", {"session": "e1", "owner": ALICE, "branch": "main"})
    assert _metrics(project) == {"sessions_begun": 1, "sessions_ended": 1, "sessions_open": 0,
                                 "sessions_start_missed": 0}


def test_metrics_count_the_end_of_a_session_whose_start_was_missed_as_such(project):
    run_baton("session", "end", "unseen", cwd=project)
    assert _metrics(project) == {"sessions_begun": 0, "sessions_ended": 1, "sessions_open": 0,
                                 "sessions_start_missed": 1}


def test_session_counts_count_documents_by_their_state():
    docs = [{"status": "open", "beganAt": "t"}, {"status": "ended", "beganAt": "t"}, {"status": "ended"}]
    assert session_counts(docs) == {"sessions_begun": 2, "sessions_ended": 2, "sessions_open": 1,
                                    "sessions_start_missed": 1}


# -- any sequence ---------------------------------------------------------------------------------

SESSIONS = ("a", "b")
STEPS = st.lists(st.tuples(st.sampled_from(("begin", "end", "stop", "ready")), st.sampled_from(SESSIONS)),
                 min_size=1, max_size=7)


def _run(app: Baton, step: str, session: str) -> None:
    if step == "begin":
        app.start_harness_session(session, harness="codex", source="startup")
    elif step == "end":
        app.end_session(session)
    elif step == "stop":
        app.finish_harness_session(session, harness="codex", reason="turn")
    else:
        _ready(app, session)


@pytest.mark.slow
@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(steps=STEPS)
@example(steps=[("begin", "a"), ("stop", "a"), ("ready", "a"), ("stop", "a"), ("end", "a"), ("begin", "a"),
                ("end", "a"), ("stop", "b"), ("end", "b")])
def test_sessions_begun_ended_and_open_agree_for_any_sequence_of_starts_ends_and_turn_ends(steps):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "proj"
        root.mkdir()
        Baton.init(root)
        git_init(root, {"src/app.py": "x = 1\n"})
        with Baton.open(root) as app:
            for step, session in steps:
                _run(app, step, session)
        counted = _metrics(root)
        recorded = [e for e in events(root, "session.") if e.stream.startswith("session/")]
        # an end is recorded once: never twice in a row on a session's stream
        for session in SESSIONS:
            types = [e.type for e in recorded if e.stream == f"session/{session}"]
            assert all(not (x == y == "session.ended") for x, y in zip(types, types[1:])), types
        touched = {s for step, s in steps if step != "ready"}
        begun = {e.stream for e in recorded if e.type == "session.begun"}
        assert counted["sessions_begun"] == len(begun)
        assert counted["sessions_ended"] + counted["sessions_open"] == len(touched)
        assert counted["sessions_begun"] + counted["sessions_start_missed"] == len(touched)
        last = {e.stream: e.type for e in recorded}
        assert counted["sessions_ended"] == Counter(last.values())["session.ended"]
        built = _session_docs(root)
        with Baton.open(root) as app:
            app.rebuild()
        assert _session_docs(root) == built  # a replay folds the sessions the index built as they ran
        assert _metrics(root) == counted
