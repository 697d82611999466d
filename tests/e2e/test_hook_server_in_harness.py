"""Baton's hooks in real Claude Code go through the hook server once it runs
(docs/hooks.md, "The hook server"): the first session's hook starts it, the
next session's hooks are children of it, and the session is the same as with
every hook in its own process — its brief, its ledger."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.e2e.common import RUNTIME, ledger_events
from tests.e2e.test_claude_code import claude, env, model, project, session  # noqa: F401 - fixtures, shared
from tests.e2e.test_failure_isolation import hello

pytestmark = pytest.mark.e2e


def _served() -> int:
    """How many commands this run's hook server has taken (its lock file: pid, count); 0 without one."""
    locks = list((RUNTIME / "baton").glob("hook-*.sock.lock"))
    if not locks or not list((RUNTIME / "baton").glob("hook-*.sock")):
        return 0
    return int(locks[0].read_text().split()[1])


def _serving(timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not list((RUNTIME / "baton").glob("hook-*.sock")):
        time.sleep(0.1)
    assert list((RUNTIME / "baton").glob("hook-*.sock")), f"no hook server listens in {RUNTIME}"


def test_a_sessions_hooks_are_relayed_to_the_server_and_do_what_they_always_did(claude, project, env, model):
    hello(claude, project, env, model)  # the server may start here (or already runs for this test run)
    _serving()
    before, events = _served(), len(ledger_events(project, env))
    told = hello(claude, project, {**env}, model)
    assert _served() >= before + 2  # this session's start and end, each a child of the server
    assert "session `" in told  # the brief, with the session line, reached the model
    new = [e.get("type") for e in ledger_events(project, env)][events:]
    assert new == ["session.begun", "session.ended"]


def test_with_the_server_off_the_same_session_leaves_the_same_events(claude, project, env, model):
    hello(claude, project, env, model)
    before, events = _served(), len(ledger_events(project, env))
    told = hello(claude, project, {**env, "BATON_HOOK_SERVER": "0"}, model)
    assert _served() == before
    assert "session `" in told
    assert [e.get("type") for e in ledger_events(project, env)][events:] == ["session.begun", "session.ended"]


def test_the_runs_socket_folder_is_short_enough_for_a_socket():
    assert len(str(Path(RUNTIME) / "baton" / ("hook-" + "0" * 16 + ".sock"))) <= 100
