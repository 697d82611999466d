"""A hook whose work must not be lost — a session's end, the draft before a
compaction — that meets an index too far behind to fold in its time is kept
(``.baton/deferred/``) and run by the background catch-up once the index is
up to date, exactly once in effect.

Without this, a session's end while the index was that far behind recorded
nothing and handed no baton on: the session's work was lost for the next
session. Run as the harness runs it: ``baton hook`` in a child process, the
payload on stdin (``BATON_HOOK_FOLD_MB`` makes the small projects here "large").
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from baton.app import Baton, Limits
from baton.commands import deferred
from baton.commands.session_drafts import open_session_draft
from baton.projections.sessions import session_doc
from tests.app_support import promote_handoff, validate_handoff_command
from tests.background_support import WAITS_FOR_A_CATCH_UP, catch_up_pid
from tests.background_support import background_pid as _background_pid
from tests.background_support import claude_hook as _hook
from tests.background_support import kept_hooks as _kept
from tests.background_support import wait_gone as _wait_gone
from tests.cli_support import run_here
from tests.conftest import run_baton
from tests.handoff_support import git_init, payload
from tests.harness_support import fixture, hook, injected, lock_held_elsewhere

TINY = {"BATON_HOOK_FOLD_MB": "0.000001", "BATON_HOOK_SERVER": "0"}  # one byte: any catch-up is "large"


@pytest.fixture
def repo(project):
    """A session ``s-work`` that began and wrote a ready handoff; then the index is lost."""
    git_init(project, {"src/app.py": "x = 1\n"})
    _ready_handoff_then_index_lost(project, project, "s-work")  # the one handoff: ``_handoff_id``
    return project




def _end(repo: Path, session: str = "s-work"):
    return _hook(repo, "SessionEnd", "SessionEnd", session, **TINY)








def _caught_up(repo: Path) -> None:
    """``baton rebuild --if-needed`` in this process, to set a scene (the tests that prove
    something about the catch-up run it as a real process)."""
    code, _, err = run_here("rebuild", "--if-needed", cwd=repo)
    assert code == 0, err


def _events(repo: Path, event_type: str, stream: str) -> list[dict]:
    found = []
    for feed in (repo / ".baton" / "ledger").glob("*.jsonl"):
        for line in feed.read_bytes().splitlines():
            event = json.loads(line)
            if event.get("type") == event_type and event.get("stream") == stream:
                found.append(event)
    return found


def _session(repo: Path, session: str) -> dict:
    with Baton.open(repo) as app:
        return session_doc(app.project.reading(), app.project.writer, session)


@WAITS_FOR_A_CATCH_UP
def test_a_session_end_far_behind_hands_its_baton_on_after_the_background_catch_up(repo):
    ended = _end(repo)
    assert ended.returncode == 0 and ended.stdout == ""
    _wait_gone(_background_pid(ended.stderr))
    assert _kept(repo) == []  # run, then removed
    assert _session(repo, "s-work")["status"] == "ended"
    outcome = _hook(repo, "SessionStart", "SessionStart.startup", "s-next", **TINY)
    brief = injected("claude-code", outcome.stdout)
    assert brief is not None and "Active Session Handoff" in brief
    assert _session(repo, "s-next")["receivedBaton"] == _handoff_id(repo)


@WAITS_FOR_A_CATCH_UP
def test_a_session_end_far_behind_says_it_will_be_recorded_not_that_it_was_lost(repo):
    ended = _end(repo)
    _wait_gone(_background_pid(ended.stderr))
    assert "the session's end is kept: it will be recorded, and its baton left, once the index is up to date" \
        in ended.stderr
    assert "was not recorded" not in ended.stderr
    brief = injected("claude-code", _hook(repo, "SessionStart", "SessionStart.startup", "s-next", **TINY).stdout)
    assert brief is not None and "Active Session Handoff" in brief  # recorded since: its baton, and
    assert "the session's end is kept" not in brief  # no notice that it will still be


@WAITS_FOR_A_CATCH_UP
def test_a_kept_session_end_runs_once_even_if_the_catch_up_runs_twice(repo):
    copy = repo / "kept-before-it-ran"
    with lock_held_elsewhere(repo):  # the catch-up waits for the ledger: the kept file can be copied first
        ended = _end(repo)
        [kept] = _kept(repo)
        shutil.copy(kept, copy)
    _wait_gone(_background_pid(ended.stderr))
    shutil.copy(copy, kept)  # as if the catch-up had died after running it, before removing it
    again = run_baton("rebuild", "--if-needed", "--json", cwd=repo)
    assert again.returncode == 0, again.stderr
    [ran] = json.loads(again.stdout)["deferred"]
    assert ran["session"] == "s-work" and ran["result"]["ended"] is False  # had already ended: nothing new
    assert _kept(repo) == []
    assert len(_events(repo, "session.ended", "session/s-work")) == 1
    assert len(_events_by_type(repo, "baton.created")) == 1


def _damage_a_feed(repo: Path) -> tuple[Path, bytes]:
    feed = next((repo / ".baton" / "ledger").glob("*.jsonl"))
    whole = feed.read_bytes()
    lines = whole.splitlines(keepends=True)
    lines[1] = b"{not json\n"  # before its tail: no replay gets past it
    feed.write_bytes(b"".join(lines))
    return feed, whole


@WAITS_FOR_A_CATCH_UP
def test_a_failed_catch_up_keeps_the_session_end_for_the_next_one(repo):
    feed, whole = _damage_a_feed(repo)
    ended = _end(repo)
    _wait_gone(_background_pid(ended.stderr))
    assert len(_kept(repo)) == 1  # the catch-up failed: the end waits
    feed.write_bytes(whole)  # repaired
    again = _end(repo)  # a later hook, still far behind: the catch-up it starts runs both
    assert "tried again" in again.stderr
    _wait_gone(catch_up_pid(repo))
    assert _kept(repo) == []
    assert _session(repo, "s-work")["status"] == "ended"
    assert len(_events(repo, "session.ended", "session/s-work")) == 1


@WAITS_FOR_A_CATCH_UP
def test_doctor_reports_a_kept_session_end_still_waiting(repo):
    feed, _whole = _damage_a_feed(repo)
    _wait_gone(_background_pid(_end(repo).stderr))
    report = json.loads(run_baton("doctor", "--json", cwd=repo).stdout)
    [check] = [c for c in report["checks"] if c["name"] == "deferred hooks"]
    assert check["status"] == "warn" and "1 hook kept while the index was too far behind" in check["detail"]


def test_doctor_names_rebuild_if_needed_to_run_the_kept_hooks_without_a_replay(repo):
    _caught_up(repo)
    with Baton.open(repo) as app:
        deferred.keep(app.project, kind=deferred.SESSION_END, harness="claude-code", event="SessionEnd",
                      session="s-work")
    report = json.loads(run_baton("doctor", "--json", cwd=repo).stdout)
    [check] = [c for c in report["checks"] if c["name"] == "deferred hooks"]
    assert "`baton rebuild --if-needed`" in check["detail"]
    done = run_baton("rebuild", "--if-needed", "--json", cwd=repo)
    assert json.loads(done.stdout)["rebuilt"] is False and _kept(repo) == []


def test_a_session_start_runs_a_kept_session_end_still_waiting_first(repo):
    _caught_up(repo)  # the index caught up, but not by the catch-up that ran it
    with Baton.open(repo) as app:
        deferred.keep(app.project, kind=deferred.SESSION_END, harness="claude-code", event="SessionEnd",
                      session="s-work")
    brief = injected("claude-code", _hook(repo, "SessionStart", "SessionStart.startup", "s-next", **TINY).stdout)
    assert brief is not None and "Active Session Handoff" in brief
    assert _kept(repo) == []


def test_a_kept_hook_that_cannot_run_is_set_aside_with_why(repo):
    with Baton.open(repo) as app:
        deferred.keep(app.project, kind=deferred.SESSION_END, harness="claude-code", event="SessionEnd",
                      session="s-work")
    [kept] = _kept(repo)
    kept.write_bytes(kept.read_bytes().replace(b'"s-work"', b'"bad session id\\u0000"'))
    done = run_baton("rebuild", "--if-needed", "--json", cwd=repo)
    assert done.returncode == 0, done.stderr
    [ran] = json.loads(done.stdout)["deferred"]
    assert ran["error"] and ran["result"] is None
    assert _kept(repo) == [] and len(list((repo / ".baton" / "deferred").glob("*.failed"))) == 1
    report = json.loads(run_baton("doctor", "--json", cwd=repo).stdout)
    assert any("could not run and were set aside" in c["detail"] for c in report["checks"])
    notices = (repo / ".baton" / "hook-notices.jsonl").read_text()
    assert "it could not run" in notices and ".failed" in notices  # the next session start is told


def test_gc_leaves_kept_hooks_alone(repo):
    with Baton.open(repo) as app:
        deferred.keep(app.project, kind=deferred.SESSION_END, harness="claude-code", event="SessionEnd",
                      session="s-work")
    assert run_baton("gc", cwd=repo).returncode == 0
    assert len(_kept(repo)) == 1


@WAITS_FOR_A_CATCH_UP
def test_a_kept_hook_holds_what_it_acts_on_and_no_transcript_path(repo):
    with lock_held_elsewhere(repo):
        ended = _end(repo)
        [kept] = _kept(repo)
        held = json.loads(kept.read_text())
    _wait_gone(_background_pid(ended.stderr))
    assert held["session"] == "s-work" and held["event"] == "SessionEnd" and held["worktree"] == "."
    assert "transcript" not in json.dumps(held)


@WAITS_FOR_A_CATCH_UP
def test_a_kept_hook_holds_no_secret_its_reason_carried(repo):
    key = "AKIAQ7XJ3KZP5HWN4TLA"  # synthetic: the shape of an AWS access key id
    body = fixture("claude-code", "SessionEnd", repo, session_id="s-work", reason=f"exit {key}")
    with lock_held_elsewhere(repo):
        ended = run_baton("hook", "claude-code", "SessionEnd", cwd=repo, input=json.dumps(body), env=TINY)
        [kept] = _kept(repo)
        held = kept.read_text()
    _wait_gone(_background_pid(ended.stderr))
    assert key not in held and json.loads(held)["reason"].startswith("exit ")


@WAITS_FOR_A_CATCH_UP
def test_a_compaction_far_behind_gets_its_draft_after_the_background_catch_up(repo):
    done = _hook(repo, "PreCompact", "PreCompact.auto", "s-work", **TINY)
    assert "the draft before compaction is kept: it will be prepared once the index is up to date" in done.stderr
    _wait_gone(_background_pid(done.stderr))
    assert _kept(repo) == []
    with Baton.open(repo) as app:
        assert open_session_draft(app.project.reading(), app.project.writer, "s-work") is not None


def _events_by_type(repo: Path, event_type: str) -> list[dict]:
    return [json.loads(line) for feed in (repo / ".baton" / "ledger").glob("*.jsonl")
            for line in feed.read_bytes().splitlines() if json.loads(line)["type"] == event_type]


def _handoff_id(repo: Path) -> str:
    [captured] = _events_by_type(repo, "handoff.captured")
    return captured["stream"].split("/", 1)[1]


def test_a_kept_hook_that_cannot_run_yet_waits_for_the_next_catch_up(repo):
    _caught_up(repo)
    with Baton.open(repo, limits=Limits(write_wait=0.1)) as app:
        deferred.keep(app.project, kind=deferred.SESSION_END, harness="claude-code", event="SessionEnd",
                      session="s-work")
        with lock_held_elsewhere(repo):  # the ledger busy: it cannot run now, nor is it refused for good
            [ran] = app.run_deferred_hooks()
    assert ran.waiting and ran.error and "locked by another process" in ran.error
    assert len(_kept(repo)) == 1
    assert run_baton("rebuild", "--if-needed", cwd=repo).returncode == 0  # the next catch-up runs it
    assert _kept(repo) == [] and _session(repo, "s-work")["status"] == "ended"


@WAITS_FOR_A_CATCH_UP
@pytest.mark.parametrize(("harness", "event", "name"), [
    ("codex", "Stop", "Stop"), ("gemini-cli", "SessionEnd", "SessionEnd"), ("cursor", "sessionEnd", "sessionEnd"),
    ("gemini-cli", "PreCompress", "PreCompress.manual"),
])
def test_every_harness_keeps_its_session_end_or_compaction_far_behind(repo, harness, event, name):
    ids = {"session_id": "s-work", **({"conversation_id": "s-work"} if harness == "cursor" else {})}
    body = fixture(harness, name, repo, **ids)
    done = run_baton("hook", harness, event, cwd=repo, input=json.dumps(body), env=TINY, timeout=60)
    assert done.returncode == 0 and "is kept" in done.stderr, done.stderr
    _wait_gone(_background_pid(done.stderr))
    assert _kept(repo) == []
    with Baton.open(repo) as app:
        runner = app.project.reading()
        if event == "PreCompress":
            assert open_session_draft(runner, app.project.writer, "s-work") is not None
        else:
            assert session_doc(runner, app.project.writer, "s-work")["status"] == "ended"


def test_a_rebuild_pinned_in_the_past_runs_no_kept_hook(repo):
    with Baton.open(repo) as app:
        deferred.keep(app.project, kind=deferred.SESSION_END, harness="claude-code", event="SessionEnd",
                      session="s-work")
    pinned = run_baton("rebuild", "--until", "2000-01-01T00:00:00Z", "--json", cwd=repo)
    assert pinned.returncode == 0 and json.loads(pinned.stdout)["deferred"] == []
    assert len(_kept(repo)) == 1  # writing commands refuse a pinned index: it waits for the present


def test_a_hook_kept_while_the_catch_up_runs_the_kept_ones_is_run_by_it_too(repo):
    """A hook that finds the catch-up running starts none of its own: that catch-up must see its file."""
    _caught_up(repo)
    with Baton.open(repo) as app:
        deferred.keep(app.project, kind=deferred.SESSION_END, harness="claude-code", event="SessionEnd",
                      session="s-work")
        real, calls = app._run_kept, []

        def run_and_meanwhile_another_is_kept(hook):
            calls.append(hook.session)
            if len(calls) == 1:
                deferred.keep(app.project, kind=deferred.SESSION_END, harness="claude-code", event="SessionEnd",
                              session="s-late")
            return real(hook)

        ran = deferred.run_pending(app.project.paths, run_and_meanwhile_another_is_kept)
    assert calls == ["s-work", "s-late"] and all(r.error is None for r in ran)
    assert _kept(repo) == []


def test_a_kept_compaction_run_twice_prepares_one_draft_and_one_recommendation(repo):
    _caught_up(repo)
    with Baton.open(repo) as app:
        deferred.keep(app.project, kind=deferred.PRE_COMPACT, harness="claude-code", event="PreCompact",
                      session="s-work", trigger="auto")
    [kept] = _kept(repo)
    held = kept.read_bytes()
    assert run_baton("rebuild", "--if-needed", cwd=repo).returncode == 0
    kept.write_bytes(held)  # as if the catch-up had died after running it, before removing it
    assert run_baton("rebuild", "--if-needed", cwd=repo).returncode == 0
    assert _kept(repo) == []
    drafts = [e for e in _events_by_type(repo, "handoff.captured") if e.get("session") == "s-work"]
    assert len(drafts) == 2  # the session's ready handoff, and the one draft
    assert len(_events_by_type(repo, "detector.recommended")) == 1


@WAITS_FOR_A_CATCH_UP
def test_a_session_end_kept_in_a_linked_worktree_hands_on_that_worktrees_branch(repo):
    from dulwich import porcelain

    porcelain.branch_create(str(repo), "feature/docs")
    linked = repo.parent / "wt-docs"
    porcelain.worktree_add(str(repo), str(linked), branch="feature/docs")
    linked = linked.resolve()
    _caught_up(repo)
    handoff_id = _ready_handoff_then_index_lost(repo, linked, "s-docs")
    with lock_held_elsewhere(repo):
        ended = _hook(linked, "SessionEnd", "SessionEnd", "s-docs", **TINY)
        [kept] = _kept(repo)
        assert json.loads(kept.read_text())["worktree"] == str(linked)  # the hook's own worktree, as it used it
    _wait_gone(_background_pid(ended.stderr))
    assert _kept(repo) == []
    [created] = _events_by_type(repo, "baton.created")
    assert created["data"]["handoff_id"] == handoff_id and "feature" in created["stream"]


def test_a_session_start_that_ran_a_kept_hook_says_what_it_could_not_do_in_front_of_its_brief(repo):
    _caught_up(repo)
    with Baton.open(repo) as app:
        deferred.keep(app.project, kind=deferred.SESSION_END, harness="claude-code", event="SessionEnd",
                      session="s-work")
    [kept] = _kept(repo)
    kept.write_bytes(kept.read_bytes().replace(b'"s-work"', b'"bad session id\\u0000"'))
    brief = injected("claude-code", _hook(repo, "SessionStart", "SessionStart.startup", "s-next", **TINY).stdout)
    assert brief is not None and "it could not run" in brief.split("## ")[0]


@WAITS_FOR_A_CATCH_UP
def test_a_session_start_says_why_the_last_catch_up_failed_while_a_kept_end_waits(repo):
    _damage_a_feed(repo)
    ended = _end(repo)
    _wait_gone(_background_pid(ended.stderr))
    assert len(_kept(repo)) == 1  # the catch-up failed: the end waits, and the start runs it first
    started = _hook(repo, "SessionStart", "SessionStart.startup", "s-next", **TINY)
    assert "could not be brought up to date in the background" in started.stderr
    assert "is corrupt" in started.stderr and "tried again" in started.stderr
    assert "the next session start has it" not in started.stderr


@WAITS_FOR_A_CATCH_UP
def test_a_kept_end_whose_linked_worktree_was_removed_leaves_its_baton_on_the_sessions_branch(repo):
    import subprocess

    _caught_up(repo)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-C", str(repo)]
    linked = repo.parent / f"{repo.name}-feat"
    subprocess.run([*git, "worktree", "add", "-q", "-b", "feat", str(linked)], check=True, capture_output=True)
    handoff_id = _ready_handoff_then_index_lost(repo, linked, "s-feat")
    with lock_held_elsewhere(repo):  # the catch-up waits: the worktree is removed before the end runs
        ended = _hook(linked, "SessionEnd", "SessionEnd", "s-feat", **TINY)
        assert len(_kept(repo)) == 1
        subprocess.run([*git, "worktree", "remove", "--force", str(linked)], check=True, capture_output=True)
    _wait_gone(_background_pid(ended.stderr))
    assert _kept(repo) == []
    [created] = [e for e in _events_by_type(repo, "baton.created") if e["data"].get("handoff_id") == handoff_id]
    assert created["data"]["branch"] == "feat"


def _ready_handoff_then_index_lost(repo: Path, linked: Path, session: str) -> str:
    """In ``repo`` (or its linked worktree ``linked``): ``session`` began and made a
    handoff ready; then the shared index is lost, as after an upgrade whose
    projections changed (a full replay, past a hook's limit)."""
    hook(linked, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.startup", linked,
                                                     session_id=session))  # the scene, in this process
    with Baton.open(linked) as app:
        handoff_id = app.capture(payload(), session=session).handoff_id
    validate_handoff_command(linked, handoff_id)
    promote_handoff(linked, handoff_id, accept_warnings="tests")
    for path in (repo / ".baton").glob("index.sqlite*"):
        path.unlink()
    return handoff_id
