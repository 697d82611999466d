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
  tool (no MCP), passing the ``--session`` its brief named; the session's end
  leaves it as a baton, and Claude Code's next session receives it — objective
  and state in its model's first request — and claims it once.
- **Codex ends its session over MCP, another harness resumes.** The Codex agent calls
  ``baton_session`` (``session_end``, its brief's session id, next steps); Codex's own
  ``Stop`` after it leaves no second baton, and Gemini CLI's next session receives the
  steps, once.

What each agent was told is read from the request its harness sent its model; what
each did, from the ledger.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

import pytest

from baton.domain.batons import HANDOFF_HEADING, LATEST_HEADING
from tests.e2e.common import ProxyTrap, git, harness_env, harness_program, run_baton, set_git_identity
from tests.e2e.fake_anthropic import FakeAnthropic, claude_env, said
from tests.e2e.fake_gemini import FakeGemini, hook_contexts, user_text
from tests.e2e.fake_openai import Call, FakeResponses, function_outputs
from tests.e2e.test_across_clones import PERSON, _baton, _first_clone, _second_clone, _sync
from tests.e2e.test_claude_code import events, session, subject
from tests.e2e.test_codex import MCP, CodexProject, _session_named_in, developer_texts
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
            arrived = _baton(codex.project, codex.env, "sync")
            assert arrived["waiting"] == {"handoff_id": handoff, "owner": PERSON[0], "branch": "main", "shared": False}
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


_FULL_ID = re.compile(r"Captured draft handoff \w+ \(([0-9a-f-]{36})\)")
_SESSION_FLAG = re.compile(r"or `--session (\S+)` to `baton checkpoint create`")
"""The brief's session line, the command line's way to pass the session id."""


def _hand_off_from_codexs_shell() -> list[Any]:
    """The Codex agent's replies to "wrap up": it writes the handoff with the ``baton`` CLI, as the skill
    shows (``checkpoint create`` with the ``--session`` its brief gave, then ``handoff validate`` and
    ``ready`` on the id it printed), each command through Codex's own shell tool (``exec_command``).
    ``"login": false``: Codex otherwise runs the command in a login shell, whose profile (Debian's
    ``/etc/profile``) resets ``PATH`` and so loses a ``baton`` found only in a virtualenv, as this
    suite's is (docs/hooks.md, Codex)."""
    item = json.dumps(HANDOFF["open_items"][0])

    def create(recorded) -> Call:
        hints = [m.group(1) for t in developer_texts(recorded) for m in [_SESSION_FLAG.search(t)] if m]
        assert len(hints) == 1, developer_texts(recorded)
        return Call("exec_command", {"cmd": f"baton checkpoint create --session {hints[0]} {fields}", "login": False})

    fields = " ".join([
        "--no-input",
        f"--title {shlex.quote(HANDOFF['work']['title'])}",
        f"--objective {shlex.quote(HANDOFF['work']['objective'])}",
        f"--current-state {shlex.quote(HANDOFF['summary']['current_state'])}",
        f"--in-progress {shlex.quote(HANDOFF['summary']['in_progress'][0])}",
        f"--open-item {shlex.quote(item)}",
    ])

    def validate_and_ready(recorded) -> Call:
        [output] = function_outputs(recorded).values()
        found = _FULL_ID.search(output)
        assert found, output
        handoff = found.group(1)
        return Call("exec_command", {"cmd": f"baton handoff validate {handoff} && baton handoff ready {handoff}"
                                            " --accept-warnings 'a scripted end-to-end session'", "login": False})

    return [create, validate_and_ready, "Handed off."]


def test_a_handoff_codex_wrote_with_the_cli_in_its_shell_is_resumed_by_claude_code_once(tmp_path):
    trap = ProxyTrap()
    try:
        with FakeResponses() as openai, FakeAnthropic() as anthropic:
            codex = CodexProject(tmp_path, openai, trap)
            codex.install_baton()
            assert {h["trustStatus"] for h in codex.trust_baton_hooks()} == {"trusted"}
            env = claude_env(tmp_path / "claude-home", anthropic)
            installed = run_baton(codex.project, env, "install-hooks", "--harness", "claude-code")
            assert installed.returncode == 0, installed.stderr

            # 1. Codex: the agent writes, validates and readies its handoff with the CLI; the end hands it on.
            codex.run("Wrap up the greeting work for the next session.", _hand_off_from_codexs_shell())
            (created,) = [e for e in codex.events() if e["type"] == "baton.created"]
            handoff = subject(created)
            (captured,) = [e for e in codex.events() if e["type"] == "handoff.captured"]
            (begun,) = [e for e in codex.events() if e["type"] == "session.begun"]
            assert subject(captured) == handoff and captured["session"] == begun["session"]

            # 2. Claude Code's next session receives it: the objective and the state the Codex agent wrote.
            anthropic.script = ["On it."]
            sid = session(harness_program("claude-code"), codex.project, env, anthropic, "hello")["session_id"]
            told = said(anthropic.turns()[0])
            assert told.count(HANDOFF_HEADING) == 1, told
            assert f"(baton `{handoff}`)" in told
            assert HANDOFF["work"]["objective"] in told and HANDOFF["summary"]["current_state"] in told
            assert [(subject(e), e["data"]["session"]) for e in events(codex.project, env, "baton.claimed")] \
                == [(handoff, sid)]
    finally:
        trap.close()


STEPS = ["Add the greeting line under the README heading", "Run grep -q Hello README.md"]
FAILED = "Generating the README from a template: the heading is hand-written"


def test_a_baton_codex_left_with_its_mcp_session_end_is_received_by_gemini_cli_once(tmp_path):
    """The Codex agent ends its session over MCP (``baton_session``, ``session_end``, with the
    session id its brief named and next steps), as the skill shows; Codex's own ``Stop`` after
    it leaves no second baton, and Gemini CLI's next session receives the steps, once."""
    trap = ProxyTrap()
    try:
        with FakeResponses() as openai, FakeGemini() as google:
            codex = CodexProject(tmp_path, openai, trap)
            codex.install_baton()
            assert {h["trustStatus"] for h in codex.trust_baton_hooks()} == {"trusted"}
            gemini = Session(tmp_path, google, trap)  # the same project, wired for Gemini CLI beside Codex
            assert gemini.project == codex.project

            def session_end(recorded) -> Call:
                return Call("baton_session", {"action": "session_end", "session_id": _session_named_in(recorded),
                                              "handoff": {"nextSteps": STEPS, "failedApproaches": [FAILED]}}, MCP)

            codex.run("I have to stop here; leave the next steps for later.", [session_end, "Left the next steps."])
            (created,) = [e for e in codex.events() if e["type"] == "baton.created"]
            (begun,) = [e for e in codex.events() if e["type"] == "session.begun"]
            assert created["data"]["session"] == begun["session"]

            [first, *_] = gemini.run("hello")
            [brief] = hook_contexts(first)
            assert brief.count(HANDOFF_HEADING) == 1 and f"(baton `{subject(created)}`)" in brief
            assert all(step in brief for step in STEPS) and FAILED in brief
            [second, *_] = gemini.run("hello again")
            assert HANDOFF_HEADING not in user_text(second)
            assert [subject(e) for e in gemini.events() if e["type"] == "baton.claimed"] == [subject(created)]
    finally:
        trap.close()
