"""A session whose harness was killed, told apart from one still at work on the same machine.

A harness's session start records the harness process it runs in (pid, start time, boot id,
pid namespace: ``launch.harness_process``); a later start on the same machine and boot finds
that process gone — no process with that pid and start time — and takes the session that never
reported its end for over at once ("its harness process is gone"), instead of after 12 hours.
A process still there may still be at work: nothing is taken from it. Another boot, another
machine, another pid namespace, no ``/proc`` or a start recorded without the fields: the rules
before hold unchanged (docs/batons.md, "A session that never ended").
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from baton import launch
from baton.app import Baton
from baton.domain.aggregates import session as aggregate
from baton.domain.unended import HARNESS_GONE, RESTARTED, harness_gone, taken_for_ended
from baton.events.session import SessionResumed
from tests.harness_support import (
    killed_at_the_end,
    next_start_leaves_its_handoff,
    next_start_takes_over_once_killed,
    relayed_once,
    session_of,
    stand_in_started,
)

BOOT = "81a69e0e-7994-4f2b-a226-b91ca3af3724"
RECORDED = {"pid": 4242, "start": 3120114, "boot": BOOT, "pidns": 4026531836}
LINUX = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")


# -- the decision (baton.domain.unended) ----------------------------------------------------------

def test_a_harness_process_no_longer_running_on_the_same_boot_is_gone():
    assert harness_gone(RECORDED, boot=BOOT, pidns=4026531836, started=None)


def test_a_harness_process_still_running_is_not_gone():
    assert not harness_gone(RECORDED, boot=BOOT, pidns=4026531836, started=3120114)


def test_a_pid_reused_by_a_process_started_at_another_time_is_gone():
    assert harness_gone(RECORDED, boot=BOOT, pidns=4026531836, started=3999999)


def test_a_process_recorded_in_another_boot_is_not_said_to_be_gone():
    """Another boot id: that machine restarted since, or it is another machine (boot ids are
    random per machine and boot); either way this pid says nothing, and the rules before decide."""
    assert not harness_gone(RECORDED, boot="00000000-1111-2222-3333-444444444444", pidns=4026531836, started=None)


def test_a_process_recorded_on_another_machine_is_not_said_to_be_gone():
    other_machine = {**RECORDED, "boot": "5d0c7a3e-0000-4000-8000-000000000001"}
    assert not harness_gone(other_machine, boot=BOOT, pidns=4026531836, started=None)


def test_a_process_recorded_in_another_pid_namespace_is_not_said_to_be_gone():
    """A container on the same machine shares its boot id but numbers its processes apart."""
    assert not harness_gone(RECORDED, boot=BOOT, pidns=4026532999, started=None)


@pytest.mark.parametrize("recorded", [None, {}, {"pid": 4242}, {**RECORDED, "pid": True}, {**RECORDED, "boot": ""},
                                      {**RECORDED, "start": "3120114"}, "4242"],
                         ids=["none", "empty", "pid only", "bool pid", "no boot", "text start", "not a record"])
def test_a_start_recorded_without_the_process_fields_says_nothing(recorded):
    assert not harness_gone(recorded, boot=BOOT, pidns=4026531836, started=None)


def test_a_machine_without_proc_says_nothing():
    assert not harness_gone(RECORDED, boot=None, pidns=None, started=None)


def test_a_session_whose_harness_process_is_gone_is_taken_for_ended_at_once():
    assert taken_for_ended(began="2026-09-02T14:00:00Z", readied="2026-09-02T14:05:00Z", now="2026-09-02T14:06:00Z",
                           booted=None, gone=True) == HARNESS_GONE
    assert taken_for_ended(began="2026-09-02T14:00:00Z", readied="2026-09-02T14:05:00Z", now="2026-09-02T14:06:00Z",
                           booted=None, gone=False) is None


def test_a_restart_is_still_said_before_a_gone_harness_process():
    assert taken_for_ended(began="2026-09-02T14:00:00Z", readied="2026-09-02T14:05:00Z", now="2026-09-02T16:00:00Z",
                           booted="2026-09-02T15:00:00Z", gone=True) == RESTARTED


def test_a_repeated_start_in_another_harness_process_records_it_and_in_the_same_one_nothing():
    state = {"id": "s", "status": "ended", "beganAt": "2026-09-02T14:00:00Z", "harnessProcess": RECORDED}
    other = {**RECORDED, "pid": 5151, "start": 3200000}
    same = aggregate.decide_session(state, aggregate.ResumeSession("s", harness="codex", harness_process=RECORDED))
    assert same == []
    (resumed,) = aggregate.decide_session(state, aggregate.ResumeSession("s", harness="codex", harness_process=other))
    assert isinstance(resumed, SessionResumed) and resumed.harness_process == other


def _types(repo: Path, kind: str) -> list[dict]:
    return [json.loads(line) for feed in (repo / ".baton" / "ledger").glob("*.jsonl")
            for line in feed.read_bytes().splitlines() if json.loads(line).get("type") == kind]


def test_a_start_records_the_harness_process_it_was_given_in_session_begun(repo):
    with Baton.open(repo) as app:
        app.start_harness_session("s1", harness="claude-code", source="startup", process=RECORDED)
    assert [e["data"]["harness_process"] for e in _types(repo, "session.begun")] == [RECORDED]
    assert session_of(repo, "s1")["harnessProcess"] == RECORDED


def test_a_repeated_start_in_the_same_harness_process_writes_nothing(repo):
    with Baton.open(repo) as app:
        app.start_harness_session("s1", harness="claude-code", source="startup", process=RECORDED)
        app.start_harness_session("s1", harness="claude-code", source="compact", process=RECORDED)
    assert _types(repo, "session.resumed") == []


def test_a_repeated_start_in_another_harness_process_records_it_and_nothing_else_of_the_session_changes(repo):
    other = {**RECORDED, "pid": 5151, "start": 3200000}
    with Baton.open(repo) as app:
        app.start_harness_session("s1", harness="claude-code", source="startup", process=RECORDED)
        before = session_of(repo, "s1")
        app.start_harness_session("s1", harness="claude-code", source="resume", process=other)
    assert [e["data"]["harness_process"] for e in _types(repo, "session.resumed")] == [other]
    after = session_of(repo, "s1")
    assert after["harnessProcess"] == other
    assert {k: v for k, v in after.items() if k != "harnessProcess"} == \
        {k: v for k, v in before.items() if k != "harnessProcess"}


# -- the facts (baton.launch) -----------------------------------------------------------------------

@LINUX
def test_the_harness_process_is_the_hooks_nearest_ancestor_that_is_no_shell_or_launcher():
    """This process stands for the harness: it runs the hook command through a shell (and ``env``), as
    Claude Code and Gemini CLI run theirs; the recorded process is this one, not the shell's."""
    code = "import json; from baton.launch import harness_process; print(json.dumps(harness_process()))"
    done = subprocess.run(["/bin/sh", "-c", f"env {sys.executable} -c '{code}'; true"],
                          capture_output=True, text=True, check=True)
    recorded = json.loads(done.stdout)
    assert recorded["pid"] == os.getpid()
    assert recorded["start"] == launch.process_stat(os.getpid())[2]
    assert recorded["boot"] == Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    assert recorded["pidns"] == os.stat("/proc/self/ns/pid").st_ino


