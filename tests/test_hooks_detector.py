"""Harness hooks feed the detector (spec §9, §15): an explicit request in a prompt
prepares a draft and says so; any other prompt costs nothing; a compaction is
recorded as a recommendation naming the draft it prepared."""

from __future__ import annotations

import json

import pytest

from baton.app import Baton
from tests.handoff_support import ledger_lines
from tests.harness_support import fixture, hook, injected

PROMPT_EVENTS = {"claude-code": "UserPromptSubmit", "codex": "UserPromptSubmit", "gemini-cli": "BeforeAgent"}


def _detector_events(repo):
    out = []
    for feed in (repo / ".baton" / "ledger").glob("*.jsonl"):
        out += [json.loads(line) for line in feed.read_bytes().splitlines()]
    return [e for e in out if e["type"] == "detector.recommended"]


@pytest.mark.parametrize("harness", PROMPT_EVENTS)
def test_an_explicit_handoff_prompt_prepares_a_draft_and_tells_the_agent(repo, harness):
    event = PROMPT_EVENTS[harness]
    outcome = hook(repo, harness, event, fixture(harness, event, repo, prompt="continue later"))
    assert outcome.result.action == "prepare" and outcome.result.draft
    assert "draft handoff" in injected(harness, outcome.answer)
    with Baton.open(repo) as app:
        record = app.show(outcome.result.draft).to_json()["handoff"]
    assert record["status"] == "draft" and record["automation"]["inputs"] == {"handoff_request": 1.0}
    [recorded] = _detector_events(repo)
    assert recorded["data"]["draft_id"] == outcome.result.draft and recorded["data"]["source"] == "hook"


@pytest.mark.parametrize("harness", PROMPT_EVENTS)
def test_an_ordinary_prompt_writes_nothing_and_answers_nothing(repo, harness):
    event = PROMPT_EVENTS[harness]
    lines = ledger_lines(repo)
    outcome = hook(repo, harness, event, fixture(harness, event, repo, prompt="fix the handoff parser"))
    assert outcome.problem is None and outcome.result is None
    assert outcome.answer == ("" if harness != "gemini-cli" else "{}")
    assert ledger_lines(repo) == lines


def test_a_compaction_is_recorded_as_a_recommendation_naming_its_draft(repo):
    outcome = hook(repo, "claude-code", "PreCompact", fixture("claude-code", "PreCompact.auto", repo))
    [recorded] = _detector_events(repo)
    assert recorded["data"]["draft_id"] == outcome.result.handoff_id
    assert recorded["data"]["inputs"] == {"context_pressure": 1.0}


def test_a_cursor_prompt_asking_for_a_handoff_prepares_a_draft_and_lets_the_prompt_through(repo):
    outcome = hook(repo, "cursor", "beforeSubmitPrompt", fixture("cursor", "beforeSubmitPrompt", repo))
    assert outcome.result.action == "prepare" and outcome.result.draft
    assert json.loads(outcome.answer) == {"continue": True}  # no field can carry context to the agent
    [recorded] = _detector_events(repo)
    assert recorded["data"]["draft_id"] == outcome.result.draft and recorded["data"]["source"] == "hook"


def test_an_ordinary_cursor_prompt_writes_nothing_and_lets_the_prompt_through(repo):
    lines = ledger_lines(repo)
    outcome = hook(repo, "cursor", "beforeSubmitPrompt",
                   fixture("cursor", "beforeSubmitPrompt", repo, prompt="fix the handoff parser"))
    assert outcome.problem is None and json.loads(outcome.answer) == {"continue": True}
    assert ledger_lines(repo) == lines


def test_a_prompt_given_to_a_codex_subagent_writes_nothing(repo):
    lines = ledger_lines(repo)
    outcome = hook(repo, "codex", "UserPromptSubmit", fixture("codex", "UserPromptSubmit.subagent", repo))
    assert outcome.problem is None and outcome.result is None and outcome.answer == ""
    assert ledger_lines(repo) == lines


