"""Claude Code's bash mode (``! cmd``) as a session's first input: a known gap (harness24b).

Claude Code 2.1.332 runs no ``UserPromptSubmit`` for bash-mode input (nor ``PreToolUse``): it runs
the command, then sends the model a turn with its output — the first request, carrying the start's
brief — whose ``Stop`` is the only hook that runs before ``SessionEnd``. So the start's mark is
still there at the end, which hands the claimed baton on again: the baton reaches both that session
and the next. Baton could tell otherwise only from the session's transcript (``transcript_path``,
under ``~/.claude``), a path outside the project root it never reads (docs/security.md;
docs/batons.md, "A baton spent without reaching a model"). Through ``baton hook claude-code …``;
the real Claude Code in ``tests/e2e/test_default_install_keeps_batons.py``.
"""

from __future__ import annotations

import json

import pytest

from baton.app import Baton
from baton.harnesses.install import install_hooks
from tests.handoff_support import git_init
from tests.harness_support import baton_left_by_a_claude_code_session, claude_start, fixture, hook, unprompted_mark

SESSION = "0b7c4f2e-synthetic-claude-session"


@pytest.fixture
def repo(project):
    git_init(project, {"src/app.py": "x = 1\n"})
    install_hooks(project, "claude-code")
    return project


def test_a_session_begun_in_bash_mode_hands_its_claimed_baton_on_again_whatever_its_transcript_holds(
        repo, tmp_path):
    """The end's payload names a transcript recording the bash-mode turn's request and answer: the
    end does not read it, and hands the baton on again, as for a session left before any request."""
    handoff_id = baton_left_by_a_claude_code_session(repo)
    started = hook(repo, "claude-code", "SessionStart",
                   fixture("claude-code", "SessionStart.startup", repo, session_id=SESSION))
    assert started.result.to_json()["handoffId"] == handoff_id
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_text("".join(json.dumps({"type": kind, "timestamp": "2999-01-01T00:00:00.000Z",
                                              "isSidechain": False, "sessionId": SESSION}) + "\n"
                                  for kind in ("user", "api-request", "assistant")))
    hook(repo, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", repo, session_id=SESSION,
                                                    transcript_path=str(transcript)))
    assert not unprompted_mark(repo, SESSION).exists()
    assert claude_start(repo, "next-one").result.to_json()["handoffId"] == handoff_id
    with Baton.open(repo) as app:
        reasons = [e["data"].get("reason") for e in app.log(event_type="baton.created").to_json()]
    assert reasons == [None, "unprompted"]
