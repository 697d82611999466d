"""Gemini CLI's ``/chat resume TAG`` in a session whose start claimed a baton (harness24).

Gemini CLI 0.61.0 runs no hook for ``/chat resume`` (nor for the ``/resume`` browser): it replaces
the conversation — the start's brief with it — by the saved one, and its chat recording
(``transcript_path``) with a ``$set`` of the saved messages. The session's first prompt after it
(``BeforeAgent``) reaches a model that never had the brief, so its mark stays and the session's end
hands the claimed baton on again, as a resumed session leaves a waiting baton for the next start
(docs/batons.md, "A baton spent without reaching a model"). Through ``baton hook gemini-cli …``, as
Gemini CLI runs the hooks, on recordings shaped as 0.61.0 writes them; the real Gemini CLI in
``tests/e2e/test_interactive.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from baton.app import Baton
from baton.harnesses.gemini_cli import brief_kept
from baton.harnesses.install import install_hooks
from tests.handoff_support import git_init
from tests.harness_support import baton_left_by_a_claude_code_session, fixture, hook, injected, unprompted_mark

SESSION = "5e6f7a8b-synthetic-gemini-session"


@pytest.fixture
def repo(project):
    git_init(project, {"src/app.py": "x = 1\n"})
    install_hooks(project, "gemini-cli", events=("start", "end", "compact", "prompt"))
    return project


def _message(text: str, kind: str = "user") -> dict:
    return {"id": f"m{abs(hash(text)) % 10**8}", "timestamp": "2026-12-07T09:53:25.201Z", "type": kind,
            "content": [{"text": text}]}


def _recording(path: Path, *records: dict) -> Path:
    """A chat recording as Gemini CLI 0.61.0 writes it: its metadata line, then one record a line."""
    head = {"sessionId": SESSION, "projectHash": "0" * 64, "startTime": "2026-12-07T09:53:25.201Z", "kind": "main"}
    path.write_text("".join(json.dumps(r) + "\n" for r in (head, *records)))
    return path


def _started(repo, tmp_path) -> tuple[str, Path]:
    """A fresh TUI start claims the waiting baton; its recording holds the brief it was given."""
    handoff_id = baton_left_by_a_claude_code_session(repo)
    started = hook(repo, "gemini-cli", "SessionStart",
                   fixture("gemini-cli", "SessionStart.startup", repo, session_id=SESSION))
    brief = injected("gemini-cli", started.answer)
    assert started.result.to_json()["handoffId"] == handoff_id
    context = _message("<session_context>\nThis is the Gemini CLI.\n</session_context>")
    recording = _recording(tmp_path / "session.jsonl", {"$set": {"messages": [context]}},
                           _message(f"<hook_context>{brief}</hook_context>"))
    return handoff_id, recording


def _chat_resumed(recording: Path) -> None:
    """``/chat resume TAG``: the recording's messages replaced by the checkpoint's (an earlier
    session's brief, its prompt and its answer)."""
    saved = [_message("<hook_context>This is gemini-cli session `earlier-one`.</hook_context>"),
             _message("Wrap up the greeting work."), _message("Handed off.", "gemini")]
    with recording.open("a") as file:
        file.write(json.dumps({"$set": {"messages": saved, "lastUpdated": "2026-12-07T09:54:00Z"}}) + "\n")


def _prompt(repo, recording: Path, text: str = "go on"):
    return hook(repo, "gemini-cli", "BeforeAgent", fixture("gemini-cli", "BeforeAgent", repo, session_id=SESSION,
                                                           transcript_path=str(recording), prompt=text))


def _end(repo):
    return hook(repo, "gemini-cli", "SessionEnd", fixture("gemini-cli", "SessionEnd", repo, session_id=SESSION))


def _next_start(repo):
    return hook(repo, "gemini-cli", "SessionStart",
                fixture("gemini-cli", "SessionStart.startup", repo, session_id="next-one"))


def test_a_prompt_after_chat_resume_keeps_the_mark_of_the_baton_its_start_claimed(repo, tmp_path):
    _, recording = _started(repo, tmp_path)
    _chat_resumed(recording)
    _prompt(repo, recording)
    assert unprompted_mark(repo, SESSION).is_file()


def test_the_end_of_a_session_resumed_into_a_saved_chat_hands_the_baton_on_to_the_next_start(repo, tmp_path):
    handoff_id, recording = _started(repo, tmp_path)
    _chat_resumed(recording)
    _prompt(repo, recording)
    _prompt(repo, recording, "and again")
    _end(repo)
    following = _next_start(repo)
    assert following.result.to_json()["handoffId"] == handoff_id
    assert "Active Session Handoff" in injected("gemini-cli", following.answer)
    with Baton.open(repo) as app:
        claims = [e["session"] for e in app.log(event_type="baton.claimed").to_json()]
        again = app.log(event_type="baton.created").to_json()[-1]["data"]
    assert claims == [SESSION, "next-one"] and again["reason"] == "unprompted"


def test_a_prompt_whose_conversation_holds_the_brief_spends_the_baton(repo, tmp_path):
    _, recording = _started(repo, tmp_path)
    _prompt(repo, recording)
    assert not unprompted_mark(repo, SESSION).exists()
    _end(repo)
    assert _next_start(repo).result.to_json()["handoffId"] is None


def test_a_chat_resumed_after_the_first_prompt_leaves_the_baton_spent(repo, tmp_path):
    _, recording = _started(repo, tmp_path)
    _prompt(repo, recording)
    _chat_resumed(recording)
    _prompt(repo, recording)
    _end(repo)
    assert _next_start(repo).result.to_json()["handoffId"] is None


def test_a_headless_prompt_carries_the_brief_in_front_of_it():
    prompt = f"<hook_context>## Baton\nThis is gemini-cli session `{SESSION}`.</hook_context>\n\nhello"
    assert brief_kept({"prompt": prompt, "transcript_path": "/nonexistent/session.jsonl"}, SESSION) is True


def test_an_unreadable_recording_tells_nothing_and_the_prompt_spends_the_baton(repo, tmp_path):
    _started(repo, tmp_path)
    _prompt(repo, tmp_path / "missing.jsonl")
    assert not unprompted_mark(repo, SESSION).exists()


def test_a_rewind_past_the_brief_takes_it_out_of_the_conversation(tmp_path):
    brief = _message(f"<hook_context>This is gemini-cli session `{SESSION}`.</hook_context>")
    recording = _recording(tmp_path / "session.jsonl", brief, {"$rewindTo": brief["id"]})
    assert brief_kept({"transcript_path": str(recording)}, SESSION) is False


def test_a_recording_of_one_json_object_is_read_as_its_messages(tmp_path):
    brief = _message(f"<hook_context>This is gemini-cli session `{SESSION}`.</hook_context>")
    path = tmp_path / "session.json"
    path.write_text(json.dumps({"sessionId": SESSION, "messages": [brief]}))
    assert brief_kept({"transcript_path": str(path)}, SESSION) is True