@pytest.mark.parametrize("harness", PROMPT_EVENTS)
@pytest.mark.parametrize("prompt", ["continue later", "fix the parser"])
def test_a_prompt_without_a_session_id_writes_nothing_and_says_so_once(repo, harness, prompt):
    event = PROMPT_EVENTS[harness]
    lines = ledger_lines(repo)
    payload = {k: v for k, v in fixture(harness, event, repo, prompt=prompt).items() if k != "session_id"}
    outcome = hook(repo, harness, event, payload)
    assert outcome.result is None and "session id is required" in outcome.problem
    assert outcome.answer == ("" if harness != "gemini-cli" else "{}")
    assert ledger_lines(repo) == lines


def test_a_cursor_hook_without_its_conversation_id_names_that_field(repo):
    payload = {k: v for k, v in fixture("cursor", "preCompact", repo).items()
               if k not in ("conversation_id", "session_id")}
    outcome = hook(repo, "cursor", "preCompact", payload)
    assert outcome.result is None and "(`conversation_id`)" in outcome.problem


def _ask(repo, prompt="handoff"):
    return hook(repo, "claude-code", "UserPromptSubmit", fixture("claude-code", "UserPromptSubmit", repo, prompt=prompt))


def _drafts(repo):
    with Baton.open(repo) as app:
        return [h["id"] for h in app.list_handoffs().to_json()["handoffs"] if h["status"] == "draft"]


def test_asking_for_a_handoff_again_points_at_the_sessions_open_draft_instead_of_another(repo):
    first = _ask(repo)
    again = _ask(repo, prompt="/handoff")
    assert again.result.draft == first.result.draft and again.result.draft_kept
    assert _drafts(repo) == [first.result.draft]
    assert "is still open" in injected("claude-code", again.answer)


def test_the_kept_draft_lists_only_what_is_still_to_complete(repo):
    first = _ask(repo).result
    assert "summary.current_state" in first.missing and "work.objective" in first.missing
    with Baton.open(repo) as app:
        app.amend(first.draft, changes={"work": {"objective": "Ship the parser"},
                                        "summary": {"current_state": "Parser half written"}})
    again = _ask(repo).result
    assert "summary.current_state" not in again.missing and "work.objective" not in again.missing
    assert "work.title" in again.missing


def test_a_compaction_after_a_request_keeps_the_requests_draft(repo):
    asked = _ask(repo).result
    compacted = hook(repo, "claude-code", "PreCompact", fixture("claude-code", "PreCompact.auto", repo))
    assert compacted.result.handoff_id == asked.draft and not compacted.result.created
    assert _drafts(repo) == [asked.draft]


def test_a_request_after_the_draft_became_ready_prepares_a_new_one(repo):
    from tests.app_support import promote_handoff, validate_handoff_command
    from tests.handoff_support import payload

    first = _ask(repo).result
    with Baton.open(repo) as app:
        app.amend(first.draft, replacement={k: v for k, v in payload().items() if k != "automation"})
    validate_handoff_command(repo, first.draft)
    promote_handoff(repo, first.draft, accept_warnings="tests")
    again = _ask(repo).result
    assert again.draft != first.draft and not again.draft_kept


