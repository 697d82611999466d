"""A session killed without its end hook after it readied a handoff (harness14 F4).

Through ``baton hook claude-code SessionStart``: the next start of the same owner,
branch and clone is told plainly what the session that never ended left (and
how to continue it), or, once that session is taken for over, receives the
handoff as the baton its end would have left, claimed once. A live session's
handoff (two terminals on one branch) is never taken from it; a teammate's or
one already a baton is never touched.
"""

from __future__ import annotations

import time

import pytest

from baton.app import Baton
from baton.domain.short_ids import short_id
from baton.domain.unended import RESTARTED, SILENT, UNENDED_HOURS, taken_for_ended
from baton.projections.sessions import session_doc
from tests.app_support import ready_handoff
from tests.handoff_support import git_init, payload
from tests.harness_support import fixture, hook, injected


@pytest.fixture
def repo(project, monkeypatch):
    """A git project; the machine's boot time unknown, so a session begun more than the horizon ago is
    over by silence alone (on a machine booted within the horizon it would read as restarted)."""
    monkeypatch.setattr("baton.commands.unended_sessions.booted_at", lambda now_ns: None)
    git_init(project, {"src/app.py": "x = 1\n"})
    return project


def _start(repo, session):
    return hook(repo, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.startup", repo,
                                                             session_id=session))


def _end(repo, session):
    return hook(repo, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", repo, session_id=session))



def _types(repo, kind):
    import json

    return [json.loads(line) for feed in (repo / ".baton" / "ledger").glob("*.jsonl")
            for line in feed.read_bytes().splitlines() if json.loads(line).get("type") == kind]


def _session(repo, session):
    with Baton.open(repo) as app:
        return session_doc(app.project.reading(), app.project.writer, session)


def test_the_next_start_is_told_that_a_session_never_ended_after_readying_a_handoff(repo):
    _start(repo, "killed")
    handoff_id = ready_handoff(repo, "killed")
    told = injected("claude-code", _start(repo, "next").answer)
    assert "Session `killed` (claude-code, begun " in told
    assert f"has not reported its end, and it readied handoff `{handoff_id}` for the next session" in told
    assert f"`baton resume {short_id(handoff_id)}`" in told


def test_the_baton_hook_command_tells_it_in_the_context_it_answers_with(repo):
    """``baton hook claude-code SessionStart`` as Claude Code runs it: a process, the payload on stdin."""
    import json
    import os
    import subprocess
    import sys

    _start(repo, "killed")
    handoff_id = ready_handoff(repo, "killed")
    done = subprocess.run([sys.executable, "-m", "baton", "hook", "claude-code", "SessionStart"], cwd=repo,
                          input=json.dumps(fixture("claude-code", "SessionStart.startup", repo, session_id="next")),
                          capture_output=True, text=True, env={**os.environ, "BATON_HOOK_SERVER": "0"})
    assert done.returncode == 0, done.stderr
    told = injected("claude-code", done.stdout)
    assert f"has not reported its end, and it readied handoff `{handoff_id}`" in told


def test_a_handoff_naming_no_session_is_told_of_when_the_session_that_never_ended_was_the_only_one_open(repo):
    _start(repo, "killed")
    handoff_id = ready_handoff(repo)  # captured over MCP without the session id
    told = injected("claude-code", _start(repo, "next").answer)
    assert "Session `killed` (claude-code, begun " in told and handoff_id in told


def test_a_session_that_may_still_run_keeps_its_handoff_and_its_own_end_hands_it_on(repo):
    """Two terminals on one branch: the second start takes nothing from the first."""
    _start(repo, "first")
    handoff_id = ready_handoff(repo, "first")
    second = _start(repo, "second")
    assert second.result.delivered.record is None
    assert _types(repo, "baton.created") == [] and _session(repo, "first")["status"] == "open"
    assert _end(repo, "first").result.baton == handoff_id


def test_a_session_silent_past_the_horizon_is_ended_and_its_handoff_delivered_as_the_baton(repo):
    long_ago = time.time_ns() - (UNENDED_HOURS + 1) * 3600 * 10**9
    with Baton.open(repo, clock=lambda: long_ago) as app:
        app.start_harness_session("killed", harness="claude-code", source="startup")
    handoff_id = ready_handoff(repo, "killed", clock=lambda: long_ago)
    started = _start(repo, "next")
    assert started.result.delivered.record.id == handoff_id
    told = injected("claude-code", started.answer)
    assert "Session `killed` (claude-code, begun " in told and f"never reported its end ({SILENT})" in told
    ended = _session(repo, "killed")
    assert ended["status"] == "ended" and ended["leftBaton"] == handoff_id
    assert [(e["data"]["handoff_id"], e["data"]["session"]) for e in _types(repo, "baton.claimed")] \
        == [(handoff_id, "next")]


def test_after_the_handoff_was_delivered_the_start_after_is_told_nothing_of_it(repo):
    long_ago = time.time_ns() - (UNENDED_HOURS + 1) * 3600 * 10**9
    with Baton.open(repo, clock=lambda: long_ago) as app:
        app.start_harness_session("killed", harness="claude-code", source="startup")
    ready_handoff(repo, "killed", clock=lambda: long_ago)
    _start(repo, "next")
    later = _start(repo, "later")
    assert later.result.delivered.record is None
    assert "never reported its end" not in injected("claude-code", later.answer)
    assert "has not reported its end" not in injected("claude-code", later.answer)


def test_a_handoff_already_handed_on_is_not_told_of_again(repo):
    _start(repo, "s1")
    ready_handoff(repo, "s1")
    _end(repo, "s1")
    _start(repo, "s2")  # claims it
    told = injected("claude-code", _start(repo, "s3").answer)
    assert "reported its end" not in told


def test_a_repeated_start_of_the_session_itself_is_not_told_of_its_own_handoff(repo):
    _start(repo, "s1")
    ready_handoff(repo, "s1")
    again = hook(repo, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.resume", repo,
                                                              session_id="s1"))
    assert "reported its end" not in (injected("claude-code", again.answer) or "")


