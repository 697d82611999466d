"""Gemini CLI's brief comes with the session's first prompt, so ``/chat resume TAG`` does not lose it.

Gemini CLI 0.61.0 puts a ``SessionStart`` context into the conversation's history, and runs no hook
for ``/chat resume`` (nor for the ``/resume`` browser), which replaces that history by the saved
one — the start's brief with it. A ``BeforeAgent`` context is part of the prompt it comes with.
So a Gemini CLI start that claims a baton, its prompt hook wired, answers nothing and keeps its
brief in its mark (``.baton/cache/unprompted/SESSION``); the session's first prompt hook reads the
mark, removes it and gives the brief with that prompt, whatever was loaded before. Nothing outside
the project root is read: not the chat recording the payload names (``transcript_path``, under
``~/.gemini``; docs/security.md; docs/batons.md, "A baton spent without reaching a model").
Through ``baton hook gemini-cli …``; the real Gemini CLI in ``tests/e2e/test_interactive.py``.
"""

from __future__ import annotations

import json

import pytest

from baton.harnesses.install import install_hooks
from tests.handoff_support import git_init
from tests.harness_support import baton_left_by_a_claude_code_session, fixture, hook, injected, unprompted_mark

SESSION = "5e6f7a8b-synthetic-gemini-session"


@pytest.fixture
def repo(project):
    git_init(project, {"src/app.py": "x = 1\n"})
    install_hooks(project, "gemini-cli", events=("start", "end", "compact", "prompt"))
    return project


def _start(repo, session=SESSION):
    return hook(repo, "gemini-cli", "SessionStart", fixture("gemini-cli", "SessionStart.startup", repo,
                                                            session_id=session))


def _prompt(repo, prompt="go on", **changes):
    return hook(repo, "gemini-cli", "BeforeAgent", fixture("gemini-cli", "BeforeAgent", repo, session_id=SESSION,
                                                           prompt=prompt, **changes))


def test_a_gemini_cli_start_that_claims_a_baton_gives_no_context_and_keeps_its_brief_in_its_mark(repo):
    handoff_id = baton_left_by_a_claude_code_session(repo)
    started = _start(repo)
    assert started.result.to_json()["handoffId"] == handoff_id  # claimed at the start, as always
    assert injected("gemini-cli", started.answer) is None
    kept = unprompted_mark(repo, SESSION).read_text()
    assert "Active Session Handoff" in kept and f"This is gemini-cli session `{SESSION}`" in kept


def test_the_first_prompt_of_a_gemini_cli_session_gives_the_brief_its_start_kept_and_removes_the_mark(repo):
    baton_left_by_a_claude_code_session(repo)
    _start(repo)
    brief = injected("gemini-cli", _prompt(repo).answer)
    assert brief is not None and brief.startswith("## 🤝 Active Session Handoff")
    assert f"This is gemini-cli session `{SESSION}`" in brief
    assert not unprompted_mark(repo, SESSION).exists()


def test_a_later_prompt_of_the_gemini_cli_session_is_given_nothing(repo):
    baton_left_by_a_claude_code_session(repo)
    _start(repo)
    _prompt(repo)
    assert injected("gemini-cli", _prompt(repo, prompt="and then").answer) is None


def test_a_first_prompt_asking_for_a_handoff_is_given_the_brief_too(repo):
    baton_left_by_a_claude_code_session(repo)
    _start(repo)
    answered = injected("gemini-cli", _prompt(repo, prompt="please write a handoff for the next session").answer)
    assert answered is not None and "Active Session Handoff" in answered


def test_a_gemini_cli_start_that_claims_nothing_gives_its_brief_itself(repo):
    started = _start(repo)
    assert started.result.to_json()["handoffId"] is None
    assert f"This is gemini-cli session `{SESSION}`" in (injected("gemini-cli", started.answer) or "")
    assert not unprompted_mark(repo, SESSION).exists()


def test_without_the_prompt_hook_wired_a_gemini_cli_start_gives_the_brief_itself(project):
    git_init(project, {"src/app.py": "x = 1\n"})
    install_hooks(project, "gemini-cli", events=("start", "end", "compact"))
    baton_left_by_a_claude_code_session(project)
    assert "Active Session Handoff" in (injected("gemini-cli", _start(project).answer) or "")


def test_the_first_prompt_after_chat_resume_gives_the_claimed_brief_and_reads_no_chat_recording(repo, tmp_path):
    """The payload names a chat recording whose conversation the checkpoint replaced (no brief naming
    this session): the prompt hook never opens it, and gives the brief its start kept."""
    handoff_id = baton_left_by_a_claude_code_session(repo)
    _start(repo)
    saved = [{"id": "m1", "type": "user", "content": [{"text": "<hook_context>This is gemini-cli session "
                                                               "`earlier-one`.</hook_context>"}]}]
    recording = tmp_path / "session.jsonl"
    recording.write_text(json.dumps({"sessionId": SESSION}) + "\n" + json.dumps({"$set": {"messages": saved}}) + "\n")
    brief = injected("gemini-cli", _prompt(repo, transcript_path=str(recording)).answer)
    assert brief is not None and f"(baton `{handoff_id}`)" in brief
    assert f"This is gemini-cli session `{SESSION}`" in brief
    hook(repo, "gemini-cli", "SessionEnd", fixture("gemini-cli", "SessionEnd", repo, session_id=SESSION))
    assert _start(repo, "next-one").result.to_json()["handoffId"] is None  # received once, by this session
