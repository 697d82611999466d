"""A baton left while HEAD is detached (docs/batons.md, "Who and where"):
mid-rebase or mid-bisect it is the branch being rebased or bisected's; on a
plain detached HEAD it is keyed ``(detached)``, a name git forbids, so no
real branch (one named ``unknown``) receives it. Leaving one there says where
it went; the next session of the owner started on a detached HEAD receives it
(through the real hook commands, as Claude Code runs them); a session on a
branch whose tip is the commit it was left at is told once that it waits."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.cli_support import run, run_json


def _git(cwd: Path, *args: str, env: dict | None = None) -> str:
    done = subprocess.run(["git", "-c", "user.email=r@example.com", "-c", "user.name=R", *args], cwd=cwd,
                          capture_output=True, text=True, env={**os.environ, **(env or {})})
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


@pytest.fixture
def repo(tmp_path, capsys) -> Path:
    here = tmp_path / "r"
    here.mkdir()
    _git(here, "init", "-q", "-b", "master")
    _git(here, "config", "user.email", "r@example.com")
    _git(here, "commit", "-q", "--allow-empty", "-m", "a")
    run_json(capsys, here, "init")
    _git(here, "checkout", "-qb", "feature")
    (here / "f").write_text("1\n")
    _git(here, "add", "f")
    _git(here, "commit", "-qm", "one")
    (here / "f").write_text("1\n2\n")
    _git(here, "commit", "-qam", "two")
    return here


def _waiting(capsys, repo: Path) -> str | None:
    handoff = run_json(capsys, repo, "bootstrap", "--peek").get("handoff")
    return handoff["id"] if handoff else None


def test_a_baton_left_mid_rebase_is_the_rebased_branchs(capsys, repo):
    _git(repo, "rebase", "-i", "HEAD~1", env={"GIT_SEQUENCE_EDITOR": "sed -i '1s/^pick/edit/'"})
    assert _git(repo, "branch", "--show-current").strip() == ""  # stopped, HEAD detached
    left = run_json(capsys, repo, "session", "end", "s1", "--handoff-steps", "finish the rebase, then run tests")
    assert left["handoff"]["branch"] == "feature"
    _git(repo, "rebase", "--continue")
    assert _waiting(capsys, repo) == left["handoffId"]


def test_a_baton_left_on_a_detached_head_is_not_given_to_a_branch_named_unknown(capsys, repo):
    _git(repo, "checkout", "-q", "--detach")
    left = run_json(capsys, repo, "session", "end", "s1", "--handoff-steps", "look at the detached work")
    assert left["handoff"]["branch"] == "(detached)"
    _git(repo, "checkout", "-qb", "unknown")
    assert _waiting(capsys, repo) is None


def test_a_start_after_a_branch_rename_says_once_a_baton_waits_under_the_old_name(capsys, repo):
    left = run_json(capsys, repo, "session", "end", "s1", "--handoff-steps", "carry on")
    _git(repo, "branch", "-m", "feature", "feature2")
    first = run_json(capsys, repo, "bootstrap")
    told = [n for n in first["notices"] if left["handoffId"] in n]
    assert told and "no branch feature exists here" in told[0] and "with feature as its branch" in told[0], first["notices"]
    again = run_json(capsys, repo, "bootstrap")
    assert not [n for n in again["notices"] if left["handoffId"] in n]


def test_a_start_on_another_branch_that_still_exists_is_not_told_of_its_baton(capsys, repo):
    left = run_json(capsys, repo, "session", "end", "s1", "--handoff-steps", "carry on")
    _git(repo, "checkout", "-qb", "other")
    shown = run_json(capsys, repo, "bootstrap")
    assert not [n for n in shown["notices"] if left["handoffId"] in n]


# -- where a baton left on a plain detached HEAD goes (harness16) ------------------------------------

def test_leaving_a_baton_on_a_detached_head_says_where_it_went_and_how_it_is_picked_up(capsys, repo):
    _git(repo, "checkout", "-q", "--detach")
    code, out, _ = run(capsys, repo, "session", "end", "s1", "--handoff-steps", "look at the detached work")
    assert code == 0
    said = out.splitlines()
    assert said[1].startswith("Left a baton for r@example.com on (detached): ")
    assert said[2].startswith("HEAD is detached here (no branch checked out, no rebase or bisect in progress), "
                              "so this baton is for (detached), not for a branch: the next session of "
                              "r@example.com started on a detached HEAD in this project receives it")
    assert "`baton session begin` with (detached) as its branch claims it from any branch." in said[2]


def test_the_json_of_an_end_on_a_detached_head_carries_the_same_line_in_its_notices(capsys, repo):
    _git(repo, "checkout", "-q", "--detach")
    left = run_json(capsys, repo, "session", "end", "s1", "--handoff-steps", "look at the detached work")
    assert [n for n in left["notices"] if n.startswith("HEAD is detached here")]


def test_an_end_on_a_branch_says_nothing_of_a_detached_head(capsys, repo):
    left = run_json(capsys, repo, "session", "end", "s1", "--handoff-steps", "carry on")
    assert not [n for n in left["notices"] if "detached" in n]


def test_handing_a_handoff_on_from_a_detached_head_says_where_it_went(capsys, repo):
    _git(repo, "checkout", "-q", "--detach")
    handoff_id = _ready_for(capsys, repo, "s1")
    code, out, _ = run(capsys, repo, "session", "handoff", "--from", handoff_id)
    assert code == 0, out
    assert "HEAD is detached here" in out and "with (detached) as its branch claims it" in out


def test_the_json_of_a_hand_on_from_a_detached_head_carries_the_line_in_its_notices(capsys, repo):
    _git(repo, "checkout", "-q", "--detach")
    handed = run_json(capsys, repo, "session", "handoff", "--from", _ready_for(capsys, repo, "s1"))
    assert [n for n in handed["notices"] if n.startswith("HEAD is detached here")]


def _hook(repo: Path, event: str, session: str) -> str:
    """``baton hook claude-code EVENT`` as Claude Code runs it: a process, the payload on stdin."""
    import json
    import sys

    payload = {"session_id": session, "cwd": str(repo), "hook_event_name": event, "transcript_path": None,
               **({"source": "startup"} if event == "SessionStart" else {"reason": "exit"})}
    done = subprocess.run([sys.executable, "-m", "baton", "hook", "claude-code", event], cwd=repo,
                          input=json.dumps(payload), capture_output=True, text=True,
                          env={**os.environ, "BATON_HOOK_SERVER": "0"})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] if done.stdout.strip() else ""


def _ready_for(capsys, repo: Path, session: str) -> str:
    """A handoff the session's agent captured (naming the session) and made ready."""
    from baton.app import Baton
    from tests.app_support import promote_handoff, validate_handoff_command
    from tests.handoff_support import payload

    with Baton.open(repo) as app:
        handoff_id = app.capture(payload(), session=session).handoff_id
    validate_handoff_command(repo, handoff_id)
    promote_handoff(repo, handoff_id, accept_warnings="tests")
    return handoff_id


