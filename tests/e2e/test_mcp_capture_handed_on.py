"""A handoff the agent captures itself over MCP is handed on, in each real harness.

For Claude Code, Codex CLI and Gemini CLI (the real programs from npm, each
against its scripted model on 127.0.0.1, wired by ``baton install-hooks``):
the agent reads its session id from the brief in its first request (the
"This is … session `ID`" line, parsed out of what the harness sent the
model), calls ``handoff_capture`` — with that ``session_id``, or with none
(the fallback window of docs/hooks.md, "Which handoff a session hands on")
— then ``handoff_validate`` and ``handoff_ready``. When the session ends the
ledger holds a ``baton.created`` for exactly that handoff, for that session,
and the next session of the same harness receives it: its first request
carries the Active Session Handoff section naming it.

Each harness's own suite supplies its setup and how its requests are read;
this module only puts them side by side.
"""

from __future__ import annotations

import re
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Callable

import pytest

from baton.domain.batons import HANDOFF_HEADING
from tests.e2e.common import ProxyTrap, Recorded, git_project, harness_program, ledger_events, run_baton
from tests.e2e.fake_anthropic import FakeAnthropic, baton_tool, claude_env, said
from tests.e2e.fake_gemini import FakeGemini, call, tool_result, user_text
from tests.e2e.fake_openai import Call, FakeResponses, function_outputs
from tests.e2e.test_claude_code import WORK, handoff_id_in, last_tool_result
from tests.e2e.test_claude_code import session as claude_session
from tests.e2e.test_codex import MCP, CodexProject, developer_texts, result_of
from tests.e2e.test_gemini_cli import RESULT_ID
from tests.e2e.test_gemini_cli import Session as GeminiSession

pytestmark = pytest.mark.e2e

BRIEF_SESSION = re.compile(r"This is \S+ session `([^`]+)`")
"""The brief's last line: "This is <harness> session `ID`. Pass `"session_id": "ID"` to Baton's MCP tools…"."""


def session_in_brief(told: str) -> str:
    """The session id the brief gave the agent (exactly one such line in what the model was shown)."""
    found = set(BRIEF_SESSION.findall(told))
    assert len(found) == 1, f"the brief names {len(found)} session ids for the MCP tools: {sorted(found)}"
    return found.pop()


# -- each harness, driven the way its own suite drives it ------------------------------------------

class ClaudeCode:
    name = "claude-code"

    def __init__(self, root: Path, stack: ExitStack, trap: ProxyTrap):
        self.model = stack.enter_context(FakeAnthropic())
        self.program = harness_program("claude-code")
        self.project = git_project(root / "project")
        self.env = claude_env(root / "home", self.model)
        installed = run_baton(self.project, self.env, "install-hooks", "--harness", "claude-code")
        assert installed.returncode == 0, installed.stderr

    def session(self, prompt: str, script: list[Any]) -> list[Recorded]:
        before = len(self.model.turns())
        self.model.script = list(script)
        claude_session(self.program, self.project, self.env, self.model, prompt)
        return self.model.turns()[before:]

    told = staticmethod(said)

    @staticmethod
    def tool(name: str, arguments: dict[str, Any]) -> Any:
        return baton_tool(name, **arguments)

    @staticmethod
    def captured(recorded: Recorded) -> str:
        return handoff_id_in(last_tool_result(recorded))


class Codex:
    name = "codex"

    def __init__(self, root: Path, stack: ExitStack, trap: ProxyTrap):
        self.model = stack.enter_context(FakeResponses())
        self.world = CodexProject(root, self.model, trap)
        self.world.install_baton()
        assert {h["trustStatus"] for h in self.world.trust_baton_hooks()} == {"trusted"}
        self.project, self.env = self.world.project, self.world.env

    def session(self, prompt: str, script: list[Any]) -> list[Recorded]:
        """One ``codex exec`` turn; its ``Stop`` ends the session for Baton."""
        before = len(self.model.turns())
        self.world.run(prompt, script)
        return self.model.turns()[before:]

    @staticmethod
    def told(recorded: Recorded) -> str:
        return "\n".join(developer_texts(recorded))

    @staticmethod
    def tool(name: str, arguments: dict[str, Any]) -> Any:
        return Call(name, arguments, MCP)

    @staticmethod
    def captured(recorded: Recorded) -> str:
        *_, newest = function_outputs(recorded)  # the capture's result, the newest the request carries
        return result_of(recorded, newest)["id"]


