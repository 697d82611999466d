"""Every shipped adapter honours the adapter protocol (spec §15) on every fixture of its harness."""

from __future__ import annotations

import argparse
import json

import pytest

from baton.cli import build_parser
from baton.harnesses import HARNESSES, adapter
from baton.harnesses.protocol import IGNORED, KINDS, PRE_COMPACT, SESSION_START, USER_PROMPT, HarnessAdapter
from tests.harness_support import every_fixture, fixture

FIXTURES = every_fixture()


def test_every_harness_has_fixtures_for_each_kind_it_handles():
    for harness in HARNESSES:
        events = {name.split(".")[0] for h, name in FIXTURES if h == harness}
        assert events == set(adapter(harness).kinds), harness


@pytest.mark.parametrize("harness", HARNESSES)
def test_each_adapter_implements_the_protocol(harness):
    chosen = adapter(harness)
    members = {name for name in vars(HarnessAdapter) if not name.startswith("_")} | set(
        HarnessAdapter.__annotations__)
    assert members == {"name", "kinds", "subscribe_events", "get_project_context", "get_session_metadata",
                       "render_notice", "configuration"}
    assert all(hasattr(chosen, name) for name in members)
    assert set(chosen.kinds.values()) <= set(KINDS)
    assert chosen.subscribe_events is None  # every shipped harness pushes by running a command


@pytest.mark.parametrize("harness,name", FIXTURES, ids=lambda v: v)
def test_a_fixture_reads_as_the_session_and_project_it_names(harness, name):
    chosen = adapter(harness)
    payload = fixture(harness, name)
    event = name.split(".")[0]
    meta = chosen.get_session_metadata(event, payload)
    triggers = chosen.compaction_triggers
    if chosen.kinds[event] == PRE_COMPACT and triggers is not None and payload.get("trigger") not in triggers:
        assert meta.kind == IGNORED  # a trigger that is no real compaction (Gemini's PreCompress auto)
    elif chosen.kinds[event] == SESSION_START and payload.get("source") in chosen.contextless_sources:
        assert meta.kind == IGNORED  # a start whose answer reaches no model (Gemini's /clear)
    else:
        assert meta.kind in KINDS
    assert meta.session_id and "synthetic" in meta.session_id
    assert chosen.get_project_context(payload).cwd == "/path/to/project"
    if "." in name and meta.kind in (SESSION_START, PRE_COMPACT):  # SessionStart.resume, PreCompact.auto:
        assert name.split(".")[1] in (meta.source, meta.trigger)  # the harness's own field is kept


@pytest.mark.parametrize("harness,name", [(h, n) for h, n in FIXTURES if adapter(h).kinds[n.split(".")[0]]
                                          == SESSION_START], ids=lambda v: v)
def test_the_installed_matcher_lets_every_session_start_source_through(harness, name):
    """A source the matcher leaves out runs no hook at all: the session never gets its brief
    (Claude Code 2.1.214 began reporting a forked session as ``fork``, not ``resume``)."""
    chosen = adapter(harness)
    event = name.split(".")[0]
    (hook,) = [h for h in chosen.hooks if h.event == event]
    source = fixture(harness, name).get("source")
    assert hook.matcher is None or source in hook.matcher.split("|"), (source, hook.matcher)


@pytest.mark.parametrize("harness,name", FIXTURES, ids=lambda v: v)
def test_only_a_session_start_or_a_prompt_answers_with_context_in_the_harness_shape(harness, name):
    chosen = adapter(harness)
    meta = chosen.get_session_metadata(name.split(".")[0], fixture(harness, name))
    answer = chosen.render_notice(meta, "the brief")
    if meta.kind == SESSION_START or (meta.kind == USER_PROMPT and chosen.prompt_context):
        data = json.loads(answer)
        text = data["additional_context"] if harness == "cursor" else data["hookSpecificOutput"]["additionalContext"]
        assert text == "the brief"
    else:
        assert answer == chosen.empty_for(meta.event)
    if chosen.empty_answer:
        assert json.loads(chosen.empty_answer) == {}  # a harness that parses stdout gets JSON
    assert all(json.loads(a) for a in chosen.empty_answers.values())  # an event's own answer is JSON too


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_claude_code_and_codex_name_the_event_in_their_answer(harness):
    chosen = adapter(harness)
    meta = chosen.get_session_metadata("SessionStart", fixture(harness, "SessionStart.startup"))
    assert json.loads(chosen.render_notice(meta, "x"))["hookSpecificOutput"]["hookEventName"] == "SessionStart"


