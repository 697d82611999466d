"""A capture naming a session that has already ended is told so (harness14 F9: a forked Claude
conversation sees its parent's brief first, and an agent passing the parent's id lost the fork's
baton silently), naming the sessions of its owner and branch still open; and the brief of a
conversation that continues another (a fork, a resume) says its own id is the current one."""

from __future__ import annotations

from tests.handoff_support import baton_json
from tests.harness_support import fixture, hook, injected


def test_a_capture_under_an_ended_session_says_it_ended_and_names_the_open_one(project):
    baton_json(project, "session", "begin", "parent")
    baton_json(project, "session", "begin", "fork")
    baton_json(project, "session", "end", "parent")
    out = baton_json(project, "checkpoint", "create", "--session", "parent", "--title", "T", "--objective", "o",
                     "--no-input")
    [hint] = out["hints"]
    assert hint.startswith("session parent already ended") and "will not hand this handoff on" in hint
    assert "fork" in hint.split("still open:")[1]


def test_a_capture_under_an_open_session_says_nothing_of_it(project):
    baton_json(project, "session", "begin", "fork")
    out = baton_json(project, "checkpoint", "create", "--session", "fork", "--title", "T", "--objective", "o",
                     "--no-input")
    assert out.get("hints", []) == []


def test_a_resumed_or_forked_conversations_brief_says_its_id_is_the_current_one(project):
    started = hook(project, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.resume", project))
    text = injected("claude-code", started.answer)
    assert text is not None and "This id is the current one" in text


def test_a_fresh_sessions_brief_has_no_such_line(project):
    started = hook(project, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.startup", project))
    assert "This id is the current one" not in (injected("claude-code", started.answer) or "")
