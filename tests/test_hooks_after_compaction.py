"""Issue 23, item 9: after a compaction the agent is pointed at the draft Baton
saved before it, and a draft Baton prepares never lists a harness's
configuration among the handoff's artifacts."""

from __future__ import annotations

import pytest

from baton.app import Baton
from baton.domain.paths import is_harness_configuration
from tests.harness_support import fixture, hook, injected

SID = "0b7c4f2e-synthetic-claude-session"


def _start(repo, source, **changes):
    return hook(repo, "claude-code", "SessionStart", fixture("claude-code", f"SessionStart.{source}", repo, **changes))


def _compact(repo, trigger="manual", **changes):
    return hook(repo, "claude-code", "PreCompact", fixture("claude-code", f"PreCompact.{trigger}", repo, **changes))


def test_the_start_after_a_compaction_names_the_draft_saved_before_it_and_how_to_complete_it(repo):
    _start(repo, "startup")
    draft = _compact(repo).result.handoff_id
    after = _start(repo, "compact")
    text = injected("claude-code", after.answer)
    assert after.problem is None and text is not None
    assert draft in text
    assert "baton handoff amend" in text and f"`parent` {draft}" in text and "handoff_ready" in text
    assert after.result.to_json()["draft"] == draft
    assert "Active Session Handoff" not in text  # the brief itself is not delivered twice


def test_the_notice_lists_the_fields_the_draft_still_lacks(repo):
    _start(repo, "startup")
    _compact(repo)
    text = injected("claude-code", _start(repo, "compact").answer)
    assert "Still to complete:" in text and "summary.current_state" in text


def test_a_compaction_start_without_a_draft_says_nothing(repo):
    _start(repo, "startup")
    after = _start(repo, "compact")
    assert after.answer == "" and after.problem is None and after.result.draft is None


def test_only_a_compaction_start_points_at_the_draft(repo):
    _start(repo, "startup")
    _compact(repo)
    for source in ("resume", "clear"):
        assert _start(repo, source).answer == ""


def test_a_draft_another_session_saved_is_not_pointed_at(repo):
    _start(repo, "startup")
    _compact(repo, session_id="someone-else")
    assert _start(repo, "compact").answer == ""


def test_a_draft_the_agent_already_continued_is_not_pointed_at_but_its_continuation_is(repo):
    from tests.handoff_support import payload

    _start(repo, "startup")
    draft = _compact(repo).result.handoff_id
    with Baton.open(repo) as app:
        child = app.capture({**payload(), "lineage": {"parents": [draft], "relation": "continue"}}).handoff_id
    after = _start(repo, "compact")
    assert after.result.draft == child and draft not in injected("claude-code", after.answer)


def test_once_the_sessions_work_is_ready_nothing_is_pointed_at(repo):
    from tests.app_support import promote_handoff, validate_handoff_command
    from tests.handoff_support import payload

    _start(repo, "startup")
    draft = _compact(repo).result.handoff_id
    with Baton.open(repo) as app:
        child = app.capture({**payload(), "lineage": {"parents": [draft], "relation": "continue"}}).handoff_id
    validate_handoff_command(repo, child)
    promote_handoff(repo, child, accept_warnings="tests")
    assert _start(repo, "compact").answer == ""


@pytest.mark.parametrize("path", [
    ".claude/settings.json", ".claude/settings.local.json", ".claude/skills/baton/SKILL.md", ".mcp.json",
    ".codex/hooks.json", ".codex/config.toml", ".gemini/settings.json", ".cursor/rules/baton.mdc",
    "services/api/.claude/settings.json", "services/api/.mcp.json",
])
def test_a_harness_configuration_file_is_recognised(path):
    assert is_harness_configuration(path)


@pytest.mark.parametrize("path", [
    "src/app.py", "AGENTS.md", "CLAUDE.md", "GEMINI.md", "docs/.claude.md", "mcp.json", ".claude", "claude/x.py",
])
def test_the_projects_own_files_are_not_harness_configuration(path):
    assert not is_harness_configuration(path)


def test_a_draft_before_compaction_lists_the_work_and_not_the_harness_files(repo):
    from baton.harnesses.install import install_hooks

    install_hooks(repo, "claude-code")
    (repo / "src" / "app.py").write_text("x = 2\n")
    (repo / "AGENTS.md").write_text("Run the tests.\n")
    draft = _compact(repo).result.handoff_id
    with Baton.open(repo) as app:
        artifacts = [a["path"] for a in app.show(draft).to_json()["handoff"]["artifacts"]]
    assert sorted(artifacts) == ["AGENTS.md", "src/app.py"]


def test_a_draft_a_handoff_request_prepares_lists_no_harness_files(repo):
    for harness in ("claude-code", "codex", "gemini-cli", "cursor"):
        from baton.harnesses.install import install_hooks

        install_hooks(repo, harness)
    (repo / "src" / "app.py").write_text("x = 3\n")
    outcome = hook(repo, "claude-code", "UserPromptSubmit", fixture("claude-code", "UserPromptSubmit", repo))
    assert outcome.result.draft
    with Baton.open(repo) as app:
        artifacts = [a["path"] for a in app.show(outcome.result.draft).to_json()["handoff"]["artifacts"]]
    assert artifacts == ["src/app.py"]


def _received_a_baton(repo) -> str:
    """A baton left by an earlier session (``s0``), received by ``SID``'s start: its id."""
    from tests.app_support import promote_handoff, validate_handoff_command
    from tests.handoff_support import payload

    hook(repo, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.startup", repo, session_id="s0"))
    with Baton.open(repo) as app:
        handoff_id = app.capture(payload(), session="s0").handoff_id
    validate_handoff_command(repo, handoff_id)
    promote_handoff(repo, handoff_id, accept_warnings="tests")
    hook(repo, "claude-code", "SessionEnd", fixture("claude-code", "SessionEnd", repo, session_id="s0"))
    assert _start(repo, "startup").result.delivered.record.id == handoff_id
    return handoff_id


def test_the_draft_before_a_compaction_continues_the_baton_the_session_received(repo):
    received = _received_a_baton(repo)
    draft = _compact(repo).result.handoff_id
    with Baton.open(repo) as app:
        shown = app.show(draft).record
        parent = app.show(received).record
    assert (shown["lineage"]["parents"], shown["lineage"]["relation"]) == ([received], "continue")
    assert shown["open_items"] == parent["open_items"] and shown["open_items"]
    assert shown["work"]["objective"] == parent["work"]["objective"]
    assert shown["summary"]["current_state"] == ""  # where this session left the work is its own to write


def test_the_start_after_a_compaction_says_the_draft_continues_the_received_baton(repo):
    received = _received_a_baton(repo)
    _compact(repo)
    text = injected("claude-code", _start(repo, "compact").answer)
    assert f"It continues baton `{received}`, which this session received at its start" in text
    assert "Still to complete:" in text and "open_items" not in text.split("Still to complete:")[1].split("\n")[0]


def test_a_draft_of_a_session_that_received_no_baton_continues_nothing(repo):
    _start(repo, "startup")
    draft = _compact(repo).result.handoff_id
    with Baton.open(repo) as app:
        assert app.show(draft).record["lineage"]["parents"] == []
    assert "It continues baton" not in injected("claude-code", _start(repo, "compact").answer)
