"""Claude Code's bash mode (``! cmd``) as a session's first input (harness24).

Claude Code 2.1.332 runs no ``UserPromptSubmit`` for bash-mode input (nor ``PreToolUse``): it runs
the command, then sends the model a turn with its output — the first request, carrying the start's
brief — whose ``Stop`` is the only hook that runs before ``SessionEnd``. So the start's mark is
still there at the end; the end reads the session's transcript (``transcript_path``) for a model
request since the mark was left, and, finding one, spends the baton instead of handing it on again
"unprompted" (docs/batons.md). Through ``baton hook claude-code …``, on transcripts shaped as
2.1.332 writes them; the real Claude Code in ``tests/e2e/test_default_install_keeps_batons.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from baton.app import Baton
from baton.harnesses.claude_code import requested_since
from baton.harnesses.install import install_hooks
from tests.handoff_support import git_init
from tests.harness_support import baton_left_by_a_claude_code_session, claude_start, fixture, hook, unprompted_mark

SESSION = "0b7c4f2e-synthetic-claude-session"


@pytest.fixture
def repo(project):
    git_init(project, {"src/app.py": "x = 1\n"})
    install_hooks(project, "claude-code")
    return project


def _claimed(repo) -> str:
    """An earlier session's baton waits; this session's start claims it and leaves its mark."""
    handoff_id = baton_left_by_a_claude_code_session(repo)
    started = hook(repo, "claude-code", "SessionStart",
                   fixture("claude-code", "SessionStart.startup", repo, session_id=SESSION))
    assert started.result.to_json()["handoffId"] == handoff_id
    return handoff_id


def _stamp(seconds: float) -> str:
    from datetime import datetime, timezone
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _transcript(path: Path, *entries: tuple[str, float], sidechain: bool = False) -> Path:
    """A transcript of ``(type, when)`` entries, one JSON object a line, as Claude Code writes them."""
    lines = [{"type": kind, "timestamp": _stamp(when), "isSidechain": sidechain, "sessionId": SESSION,
              "message": {"role": "assistant" if kind == "assistant" else "user", "content": "…"}}
             for kind, when in entries]
    path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))
    return path


def _bash_mode_then_a_turn(at: float, tmp_path: Path) -> Path:
    """``! echo hi``: its input and output as user entries, then the request and the model's answer."""
    return _transcript(tmp_path / "t.jsonl", ("user", at), ("user", at), ("api-request", at + 0.5),
                       ("assistant", at + 1))


def _end(repo, transcript: Path):
    return hook(repo, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", repo, session_id=SESSION,
                                                            transcript_path=str(transcript)))


def test_a_session_whose_first_input_was_bash_mode_spends_the_baton_its_model_was_given(repo, tmp_path):
    _claimed(repo)
    _end(repo, _bash_mode_then_a_turn(unprompted_mark(repo, SESSION).stat().st_mtime + 1, tmp_path))
    assert claude_start(repo, "next-one").result.to_json()["handoffId"] is None
    with Baton.open(repo) as app:
        assert [e["data"].get("reason") for e in app.log(event_type="baton.created").to_json()] == [None]
    assert not unprompted_mark(repo, SESSION).exists()


def test_a_session_left_before_any_request_still_hands_the_baton_on(repo, tmp_path):
    handoff_id = _claimed(repo)
    _end(repo, _transcript(tmp_path / "t.jsonl", ("user", unprompted_mark(repo, SESSION).stat().st_mtime + 1)))
    assert claude_start(repo, "next-one").result.to_json()["handoffId"] == handoff_id


def test_a_forks_copied_history_is_no_request_of_its_own(repo, tmp_path):
    """A forked conversation's transcript holds its parent's turns, stamped before the fork's start."""
    handoff_id = _claimed(repo)
    long_ago = unprompted_mark(repo, SESSION).stat().st_mtime - 3600
    _end(repo, _transcript(tmp_path / "t.jsonl", ("api-request", long_ago), ("assistant", long_ago + 1)))
    assert claude_start(repo, "next-one").result.to_json()["handoffId"] == handoff_id


def test_an_unreadable_transcript_leaves_the_mark_to_tell(repo, tmp_path):
    handoff_id = _claimed(repo)
    _end(repo, tmp_path / "missing.jsonl")
    assert claude_start(repo, "next-one").result.to_json()["handoffId"] == handoff_id


def test_a_subagents_request_is_not_the_sessions(tmp_path):
    now = os.path.getmtime(tmp_path)
    path = _transcript(tmp_path / "t.jsonl", ("assistant", now + 1), sidechain=True)
    assert requested_since({"transcript_path": str(path)}, now) is False
