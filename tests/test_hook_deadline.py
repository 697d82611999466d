"""A hook never stalls its harness (issue 23 item 7): each ``baton hook``
process has its own deadline (``BATON_HOOK_DEADLINE``) and a bounded wait for
the ledger lock (``BATON_HOOK_LOCK_WAIT``); past either it exits 0 with the
harness's empty answer, and the next session start says once what went wrong.

Run as the harness runs it: ``baton hook`` in a child process, the payload on
stdin, the lock held by another process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from baton.harnesses import notices, notices_write
from tests.conftest import run_baton
from tests.harness_support import fixture, injected, lock_held_elsewhere


def _hook(repo, harness, event, name, session, **env):
    body = fixture(harness, name, repo, session_id=session)
    return run_baton("hook", harness, event, cwd=repo, input=json.dumps(body), env=env, timeout=60)


def _start(repo, session, harness="claude-code"):
    done = _hook(repo, harness, "SessionStart", "SessionStart.startup", session)
    assert done.returncode == 0, done.stderr
    return injected(harness, done.stdout)


def test_a_hook_stalled_past_its_deadline_exits_0_with_the_empty_answer(repo):
    with lock_held_elsewhere(repo):  # the hook would wait a minute for it: the deadline ends it first
        done = _hook(repo, "gemini-cli", "SessionStart", "SessionStart.startup", "s-stalled",
                     BATON_HOOK_LOCK_WAIT="60", BATON_HOOK_DEADLINE="1")
    assert done.returncode == 0
    assert done.stdout == "{}"  # Gemini CLI parses stdout: its "nothing"
    assert "gave up after 1 s (BATON_HOOK_DEADLINE)" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_hook_that_cannot_take_the_lock_gives_up_after_the_lock_wait(repo):
    with lock_held_elsewhere(repo):
        done = _hook(repo, "claude-code", "SessionEnd", "SessionEnd", "s-locked", BATON_HOOK_LOCK_WAIT="0.2")
    assert done.returncode == 0 and done.stdout == ""
    assert "locked by another process for 0.2 s" in done.stderr


def test_the_next_start_says_once_what_went_wrong(repo):
    _start(repo, "s-ending")
    with lock_held_elsewhere(repo):
        _hook(repo, "claude-code", "SessionEnd", "SessionEnd", "s-ending", BATON_HOOK_LOCK_WAIT="0.2")
        _hook(repo, "codex", "PreCompact", "PreCompact.auto", "s-other", BATON_HOOK_LOCK_WAIT="30",
              BATON_HOOK_DEADLINE="0.5")
    brief = _start(repo, "s-next")
    warned = [line for line in brief.splitlines() if line.startswith("> ⚠️ Baton's")]
    # The kept end ran once the lock was let go: its notice ("the session's end is
    # kept: it will be recorded …") is no longer so, and is not said.
    assert len(warned) == 1
    assert "codex PreCompact hook (session s-other)" in warned[0] and "BATON_HOOK_DEADLINE" in warned[0]
    assert brief.index("> ⚠️ Baton's") < brief.index("## Baton")  # in front of the brief
    assert "> ⚠️ Baton's" not in _start(repo, "s-after")  # said once


def test_a_failed_session_end_leaves_nothing_half_done_and_a_later_end_records_it(repo):
    from tests.batons_support import events

    _start(repo, "s-retry")
    with lock_held_elsewhere(repo):  # cut off by its deadline while it waits: nothing recorded, nothing kept
        _hook(repo, "claude-code", "SessionEnd", "SessionEnd", "s-retry", BATON_HOOK_LOCK_WAIT="30",
              BATON_HOOK_DEADLINE="0.5")
    assert "session.ended" not in {e.type for e in events(repo)}
    assert not list((repo / ".baton" / "deferred").glob("*"))
    done = _hook(repo, "claude-code", "SessionEnd", "SessionEnd", "s-retry")
    assert done.returncode == 0 and done.stderr == ""
    assert [e.type for e in events(repo)].count("session.ended") == 1


def test_a_repeated_start_that_delivers_no_brief_keeps_the_notices_for_one_that_does(repo):
    _start(repo, "s-one")
    with lock_held_elsewhere(repo):  # cut off by its deadline while it waits: a notice, nothing kept
        _hook(repo, "codex", "PreCompact", "PreCompact.auto", "s-one", BATON_HOOK_LOCK_WAIT="30",
              BATON_HOOK_DEADLINE="0.5")
    again = _hook(repo, "claude-code", "SessionStart", "SessionStart.compact", "s-one")
    assert again.stdout == ""  # the session's brief was delivered at its first start
    assert "BATON_HOOK_DEADLINE" in _start(repo, "s-two")


def test_the_same_failure_is_said_once_with_how_often(tmp_path):
    for _ in range(3):
        assert notices_write.leave(tmp_path, harness="codex", event="Stop", session="s1", problem="the index failed",
                             at="2026-01-01T00:00:00Z")
    notices_write.leave(tmp_path, harness="codex", event="SessionStart", session="s2", problem="other",
                  at="2026-01-01T00:00:01Z")
    text = notices.render(notices.take(tmp_path))
    assert text.count("the index failed") == 1 and "3 times" in text
    assert text.count("> ⚠️") == 2
    assert notices.take(tmp_path) == []


def test_the_same_notice_left_by_several_sessions_names_each_of_them(tmp_path):
    for session in ("s-a", "s-b", "s-a"):
        notices_write.leave(tmp_path, harness="claude-code", event="SessionEnd", session=session,
                            problem="the session's end is kept", at="2026-01-01T00:00:00Z")
    [line] = notices.render(notices.take(tmp_path)).strip().splitlines()
    assert "(sessions s-a, s-b)" in line and "3 times" in line


@pytest.mark.parametrize(("hidden", "said"), [(1, "… and 1 other hook notice."), (2, "… and 2 other hook notices.")])
def test_the_notices_left_out_of_the_brief_are_counted_in_good_english(tmp_path, hidden, said):
    for n in range(notices.SHOWN + hidden):
        notices_write.leave(tmp_path, harness="codex", event="Stop", session=f"s{n}", problem=f"failure {n}",
                            at="2026-01-01T00:00:00Z")
    *shown, last = notices.render(notices.take(tmp_path)).strip().splitlines()
    assert len(shown) == notices.SHOWN
    assert last == f"> ⚠️ {said}"


def test_the_notice_file_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(notices_write, "MAX_BYTES", 600)
    kept = [notices_write.leave(tmp_path, harness="codex", event="Stop", session="s", problem="x" * 100, at="t")
            for _ in range(10)]
    assert kept[0] and not kept[-1]
    assert (tmp_path / notices.FILE_NAME).stat().st_size <= 600


def test_no_notice_is_left_outside_a_baton_project(tmp_path):
    assert not notices_write.leave(tmp_path / "missing", harness="codex", event="Stop", session=None, problem="p",
                             at="t")


def test_a_notice_is_screened_for_secrets_before_it_is_written(tmp_path):
    key = "AKIAQ7XJ3KZP5HWN4TLA"  # synthetic: the shape of an AWS access key id
    notices_write.leave(tmp_path, harness="codex", event="Stop", session="s1", problem=f"internal error: {key}", at="t")
    assert key not in (tmp_path / notices.FILE_NAME).read_text()


def test_a_long_notice_is_clipped_in_its_cause_and_keeps_what_was_left_undone(tmp_path):
    undone = "the session's end was not recorded and no baton was left"
    notices_write.leave(tmp_path, harness="claude-code", event="SessionEnd", session="s1",
                        problem="the index is far behind " + "x" * 400 + "; " + undone, at="2026-01-01T00:00:00Z")
    notices_write.leave(tmp_path, harness="codex", event="SessionStart", session="s2",
                        problem="y" * 400, at="2026-01-01T00:00:01Z")
    first, second = notices.render(notices.take(tmp_path)).strip().splitlines()
    said = first.split(": ", 1)[1]
    assert said.startswith("the index is far behind x") and said.endswith("…; " + undone)
    assert len(said) == notices.PROBLEM_MAX
    assert second.endswith("y…") and len(second.split(": ", 1)[1]) == notices.PROBLEM_MAX


@pytest.mark.parametrize("name", ["BATON_HOOK_LOCK_WAIT", "BATON_HOOK_DEADLINE"])
def test_a_hook_given_centuries_to_wait_runs_without_an_overflow(repo, name):
    done = _hook(repo, "claude-code", "SessionStart", "SessionStart.startup", "s-patient", **{name: "1e12"})
    assert done.returncode == 0 and "Error" not in done.stderr, done.stderr
    assert injected("claude-code", done.stdout)


def test_a_notice_of_a_kept_hook_is_said_while_it_waits_or_was_set_aside_and_not_once_it_ran(tmp_path):
    folder = tmp_path / notices.KEPT_DIR
    folder.mkdir()
    (folder / "1-waiting.json").write_text("{}")
    (folder / "2-set-aside.failed").write_text("{}")
    for name in ("1-waiting", "2-set-aside", "3-ran"):
        notices_write.leave(tmp_path, harness="claude-code", event="SessionEnd", session=name,
                            problem=f"{name}: the session's end is kept", at="2026-01-01T00:00:00Z", kept=name)
    said = notices.render(notices.still_so(tmp_path, notices.take(tmp_path)))
    assert "1-waiting" in said and "2-set-aside" in said and "3-ran" not in said


def test_the_notices_look_for_kept_hooks_where_they_are_kept():
    from baton.commands import deferred
    from baton.project import ProjectPaths

    assert deferred.directory(ProjectPaths(Path("/p"))) == Path("/p/.baton") / notices.KEPT_DIR
    assert notices.KEPT_SUFFIXES == (deferred.SUFFIX, deferred.FAILED)


def test_a_notice_about_a_handoff_a_later_end_handed_on_is_not_taken(tmp_path):
    notices_write.leave(tmp_path, harness="codex", event="Stop", session="s1", problem="Handoff A was not handed on",
                        at="t", failed=False, handoff="A")
    notices_write.leave(tmp_path, harness="codex", event="Stop", session="s1", problem="Handoff B was not handed on",
                        at="t", failed=False, handoff="B")
    assert notices_write.settle(tmp_path, ["A", "C"], at="t2")
    assert [n["handoff"] for n in notices.take(tmp_path)] == ["B"]


def test_a_hand_on_no_waiting_notice_names_writes_nothing(tmp_path):
    assert not notices_write.settle(tmp_path, ["A"], at="t")
    notices_write.leave(tmp_path, harness="codex", event="Stop", session="s1", problem="other", at="t")
    before = (tmp_path / notices.FILE_NAME).read_bytes()
    assert not notices_write.settle(tmp_path, ["A"], at="t")
    assert (tmp_path / notices.FILE_NAME).read_bytes() == before


def test_a_long_notice_keeps_the_command_it_ends_with_whole():
    problem = ("/tmp/" + "deep/" * 20 + ".baton/config.json is not valid JSON: unexpected character, expected a "
               "string key: line 1 column 2 (char 1); it holds the project's id and shared settings and is "
               "committed with the project: fix it, or put back the committed one (git checkout -- "
               ".baton/config.json); no brief was delivered")
    said = notices.render([{"harness": "codex", "event": "SessionStart", "problem": problem}]).strip()
    assert said.endswith("fix it, or put back the committed one (git checkout -- .baton/config.json); "
                         "no brief was delivered")
    assert len(said.split(": ", 1)[1]) <= notices.PROBLEM_MAX


def test_a_long_notice_is_never_cut_inside_a_command():
    problem = "it failed: " + "`baton verify --feed " + "x " * 200 + "`; no brief was delivered"
    said = notices.render([{"harness": "codex", "event": "SessionStart", "problem": problem}]).strip()
    assert "`" not in said and said.endswith("it failed…; no brief was delivered")


STALLED_IN_A_PATTERN = """
import re, sys
from baton.domain import handoff_requests
# A pattern match that runs for ages in C, never letting another thread run (catastrophic backtracking)
handoff_requests.is_explicit_request = lambda prompt: bool(re.match(r"(x+x+)+y", "x" * 64))
sys.argv = ["baton", *sys.argv[1:]]
from baton.cli_run import run
run()
"""


def test_a_hook_stalled_inside_a_pattern_match_gives_up_at_its_deadline(repo):
    body = {"session_id": "s-matching", "cwd": str(repo), "prompt": "anything"}
    done = subprocess.run([sys.executable, "-c", STALLED_IN_A_PATTERN, "hook", "claude-code", "UserPromptSubmit"],
                          cwd=repo, input=json.dumps(body), capture_output=True, text=True, timeout=120,
                          env={**os.environ, "BATON_HOOK_DEADLINE": "1"})
    assert done.returncode == 0
    assert done.stdout == ""  # Claude Code's "nothing"
    assert "gave up after 1 s (BATON_HOOK_DEADLINE)" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow
@pytest.mark.parametrize(("harness", "event", "prompt_field", "nothing"), [
    ("claude-code", "UserPromptSubmit", "prompt", ""), ("codex", "UserPromptSubmit", "prompt", ""),
    ("gemini-cli", "BeforeAgent", "prompt", "{}"), ("cursor", "beforeSubmitPrompt", "prompt", '{"continue":true}'),
])
def test_a_prompt_hook_fed_one_50_mb_unbroken_token_answers_nothing(repo, harness, event, prompt_field, nothing):
    body = {"session_id": "s-pasted", "conversation_id": "s-pasted", "cwd": str(repo), "workspace_roots": [str(repo)],
            "hook_event_name": event, prompt_field: "Why does this fail to parse: " + "x" * 50_000_000}
    done = run_baton("hook", harness, event, cwd=repo, input=json.dumps(body), timeout=120)
    assert done.returncode == 0 and done.stderr == ""  # answered by the hook itself, not its deadline
    assert done.stdout.strip() == nothing
