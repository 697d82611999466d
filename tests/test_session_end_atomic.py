"""A session's end is one append: ``handoff.captured``, ``baton.created``, the
objective cleared and ``session.ended`` land together or not at all
(issue 25 item 3), from ``baton session end`` and from a harness's end hook."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from baton.app import Baton
from baton.projections.sessions import session_doc
from tests.app_support import begin_session, end_session
from tests.batons_support import ALICE, events
from tests.handoff_support import git_init

END_TYPES = {"handoff.captured", "baton.created", "objective.cleared", "session.ended"}


def _batch_of(event):
    return (event.extra or {}).get("batch")


def _end_events(project):
    return [e for e in events(project) if e.type in END_TYPES]


def test_a_session_end_leaving_a_baton_is_one_batch_in_the_feed(project):
    begin_session(project, session_id="s1", owner=ALICE, branch="main", objective="ship the parser")
    before = len(events(project))
    end_session(project, "s1", {"nextSteps": ["finish the parser"]}, owner=ALICE, branch="main")
    written = events(project)[before:]
    types = [e.type for e in written if not e.type.startswith("ledger.")]
    assert set(types) == END_TYPES  # the objective cleared too, in the same write
    batches = {_batch_of(e)["id"] for e in written}
    assert len(batches) == 1 and all(_batch_of(e)["of"] == len(written) for e in written)


def test_the_session_end_result_names_the_baton_as_the_index_holds_it(project):
    ended = end_session(project, "s1", {"nextSteps": ["finish the parser"]}, owner=ALICE, branch="main")
    with Baton.open(project) as app:
        stored = app.project.reading().get("batons", ended.created.record.key)
        session = session_doc(app.project.reading(), app.project.writer, "s1")
    assert stored["current"]["id"] == ended.created.record.id == session["leftBaton"]
    assert ended.created.record.to_json() == stored["current"]


def test_a_failure_after_the_capture_is_decided_leaves_nothing(project, monkeypatch):
    from baton.domain.aggregates import session as aggregate

    real = aggregate.decide_session

    def failing(state, command):
        if isinstance(command, aggregate.EndSession):
            raise RuntimeError("injected failure before session.ended")
        return real(state, command)

    monkeypatch.setattr(aggregate, "decide_session", failing)
    before = events(project)
    with pytest.raises(RuntimeError):
        end_session(project, "s1", {"nextSteps": ["finish the parser"]}, owner=ALICE, branch="main")
    assert [e.id for e in events(project)] == [e.id for e in before]


KILLER = textwrap.dedent("""
    import os, signal, sys
    from baton.ledger import files

    real = files.write_all
    MARKS = (b'"handoff.captured"', b'"baton.created"', b'"session.ended"')

    def killed(fd, data):
        if any(mark in data for mark in MARKS):
            cut = len(data) if sys.argv[2] == "after" else len(data) // 2
            os.write(fd, data[:cut])
            os.kill(os.getpid(), signal.SIGKILL)
        return real(fd, data)

    files.write_all = killed
    from baton.app import Baton

    with Baton.open(sys.argv[1]) as app:
        app.end_session("s-kill", {"nextSteps": ["finish the parser"]}, owner="alice@example.com", branch="main")
