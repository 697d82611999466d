"""A malformed session id (docs/cli.md): whitespace, `/`, `\\`, control
characters, `.` or `..` as the whole id, empty or over 200 characters is
refused with exit 2 by the CLI and MCP; a hook exits 0 and leaves a notice.
Every real harness's UUID-like id is accepted."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from baton.domain.identifiers import session_id_problem
from baton.harnesses import adapter
from baton.harnesses.hook import run_hook
from baton.mcp_server import build_server
from tests.conftest import run_baton

MALFORMED = ["../../etc/passwd", "a/b", "a\\b", "bad id", "tab\tid", ".", "..", "x" * 201]
REAL = ["0b7c4f2e-1a2b-4c3d-8e9f-0a1b2c3d4e5f", "019a2c1e-7f1d-7c3b-9e2a-1b2c3d4e5f60",
        "0b7c4f2e-synthetic-claude-session", "c0ffee00-synthetic-cursor-conversation", "s-1", "a..b", ".hidden"]


@pytest.mark.parametrize("bad", MALFORMED)
def test_a_malformed_session_id_is_named_as_such(bad):
    assert session_id_problem(bad) is not None


@pytest.mark.parametrize("good", REAL)
def test_real_harness_session_ids_are_accepted(good):
    assert session_id_problem(good) is None


@pytest.mark.parametrize("bad", ["../../etc/passwd", "bad id", ".."])
def test_session_end_with_a_malformed_session_id_exits_2_and_writes_nothing(project, bad):
    before = sorted(p.read_bytes() for p in (project / ".baton" / "ledger").glob("*.jsonl"))
    r = run_baton("session", "end", bad, "--handoff-steps", "z", "--project", str(project))
    assert r.returncode == 2 and "a session id must not" in r.stderr
    assert sorted(p.read_bytes() for p in (project / ".baton" / "ledger").glob("*.jsonl")) == before


def test_session_begin_with_a_session_id_holding_a_space_exits_2(project):
    r = run_baton("session", "begin", "--session-id", "bad id", "--project", str(project))
    assert r.returncode == 2 and "must not contain whitespace" in r.stderr


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_session_start_refuses_a_session_id_with_a_slash(project):
    async with Client(build_server(project)) as client:
        result = await client.call_tool("baton_session", {"action": "session_start", "session_id": "a/../b"})
    assert result.is_error
    error = result.structured_content["error"]
    assert error["code"] == "input_error" and "must not contain `/`" in error["message"]


@pytest.mark.parametrize("harness", ["claude-code", "codex", "gemini-cli", "cursor"])
def test_a_hook_with_a_malformed_session_id_exits_0_with_a_notice(project, harness):
    chosen = adapter(harness)
    event = next(name for name, meaning in chosen.kinds.items() if meaning == "session_start")
    stdin = json.dumps({chosen.session_fields[0]: "../../etc/passwd", "cwd": str(project), "hook_event_name": event})
    outcome = run_hook(harness, event, stdin.encode(), project=project)
    assert outcome.problem is not None and "a session id must not contain `/`" in outcome.problem
    r = run_baton("hook", harness, event, "--project", str(project), input=stdin)
    assert r.returncode == 0
    notices = (project / ".baton" / "hook-notices.jsonl").read_text().splitlines()
    assert "a session id must not contain" in json.loads(notices[-1])["problem"]


def test_checkpoint_create_with_a_malformed_session_exits_2(project):
    r = run_baton("checkpoint", "create", "--title", "t", "--objective", "o", "--session", "a b",
                  "--project", str(project))
    assert r.returncode == 2 and "must not contain whitespace" in r.stderr
    assert not list((project / ".baton").glob("handoffs/*.json"))


@pytest.mark.parametrize("empty", ["", "  "])
def test_checkpoint_create_with_an_empty_session_exits_2_and_records_nothing(project, empty):
    """As `session begin --session-id ""` and MCP `session_id: ""` refuse it (tester-use18 T6)."""
    r = run_baton("checkpoint", "create", "--title", "t", "--objective", "o", "--session", empty,
                  "--project", str(project))
    assert r.returncode == 2 and "a session id must not be empty" in r.stderr
    assert not list((project / ".baton").glob("handoffs/*.json"))


@pytest.mark.parametrize("command", [["handoff", "amend", "{id}", "--title", "t2"], ["fork", "{id}"]], ids=" ".join)
def test_amend_and_fork_with_an_empty_session_exit_2(project, command):
    made = run_baton("checkpoint", "create", "--title", "t", "--objective", "o", "--json", "--project", str(project))
    handoff_id = json.loads(made.stdout)["id"]
    ledger = sorted(p.read_bytes() for p in (project / ".baton" / "ledger").glob("*.jsonl"))
    r = run_baton(*[part.format(id=handoff_id) for part in command], "--session", "", "--project", str(project))
    assert r.returncode == 2 and "a session id must not be empty" in r.stderr
    assert sorted(p.read_bytes() for p in (project / ".baton" / "ledger").glob("*.jsonl")) == ledger


def test_checkpoint_create_with_an_empty_harness_exits_2_as_every_command_does(project):
    r = run_baton("checkpoint", "create", "--title", "t", "--objective", "o", "--harness", "",
                  "--project", str(project))
    assert r.returncode == 2 and "--harness is empty" in r.stderr
    assert not list((project / ".baton").glob("handoffs/*.json"))


@pytest.mark.parametrize(("value", "problem"), [
    ("", "must not be empty"),
    ("x" * 200, None),
    ("x" * 201, "must be at most 200 characters"),
    ("a\x1fb", "must not contain control characters"),
    ("a b", "must not contain whitespace"),
    ("a!b", None),
    ("a~b", None),
    ("a\x7fb", "must not contain control characters"),
    ("a\x9fb", "must not contain control characters"),
    ("a\xa0b", "must not contain whitespace"),
    ("a\xa1b", None),
    ("a\u202eb", "must not contain control characters"),
    ("a\\b", "must not contain `/` or `\\`"),
    (".", "must not be `.` or `..`"),
])
def test_a_session_id_problem_names_exactly_what_is_wrong_at_each_boundary(value, problem):
    """C0 (below U+0020), DEL through C1 (U+007F..U+009F) and bidi controls are
    control characters; a space or U+00A0 is whitespace; U+0021, U+007E and
    U+00A1 are ordinary; 200 characters fit, 201 do not."""
    assert session_id_problem(value) == problem