class GeminiCli:
    name = "gemini-cli"

    def __init__(self, root: Path, stack: ExitStack, trap: ProxyTrap):
        self.model = stack.enter_context(FakeGemini())
        self.gemini = GeminiSession(root, self.model, trap)
        self.project, self.env = self.gemini.project, self.gemini.env

    def session(self, prompt: str, script: list[Any]) -> list[Recorded]:
        return self.gemini.run(prompt, script)

    told = staticmethod(user_text)

    @staticmethod
    def tool(name: str, arguments: dict[str, Any]) -> Any:
        return call(f"mcp_baton_{name}", **arguments)

    @staticmethod
    def captured(recorded: Recorded) -> str:
        found = RESULT_ID.findall(tool_result(recorded, "mcp_baton_handoff_capture"))
        assert found, "no handoff id in the result of handoff_capture"
        return found[0]


HARNESSES = {harness.name: harness for harness in (ClaudeCode, Codex, GeminiCli)}


@pytest.fixture(params=sorted(HARNESSES))
def harness(request, tmp_path):
    """The harness's world in ``tmp_path``; what would leave loopback goes to a trap (Codex, Gemini CLI)."""
    with ExitStack() as stack:
        trap = ProxyTrap()
        stack.callback(trap.close)
        yield HARNESSES[request.param](tmp_path, stack, trap)


# -- the agent's session ---------------------------------------------------------------------------

def capture_validate_ready(harness: Any, *, pass_session_id: bool) -> tuple[list[Callable[[Recorded], Any]], dict]:
    """The agent's turns: read the session id from the brief, capture ``WORK`` (naming that
    session when ``pass_session_id``), validate it and make it ready, each with the id the
    capture answered with. Also what the agent learnt: ``{"session", "handoff"}``."""
    learnt: dict[str, str] = {}

    def capture(recorded: Recorded) -> Any:
        learnt["session"] = session_in_brief(harness.told(recorded))
        arguments = {**WORK, "session_id": learnt["session"]} if pass_session_id else dict(WORK)
        return harness.tool("handoff_capture", arguments)

    def validate(recorded: Recorded) -> Any:
        learnt["handoff"] = harness.captured(recorded)
        return harness.tool("handoff_validate", {"id": learnt["handoff"]})

    def ready(recorded: Recorded) -> Any:
        return harness.tool("handoff_ready", {"id": learnt["handoff"],
                                              "accept_warnings": "e2e: the scripted work is the work"})

    return [capture, validate, ready, "Handed off."], learnt


def hand_off_over_mcp(harness: Any, *, pass_session_id: bool) -> tuple[str, str]:
    """A session whose agent captures, validates and readies a handoff over MCP (the person
    never says "handoff", so Baton prepares no draft). (its session id, the handoff)"""
    script, learnt = capture_validate_ready(harness, pass_session_id=pass_session_id)
    harness.session("Record where the zebra-42 work stands.", script)
    assert set(learnt) == {"session", "handoff"}, f"the agent's script stopped early: {learnt}"
    captured = [e for e in ledger_events(harness.project, harness.env) if e.get("type") == "handoff.captured"]
    assert [e["stream"] for e in captured] == [f"handoff/{learnt['handoff']}"]
    named = captured[0]["data"]["handoff"].get("origin", {}).get("session_id")
    assert named == (learnt["session"] if pass_session_id else None), captured[0]["data"]["handoff"]
    return learnt["session"], learnt["handoff"]