@LINUX
def test_a_process_that_ended_reads_as_no_live_process_with_its_pid():
    ended = subprocess.Popen(["true"])
    ended.wait()
    assert launch.process_now(ended.pid) == (*launch.host_now(), None)


@LINUX
def test_a_killed_process_not_yet_reaped_reads_as_no_live_process():
    """A zombie (its parent has not waited for it yet) runs no more."""
    killed = subprocess.Popen(["sleep", "60"])
    os.kill(killed.pid, signal.SIGKILL)
    for _ in range(200):
        if Path(f"/proc/{killed.pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z":
            break
        time.sleep(0.01)
    try:
        assert launch.process_now(killed.pid) == (*launch.host_now(), None)
    finally:
        killed.wait()


@LINUX
def test_a_running_process_reads_with_its_start_time():
    assert launch.process_now(os.getpid()) == (*launch.host_now(), launch.process_stat(os.getpid())[2])


# -- a real harness killed (a process standing for one) ----------------------------------------------

STAND_IN = """\
import subprocess, sys, time
# A harness: it runs its SessionStart hook through a shell, as Claude Code does, then works until killed.
done = subprocess.run(["/bin/sh", "-c", sys.argv[1] + " hook claude-code SessionStart; exit $?"],
                      input=sys.stdin.buffer.read(), capture_output=True)
sys.stdout.write(f"{done.returncode}\\n")
sys.stdout.flush()
time.sleep(600)
"""

BATON = Path(sys.executable).parent / "baton"


def _env(runtime: Path, relayed: bool) -> dict[str, str]:
    return {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "BATON_HOOK_SERVER": "1" if relayed else "0",
            "BATON_HOOK_SERVER_IDLE": "120"}


def _harness(repo: Path, runtime: Path, session: str, relayed: bool) -> subprocess.Popen:
    """A process standing for a harness, started as a terminal starts one, that has run its session's start."""
    return stand_in_started(STAND_IN, repo, session, _env(runtime, relayed), str(BATON))


@LINUX
@pytest.mark.slow
@pytest.mark.parametrize("relayed", [False, True], ids=["in its own process", "relayed to the hook server"])
def test_a_harness_killed_after_readying_a_handoff_is_taken_over_at_the_next_start_at_once(repo, runtime, relayed):
    with relayed_once(runtime, repo, _env(runtime, True)) if relayed else contextlib.nullcontext():
        harness = _harness(repo, runtime, "killed", relayed)
    assert session_of(repo, "killed")["harnessProcess"]["pid"] == harness.pid
    handoff_id, told = next_start_takes_over_once_killed(repo, "killed", harness)
    assert "Session `killed` (claude-code, begun " in told
    ended = session_of(repo, "killed")
    assert ended["status"] == "ended" and ended["leftBaton"] == handoff_id


@LINUX
@pytest.mark.slow
def test_a_harness_still_running_keeps_its_handoff(repo, runtime):
    """A second terminal on the branch: its harness process is there, so nothing is taken from it."""
    harness = _harness(repo, runtime, "working", False)
    with killed_at_the_end(harness):
        next_start_leaves_its_handoff(repo, "working")


@LINUX
@pytest.mark.slow
def test_a_session_resumed_in_another_harness_process_is_judged_by_that_one(repo, runtime):
    """``claude --resume ID`` in a new process after the first one ended: the resumed start records
    its process, so the first one's end does not read as the end of the session still at work."""
    first = _harness(repo, runtime, "resumed", False)
    os.kill(first.pid, signal.SIGKILL)
    first.wait(60)
    again = _harness(repo, runtime, "resumed", False)
    with killed_at_the_end(again):
        assert session_of(repo, "resumed")["harnessProcess"]["pid"] == again.pid
        next_start_leaves_its_handoff(repo, "resumed")
