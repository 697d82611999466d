"""A repeated start that continues the conversation — after a compaction, a resumed or forked
conversation — is told again, read-only, of the baton the session received (its next steps and
failed approaches: the compaction's summary may have dropped them), and of a baton left for its
owner and branch after it started (harness14 F6/F7, team14 F16); nothing is claimed again."""

from __future__ import annotations

import json

from tests.cli_support import run, run_json
from tests.harness_support import fixture, hook, injected

SID = "0b7c4f2e-synthetic-claude-session"


def _start(repo, source):
    return hook(repo, "claude-code", "SessionStart", fixture("claude-code", f"SessionStart.{source}", repo))


def _baton_events(capsys, repo, kind):
    return [json.loads(line) for line in run(capsys, repo, "log", "--type", kind, "--json")[1].splitlines()]


def test_the_start_after_a_compaction_repeats_the_received_batons_steps_and_traps(repo, capsys):
    left = run_json(capsys, repo, "session", "end", "prev", "--handoff-steps", "Parse the feed's local dates",
                    "--handoff-failed", "Mocking the clock")
    assert left["handoffId"] in injected("claude-code", _start(repo, "startup").answer)
    after = _start(repo, "compact")
    text = injected("claude-code", after.answer)
    assert text is not None and f"received baton `{left['handoffId']}`" in text
    assert "Parse the feed's local dates" in text and "Mocking the clock" in text
    assert "do not retry" in text and after.result.to_json()["recalled"]


def test_the_start_after_a_compaction_claims_nothing_again(repo, capsys):
    run_json(capsys, repo, "session", "end", "prev", "--handoff-steps", "Parse the feed's local dates")
    _start(repo, "startup")
    claims = len(_baton_events(capsys, repo, "baton.claimed"))
    assert _start(repo, "compact").result.to_json()["claimed"] is False
    assert len(_baton_events(capsys, repo, "baton.claimed")) == claims == 1


def test_a_resumed_conversation_is_told_of_a_baton_left_after_it_started_without_claiming_it(repo, capsys):
    _start(repo, "startup")
    newer = run_json(capsys, repo, "session", "end", "codex-1", "--handoff-steps", "Parser error recovery")
    text = injected("claude-code", _start(repo, "resume").answer)
    assert text is not None and "A newer baton is waiting" in text and f"`{newer['handoffId']}`" in text
    assert "Parser error recovery" in text and "did not claim it" in text
    assert _baton_events(capsys, repo, "baton.claimed") == []
    waiting = run_json(capsys, repo, "session", "handoff")
    assert waiting["handoff"]["id"] == newer["handoffId"]  # still there for the next session


def test_a_baton_left_before_the_session_started_and_received_by_another_is_not_called_newer(repo, capsys):
    run_json(capsys, repo, "session", "end", "prev", "--handoff-steps", "Parse the feed's local dates")
    _start(repo, "startup")  # receives it
    text = injected("claude-code", _start(repo, "resume").answer) or ""
    assert "A newer baton" not in text


def test_a_plain_repeated_start_says_nothing(repo, capsys):
    run_json(capsys, repo, "session", "end", "prev", "--handoff-steps", "Parse the feed's local dates")
    _start(repo, "startup")
    assert _start(repo, "clear").answer == ""


def test_a_conversation_resumed_after_it_handed_off_is_told_the_waiting_baton_is_its_own(repo, capsys):
    """Tester harness15 G7: not "a newer baton … left by session <its own id> after this session started"."""
    _start(repo, "startup")
    own = run_json(capsys, repo, "session", "end", SID, "--handoff-steps", "Parser error recovery")
    text = injected("claude-code", _start(repo, "resume").answer)
    assert text is not None and "A newer baton" not in text and "after this session started" not in text
    assert "This conversation left baton" in text and f"`{own['handoffId']}`" in text
    assert "waiting for the next session" in text
