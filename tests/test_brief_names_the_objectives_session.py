"""A start's brief says whose the objective it shows is, when it is another open session's.

Two sessions on one owner and branch (two terminals): the second starts without an objective,
and the first's stands (``tests/test_objective_of_an_open_session.py``). The second's brief
showed it under "Session Objective" as if it were the second's own. Now the brief says, above
it, that it is the first session's — its id and harness, worded as ``session begin`` words it
("The objective session X set for this owner and branch stands …") — and ``--json`` names that
session (``objectiveKept``, and ``sessionObjective.harness``). The first session's own start
shows its objective as before. Every harness's start hook, plain ``bootstrap`` and MCP."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from baton.mcp_server import build_server
from tests.conftest import run_baton
from tests.harness_support import fixture
from tests.test_objective_of_an_open_session import STARTS

OBJECTIVE = "Ship login"
WHOSE = "The objective session first (codex) set for this owner and branch stands: that session is still open"


def _baton(project, *args: str) -> dict:
    r = run_baton(*args, "--json", "--project", str(project))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture
def first_open(project):
    """Session ``first`` (Codex) set the objective and is still open."""
    _baton(project, "session", "begin", "first", "--objective", OBJECTIVE, "--harness", "codex")
    return project


def start_hook(harness: str, project, session_id: str):
    """``harness``'s session-start hook (``STARTS``) of a new session ``session_id``, run in
    ``project`` as the harness runs it (its own process, no hook server)."""
    name = STARTS[harness]
    payload = fixture(harness, name, project, session_id=session_id)
    if harness == "cursor":
        payload["conversation_id"] = session_id
    return run_baton("hook", harness, name.split(".")[0], cwd=project, input=json.dumps(payload),
                     env={"BATON_HOOK_SERVER": "0"})


@pytest.mark.parametrize("harness", sorted(STARTS))
def test_a_second_sessions_hook_start_brief_says_the_objective_is_the_first_sessions(first_open, harness):
    r = start_hook(harness, first_open, "second")

    assert r.returncode == 0, r.stderr
    assert WHOSE in r.stdout and OBJECTIVE in r.stdout


def test_a_second_sessions_bootstrap_brief_says_whose_objective_it_shows(first_open):
    r = run_baton("bootstrap", "--session-id", "second", "--project", str(first_open))

    assert r.returncode == 0, r.stderr
    section = r.stdout.split("Session Objective", 1)[1]
    assert section.index(WHOSE) < section.index(OBJECTIVE)


def test_a_second_sessions_bootstrap_json_names_the_session_whose_objective_it_shows(first_open):
    brief = _baton(first_open, "bootstrap", "--session-id", "second")

    assert brief["objectiveKept"] == "first"
    assert brief["sessionObjective"]["sessionId"] == "first" and brief["sessionObjective"]["harness"] == "codex"
    assert WHOSE in brief["brief"]


def test_the_first_sessions_own_start_shows_its_objective_as_its_own(first_open):
    brief = _baton(first_open, "bootstrap", "--session-id", "first")

    assert brief["objectiveKept"] is None
    assert OBJECTIVE in brief["brief"] and "The objective session" not in brief["brief"]


def test_a_peek_names_no_other_session(first_open):
    """A peek starts no session: the objective is shown as it is, with the session that set it in --json."""
    brief = _baton(first_open, "bootstrap", "--peek")

    assert brief["objectiveKept"] is None and brief["sessionObjective"]["sessionId"] == "first"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_an_mcp_bootstrap_of_a_second_session_says_whose_objective_it_shows(first_open, anyio_backend):
    async with Client(build_server(first_open)) as client:
        result = await client.call_tool("bootstrap", {"session_id": "second"})

    shown = result.structured_content
    assert shown["objectiveKept"] == "first" and WHOSE in shown["brief"]