def assert_handed_on(harness: Any, session_id: str, handoff: str) -> None:
    """The ledger's one baton is ``handoff``, left by ``session_id``; the next session of the
    harness is given it in its first request."""
    created = [e for e in ledger_events(harness.project, harness.env) if e.get("type") == "baton.created"]
    assert [(e["data"]["handoff_id"], e["data"]["session"]) for e in created] == [(handoff, session_id)]
    first, *_ = harness.session("hello", ["On it."])
    told = harness.told(first)
    assert HANDOFF_HEADING in told and f"(baton `{handoff}`)" in told, told[-3000:]
    assert WORK["work"]["objective"] in told
    claimed = [e for e in ledger_events(harness.project, harness.env) if e.get("type") == "baton.claimed"]
    assert [e["data"]["handoff_id"] for e in claimed] == [handoff]


# -- the scenarios ---------------------------------------------------------------------------------

def test_a_handoff_captured_over_mcp_with_the_briefs_session_id_is_handed_on(harness):
    session_id, handoff = hand_off_over_mcp(harness, pass_session_id=True)
    assert_handed_on(harness, session_id, handoff)


def test_a_handoff_captured_over_mcp_without_a_session_id_is_handed_on(harness):
    session_id, handoff = hand_off_over_mcp(harness, pass_session_id=False)
    assert_handed_on(harness, session_id, handoff)


def test_a_codex_forks_handoff_captured_under_its_parents_id_is_handed_on(tmp_path):
    """``codex exec fork`` runs no SessionStart (Codex 0.171): the fork's agent sees only its
    parent's brief and passes the parent's id, whose session already ended. The fork's own end
    (a ``Stop`` of a session Baton never saw begin) hands the handoff on; the next session gets it."""
    from tests.e2e.test_codex import SESSION_TIMEOUT, run_bounded

    with ExitStack() as stack:
        trap = ProxyTrap()
        stack.callback(trap.close)
        codex = Codex(tmp_path, stack, trap)
        codex.session("hello", ["Hi."])
        [parent] = [e["data"]["session"] for e in ledger_events(codex.project, codex.env)
                    if e.get("type") == "session.begun"]
        script, learnt = capture_validate_ready(codex, pass_session_id=True)
        codex.model.script = script
        forked = run_bounded([str(codex.world.program), "exec", "--dangerously-bypass-approvals-and-sandbox", "fork",
                              parent, "Record where the zebra-42 work stands."],
                             cwd=codex.project, env=codex.env, timeout=SESSION_TIMEOUT)
        assert forked.returncode == 0, forked.stderr[-4000:]
        assert learnt.get("session") == parent, learnt  # the only id the fork's context names
        created = [e["data"] for e in ledger_events(codex.project, codex.env) if e.get("type") == "baton.created"]
        assert [(c["handoff_id"], c["session"] != parent) for c in created] == [(learnt["handoff"], True)]
        first, *_ = codex.session("hello again", ["On it."])
        told = codex.told(first)
        assert HANDOFF_HEADING in told and f"(baton `{learnt['handoff']}`)" in told, told[-3000:]


def test_codex_with_baton_project_set_hooks_and_mcp_tools_use_the_same_project(tmp_path):
    """``$BATON_PROJECT`` naming another project: Codex starts its MCP servers with a filtered
    environment, its hooks with the person's; ``install-hooks`` has it pass the variable on
    (``env_vars``), so the capture over MCP lands where the session began and ends, and its
    end leaves the baton there (tester harness15 G4: the capture landed in the folder's project)."""
    with ExitStack() as stack:
        trap = ProxyTrap()
        stack.callback(trap.close)
        codex = Codex(tmp_path, stack, trap)
        other = git_project(tmp_path / "other")
        assert run_baton(other, codex.env, "init").returncode == 0
        codex.world.env = dict(codex.env, BATON_PROJECT=str(other))
        script, learnt = capture_validate_ready(codex, pass_session_id=True)
        codex.session("Record where the zebra-42 work stands.", script)
        here = [e.get("type") for e in ledger_events(codex.project, codex.env)]
        there = [e for e in ledger_events(other, codex.env)]
        assert not {"handoff.captured", "session.begun", "baton.created"} & set(here), here
        created = [(e["data"]["handoff_id"], e["data"]["session"]) for e in there if e.get("type") == "baton.created"]
        assert created == [(learnt["handoff"], learnt["session"])]