""")


@pytest.mark.parametrize("where", ["after", "inside"])
def test_a_session_end_killed_at_its_first_write_leaves_all_or_nothing(project, where):
    begin_session(project, session_id="s-kill", owner=ALICE, branch="main", objective="ship the parser")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", KILLER, str(project), where], env=env, capture_output=True,
                          timeout=120)
    assert done.returncode == -9, done.stderr.decode()
    left = {e.type for e in _end_events(project)}
    if where == "after":  # the whole batch was written before the kill: all of it
        assert left == END_TYPES
    else:  # cut inside the write: none of it
        assert not left
    # Either way the project goes on: the next end of the session is recorded.
    end_session(project, "s-kill", None, owner=ALICE, branch="main")
    assert "session.ended" in {e.type for e in _end_events(project)}


def test_the_end_hook_hands_on_and_ends_the_session_in_one_batch(project):
    from tests.app_support import promote_handoff, validate_handoff_command
    from tests.handoff_support import payload
    from tests.harness_support import fixture, hook

    git_init(project, {"src/app.py": "x = 1\n"})
    hook(project, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.startup", project,
                                                         session_id="s-hook"))
    with Baton.open(project) as app:
        handoff_id = app.capture(payload(), session="s-hook").handoff_id
    validate_handoff_command(project, handoff_id)
    promote_handoff(project, handoff_id, accept_warnings="tests")
    before = len(events(project))
    ended = hook(project, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", project,
                                                               session_id="s-hook"))
    assert ended.result.baton == handoff_id
    written = [e for e in events(project)[before:]]
    assert {"baton.created", "session.ended"} <= {e.type for e in written}
    assert len({_batch_of(e)["id"] for e in written}) == 1
    session_ended = next(e for e in written if e.type == "session.ended")
    assert session_ended.data["left_baton"] == handoff_id


def test_a_batch_decides_each_stream_once_and_writes_nothing_when_refused(project):
    from baton.commands.context import Project
    from baton.ledger.envelope import EventDraft

    opened = Project.open(project)
    try:
        before = len(opened.ledger.read_all())
        with pytest.raises(ValueError, match="decides each stream once"):
            with opened.writing() as scope:
                with scope.batch():
                    scope.append([EventDraft("test.appended", "test/1", {})], expected={"test/1": 0})
                    scope.append([EventDraft("test.appended", "test/1", {})], expected={"test/1": 1})
        assert len(opened.ledger.read_all()) == before
        with opened.writing() as scope:
            with scope.batch() as gathered:
                scope.append([EventDraft("test.appended", "test/1", {})], expected={"test/1": 0})
                scope.append([EventDraft("test.appended", "test/2", {})], expected={"test/2": 0})
                assert opened.ledger.read_all()[before:] == []  # gathered, not yet written
        assert [e.stream for e in gathered.events] == ["test/1", "test/2"]
        assert len({_batch_of(e)["id"] for e in gathered.events}) == 1
    finally:
        opened.close()


# -- and its start: the claim and session.begun ------------------------------------------

START_TYPES = {"baton.claimed", "session.begun", "objective.set"}

BEGIN_KILLER = KILLER.replace("MARKS = (b'\"handoff.captured\"', b'\"baton.created\"', b'\"session.ended\"')",
                              "MARKS = (b'\"baton.claimed\"', b'\"session.begun\"')").replace(
    'app.end_session("s-kill", {"nextSteps": ["finish the parser"]}, owner="alice@example.com", branch="main")',
    'app.begin_session(session_id="s-next", owner="alice@example.com", branch="main", objective="ship it")')


def test_a_session_start_that_claims_a_baton_is_one_batch(project):
    end_session(project, "s1", {"nextSteps": ["finish the parser"]}, owner=ALICE, branch="main")
    before = len(events(project))
    begun = begin_session(project, session_id="s2", owner=ALICE, branch="main", objective="ship the parser")
    assert begun.record is not None and begun.record.status == "claimed"
    written = events(project)[before:]
    assert {e.type for e in written} == START_TYPES
    assert len({_batch_of(e)["id"] for e in written}) == 1


@pytest.mark.parametrize("where", ["after", "inside"])
def test_a_session_start_killed_at_its_first_write_leaves_all_or_nothing(project, where):
    assert "baton.claimed" in BEGIN_KILLER and "begin_session" in BEGIN_KILLER
    end_session(project, "s1", {"nextSteps": ["finish the parser"]}, owner=ALICE, branch="main")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", BEGIN_KILLER, str(project), where], env=env, capture_output=True,
                          timeout=120)
    assert done.returncode == -9, done.stderr.decode()
    left = {e.type for e in events(project) if e.type in START_TYPES}
    assert left == (START_TYPES if where == "after" else set())
    if where == "inside":  # nothing claimed: the baton still waits, for the session's next start
        assert begin_session(project, session_id="s-next", owner=ALICE, branch="main").record is not None
