"""The spec's success measure, for real: one piece of work carried across three harnesses.

Claude Code ends with a handoff, Codex CLI starts and receives it as its
baton, Codex ends with its own handoff, and Gemini CLI starts and receives
that one — each harness the real program from npm, each against its own
scripted model on 127.0.0.1, all three wired by ``baton install-hooks`` into
one git project (one ``.baton/``). What each agent was told is read from the
request its harness sent its model; what each did, from the ledger.
"""

from __future__ import annotations

import json

import pytest

from baton.domain.batons import HANDOFF_HEADING
from tests.e2e.common import ProxyTrap, harness_program, run_baton
from tests.e2e.fake_anthropic import FakeAnthropic, claude_env
from tests.e2e.fake_gemini import FakeGemini, user_text
from tests.e2e.fake_openai import FakeResponses
from tests.e2e.test_claude_code import WORK, hand_off_through_the_prepared_draft
from tests.e2e.test_codex import CodexProject, _complete_the_draft, developer_texts, result_of
from tests.e2e.test_gemini_cli import Session

pytestmark = pytest.mark.e2e


def _batons(project, env) -> list[dict]:
    done = run_baton(project, env, "log", "--limit", "0", "--json")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return [e for e in events if e.get("type") in ("baton.created", "baton.claimed")]


def test_a_handoff_relays_from_claude_code_through_codex_to_gemini_cli(tmp_path):
    trap = ProxyTrap()
    try:
        with FakeAnthropic() as anthropic, FakeResponses() as openai, FakeGemini() as google:
            # Codex's world makes the project (a git repository with one commit) and trusts its hooks.
            codex = CodexProject(tmp_path, openai, trap)
            project = codex.project
            codex.install_baton()
            assert {h["trustStatus"] for h in codex.trust_baton_hooks()} == {"trusted"}
            claude_home = claude_env(tmp_path / "claude-home", anthropic)
            installed = run_baton(project, claude_home, "install-hooks", "--harness", "claude-code",
                                  "--events", "all")
            assert installed.returncode == 0, installed.stderr
            gemini = Session(tmp_path, google)  # the same project: installs Gemini's wiring beside the others
            assert gemini.project == project

            # 1. Claude Code: the person asks for a handoff; the agent completes Baton's draft; the end hands it on.
            _, from_claude = hand_off_through_the_prepared_draft(harness_program("claude-code"), project,
                                                                  claude_home, anthropic)
            created = [e for e in _batons(project, claude_home) if e["type"] == "baton.created"]
            assert [e["data"]["handoff_id"] for e in created] == [from_claude]

            # 2. Codex starts: its first request carries Claude's handoff as the session's baton.
            codex.run("handoff", _complete_the_draft())
            turns = openai.turns()
            received = [t for t in developer_texts(turns[0]) if HANDOFF_HEADING in t]
            assert len(received) == 1, developer_texts(turns[0])
            assert f"(baton `{from_claude}`)" in received[0]
            assert WORK["work"]["objective"] in received[0]
            from_codex = result_of(turns[1], "call_1")["id"]
            batons = _batons(project, codex.env)
            assert [e["type"] for e in batons] == ["baton.created", "baton.claimed", "baton.created"]
            assert batons[2]["data"]["handoff_id"] == from_codex

            # 3. Gemini CLI starts: it receives Codex's handoff, once.
            [first, *_] = gemini.run("hello")
            told = user_text(first)
            assert f"<hook_context>{HANDOFF_HEADING}" in told
            assert f"(baton `{from_codex}`)" in told and "Recover inside expressions" in told  # Codex's next step
            [second, *_] = gemini.run("hello again")
            assert HANDOFF_HEADING not in user_text(second)
            kinds = [e["type"] for e in _batons(project, gemini.env)]
            assert kinds == ["baton.created", "baton.claimed", "baton.created", "baton.claimed"]
    finally:
        trap.close()
