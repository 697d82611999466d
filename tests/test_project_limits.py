"""How long a process waits for the ledger lock (``Limits``) is given when a
project is opened, or to one step, and never changed on the opened project:
two callers of one long-lived project (the MCP server's tools, a session
start that runs kept hooks first) cannot see each other's wait."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from baton.app import Baton, Limits
from baton.commands import harness_start
from baton.commands.bootstrap import begin
from baton.errors import LedgerBusy
from baton.project import ProjectPaths


def test_a_project_keeps_the_limits_it_was_opened_with(project):
    with Baton.open(project, limits=Limits(write_wait=1.5, read_wait=0.0, fold_limit=4096)) as app:
        assert (app.project.write_wait, app.project.read_wait, app.project.fold_limit) == (1.5, 0.0, 4096)
        with pytest.raises(AttributeError):
            app.project.write_wait = 0  # type: ignore[misc]
        with pytest.raises(AttributeError):  # a value (a named tuple): immutable
            app.project.limits.write_wait = 0  # type: ignore[misc]


def test_a_project_opened_without_limits_waits_as_long_as_it_takes(project):
    with Baton.open(project) as app:
        assert app.project.limits == Limits(write_wait=None, read_wait=None, fold_limit=None)


def test_a_start_after_a_kept_hook_met_the_lock_gives_its_own_steps_no_wait_and_leaves_the_projects(
        project, monkeypatch):
    """The start's writing steps get a wait of 0 (the kept hook already waited);
    meanwhile the project, which other callers share, still has the wait it was opened with."""
    seen: list[tuple[float | None, Limits | None]] = []
    real = harness_start.start_session

    def start_session(opened, *args, limits=None, **kwargs):
        seen.append((opened.write_wait, limits))
        return real(opened, *args, limits=limits, **kwargs)

    monkeypatch.setattr(harness_start, "start_session", start_session)
    monkeypatch.setattr(ProjectPaths, "hooks_waiting", lambda paths: True)
    with Baton.open(project, limits=Limits(write_wait=3.0, read_wait=0.0)) as app:
        busy = SimpleNamespace(busy=True, error="the ledger stayed locked by another process for 3 s")
        monkeypatch.setattr(app, "run_deferred_hooks", lambda: (busy,))
        started = app.start_harness_session("s-limits", harness="claude-code")
        assert app.project.write_wait == 3.0
    [(project_wait, given)] = seen
    assert project_wait == 3.0
    assert given == Limits(write_wait=0, read_wait=0.0)
    assert started.kept == (busy,)


def test_a_start_with_no_kept_hook_held_up_writes_with_the_projects_limits(project, monkeypatch):
    seen: list[Limits | None] = []
    real = harness_start.start_session

    def start_session(opened, *args, limits=None, **kwargs):
        seen.append(limits)
        return real(opened, *args, limits=limits, **kwargs)

    monkeypatch.setattr(harness_start, "start_session", start_session)
    with Baton.open(project, limits=Limits(write_wait=3.0)) as app:
        started = app.start_harness_session("s-limits", harness="claude-code")
    assert seen == [None] and started.delivered is not None and started.delivered.held_up is None


def test_a_start_held_up_by_the_lock_says_why_without_the_advice_to_try_again(project):
    """A hook's start delivers its brief anyway: it says what held it up, not to try again."""
    with Baton.open(project) as app:
        start = begin(app.project, session_id="s-held")
        held = start.held_up(LedgerBusy("the ledger stayed locked by another process for 4 s",
                                        advice=LedgerBusy.TRY_AGAIN))
    assert held.held_up == "the ledger stayed locked by another process for 4 s"
    said = harness_start.SessionStartResult("s-held", "claude-code", None, repeated=False, delivered=held).held_up
    assert said is not None and said.startswith("the ledger stayed locked by another process for 4 s; the brief")
    assert LedgerBusy.TRY_AGAIN not in said
