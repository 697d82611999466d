"""Two sessions on one owner and branch (two terminals): the second's start without an objective,
and its end, leave the objective the first, still open, set (tester26 T3). The first's own end
retires it, as does any start or end once the first is taken for ended (docs/batons.md, "Session
objectives"). The events that kept it name that session (``kept_objective``), so a replay folds
them as the commands did; a ledger written before replays as before."""

from __future__ import annotations

import json
import time

import pytest
from mcp import Client

from baton.app import Baton
from baton.domain.unended import UNENDED_HOURS
from baton.mcp_server import build_server
from tests.app_support import begin_session, bootstrap, end_session
from tests.conftest import run_baton
from tests.harness_support import fixture

OBJECTIVE = "Ship login"
STARTS = {  # each harness's start hook, as docs/hooks.md lists it
    "claude-code": "SessionStart.startup",
    "codex": "SessionStart.startup",
    "gemini-cli": "SessionStart.startup",
    "cursor": "sessionStart",
}


def _baton(project, *args: str) -> dict:
    r = run_baton(*args, "--json", "--project", str(project))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _objective(project) -> str | None:
    shown = _baton(project, "bootstrap", "--peek")["sessionObjective"]
    return shown["objective"] if shown else None


def _set_by_first_session(project) -> None:
    begun = _baton(project, "session", "begin", "first", "--objective", OBJECTIVE)
    assert begun["objective"] == OBJECTIVE


def _events(project, kind: str) -> list[dict]:
    return [json.loads(line) for feed in sorted((project / ".baton" / "ledger").glob("*.jsonl"))
            for line in feed.read_bytes().splitlines() if json.loads(line).get("type") == kind]


def _hook_start(project, harness: str, session: str) -> None:
    name = STARTS[harness]
    payload = fixture(harness, name, project, session_id=session)
    if harness == "cursor":
        payload["conversation_id"] = session
    r = run_baton("hook", harness, name.split(".")[0], cwd=project, input=json.dumps(payload),
                  env={"BATON_HOOK_SERVER": "0"})
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("harness", sorted(STARTS))
def test_a_second_sessions_hook_start_leaves_the_open_sessions_objective(project, harness):
    _set_by_first_session(project)
    _hook_start(project, harness, "second")
    assert _objective(project) == OBJECTIVE
    assert not _events(project, "objective.cleared")


def test_a_second_session_begun_without_an_objective_says_the_objective_stands(project):
    _set_by_first_session(project)
    r = run_baton("session", "begin", "second", "--project", str(project))
    assert r.returncode == 0, r.stderr
    assert "The objective session first set for this owner and branch stands" in r.stdout
    assert "was cleared" not in r.stdout
    assert _objective(project) == OBJECTIVE


def test_a_second_sessions_start_names_the_session_whose_objective_it_kept(project):
    _set_by_first_session(project)
    begun = _baton(project, "session", "begin", "second")
    assert begun["objectiveKept"] == "first" and begun["objectiveCleared"] is False
    second = [e for e in _events(project, "session.begun") if e["data"]["session"] == "second"]
    assert [e["data"]["kept_objective"] for e in second] == ["first"]


def test_a_plain_bootstrap_start_leaves_the_open_sessions_objective(project):
    _set_by_first_session(project)
    _baton(project, "bootstrap", "--session-id", "second")
    assert _objective(project) == OBJECTIVE


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_an_mcp_bootstrap_start_leaves_the_open_sessions_objective(project, anyio_backend):
    _set_by_first_session(project)
    async with Client(build_server(project)) as client:
        await client.call_tool("bootstrap", {"session_id": "second"})
    assert _objective(project) == OBJECTIVE


def test_the_second_sessions_end_leaves_the_open_sessions_objective_and_says_so(project):
    _set_by_first_session(project)
    _baton(project, "session", "begin", "second")
    r = run_baton("session", "end", "second", "--project", str(project))
    assert r.returncode == 0, r.stderr
    assert "The objective session first set for this owner and branch stands" in r.stdout
    assert _objective(project) == OBJECTIVE
    ended = _events(project, "session.ended")
    assert [e["data"]["kept_objective"] for e in ended] == ["first"]


def test_the_first_sessions_own_end_retires_its_objective(project):
    _set_by_first_session(project)
    _baton(project, "session", "begin", "second")
    ended = _baton(project, "session", "end", "first")
    assert ended["objectiveCleared"] is True and ended["objectiveKept"] is None
    assert _objective(project) is None


def test_a_start_after_the_first_session_was_silent_past_the_horizon_retires_its_objective(project):
    long_ago = time.time_ns() - (UNENDED_HOURS + 1) * 3600 * 10**9
    with Baton.open(project, clock=lambda: long_ago) as app:
        app.begin_session(session_id="first", objective=OBJECTIVE, claim=False)
    started = begin_session(project, session_id="second", claim=False)
    assert started.objective_cleared and started.objective_kept is None
    assert _objective(project) is None


def test_a_rebuilt_index_keeps_the_objective_the_second_session_left_standing(project):
    _set_by_first_session(project)
    _hook_start(project, "claude-code", "second")
    _baton(project, "session", "end", "second")
    _baton(project, "rebuild")
    assert _objective(project) == OBJECTIVE
    _baton(project, "session", "end", "first")
    _baton(project, "rebuild")
    assert _objective(project) is None


def test_a_second_session_that_sets_its_own_objective_replaces_the_first(project):
    _set_by_first_session(project)
    begun = begin_session(project, session_id="second", objective="Fix logout", claim=False)
    assert begun.objective_kept is None
    assert _objective(project) == "Fix logout"


def test_app_level_starts_and_ends_keep_the_objective_of_the_open_session(project):
    """The application's own entry points (a plain ``bootstrap`` with a session id, ``end_session``)."""
    _set_by_first_session(project)
    bootstrap(project, session_id="second")
    ended = end_session(project, "second", {"nextSteps": ["carry on"]})
    assert ended.objective_kept == "first" and not ended.objective_cleared
    assert _objective(project) == OBJECTIVE


def test_only_a_session_event_without_a_kept_objective_retires_the_objective():
    """A ledger written before ``kept_objective`` existed has none on its events: they fold as before."""
    from baton.domain.aggregates.session import retires_objective
    from baton.events.session import SessionBegun, SessionEnded

    names = {"owner": "alice@example.com", "branch": "main"}
    assert retires_objective(SessionBegun(key="s2", session="s2", **names))
    assert retires_objective(SessionEnded(key="s2", session="s2", **names))
    assert not retires_objective(SessionBegun(key="s2", session="s2", kept_objective="s1", **names))
    assert not retires_objective(SessionEnded(key="s2", session="s2", kept_objective="s1", **names))