def test_the_next_session_started_on_a_detached_head_receives_the_baton_through_the_hooks(capsys, repo):
    _git(repo, "checkout", "-q", "--detach")
    _hook(repo, "SessionStart", "s1")
    handoff_id = _ready_for(capsys, repo, "s1")
    _hook(repo, "SessionEnd", "s1")
    _git(repo, "checkout", "-q", "--detach", "HEAD~1")  # another detached commit: still this owner's (detached)
    brief = _hook(repo, "SessionStart", "s2")
    assert "## 🤝 Active Session Handoff" in brief and handoff_id in brief and "on `(detached)`" in brief
    assert "STALE" in brief  # HEAD moved since it was left: said, not hidden
    assert "## 🤝 Active Session Handoff" not in _hook(repo, "SessionStart", "s3")  # claimed once


def test_a_session_on_a_branch_at_the_commit_a_detached_baton_was_left_at_is_told_once(capsys, repo):
    _git(repo, "checkout", "-q", "--detach")
    _hook(repo, "SessionStart", "s1")
    handoff_id = _ready_for(capsys, repo, "s1")
    _hook(repo, "SessionEnd", "s1")
    tip = _git(repo, "rev-parse", "HEAD").strip()
    _git(repo, "switch", "-q", "-c", "rescued")
    brief = _hook(repo, "SessionStart", "s2")
    assert "## 🤝 Active Session Handoff" not in brief  # not delivered: the spec's eligible set is this branch
    assert (f"A baton this clone left for r@example.com on a detached HEAD at commit {tip[:12]}, the tip of rescued "
            f"(baton {handoff_id}, ") in brief
    assert "`baton session begin` with (detached) as its branch claims it here" in brief
    assert handoff_id not in _hook(repo, "SessionStart", "s3")  # told once


