"""A session's end (or the draft before a compaction) whose hook cannot take
the ledger lock in its wait — another process holds it: a long ``baton
rebuild``, ``sync`` or ``gc``, or a stuck one — is kept (``.baton/deferred/``)
and done by a process of its own that waits for the lock (``baton rebuild
--if-needed --lock-wait``), once in effect.

Without this, such a hook recorded nothing and handed no baton on: the
session's work was lost for the next one. Run as the harness runs it: ``baton
hook`` in a child process, the payload on stdin, the lock held by a real
second process (``lock_held_elsewhere``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from baton.app import Baton
from baton.background import LOCK_WAIT
from baton.commands import deferred
from baton.commands.session_drafts import open_session_draft
from baton.harnesses.codex import ADAPTER
from baton.harnesses.hook import lock_wait
from baton.projections.sessions import session_doc
from tests.app_support import promote_handoff, validate_handoff_command
from tests.background_support import background_pid as _background_pid
from tests.background_support import catch_up_pid
from tests.background_support import claude_hook as _hook
from tests.background_support import kept_hooks as _kept
from tests.background_support import wait_gone as _wait_gone
from tests.conftest import run_baton
from tests.handoff_support import git_init, payload
from tests.harness_support import catch_up_running, codex_start, fixture, hook, injected, lock_held_elsewhere

BUSY = {"BATON_HOOK_LOCK_WAIT": "0.2", "BATON_HOOK_SERVER": "0"}
KEPT_THEN_WAITED_FOR = pytest.mark.slow(reason="a hook run while a second process holds the lock, then "
                                                 "the catch-up process it starts, waited for")
"""Run by the README's slow command (CI runs it): three real processes at once (the hook, the
lock's holder, the waiting catch-up) and a wait for the last. The refusals of ``--lock-wait``
and the kept end with no process to wait for stay in the main suite."""


@pytest.fixture
def repo(project):
    """A session ``s-work`` that began and wrote a ready handoff (the index up to date)."""
    git_init(project, {"src/app.py": "x = 1\n"})
    hook(project, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.startup", project,
                                                      session_id="s-work"))  # the scene, in this process
    with Baton.open(project) as app:
        handoff_id = app.capture(payload(), session="s-work").handoff_id
    validate_handoff_command(project, handoff_id)
    promote_handoff(project, handoff_id, accept_warnings="tests")
    return project




def _end(repo: Path, session: str = "s-work"):
    return _hook(repo, "SessionEnd", "SessionEnd", session, **BUSY)








def _events(repo: Path, event_type: str) -> list[dict]:
    return [json.loads(line) for feed in (repo / ".baton" / "ledger").glob("*.jsonl")
            for line in feed.read_bytes().splitlines() if json.loads(line)["type"] == event_type]


def _session(repo: Path, session: str) -> dict:
    with Baton.open(repo) as app:
        return session_doc(app.project.reading(), app.project.writer, session)


@KEPT_THEN_WAITED_FOR
def test_a_session_end_that_meets_a_held_lock_is_kept_and_recorded_once_the_holder_lets_go(repo):
    with lock_held_elsewhere(repo):
        ended = _end(repo)
        assert ended.returncode == 0 and ended.stdout == ""
        assert len(_kept(repo)) == 1 and _events(repo, "session.ended") == []  # kept, not done: the lock is held
    _wait_gone(_background_pid(ended.stderr))
    assert _kept(repo) == []
    assert _session(repo, "s-work")["status"] == "ended"
    [created] = _events(repo, "baton.created")
    assert created["data"]["handoff_id"] == _handoff_id(repo)


@KEPT_THEN_WAITED_FOR
def test_a_session_end_kept_while_the_ledger_is_busy_says_it_is_kept_not_lost(repo):
    with lock_held_elsewhere(repo):
        ended = _end(repo)
    _wait_gone(_background_pid(ended.stderr))
    assert "locked by another process for 0.2 s" in ended.stderr
    assert "the session's end is kept: it will be recorded, and its baton left, once the ledger is let go" \
        in ended.stderr
    assert "was not recorded" not in ended.stderr and "try again" not in ended.stderr
    [notice] = [json.loads(line) for line in (repo / ".baton" / "hook-notices.jsonl").read_text().splitlines()]
    assert notice["failed"] is False and "the session's end is kept" in notice["problem"]


@KEPT_THEN_WAITED_FOR
def test_the_baton_of_a_session_end_kept_while_busy_reaches_the_next_session_start(repo):
    with lock_held_elsewhere(repo):
        _wait_for = _background_pid(_end(repo).stderr)
    _wait_gone(_wait_for)
    brief = injected("claude-code", _hook(repo, "SessionStart", "SessionStart.startup", "s-next", **BUSY).stdout)
    assert brief is not None and "Active Session Handoff" in brief
    assert "the session's end is kept" not in brief  # done since: its notice is no longer so
    assert _session(repo, "s-next")["receivedBaton"] == _handoff_id(repo)


@KEPT_THEN_WAITED_FOR
def test_a_session_start_runs_a_session_end_kept_while_busy_whose_process_gave_up(repo):
    with lock_held_elsewhere(repo):
        ended = _end(repo)
        pid = _background_pid(ended.stderr)
        os.kill(pid, signal.SIGTERM)  # as if its wait for the lock had run out
        _wait_gone(pid)
    assert len(_kept(repo)) == 1
    brief = injected("claude-code", _hook(repo, "SessionStart", "SessionStart.startup", "s-next", **BUSY).stdout)
    assert brief is not None and "Active Session Handoff" in brief
    assert _kept(repo) == [] and _session(repo, "s-work")["status"] == "ended"


@KEPT_THEN_WAITED_FOR
def test_a_session_end_kept_while_busy_runs_once_even_if_two_catch_ups_run(repo):
    with lock_held_elsewhere(repo):
        ended = _end(repo)
        by_hand = subprocess.Popen([sys.executable, "-m", "baton", "rebuild", "--if-needed", "--json"], cwd=repo,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)  # not for correctness: so that, more often than not, both wait for the lock
    out, err = by_hand.communicate(timeout=120)
    assert by_hand.returncode == 0, err
    _wait_gone(_background_pid(ended.stderr))
    assert _kept(repo) == []
    assert len(_events(repo, "session.ended")) == 1 and len(_events(repo, "baton.created")) == 1


@KEPT_THEN_WAITED_FOR
def test_two_session_ends_kept_while_busy_share_one_waiting_process_and_are_both_recorded(repo):
    hook(repo, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.startup", repo, session_id="s-other"))
    with lock_held_elsewhere(repo):
        first, second = _end(repo), _end(repo, "s-other")
        assert len(_kept(repo)) == 2
    assert _background_pid(first.stderr) == _background_pid(second.stderr)  # one at a time
    _wait_gone(_background_pid(first.stderr))
    assert _kept(repo) == []
    assert _session(repo, "s-work")["status"] == "ended" and _session(repo, "s-other")["status"] == "ended"


def test_a_compaction_that_meets_a_held_lock_gets_its_draft_once_the_holder_lets_go(repo):
    with lock_held_elsewhere(repo):
        done = _hook(repo, "PreCompact", "PreCompact.auto", "s-work", **BUSY)
    assert "the draft before compaction is kept: it will be prepared once the ledger is let go" in done.stderr
    _wait_gone(_background_pid(done.stderr))
    assert _kept(repo) == []
    with Baton.open(repo) as app:
        assert open_session_draft(app.project.reading(), app.project.writer, "s-work") is not None


def test_a_prompt_hook_on_a_busy_ledger_is_not_kept(repo):
    with lock_held_elsewhere(repo):
        done = _hook(repo, "UserPromptSubmit", "UserPromptSubmit", "s-work", **BUSY)
    assert done.returncode == 0 and "locked by another process" in done.stderr
    assert _kept(repo) == [] and "pid" not in done.stderr
    assert not (repo / ".baton" / "cache" / "catch-up.lock").exists() or \
        not (repo / ".baton" / "cache" / "catch-up.lock").read_text().strip()  # no process started for it


@KEPT_THEN_WAITED_FOR
def test_the_waiting_process_gives_up_on_the_lock_after_a_bound(repo):
    with lock_held_elsewhere(repo):
        ended = _end(repo)
        pid = _background_pid(ended.stderr)
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    _wait_gone(pid)
    assert argv[argv.index(b"--lock-wait") + 1] == f"{LOCK_WAIT:g}".encode() and LOCK_WAIT < float("inf")


def test_a_catch_up_that_waits_for_the_lock_past_its_lock_wait_keeps_the_kept_hooks(repo):
    with Baton.open(repo) as app:
        deferred.keep(app.project, kind=deferred.SESSION_END, harness="claude-code", event="SessionEnd",
                      session="s-work")
    with lock_held_elsewhere(repo):
        done = run_baton("rebuild", "--if-needed", "--lock-wait", "0.2", "--json", cwd=repo)
    assert done.returncode == 4 and json.loads(done.stdout)["error"]["code"] == "ledger_busy"
    assert len(_kept(repo)) == 1  # for the next catch-up, or session start
    assert run_baton("rebuild", "--if-needed", "--lock-wait", "30", cwd=repo).returncode == 0
    assert _kept(repo) == [] and _session(repo, "s-work")["status"] == "ended"


def test_a_rebuild_that_gives_up_on_the_lock_says_the_kept_hooks_still_wait(repo):
    with Baton.open(repo) as app:
        deferred.keep(app.project, kind=deferred.SESSION_END, harness="claude-code", event="SessionEnd",
                      session="s-work")
    with lock_held_elsewhere(repo):
        said = run_baton("rebuild", "--lock-wait", "0.2", cwd=repo)
        done = run_baton("rebuild", "--if-needed", "--lock-wait", "0.2", "--json", cwd=repo)
    assert said.returncode == 4 and "1 kept hook still waits in .baton/deferred/" in said.stderr
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "ledger_busy" and "1 kept hook still waits" in error["message"]
    assert error["details"]["deferred_waiting"] == 1 and len(_kept(repo)) == 1


def test_a_rebuild_that_gives_up_on_the_lock_with_nothing_kept_names_no_kept_hooks(repo):
    with lock_held_elsewhere(repo):
        said = run_baton("rebuild", "--lock-wait", "0.2", cwd=repo)
    assert said.returncode == 4 and "locked by another process" in said.stderr
    assert "kept hook" not in said.stderr


@KEPT_THEN_WAITED_FOR
def test_doctor_answers_while_a_holder_keeps_the_ledger_locked_and_names_the_kept_hooks(repo):
    with lock_held_elsewhere(repo):
        ended = _end(repo)
        done = run_baton("doctor", "--json", cwd=repo, timeout=60)  # before: waited for the holder, without limit
    _wait_gone(_background_pid(ended.stderr))
    assert done.returncode == 0, done.stderr
    checks = {check["name"]: check for check in json.loads(done.stdout)["checks"]}
    assert checks["index"]["status"] == "warn" and "held the ledger lock" in checks["index"]["detail"]
    assert checks["deferred hooks"]["status"] == "warn"


@KEPT_THEN_WAITED_FOR
def test_doctor_does_not_say_a_catch_up_that_waits_for_another_holder_is_replaying(repo):
    """The kept end's catch-up waits for the lock another process holds: doctor once said it
    "replays the ledger", sending the user to wait for it rather than look for the holder."""
    with lock_held_elsewhere(repo):
        ended = _end(repo)
        done = run_baton("doctor", "--json", cwd=repo, timeout=60)
    _wait_gone(_background_pid(ended.stderr))
    detail = {check["name"]: check for check in json.loads(done.stdout)["checks"]}["index"]["detail"]
    assert "or waits for the process holding it" in detail
    assert f"`lsof {repo / '.baton' / 'ledger.lock'}` names it" in detail


@pytest.mark.parametrize("wait", ["-1", "nan", "inf"])
def test_rebuild_refuses_a_lock_wait_that_is_not_a_number_of_seconds(repo, wait):
    done = run_baton("rebuild", "--if-needed", "--lock-wait", wait, cwd=repo)
    assert done.returncode == 2 and "--lock-wait must be a number of seconds >= 0" in done.stderr


def test_rebuild_takes_a_lock_wait_of_centuries_as_no_limit(repo):
    done = run_baton("rebuild", "--if-needed", "--lock-wait", "1e12", cwd=repo)
    assert done.returncode == 0, done.stderr


def _handoff_id(repo: Path) -> str:
    [captured] = _events(repo, "handoff.captured")
    return captured["stream"].split("/", 1)[1]


def test_a_session_end_kept_while_busy_with_no_process_to_wait_says_how_to_run_it_by_hand(repo, monkeypatch):
    from baton import background

    monkeypatch.setenv("BATON_HOOK_LOCK_WAIT", "0.2")
    monkeypatch.setattr(background, "start_catch_up", lambda root, baton_dir: (None, None))  # none could start
    with lock_held_elsewhere(repo):
        done = hook(repo, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", repo, session_id="s-work"))
    assert "no process could be started to wait for it" in done.problem
    assert "by hand, once it is let go: `baton rebuild --if-needed`" in done.problem
    assert "the session's end is kept" in done.problem and len(_kept(repo)) == 1
    [notice] = [json.loads(line) for line in (repo / ".baton" / "hook-notices.jsonl").read_text().splitlines()]
    assert notice["failed"] is True  # nothing will run it by itself before the next session start
    assert run_baton("rebuild", "--if-needed", cwd=repo).returncode == 0
    assert _kept(repo) == [] and _session(repo, "s-work")["status"] == "ended"


@KEPT_THEN_WAITED_FOR
def test_a_session_end_kept_while_busy_after_a_catch_up_gave_up_names_the_process_that_tries_again(repo):
    log = repo / ".baton" / "cache" / "catch-up.log"
    log.parent.mkdir(exist_ok=True)
    log.write_text("baton: the ledger stayed locked by another process for 600 s; try again when it is done\n")
    with lock_held_elsewhere(repo):
        ended = _end(repo)
    pid = _background_pid(ended.stderr)
    _wait_gone(pid)
    assert f"for 600 s; tried again (pid {pid})" in ended.stderr  # not "try again when it is done; tried again"
    assert "try again when it is done" not in ended.stderr


@KEPT_THEN_WAITED_FOR
def test_a_session_end_kept_while_busy_after_a_catch_up_gave_up_says_so_and_tries_again(repo):
    log = repo / ".baton" / "cache" / "catch-up.log"
    log.parent.mkdir(exist_ok=True)
    log.write_text("baton: the ledger stayed locked by another process for 600 s; try again when it is done\n")
    with lock_held_elsewhere(repo):
        ended = _end(repo)
    assert "the last catch-up in the background failed: the ledger stayed locked" in ended.stderr
    assert "tried again" in ended.stderr and "the session's end is kept" in ended.stderr
    [notice] = [json.loads(line) for line in (repo / ".baton" / "hook-notices.jsonl").read_text().splitlines()]
    assert notice["failed"] is True  # said as a failure: the last wait ran out
    _wait_gone(catch_up_pid(repo))
    assert _kept(repo) == [] and _session(repo, "s-work")["status"] == "ended"


@KEPT_THEN_WAITED_FOR
def test_doctor_names_the_background_catch_up_that_holds_the_ledger_lock(repo):
    with catch_up_running(repo) as pid, lock_held_elsewhere(repo):
        done = run_baton("doctor", "--json", cwd=repo, timeout=60)
    assert done.returncode == 0, done.stderr
    checks = {check["name"]: check for check in json.loads(done.stdout)["checks"]}
    detail = checks["index"]["detail"]
    assert checks["index"]["status"] == "warn" and f"a catch-up in the background, pid {pid}," in detail
    assert "stuck" not in detail


def test_a_hook_waits_for_the_lock_at_most_part_of_the_seconds_its_harness_gives_the_event(monkeypatch):
    monkeypatch.delenv("BATON_HOOK_LOCK_WAIT", raising=False)
    assert lock_wait() == 3.0  # the end of a session Codex gives 30 s to
    assert lock_wait(ADAPTER.event_limits["Interrupt"]) == pytest.approx(1.2)  # Codex's Interrupt: at most 3 s


@KEPT_THEN_WAITED_FOR
def test_codex_interrupt_that_meets_a_held_lock_keeps_the_end_within_codex_s_three_seconds(repo):
    codex_start(repo, "s-codex")
    body = fixture("codex", "Interrupt", repo, session_id="s-codex")
    env = {k: v for k, v in os.environ.items() if k != "BATON_HOOK_LOCK_WAIT"} | {"BATON_HOOK_SERVER": "0"}
    with lock_held_elsewhere(repo):
        ended = subprocess.run([sys.executable, "-m", "baton", "hook", "codex", "Interrupt"], cwd=repo, env=env,
                               input=json.dumps(body), capture_output=True, text=True, timeout=60)
        assert "locked by another process for 1.2 s" in ended.stderr  # not Codex's whole 3 s
        assert len(_kept(repo)) == 1
    _wait_gone(_background_pid(ended.stderr))
    assert _session(repo, "s-codex")["status"] == "ended"