def test_an_event_the_adapter_does_not_handle_is_ignored():
    meta = adapter("claude-code").get_session_metadata("Notification", {"session_id": "s", "message": "hi"})
    assert meta.kind == IGNORED


@pytest.mark.parametrize("prompt, explicit", [
    ("continue later", True), ("Handoff.", True), ("/handoff now please", True), ("new session", True),
    ("fix the handoff parser", False), ("hi", False), ("", False),
])
def test_a_prompt_is_an_explicit_handoff_request_only_when_it_says_so(prompt, explicit):
    meta = adapter("claude-code").get_session_metadata("UserPromptSubmit", {"session_id": "s", "prompt": prompt})
    assert meta.kind == USER_PROMPT and meta.handoff_request is explicit
    assert len(prompt) < 6 or prompt not in repr(meta)


def test_no_adapter_reads_the_transcript(tmp_path):
    """The payload names a transcript; the metadata carries nothing from it."""
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_text("secret conversation\n")
    for harness, name in FIXTURES:
        meta = adapter(harness).get_session_metadata(name.split(".")[0],
                                                     fixture(harness, name, transcript_path=str(transcript)))
        assert str(transcript) not in repr(meta)


def test_cursor_lets_every_prompt_through_and_tells_the_agent_nothing():
    """beforeSubmitPrompt's answer is a verdict ({"continue": …}), not context."""
    chosen = adapter("cursor")
    meta = chosen.get_session_metadata("beforeSubmitPrompt", fixture("cursor", "beforeSubmitPrompt"))
    assert meta.kind == USER_PROMPT and meta.handoff_request is True
    assert json.loads(chosen.render_notice(meta, "a draft was prepared")) == {"continue": True}
    assert json.loads(chosen.render_notice(meta, None)) == {"continue": True}


def test_a_prompt_given_to_a_codex_subagent_is_never_a_handoff_request():
    payload = fixture("codex", "UserPromptSubmit.subagent")
    assert "continue later" in payload["prompt"]  # would be an explicit request from the person
    meta = adapter("codex").get_session_metadata("UserPromptSubmit", payload)
    assert meta.kind == USER_PROMPT and meta.handoff_request is False


@pytest.mark.parametrize("source", ["system", "loop_wakeup", "schedule_wakeup", "poll_event"])
def test_a_prompt_claude_code_injected_itself_is_never_a_handoff_request(source):
    """Claude Code 2.1.332 names a prompt's author: a task notification or a wakeup saying
    "continue later" is the harness's, not the person's request."""
    payload = fixture("claude-code", "UserPromptSubmit", source=source)
    assert "continue later" in payload["prompt"]
    meta = adapter("claude-code").get_session_metadata("UserPromptSubmit", payload)
    assert meta.kind == USER_PROMPT and meta.handoff_request is False


@pytest.mark.parametrize("source", ["user", "sdk"])
def test_a_prompt_the_person_typed_or_sent_headless_is_a_handoff_request(source):
    payload = fixture("claude-code", "UserPromptSubmit", source=source)
    assert adapter("claude-code").get_session_metadata("UserPromptSubmit", payload).handoff_request is True


@pytest.mark.parametrize("harness", HARNESSES)
def test_baton_hook_help_names_every_event_the_adapter_handles(harness):
    [hook] = [action.choices["hook"] for action in build_parser()._actions
              if isinstance(action, argparse._SubParsersAction)]
    [event] = [action for action in hook._actions if action.dest == "event"]
    assert f"{', '.join(adapter(harness).kinds)} ({harness})" in " ".join(event.help.split())