def test_the_notice_names_the_command_that_completes_the_draft_and_the_end_hook_hands_it_on(repo):
    from tests.app_support import promote_handoff, validate_handoff_command
    from tests.conftest import run_baton

    asked = _ask(repo).result
    notice = injected("claude-code", _ask(repo).answer)
    short = asked.draft[-8:]
    command = f"baton handoff amend {short} --input FILE"
    assert command in notice
    completed = repo / "completed.json"
    completed.write_text(json.dumps({
        "work": {"title": "Ship the parser", "objective": "The parser reads every fixture"},
        "summary": {"current_state": "Parser half written"},
        "open_items": [{"description": "Write the error path", "suggested_action": "Add a failing fixture",
                        "acceptance_check": "The fixture test passes"}]}))
    amended = run_baton(*command.replace("FILE", str(completed)).split()[1:], cwd=repo)
    assert amended.returncode == 0, amended.stderr
    validate_handoff_command(repo, asked.draft)
    promote_handoff(repo, asked.draft, accept_warnings="synthetic test record")
    ended = hook(repo, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", repo))
    assert ended.result.baton == asked.draft


def _continue_over_mcp(repo, draft, session=None):
    """What an agent without amend does: capture a child of the draft (naming no session unless told)."""
    from tests.handoff_support import payload

    with Baton.open(repo) as app:
        body = {k: v for k, v in payload().items() if k not in ("automation", "lineage")}
        return app.capture(body, parent=draft, session=session).handoff_id


def test_a_capture_continuing_the_sessions_draft_without_a_session_is_handed_on_at_its_end(repo):
    from tests.app_support import promote_handoff, validate_handoff_command

    draft = _ask(repo).result.draft
    child = _continue_over_mcp(repo, draft)
    validate_handoff_command(repo, child)
    promote_handoff(repo, child, accept_warnings="synthetic test record")
    ended = hook(repo, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", repo))
    assert ended.result.baton == child


def test_the_prepared_draft_a_ready_continuation_completes_is_archived_with_a_reason(repo):
    from baton.domain.short_ids import short_id
    from tests.app_support import promote_handoff, validate_handoff_command

    draft = _ask(repo).result.draft
    child = _continue_over_mcp(repo, draft)
    validate_handoff_command(repo, child)
    promoted = promote_handoff(repo, child, accept_warnings="synthetic test record")
    assert promoted.closed == (draft,)
    with Baton.open(repo) as app:
        shown = app.show(draft).to_json()["handoff"]
    assert shown["status"] == "archived"
    assert shown["archived_reason"] == f"completed by ready handoff {short_id(child)}, which continues it"
    assert _drafts(repo) == []


def test_a_ready_continuation_of_a_draft_baton_did_not_prepare_leaves_that_draft_as_it_is(repo):
    from tests.app_support import promote_handoff, validate_handoff_command
    from tests.handoff_support import payload

    with Baton.open(repo) as app:
        mine = app.capture({k: v for k, v in payload().items() if k != "automation"}).handoff_id
    child = _continue_over_mcp(repo, mine)
    validate_handoff_command(repo, child)
    assert promote_handoff(repo, child, accept_warnings="synthetic test record").closed == ()
    assert _drafts(repo) == [mine]


def test_a_capture_continuing_the_draft_for_another_session_is_not_this_sessions(repo):
    from tests.app_support import promote_handoff, validate_handoff_command

    draft = _ask(repo).result.draft
    child = _continue_over_mcp(repo, draft, session="someone-else")
    validate_handoff_command(repo, child)
    promote_handoff(repo, child, accept_warnings="synthetic test record")
    ended = hook(repo, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", repo))
    assert ended.result.baton is None


def test_a_draft_a_capture_continues_is_no_longer_the_sessions_open_draft_its_continuation_is(repo):
    draft = _ask(repo).result.draft
    child = _continue_over_mcp(repo, draft)
    again = _ask(repo).result
    assert again.draft_kept and again.draft == child


def test_the_notice_says_how_to_complete_the_draft_over_mcp_too(repo):
    asked = _ask(repo).result
    notice = injected("claude-code", _ask(repo).answer)
    assert f"`handoff_capture` with `parent` {asked.draft}" in notice


def test_a_capture_continuing_the_baton_the_session_received_is_handed_on_at_its_end(repo):
    from tests.app_support import promote_handoff, validate_handoff_command
    from tests.handoff_support import payload

    def ready(handoff_id):
        validate_handoff_command(repo, handoff_id)
        promote_handoff(repo, handoff_id, accept_warnings="synthetic test record")

    def session(name, event, fixture_name=None):
        return hook(repo, "claude-code", event,
                    fixture("claude-code", fixture_name or event, repo, session_id=name))

    with Baton.open(repo) as app:
        first = app.capture(payload(), session="s1").handoff_id
    ready(first)
    session("s1", "SessionEnd")                                 # s1 hands its handoff on
    assert session("s2", "SessionStart", "SessionStart.startup").result.to_json()["handoffId"] == first
    child = _continue_over_mcp(repo, first)                     # s2 carries on, naming no session
    ready(child)
    assert session("s2", "SessionEnd").result.baton == child


def test_detect_without_creating_still_names_the_sessions_open_draft(repo):
    draft = _ask(repo).result.draft
    with Baton.open(repo) as app:
        result = app.detect({"handoff_request": 1.0}, session=_ask(repo).result.session, create_drafts=False)
    assert result.draft == draft and result.draft_kept
