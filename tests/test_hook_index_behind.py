"""A hook never folds more of the ledger than fits in its time (issue 27: a
project a year of use makes): an index that needs a replay, or is far behind
the feeds, is brought up to date by ``baton rebuild --if-needed`` in a process
of its own, and the next session start has the brief.

Without this, a hook at 100,000 events (a replay of ~11 s) was cut off by its
deadline every time, its replay rolled back with it, and no session start
ever delivered a brief again. Run as the harness runs it: ``baton hook`` in a
child process, the payload on stdin (``BATON_HOOK_FOLD_MB`` makes the small
projects here "large").
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from baton.app import Baton
from baton.errors import IndexBehind
from baton.ledger import Ledger
from baton.ledger.envelope import EventDraft
from tests.app_support import promote_handoff, validate_handoff_command
from tests.background_support import WAITS_FOR_A_CATCH_UP, catch_up_pid
from tests.background_support import background_pid as _background_pid
from tests.background_support import wait_gone as _wait_gone
from tests.conftest import run_baton
from tests.handoff_support import git_init, payload
from tests.harness_support import fixture, injected, lock_held_elsewhere, process_running

TINY = {"BATON_HOOK_FOLD_MB": "0.000001", "BATON_HOOK_SERVER": "0"}  # one byte: any catch-up is "large"


@pytest.fixture
def repo(project):
    git_init(project, {"src/app.py": "x = 1\n"})
    with Baton.open(project) as app:
        handoff_id = app.capture(payload(), session="s-writer").handoff_id
    validate_handoff_command(project, handoff_id)
    promote_handoff(project, handoff_id, accept_warnings="tests")
    return project


def _start(repo: Path, session: str, **env: str):
    body = fixture("claude-code", "SessionStart.startup", repo, session_id=session)
    return run_baton("hook", "claude-code", "SessionStart", cwd=repo, input=json.dumps(body), env=env, timeout=60)


def _index(repo: Path) -> Path:
    return repo / ".baton" / "index.sqlite"


def _drop_index(repo: Path) -> None:
    for path in _index(repo).parent.glob("index.sqlite*"):
        path.unlink()






def _documents(repo: Path) -> dict:
    import sqlite3

    with sqlite3.connect(_index(repo)) as db:
        return dict(db.execute("SELECT projection, COUNT(*) FROM docs GROUP BY projection").fetchall())


@WAITS_FOR_A_CATCH_UP
def test_a_hook_hands_a_replay_larger_than_its_limit_to_a_background_catch_up(repo):
    _drop_index(repo)
    done = _start(repo, "s-first", **TINY)
    assert done.returncode == 0 and done.stdout == ""  # Claude Code's "nothing"
    assert "the index needs a full replay" in done.stderr
    assert "in the background (pid " in done.stderr
    assert "by hand: `baton rebuild --if-needed`" in done.stderr
    _wait_gone(_background_pid(done.stderr))
    assert _documents(repo).get("handoffs") == 1  # replayed by the background process, not by a hook


@WAITS_FOR_A_CATCH_UP
def test_the_next_session_start_after_the_background_catch_up_has_the_brief_and_says_what_happened(repo):
    _drop_index(repo)
    _wait_gone(_background_pid(_start(repo, "s-first", **TINY).stderr))
    brief = injected("claude-code", _start(repo, "s-next", **TINY).stdout)
    assert brief is not None and "## Latest ready handoff" in brief
    notice = brief.split("## ")[0]  # in front of the brief
    assert "the index needs a full replay" in notice
    assert "SessionStart hook (session s-first) at " in notice  # put off, not "failed": the catch-up ran


@WAITS_FOR_A_CATCH_UP
def test_the_hook_does_not_wait_for_the_background_catch_up(repo):
    _drop_index(repo)
    with lock_held_elsewhere(repo):  # the background catch-up waits for this lock; the hook never takes it
        done = _start(repo, "s-first", **TINY)
        pid = _background_pid(done.stderr)
        assert done.returncode == 0  # the hook ended, its output closed, while its catch-up still waits
        assert process_running(pid)
    _wait_gone(pid)
    assert _documents(repo).get("handoffs") == 1


def test_a_hook_within_its_limit_replays_the_index_itself(repo):
    _drop_index(repo)
    done = _start(repo, "s-first", BATON_HOOK_SERVER="0")  # the default limit: tens of MB
    brief = injected("claude-code", done.stdout)
    assert brief is not None and "## Latest ready handoff" in brief
    assert done.stderr == ""


def _other_writer_appends(repo: Path, count: int) -> None:
    """Events from another replica's feed (as a sync or pull delivers them), not folded by anyone."""
    ledger = Ledger(repo / ".baton", "otherreplica0001", fsync="never")
    try:
        with ledger.locked() as txn:
            txn.append([EventDraft("note.added", f"note/{i}", {"text": "x" * 200}) for i in range(count)])
    finally:
        ledger.close()


