"""Two promises of a session baton, kept inside the real harnesses: it crosses machines through
a real git remote, and it stays on its branch.

- **Across clones.** One person works on two machines, each a clone of one repository
  with a bare remote on disk between them (``baton sync`` reaches it by its path), each
  with its own HOME whose ``~/.gitconfig`` names the person, as a person sets it up once
  per machine (the clones themselves carry no identity): on A plainly (``git config
  --global user.email``), on B through ``[includeIf "gitdir:~/work/"]`` beside a personal
  email, the clone living under ``~/work``. Either way the baton's owner is the
  ``user.email`` git reports there, the same person on both. Claude Code ends a session
  on machine A leaving a baton; after ``baton sync`` on both, Gemini CLI on machine B
  receives it in its model's first request, once; the next session on B does not, nor
  does Claude Code on A once the claim has been synced back.
- **Branch scoping.** In one checkout, a baton left on ``feature-x`` is not delivered to
  a Claude Code session on ``main`` (nor is any of its text shown there), and is
  delivered once after ``git checkout feature-x``.

What each agent was told is read from the request its harness sent its model; what
each did, from the ledger.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from baton.domain.batons import HANDOFF_HEADING
from tests.e2e.common import (
    ProxyTrap,
    git,
    git_project,
    harness_env,
    harness_program,
    run_baton,
    set_git_identity,
)
from tests.e2e.fake_anthropic import FakeAnthropic, claude_env, said
from tests.e2e.fake_gemini import FakeGemini, user_text
from tests.e2e.test_claude_code import WORK, events, hand_off_through_the_prepared_draft, session, subject
from tests.e2e.test_gemini_cli import Session

pytestmark = pytest.mark.e2e

PERSON = ("alice@example.test", "Alice")


def _baton(project: Path, env: dict[str, str], *args: str) -> dict[str, Any]:
    """``baton ARGS --json`` in ``project``, which must succeed; its JSON."""
    done = run_baton(project, env, *args, "--json")
    assert done.returncode == 0, f"baton {' '.join(args)} exited {done.returncode}:\n{done.stderr}\n{done.stdout}"
    return json.loads(done.stdout)


def _first_clone(project: Path, remote: Path, env: dict[str, str]) -> None:
    """Machine A: a repository with one commit, made a Baton project whose config is committed
    and pushed (docs/sync.md, "Setting up a team")."""
    project.mkdir(parents=True)
    git(project, "init", "-q", "-b", "main", env=env)
    (project / "README.md").write_text("# demo\n")
    _baton(project, env, "init")
    git(project, "add", "README.md", ".baton/.gitignore", ".baton/config.json", env=env)
    git(project, "commit", "-q", "-m", "first, and the Baton project", env=env)
    git(project, "remote", "add", "origin", str(remote), env=env)
    git(project, "push", "-q", "-u", "origin", "main", env=env)


def _second_clone(project: Path, remote: Path, env: dict[str, str]) -> None:
    """Machine B: a git clone of the remote, then ``baton init`` (the committed project id kept)."""
    project.parent.mkdir(parents=True, exist_ok=True)
    git(project.parent, "clone", "-q", str(remote), project.name, env=env)
    _baton(project, env, "init")


def _work_identity_under_work(env: dict[str, str], personal: str) -> None:
    """The user's ``~/.gitconfig`` names a personal email, and the person's work one (``PERSON``)
    for every repository under ``~/work/`` (``[includeIf "gitdir:~/work/"]``)."""
    home = Path(env["HOME"])
    set_git_identity(env, personal, PERSON[1])
    git(home, "config", "--global", "includeIf.gitdir:~/work/.path", ".gitconfig-work", env=env)
    git(home, "config", "--file", str(home / ".gitconfig-work"), "user.email", PERSON[0], env=env)


def _sync(project: Path, env: dict[str, str]) -> None:
    _baton(project, env, "sync")


def test_a_baton_left_on_one_clone_reaches_another_harness_on_another_clone_once(tmp_path):
    claude = harness_program("claude-code")
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    trap = ProxyTrap()
    try:
        with FakeAnthropic() as anthropic, FakeGemini() as google:
            # Machine A: Claude Code, in the first clone.
            env_a = claude_env(tmp_path / "a" / "home", anthropic)
            set_git_identity(env_a, *PERSON)
            a = tmp_path / "a" / "project"
            _first_clone(a, remote, env_a)
            installed = run_baton(a, env_a, "install-hooks", "--harness", "claude-code", "--events", "all")
            assert installed.returncode == 0, installed.stderr
            # Machine B: Gemini CLI, in a clone of the remote under ~/work; the same person, whose
            # work identity there comes from a conditional include (a personal one elsewhere).
            home_b = tmp_path / "b" / "home"
            env_b = harness_env(home_b)  # the home Gemini's session below runs in
            _work_identity_under_work(env_b, "alice@home.example")
            b = home_b / "work" / "project"
            _second_clone(b, remote, env_b)
            assert git(b, "config", "user.email", env=env_b).strip() == PERSON[0]
            gemini = Session(b.parent, google, trap, home=home_b)
            assert gemini.project == b and gemini.env["GIT_CONFIG_GLOBAL"] == env_b["GIT_CONFIG_GLOBAL"]

            # 1. On A, the person asks for a handoff; the session's end leaves it as a baton.
            _, handoff = hand_off_through_the_prepared_draft(claude, a, env_a, anthropic)
            (created,) = events(a, env_a, "baton.created")
            assert subject(created) == handoff
            assert (created["data"]["owner"], created["data"]["branch"]) == (PERSON[0], "main")

            # 2. A syncs, then B: B's first session receives the baton, once.
            _sync(a, env_a)
            _sync(b, gemini.env)
            [first, *_] = gemini.run("hello")
            told = user_text(first)
            assert told.count(HANDOFF_HEADING) == 1, told
            assert f"(baton `{handoff}`)" in told and WORK["work"]["objective"] in told
            [second, *_] = gemini.run("hello again")
            assert HANDOFF_HEADING not in user_text(second)
            claims = [e for e in gemini.events() if e["type"] == "baton.claimed"]
            assert [subject(e) for e in claims] == [handoff]

            # 3. B syncs the claim back, then A: Claude Code's next session on A gets no baton.
            _sync(b, gemini.env)
            _sync(a, env_a)
            anthropic.script = ["Hello."]
            asked = len(anthropic.turns())
            session(claude, a, env_a, anthropic, "hello")
            told = said(anthropic.turns()[asked])
            assert "SessionStart hook additional context: " in told  # a brief, and no baton in it
            assert HANDOFF_HEADING not in told and f"(baton `{handoff}`)" not in told
            assert [(subject(e), e["data"]["session"]) for e in events(a, env_a, "baton.claimed")] == \
                [(subject(e), e["data"]["session"]) for e in claims]
    finally:
        trap.close()


def test_a_baton_left_on_a_branch_waits_for_a_session_on_that_branch(tmp_path):
    claude = harness_program("claude-code")
    step = "Wire the zebra-42 parser into the feature-x CLI"
    with FakeAnthropic() as model:
        project = git_project(tmp_path / "project")
        env = claude_env(tmp_path / "home", model)
        installed = run_baton(project, env, "install-hooks", "--harness", "claude-code", "--events", "all")
        assert installed.returncode == 0, installed.stderr
        git(project, "checkout", "-q", "-b", "feature-x", env=env)
        _baton(project, env, "session", "end", "earlier-session", "--handoff-steps", step)
        git(project, "checkout", "-q", "main", env=env)

        # On main: a brief, and nothing of the baton on feature-x in it; the baton still waits.
        model.script = ["Hello."]
        session(claude, project, env, model, "hello")
        told = said(model.turns()[0])
        assert "SessionStart hook additional context: " in told
        assert HANDOFF_HEADING not in told and step not in told
        assert not events(project, env, "baton.claimed")

        # Back on feature-x: the next session receives it, and claims it once.
        git(project, "checkout", "-q", "feature-x", env=env)
        model.script = ["On it."]
        asked = len(model.turns())
        sid = session(claude, project, env, model, "hello")["session_id"]
        told = said(model.turns()[asked])
        assert told.count(HANDOFF_HEADING) == 1 and step in told
        (created,) = events(project, env, "baton.created")
        assert created["data"]["branch"] == "feature-x"
        assert [(subject(e), e["data"]["session"]) for e in events(project, env, "baton.claimed")] == \
            [(subject(created), sid)]
