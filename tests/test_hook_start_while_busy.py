"""A session start whose hook cannot take the ledger lock in its wait — another
process holds it: a long ``baton sync``, ``rebuild`` or ``gc`` — still gives
its agent the brief, read from the index as it stands, without claiming the
baton waiting or recording the start: the brief says, in one line, that a
baton may be waiting and comes with the next start. The next start, once the
lock is let go, claims it, exactly once.

Run as the harness runs it: ``baton hook`` in a child process, the payload
on stdin, the lock held by a real second process (``lock_held_elsewhere``).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from baton.app import Baton
from tests.app_support import promote_handoff, validate_handoff_command
from tests.background_support import WAITS_FOR_A_CATCH_UP, background_pid, wait_gone
from tests.cli_support import run_here
from tests.conftest import run_baton
from tests.handoff_support import git_init, payload
from tests.harness_support import fixture, injected, lock_held_elsewhere
from tests.start_support import claims as _claims
from tests.start_support import feeds as _feeds
from tests.start_support import pending as _pending

BUSY = {"BATON_HOOK_LOCK_WAIT": "0.2", "BATON_HOOK_SERVER": "0"}
FREE = {"BATON_HOOK_SERVER": "0"}
STEP = "Wire the zebra-42 parser into the CLI"
START = {"claude-code": ("SessionStart", "SessionStart.startup"), "codex": ("SessionStart", "SessionStart.startup"),
         "gemini-cli": ("SessionStart", "SessionStart.startup"), "cursor": ("sessionStart", "sessionStart")}
HELD_UP = "Another process held Baton's ledger"
NOTICE = "> ⚠️ Baton's"
"""How a brief starts when a hook failed since the last one."""


def _start(repo: Path, session: str, env: dict[str, str], harness: str = "claude-code"):
    event, name = START[harness]
    body = fixture(harness, name, repo, session_id=session)
    if harness == "cursor":
        body["conversation_id"] = session
    return run_baton("hook", harness, event, cwd=repo, input=json.dumps(body), env=env, timeout=60)


@pytest.fixture
def repo(project):
    """A git project where an earlier session left a baton for this owner and branch, and a decision."""
    git_init(project, {"src/app.py": "x = 1\n"})
    code, _, err = run_here("session", "end", "s-before", "--handoff-steps", STEP, cwd=project)  # the scene
    assert code == 0, err
    return project


@pytest.mark.parametrize("harness", sorted(START))
def test_a_session_start_on_a_locked_ledger_still_gives_the_agent_its_brief(repo, harness):
    with lock_held_elsewhere(repo):
        started = _start(repo, "s-busy", BUSY, harness)
    assert started.returncode == 0, started.stderr
    brief = injected(harness, started.stdout)
    assert brief is not None and "## Baton" in brief and HELD_UP in brief
    assert "s-busy" in brief  # the session line, for Baton's MCP tools


@pytest.mark.parametrize("harness", sorted(START))
def test_a_session_start_on_a_locked_ledger_claims_no_baton_and_appends_nothing(repo, harness):
    before = _feeds(repo)
    with lock_held_elsewhere(repo):
        started = _start(repo, "s-busy", BUSY, harness)
    brief = injected(harness, started.stdout)
    assert brief is not None and "Active Session Handoff" not in brief and STEP not in brief
    assert _feeds(repo) == before  # no claim, no session.begun
    assert len(_pending(repo)) == 1


def test_the_brief_on_a_locked_ledger_names_the_baton_waiting_and_how_to_claim_it(repo):
    [waiting] = _pending(repo)
    with lock_held_elsewhere(repo):
        brief = injected("claude-code", _start(repo, "s-busy", BUSY).stdout)
    assert brief is not None
    [line] = [line for line in brief.splitlines() if HELD_UP in line]
    assert f"the baton {waiting.id} waiting for this owner and branch stays pending" in line
    assert "the next session start delivers it" in line and "`baton session begin s-busy`" in line
    assert "may be behind" in line


def test_a_start_on_a_locked_ledger_whose_index_shows_no_baton_says_one_may_be_waiting(project):
    git_init(project, {"src/app.py": "x = 1\n"})
    with lock_held_elsewhere(project):
        brief = injected("claude-code", _start(project, "s-busy", BUSY).stdout)
    assert brief is not None
    [line] = [line for line in brief.splitlines() if HELD_UP in line]
    assert "a baton may be waiting for this owner and branch" in line


def test_a_session_start_on_a_locked_ledger_says_so_in_one_line_on_stderr(repo):
    with lock_held_elsewhere(repo):
        started = _start(repo, "s-busy", BUSY)
    [said] = started.stderr.strip().splitlines()
    assert said.startswith("baton hook claude-code SessionStart: the ledger stayed locked by another process")
    assert "the brief was delivered from the index" in said and "nothing was claimed or recorded" in said
    assert "no brief was delivered" not in said


def test_the_next_start_after_the_lock_is_let_go_claims_the_baton_exactly_once(repo):
    [waiting] = _pending(repo)
    with lock_held_elsewhere(repo):
        _start(repo, "s-busy", BUSY)
    after = injected("claude-code", _start(repo, "s-next", FREE).stdout)
    assert after is not None and "Active Session Handoff" in after and STEP in after
    assert HELD_UP not in after
    later = injected("claude-code", _start(repo, "s-later", FREE).stdout)
    assert later is not None and "Active Session Handoff" not in later
    [claim] = _claims(repo)
    assert claim["session"] == "s-next" and claim["data"]["handoff_id"] == waiting.id


def test_a_session_the_lock_held_up_gets_its_baton_when_it_starts_again(repo):
    """Its start was not recorded: a resume of the same session is its first recorded start."""
    with lock_held_elsewhere(repo):
        _start(repo, "s-busy", BUSY)
    body = fixture("claude-code", "SessionStart.resume", repo, session_id="s-busy")
    resumed = run_baton("hook", "claude-code", "SessionStart", cwd=repo, input=json.dumps(body), env=FREE)
    brief = injected("claude-code", resumed.stdout)
    assert brief is not None and STEP in brief
    assert [claim["session"] for claim in _claims(repo)] == ["s-busy"]


def test_a_start_the_lock_held_up_leaves_no_failure_for_the_next_brief(repo):
    """Its agent was told already, in its brief: the next one is not told again."""
    with lock_held_elsewhere(repo):
        _start(repo, "s-busy", BUSY)
    after = injected("claude-code", _start(repo, "s-next", FREE).stdout)
    assert after is not None and NOTICE not in after


def test_the_manual_claim_the_brief_names_claims_the_baton_for_the_held_up_session(repo):
    with lock_held_elsewhere(repo):
        _start(repo, "s-busy", BUSY)
    claimed = run_baton("session", "begin", "s-busy", "--json", cwd=repo)
    assert claimed.returncode == 0, claimed.stderr
    assert json.loads(claimed.stdout)["handoff"] is not None
    assert [claim["session"] for claim in _claims(repo)] == ["s-busy"]


def test_after_the_manual_claim_the_sessions_start_after_a_compaction_names_its_draft_not_a_new_brief(repo):
    """The command the brief names records the start the hook could not: the session's later
    starts are repeated ones, so after a compaction the agent is pointed at its draft (as any
    session is), not handed a second brief saying the project has no handoff."""
    with lock_held_elsewhere(repo):
        brief = injected("claude-code", _start(repo, "s-busy", BUSY).stdout)
    assert brief is not None
    [command] = re.findall(r"`(baton [^`]+)`", next(line for line in brief.splitlines() if HELD_UP in line))
    assert run_baton(*shlex.split(command)[1:], cwd=repo).returncode == 0  # as the brief says
    (repo / "src" / "app.py").write_text("x = 2\n")
    compacted = run_baton("hook", "claude-code", "PreCompact", cwd=repo, env=FREE, input=json.dumps(
        fixture("claude-code", "PreCompact.auto", repo, session_id="s-busy")))
    assert compacted.returncode == 0, compacted.stderr
    body = fixture("claude-code", "SessionStart.compact", repo, session_id="s-busy")
    after = injected("claude-code", run_baton("hook", "claude-code", "SessionStart", cwd=repo, env=FREE,
                                              input=json.dumps(body)).stdout)
    assert after is not None and "Baton saved this session's work before the compaction" in after
    assert "No session handoff waits" not in after


def test_a_start_on_a_locked_ledger_says_in_its_json_that_it_claimed_nothing_because_of_the_lock(repo):
    body = fixture("claude-code", "SessionStart.startup", repo, session_id="s-busy")
    with lock_held_elsewhere(repo):
        started = run_baton("hook", "claude-code", "SessionStart", "--json", cwd=repo, input=json.dumps(body),
                            env=BUSY)
    result = json.loads(started.stdout)["result"]
    assert result["claimed"] is False and result["handoffId"] is None and result["repeated"] is False
    assert "locked by another process" in result["ledgerBusy"] and HELD_UP in result["brief"]


def test_the_claim_command_a_held_up_brief_names_quotes_the_session_id_for_the_shell():
    from baton.domain.batons import held_up_notice

    assert "`baton session begin it's-mine`" not in held_up_notice("it's-mine", None)
    assert "`baton session begin 'it'\\''s-mine'`" in held_up_notice("it's-mine", None)
    assert "`baton session begin 0b7c4f2e-abc`" in held_up_notice("0b7c4f2e-abc", "h-1")


@WAITS_FOR_A_CATCH_UP
def test_a_start_while_busy_after_an_end_kept_while_busy_gets_its_brief_and_the_next_start_that_end_s_baton(project):
    """The realistic case: a session ends during a long sync (its end kept), the next one starts
    while it still runs. That start's index has no baton yet; the one after it delivers it."""
    git_init(project, {"src/app.py": "x = 1\n"})
    _start(project, "s-work", FREE)
    with Baton.open(project) as app:
        handoff_id = app.capture(payload(), session="s-work").handoff_id
    validate_handoff_command(project, handoff_id)
    promote_handoff(project, handoff_id, accept_warnings="tests")
    with lock_held_elsewhere(project):
        ended = run_baton("hook", "claude-code", "SessionEnd", cwd=project, env=BUSY, input=json.dumps(
            fixture("claude-code", "SessionEnd", project, session_id="s-work")))
        brief = injected("claude-code", _start(project, "s-busy", BUSY).stdout)
    assert brief is not None and "a baton may be waiting for this owner and branch" in brief
    wait_gone(background_pid(ended.stderr))
    after = injected("claude-code", _start(project, "s-next", FREE).stdout)
    assert after is not None and "Active Session Handoff" in after
    [claim] = _claims(project)
    assert claim["session"] == "s-next"


@WAITS_FOR_A_CATCH_UP
def test_a_start_that_runs_a_kept_end_on_a_locked_ledger_waits_for_the_lock_once_and_still_gives_its_brief(project):
    """The kept end, run first, waits for the lock; the start does not wait again. Two waits
    of 4 s would outlast a 7 s deadline, and the agent would get no brief at all."""
    git_init(project, {"src/app.py": "x = 1\n"})
    _start(project, "s-work", FREE)
    slow = {**BUSY, "BATON_HOOK_LOCK_WAIT": "4", "BATON_HOOK_DEADLINE": "7"}
    with lock_held_elsewhere(project):
        ended = run_baton("hook", "claude-code", "SessionEnd", cwd=project, env=BUSY, input=json.dumps(
            fixture("claude-code", "SessionEnd", project, session_id="s-work")))
        assert list((project / ".baton" / "deferred").glob("*.json"))
        started = _start(project, "s-busy", slow)
    wait_gone(background_pid(ended.stderr))
    brief = injected("claude-code", started.stdout)
    assert brief is not None and HELD_UP in brief, started.stderr
    [said] = started.stderr.strip().splitlines()
    assert "stayed locked by another process for 4 s" in said and "the brief was delivered from the index" in said