def test_the_command_the_notice_names_claims_the_detached_baton_from_the_branch(capsys, repo):
    _git(repo, "checkout", "-q", "--detach")
    left = run_json(capsys, repo, "session", "end", "s1", "--handoff-steps", "look at the detached work")
    _git(repo, "switch", "-q", "-c", "rescued")
    begun = run_json(capsys, repo, "session", "begin", "s2", "--branch", "(detached)")
    assert begun["handoff"]["id"] == left["handoffId"]


def test_a_session_on_a_branch_at_another_commit_is_not_told_of_a_detached_baton(capsys, repo):
    _git(repo, "checkout", "-q", "--detach", "HEAD~1")
    left = run_json(capsys, repo, "session", "end", "s1", "--handoff-steps", "look at the detached work")
    _git(repo, "checkout", "-q", "feature")  # its tip is a later commit
    shown = run_json(capsys, repo, "bootstrap")
    assert not [n for n in shown["notices"] if left["handoffId"] in n]


def _ready_naming_no_session(repo: Path) -> str:
    """A handoff an agent captured over MCP without the session id, and made ready."""
    from baton.app import Baton
    from tests.app_support import promote_handoff, validate_handoff_command
    from tests.handoff_support import payload

    with Baton.open(repo) as app:
        handoff_id = app.capture(payload()).handoff_id
    validate_handoff_command(repo, handoff_id)
    promote_handoff(repo, handoff_id, accept_warnings="tests")
    return handoff_id


def test_a_handoff_captured_on_a_detached_head_naming_no_session_is_handed_on_at_the_sessions_end(capsys, repo):
    """git records no branch for a capture on a detached HEAD: the end still finds it the session's."""
    _git(repo, "checkout", "-q", "--detach")
    _hook(repo, "SessionStart", "s1")
    handoff_id = _ready_naming_no_session(repo)
    _hook(repo, "SessionEnd", "s1")
    assert handoff_id in _hook(repo, "SessionStart", "s2")


def test_a_handoff_captured_mid_rebase_naming_no_session_is_the_rebased_branchs_baton(capsys, repo):
    _hook(repo, "SessionStart", "s1")  # begun on feature
    _git(repo, "rebase", "-i", "HEAD~1", env={"GIT_SEQUENCE_EDITOR": "sed -i '1s/^pick/edit/'"})
    handoff_id = _ready_naming_no_session(repo)
    _hook(repo, "SessionEnd", "s1")
    _git(repo, "rebase", "--continue")
    assert _waiting(capsys, repo) == handoff_id


def test_a_session_killed_on_a_detached_head_after_readying_a_handoff_is_told_of_at_the_next_start(capsys, repo):
    _git(repo, "checkout", "-q", "--detach")
    _hook(repo, "SessionStart", "killed")
    handoff_id = _ready_for(capsys, repo, "killed")  # no SessionEnd: the harness was killed
    told = _hook(repo, "SessionStart", "next")
    assert f"has not reported its end, and it readied handoff `{handoff_id}`" in told


def test_a_start_after_leaving_an_unborn_branch_says_the_branch_may_never_have_been_committed_to(capsys, repo):
    _git(repo, "switch", "-q", "--orphan", "newroot")
    left = run_json(capsys, repo, "session", "end", "s-o", "--handoff-steps", "on unborn newroot")
    assert left["handoff"]["branch"] == "newroot"
    _git(repo, "switch", "-q", "-f", "feature")
    [told] = [n for n in run_json(capsys, repo, "bootstrap")["notices"] if left["handoffId"] in n]
    assert "no branch newroot exists here (renamed with `git branch -m`, deleted, or never committed to" in told
    assert "any more" not in told
