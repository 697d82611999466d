"""Codex CLI on either side of a baton, run for real against the other harnesses.

- **Codex receives across clones.** One person, two machines, each a clone of one
  repository with a bare remote on disk between them (``baton sync`` reaches it by
  its path), each machine's ``~/.gitconfig`` naming the person. Gemini CLI on
  machine A ends a "continue later" session leaving a baton; after ``baton sync``
  on both, the first Codex session on machine B receives it in its model's first
  request (developer context), once; the next Codex session on B does not, nor does
  Gemini CLI on A once the claim has been synced back.
- **Codex hands off from its shell, another harness resumes.** In one checkout the
  Codex agent writes its handoff with the ``baton`` CLI through Codex's own shell
  tool (no MCP); the session's end leaves it as a baton, and Claude Code's next
  session receives it — objective and state in its model's first request — and
  claims it once.

What each agent was told is read from the request its harness sent its model; what
each did, from the ledger.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from baton.domain.batons import HANDOFF_HEADING, LATEST_HEADING
from tests.e2e.common import ProxyTrap, git, harness_env, harness_program, run_baton, set_git_identity
from tests.e2e.fake_anthropic import FakeAnthropic, claude_env, said
from tests.e2e.fake_gemini import FakeGemini, hook_contexts, user_text
from tests.e2e.fake_openai import FakeResponses
from tests.e2e.test_across_clones import PERSON, _first_clone, _second_clone, _sync
from tests.e2e.test_claude_code import events, session, subject
from tests.e2e.test_codex import CodexProject, developer_texts
from tests.e2e.test_gemini_cli import HANDOFF, Session, _hand_over

pytestmark = pytest.mark.e2e


def _handoff_sections(model: FakeResponses, since: int = 0) -> list[str]:
    """Every developer text carrying a baton, in the model requests Codex made from ``since`` on."""
    return [t for r in model.turns()[since:] for t in developer_texts(r) if HANDOFF_HEADING in t]


def test_a_baton_left_in_gemini_cli_on_one_clone_reaches_codex_on_another_clone_once(tmp_path):
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    trap = ProxyTrap()
    try:
        with FakeGemini() as google, FakeResponses() as openai:
            # Machine A: the first clone, wired for Gemini CLI.
            env_a = harness_env(tmp_path / "a" / "home")
            set_git_identity(env_a, *PERSON)
            _first_clone(tmp_path / "a" / "project", remote, env_a)
            gemini = Session(tmp_path / "a", google, trap, home=tmp_path / "a" / "home")
            # Machine B: a clone of the remote, wired for Codex (its hooks trusted as a user trusts them).
            env_b = harness_env(tmp_path / "b" / "home")
            set_git_identity(env_b, *PERSON)
            _second_clone(tmp_path / "b" / "project", remote, env_b)
            codex = CodexProject(tmp_path / "b", openai, trap)
            assert codex.env["GIT_CONFIG_GLOBAL"] == env_b["GIT_CONFIG_GLOBAL"]
            codex.install_baton()
            assert {h["trustStatus"] for h in codex.trust_baton_hooks()} == {"trusted"}

            # 1. On A, the person says "continue later"; the agent completes Baton's draft; the end hands it on.
            _hand_over(gemini)
            (created,) = [e for e in gemini.events() if e["type"] == "baton.created"]
            handoff = subject(created)
            assert (created["data"]["owner"], created["data"]["branch"]) == (PERSON[0], "main")

            # 2. A syncs, then B: B's first Codex session receives the baton, once.
            _sync(gemini.project, gemini.env)
            _sync(codex.project, codex.env)
            codex.run("hello", ["Hello."])
            received = _handoff_sections(openai)
            assert len(received) == 1, received
            assert f"(baton `{handoff}`)" in received[0] and HANDOFF["work"]["objective"] in received[0]
            asked = len(openai.turns())
            codex.run("hello again", ["Hello."])
            assert _handoff_sections(openai, asked) == []
            claims = [e for e in codex.events() if e["type"] == "baton.claimed"]
            assert [subject(e) for e in claims] == [handoff]
            session_b = claims[0]["data"]["session"]

            # 3. B syncs the claim back, then A: Gemini's next session on A gets no baton.
            _sync(codex.project, codex.env)
            _sync(gemini.project, gemini.env)
            [first, *_] = gemini.run("hello")
            [brief] = hook_contexts(first)
            assert LATEST_HEADING in brief  # a pointer to the handoff, no baton
            assert HANDOFF_HEADING not in user_text(first)
            assert [(subject(e), e["data"]["session"]) for e in gemini.events() if e["type"] == "baton.claimed"] \
                == [(handoff, session_b)]
    finally:
        trap.close()