def test_another_clones_handoff_is_never_taken(repo):
    """The same person's session in another clone is that clone's to end (``writer``)."""
    from baton.commands.context import Project

    _start(repo, "mine")
    opened = Project.open(repo)
    other = Baton(Project(opened.paths, opened.config, "another-writer"))
    opened.close()
    try:
        other.start_harness_session("theirs", harness="claude-code", source="startup")
        handoff_id = other.capture(payload(), session="theirs").handoff_id
        other.validate(handoff_id)
        other.promote(handoff_id, accept_warnings="tests")
    finally:
        other.project.close()
    told = injected("claude-code", _start(repo, "next").answer)
    assert "reported its end" not in told


# -- the rule ------------------------------------------------------------------------------------

def test_a_session_begun_before_the_machine_booted_is_taken_for_ended():
    assert taken_for_ended(began="2026-12-06T06:00:00Z", readied="2026-12-06T06:10:00Z",
                           now="2026-12-06T07:00:00Z", booted="2026-12-06T06:30:00Z") == RESTARTED


def test_a_session_heard_of_within_the_horizon_may_still_run():
    assert taken_for_ended(began="2026-12-06T06:00:00Z", readied="2026-12-06T06:10:00Z",
                           now="2026-12-06T07:00:00Z", booted="2026-12-01T00:00:00Z") is None


def test_a_session_silent_for_the_horizon_after_readying_is_taken_for_ended():
    assert taken_for_ended(began="2026-12-05T06:00:00Z", readied="2026-12-05T06:10:00Z",
                           now=f"2026-12-05T{6 + UNENDED_HOURS:02d}:10:00Z", booted=None) == SILENT


def test_a_boot_read_a_little_after_the_sessions_start_does_not_take_it_for_ended():
    """The boot time is the clock less the uptime: a session begun just after boot may read as before it."""
    assert taken_for_ended(began="2026-12-06T06:30:00Z", readied="2026-12-06T06:31:00Z",
                           now="2026-12-06T07:00:00Z", booted="2026-12-06T06:30:30Z") is None


def _killed_long_ago(repo) -> tuple[str, int]:
    """Session ``killed`` began and readied a handoff more than the horizon ago, and never ended."""
    long_ago = time.time_ns() - (UNENDED_HOURS + 2) * 3600 * 10**9
    with Baton.open(repo, clock=lambda: long_ago) as app:
        app.start_harness_session("killed", harness="claude-code", source="startup")
    return ready_handoff(repo, "killed", clock=lambda: long_ago), long_ago


def test_a_handoff_older_than_work_a_later_session_readied_since_is_not_taken_over(repo):
    """review15 F12: B took the killed session's work up (`baton resume`, which records nothing),
    readied its own and ended; C claimed B's; D, past the horizon, must not get the old one."""
    old, long_ago = _killed_long_ago(repo)
    hour = 3600 * 10**9
    with Baton.open(repo, clock=lambda: long_ago + hour) as app:
        app.start_harness_session("b", harness="claude-code", source="startup")
        app.resume(old)
    newer = ready_handoff(repo, "b", clock=lambda: long_ago + 2 * hour)
    _end(repo, "b")
    assert _start(repo, "c").result.delivered.record.id == newer
    later = _start(repo, "d")
    told = injected("claude-code", later.answer) or ""
    assert later.result.delivered.record is None or later.result.delivered.record.id != old
    assert "never reported its end" not in told and old not in told
    assert _session(repo, "killed")["status"] != "ended"


def test_a_handoff_a_later_session_marked_resumed_is_not_taken_over(repo):
    old, long_ago = _killed_long_ago(repo)
    with Baton.open(repo, clock=lambda: long_ago + 3600 * 10**9) as app:
        app.resume(old, mark_resumed=True)
    later = _start(repo, "d")
    assert later.result.delivered.record is None
    assert "never reported its end" not in (injected("claude-code", later.answer) or "")


def test_the_notice_tells_the_resume_that_records_the_pick_up(repo):
    _start(repo, "killed")
    handoff_id = ready_handoff(repo, "killed")
    told = injected("claude-code", _start(repo, "next").answer)
    assert f"`baton resume {short_id(handoff_id)}` reads it (with `mark_resumed`, it records that this session took it up" in told


def test_only_the_newest_handoff_while_still_ready_is_left_waiting():
    from baton.domain.unended import left_waiting

    assert left_waiting([("new", "ready"), ("old", "ready")]) == "new"
    assert left_waiting([("new", "resumed"), ("old", "ready")]) is None
    assert left_waiting([]) is None
