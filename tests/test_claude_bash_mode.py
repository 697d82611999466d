"""Claude Code's bash mode (``! cmd``) as a session's first input: the baton reaches one session.

Claude Code runs no ``UserPromptSubmit`` for bash-mode input (nor ``PreToolUse``): it runs the
command, then sends the model a turn with its output — the first request, carrying the start's
brief — whose ``Stop`` is the only hook that runs before ``SessionEnd`` (2.1.332 and 2.1.337, run
for real); when the person stops that turn (Esc) before the model answers, 2.1.337 runs its
``Interrupt`` instead (run for real: no ``Stop``). Baton wires both with the prompt hook: a turn's
end removes the start's mark, as a prompt does, so the end hands nothing on again. The payloads
fed here are the ones 2.1.337 sent (``tests/fixtures/hooks/claude-code/{Stop,Interrupt}.json``). An install made before ``Stop`` was wired still
hands the baton on again: the end never reads the session's transcript (``transcript_path``, under
``~/.claude``), a path outside the project root (docs/security.md; docs/batons.md, "A baton spent
without reaching a model"). Through ``baton hook claude-code …``; the real Claude Code in
``tests/e2e/test_default_install_keeps_batons.py``.
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


def _started(repo) -> str:
    """A baton waits; session SESSION's start claims it (leaving its mark). The handoff's id."""
    handoff_id = baton_left_by_a_claude_code_session(repo)
    started = claude_start(repo, SESSION)
    assert started.result.to_json()["handoffId"] == handoff_id
    assert unprompted_mark(repo, SESSION).exists()
    return handoff_id


def _ended(repo, **fields) -> None:
    hook(repo, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", repo, session_id=SESSION, **fields))


def _reasons(repo) -> list[str | None]:
    with Baton.open(repo) as app:
        return [e["data"].get("reason") for e in app.log(event_type="baton.created").to_json()]


TURN_ENDS = ("Stop", "Interrupt")
"""A turn's end: the model answered (``Stop``), or the person stopped the turn (``Interrupt``)."""


@pytest.mark.parametrize("event", TURN_ENDS)
def test_the_default_install_wires_claude_code_s_turn_s_end_beside_its_prompt_hook(repo, event):
    hooks = json.loads((repo / ".claude" / "settings.json").read_text())["hooks"]
    assert "UserPromptSubmit" in hooks and event in hooks
    assert hooks[event][0]["hooks"][0]["command"].endswith(f"hook claude-code {event}")


@pytest.mark.parametrize("event", TURN_ENDS)
def test_a_turn_s_end_removes_the_start_s_mark_and_answers_nothing(repo, event):
    _started(repo)
    ended = hook(repo, "claude-code", event, fixture("claude-code", event, repo, session_id=SESSION))
    assert ended.render() == ""
    assert not unprompted_mark(repo, SESSION).exists()


@pytest.mark.parametrize("event", TURN_ENDS)
def test_a_turn_s_end_writes_nothing_to_the_ledger(repo, event):
    _started(repo)
    ledger = sorted((repo / ".baton").rglob("*.jsonl"))
    assert ledger
    before = [path.read_bytes() for path in ledger]
    hook(repo, "claude-code", event, fixture("claude-code", event, repo, session_id=SESSION))
    assert [path.read_bytes() for path in ledger] == before


@pytest.mark.parametrize("event", TURN_ENDS)
def test_a_session_begun_in_bash_mode_spends_its_claimed_baton_once_its_turn_ends(repo, event):
    """The bash-mode turn's ``Stop`` (or its ``Interrupt``), then the end: nothing handed on again, the next session not
    given the baton — claimed once, by the session whose model was."""
    _started(repo)
    hook(repo, "claude-code", event, fixture("claude-code", event, repo, session_id=SESSION))
    _ended(repo)
    assert claude_start(repo, "next-one").result.to_json()["handoffId"] is None
    assert _reasons(repo) == [None]


@pytest.mark.parametrize("event", TURN_ENDS)
def test_a_turn_s_end_of_another_session_leaves_the_start_s_mark(repo, event):
    """Each session's turns end for that session only: another's ``Stop`` finds no mark of its own
    and removes none, and says nothing."""
    _started(repo)
    ended = hook(repo, "claude-code", event, fixture("claude-code", event, repo, session_id="another"))
    assert ended.render() == ""
    assert unprompted_mark(repo, SESSION).exists()


def test_without_a_turn_s_end_a_session_begun_in_bash_mode_hands_its_baton_on_again_whatever_its_transcript_holds(
        repo, tmp_path):
    """An install made before ``Stop`` was wired: the end's payload names a transcript recording the
    bash-mode turn's request and answer; the end does not read it, and hands the baton on again, as
    for a session left before any request."""
    handoff_id = _started(repo)
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_text("".join(json.dumps({"type": kind, "timestamp": "2999-01-01T00:00:00.000Z",
                                              "isSidechain": False, "sessionId": SESSION}) + "\n"
                                  for kind in ("user", "api-request", "assistant")))
    _ended(repo, transcript_path=str(transcript))
    assert not unprompted_mark(repo, SESSION).exists()
    assert claude_start(repo, "next-one").result.to_json()["handoffId"] == handoff_id
    assert _reasons(repo) == [None, "unprompted"]