@WAITS_FOR_A_CATCH_UP
def test_a_hook_hands_a_large_catch_up_from_another_writer_to_the_background(repo):
    _start(repo, "s-warm", BATON_HOOK_SERVER="0")  # the index is current
    _other_writer_appends(repo, 50)
    done = _start(repo, "s-behind", **TINY)
    # the brief as the index stands (tests/test_hook_start_index_behind.py), the catch-up in the background
    assert "## Latest ready handoff" in (injected("claude-code", done.stdout) or "")
    assert "the index is" in done.stderr and "behind the ledger" in done.stderr
    _wait_gone(_background_pid(done.stderr))
    brief = injected("claude-code", _start(repo, "s-after", **TINY).stdout)
    assert brief is not None and "## Latest ready handoff" in brief


def test_a_catch_up_past_its_fold_limit_folds_nothing(repo):
    _other_writer_appends(repo, 5)
    with Baton.open(repo) as app:
        runner = app.project.runner
        before = runner.cursors()
        with app.project.ledger.locked():
            with pytest.raises(IndexBehind) as raised:
                runner.catch_up(fold_limit=1)
        assert runner.cursors() == before
        assert raised.value.details["rebuild"] is False and raised.value.details["bytes"] > 1
        with app.project.ledger.locked():
            assert runner.catch_up(fold_limit=10**9).events == 5  # within the limit: folded


def test_rebuild_if_needed_folds_only_what_is_new(repo):
    _other_writer_appends(repo, 3)
    done = run_baton("rebuild", "--if-needed", "--json", cwd=repo)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["rebuilt"] is False and result["events"] == 3 and result["reason"] is None
    again = run_baton("rebuild", "--if-needed", cwd=repo)
    assert again.stdout.startswith("The index is up to date: folded 0 new events, no replay needed")


def test_rebuild_if_needed_replays_an_index_that_must_be(repo):
    _drop_index(repo)
    result = json.loads(run_baton("rebuild", "--if-needed", "--json", cwd=repo).stdout)
    assert result["rebuilt"] is True and result["reason"] == "index is new or its projections changed"
    assert result["documents"]["handoffs"] == 1


def test_rebuild_if_needed_leaves_an_index_pinned_in_the_past_pinned(repo):
    assert run_baton("rebuild", "--until", "2000-01-01T00:00:00Z", cwd=repo).returncode == 0
    done = run_baton("rebuild", "--if-needed", cwd=repo)
    assert done.returncode == 0
    assert done.stdout.startswith("Nothing folded: the index pinned at 2000-01-01T00:00:00Z")


def test_rebuild_refuses_if_needed_with_until(repo):
    done = run_baton("rebuild", "--if-needed", "--until", "2000-01-01T00:00:00Z", cwd=repo)
    assert done.returncode == 2
    assert "pass one of them" in done.stderr


@WAITS_FOR_A_CATCH_UP
def test_hooks_while_the_background_catch_up_runs_start_no_other(repo):
    _drop_index(repo)
    with lock_held_elsewhere(repo):  # the first catch-up waits for this lock: it is still running
        first = _background_pid(_start(repo, "s-first", **TINY).stderr)
        second = _start(repo, "s-second", **TINY)
        third = _start(repo, "s-third", **TINY)
        assert _background_pid(second.stderr) == first  # named, not started again
        assert _background_pid(third.stderr) == first
        log = repo / ".baton" / "cache" / "catch-up.log"
        assert log.exists()
    _wait_gone(first)
    assert _documents(repo).get("handoffs") == 1
    brief = injected("claude-code", _start(repo, "s-next", **TINY).stdout)
    assert brief is not None and "## Latest ready handoff" in brief
    notices = brief.split("## ")[0]
    assert notices.count("the index needs a full replay") == 1 and "(3 times" in notices  # one notice, not three


@WAITS_FOR_A_CATCH_UP
def test_a_hook_after_the_background_catch_up_ended_starts_a_new_one(repo):
    _drop_index(repo)
    first = _background_pid(_start(repo, "s-first", **TINY).stderr)
    _wait_gone(first)
    _drop_index(repo)  # lost again (a `baton gc`): the lock the first held went with it
    again = _start(repo, "s-again", **TINY)
    second = _background_pid(again.stderr)
    assert second != first
    _wait_gone(second)
    assert _documents(repo).get("handoffs") == 1


