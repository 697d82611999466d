"""Gemini CLI's ``/chat resume TAG`` in a session whose start claimed a baton: a known gap (harness24b).

Gemini CLI 0.61.0 runs no hook for ``/chat resume`` (nor for the ``/resume`` browser): it replaces
the conversation — the start's brief with it — by the saved one. The session's first prompt after
it (``BeforeAgent``) removes the start's mark as any prompt does, so the claimed baton is spent
though it reached no model. Baton could tell otherwise only from the session's chat recording
(``transcript_path``, under ``~/.gemini``), a path outside the project root it never reads
(docs/security.md; docs/batons.md, "A baton spent without reaching a model"). Through ``baton hook
gemini-cli …``; the real Gemini CLI in ``tests/e2e/test_interactive.py``.
"""

from __future__ import annotations

import json

import pytest

from baton.harnesses.install import install_hooks
from tests.handoff_support import git_init
from tests.harness_support import baton_left_by_a_claude_code_session, fixture, hook, unprompted_mark

SESSION = "5e6f7a8b-synthetic-gemini-session"


@pytest.fixture
def repo(project):
    git_init(project, {"src/app.py": "x = 1\n"})
    install_hooks(project, "gemini-cli", events=("start", "end", "compact", "prompt"))
    return project


def test_a_prompt_after_chat_resume_spends_the_baton_its_start_claimed_whatever_the_recording_holds(
        repo, tmp_path):
    """The prompt's payload names a chat recording whose conversation the checkpoint replaced (no brief
    naming this session): the prompt hook does not read it, and removes the mark as for any prompt."""
    handoff_id = baton_left_by_a_claude_code_session(repo)
    started = hook(repo, "gemini-cli", "SessionStart",
                   fixture("gemini-cli", "SessionStart.startup", repo, session_id=SESSION))
    assert started.result.to_json()["handoffId"] == handoff_id
    saved = [{"id": "m1", "type": "user", "content": [{"text": "<hook_context>This is gemini-cli session "
                                                               "`earlier-one`.</hook_context>"}]}]
    recording = tmp_path / "session.jsonl"
    recording.write_text(json.dumps({"sessionId": SESSION}) + "\n" + json.dumps({"$set": {"messages": saved}}) + "\n")
    hook(repo, "gemini-cli", "BeforeAgent", fixture("gemini-cli", "BeforeAgent", repo, session_id=SESSION,
                                                    transcript_path=str(recording), prompt="go on"))
    assert not unprompted_mark(repo, SESSION).exists()
    hook(repo, "gemini-cli", "SessionEnd", fixture("gemini-cli", "SessionEnd", repo, session_id=SESSION))
    following = hook(repo, "gemini-cli", "SessionStart",
                     fixture("gemini-cli", "SessionStart.startup", repo, session_id="next-one"))
    assert following.result.to_json()["handoffId"] is None