@WAITS_FOR_A_CATCH_UP
def test_a_hook_after_a_failed_background_catch_up_says_why_it_failed(repo):
    _other_writer_appends(repo, 20)
    feed = repo / ".baton" / "ledger" / "otherreplica0001.jsonl"
    lines = feed.read_bytes().splitlines(keepends=True)
    lines[5] = b"{not json\n"  # damaged before its tail: no replay gets past it
    feed.write_bytes(b"".join(lines))
    _drop_index(repo)
    first = _start(repo, "s-first", **TINY)
    assert "the next session start has it" in first.stderr
    _wait_gone(_background_pid(first.stderr))
    again = _start(repo, "s-again", **TINY)
    assert again.returncode == 0 and again.stdout == ""
    said = again.stderr
    assert "could not be brought up to date in the background" in said and "corrupt" in said
    assert "the next session start has it" not in said  # not promised again
    assert "baton repair" in said  # what to do, from the failed catch-up's own error
    _wait_gone(catch_up_pid(repo))  # the retry, failed again


def test_a_hook_on_a_read_only_baton_dir_replays_nothing_in_memory_past_its_limit(repo, monkeypatch):
    from baton.harnesses.hook import run_hook
    from baton.projections.runner import ProjectionRunner

    _drop_index(repo)  # no index to start from: the replay in memory would be of the whole ledger
    baton, real = str(repo / ".baton"), os.access
    monkeypatch.setattr(os, "access", lambda path, mode, *args, **kwargs: (
        False if mode & os.W_OK and os.fspath(path).startswith(baton) else real(path, mode, *args, **kwargs)))
    monkeypatch.setenv("BATON_HOOK_FOLD_MB", TINY["BATON_HOOK_FOLD_MB"])
    replays = []
    monkeypatch.setattr(ProjectionRunner, "rebuild", lambda self, **kwargs: replays.append(kwargs))
    body = fixture("claude-code", "SessionStart.startup", repo, session_id="s-read-only")
    outcome = run_hook("claude-code", "SessionStart", json.dumps(body).encode(), project=repo)
    assert replays == []  # no replay in memory, at 100k events ~9 s of a 10 s deadline
    assert "is read-only here, and a replay in memory of" in outcome.problem
    assert "is read-only here" in injected("claude-code", outcome.answer)  # told to the agent, now
    assert "baton rebuild --if-needed" not in outcome.problem  # nothing started: it could not write the index


def test_a_reading_command_on_a_read_only_baton_dir_still_replays_in_memory(repo, monkeypatch):
    baton, real = str(repo / ".baton"), os.access
    monkeypatch.setattr(os, "access", lambda path, mode, *args, **kwargs: (
        False if mode & os.W_OK and os.fspath(path).startswith(baton) else real(path, mode, *args, **kwargs)))
    monkeypatch.setenv("BATON_HOOK_FOLD_MB", TINY["BATON_HOOK_FOLD_MB"])  # a hook's limit, not a command's
    with Baton.open(repo) as app:
        assert app.project.read_only
        assert app.project.reading().counts().get("handoffs") == 1


@WAITS_FOR_A_CATCH_UP
def test_a_ledger_past_a_limit_under_a_tenth_of_a_megabyte_is_said_in_kilobytes_not_0_0_mb(repo):
    _drop_index(repo)
    started = _start(repo, "s-small", **TINY)
    _wait_gone(_background_pid(started.stderr))
    assert re.search(r"of \d+\.\d kB of ledger, more than this command folds in its time \(1 byte\)", started.stderr)
    assert "0.0 MB" not in started.stderr


@WAITS_FOR_A_CATCH_UP
def test_a_hook_in_a_moved_project_does_not_say_why_a_catch_up_for_its_old_place_failed(repo, tmp_path):
    _drop_index(repo)
    first = _start(repo, "s-first", **TINY)
    _wait_gone(_background_pid(first.stderr))
    # As if the project had moved while that catch-up ran: it failed for the old place.
    log = repo / ".baton" / "cache" / "catch-up.log"
    log.write_text(f"baton: {repo} is not a Baton project (no .baton/config.json); run `baton init` first\n")
    moved = tmp_path / "moved"
    repo.rename(moved)
    _drop_index(moved)
    again = _start(moved, "s-again", **TINY)
    assert again.returncode == 0 and "the next session start has it" in again.stderr  # a catch-up, as promised
    assert "baton init" not in again.stderr and "could not be brought up to date" not in again.stderr
    _wait_gone(catch_up_pid(moved))
    assert _documents(moved).get("handoffs") == 1


@WAITS_FOR_A_CATCH_UP
def test_a_hook_still_says_why_the_last_catch_up_for_the_same_place_failed(repo):
    _drop_index(repo)
    first = _start(repo, "s-first", **TINY)
    _wait_gone(_background_pid(first.stderr))
    (repo / ".baton" / "cache" / "catch-up.log").write_text("baton: feed x is corrupt at byte 3\n")
    _drop_index(repo)
    again = _start(repo, "s-again", **TINY)
    assert "could not be brought up to date in the background: feed x is corrupt at byte 3" in again.stderr
    _wait_gone(catch_up_pid(repo))
