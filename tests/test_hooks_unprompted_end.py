"""A session whose start claimed the waiting baton and that ends before any prompt: its brief
reached no model (Claude Code and Gemini CLI run ``SessionStart`` when their TUI opens, before
anything is typed; Codex runs it with the first prompt, so a Codex claim is always followed by a
request). Run headless at the hook level, as the harnesses send the events: start, end, no
prompt hook between.

docs/batons.md, "A baton spent without reaching a model": where the harness's prompt hook is
wired (``install-hooks --events prompt``), the start that claimed leaves a mark the session's
first prompt hook removes; an end that still finds it hands the baton on again (``baton.created``
with ``reason: unprompted``), and the next session is given it, claimed once. Without the prompt
hook wired the end cannot tell, and what held before still holds: the baton is spent, the next
start is pointed at the handoff, and ``session handoff --from`` hands it on again by hand.
"""

from __future__ import annotations

import pytest

from baton.app import Baton
from baton.commands.context import Project
from baton.domain.short_ids import short_id
from baton.harnesses.install import install_hooks
from tests.cli_support import run_json
from tests.handoff_support import git_init
from tests.harness_support import baton_left_by_a_claude_code_session, fixture, hook, injected

# harness: (start, prompt, end) — the hooks the harness runs, in that order, when a prompt is made
EVENTS = {
    "claude-code": ("SessionStart", "UserPromptSubmit", "SessionEnd"),
    "gemini-cli": ("SessionStart", "BeforeAgent", "SessionEnd"),
}


@pytest.fixture
def repo(project):
    git_init(project, {"src/app.py": "x = 1\n"})
    return project


def _wired(repo, harness) -> None:
    """``install-hooks --events all``: the harness's prompt hook runs on every prompt."""
    install_hooks(repo, harness, events=("start", "end", "compact", "prompt"))


def _mark(repo, session):
    return repo / ".baton" / "cache" / "unprompted" / session


def _created(repo) -> list[dict]:
    with Baton.open(repo) as app:
        return [e["data"] for e in app.log(event_type="baton.created").to_json()]


def _claims(repo) -> list[str]:
    with Baton.open(repo) as app:
        return [e["session"] for e in app.log(event_type="baton.claimed").to_json()]


def _left_by_an_earlier_session(repo) -> str:
    """An earlier Claude Code session readies a handoff and ends: its baton waits."""
    return baton_left_by_a_claude_code_session(repo)


def _ended_before_any_prompt(repo, harness) -> str:
    handoff_id = _left_by_an_earlier_session(repo)
    _fresh_start_claims(repo, harness, handoff_id)
    _run(repo, harness, 2, "fresh")
    return handoff_id


def _run(repo, harness, which, session, **changes):
    event = EVENTS[harness][which]
    name = f"{event}.startup" if which == 0 else event
    return hook(repo, harness, event, fixture(harness, name, repo, session_id=session, **changes))


def _fresh_start_claims(repo, harness, handoff_id) -> None:
    started = _run(repo, harness, 0, "fresh")
    # Gemini CLI's start, its prompt hook wired, keeps the brief in its mark for the first prompt
    given = _mark(repo, "fresh").read_text() if _kept_for_the_first_prompt(repo, harness) \
        else injected(harness, started.answer)
    assert "Active Session Handoff" in (given or "")
    assert started.result.to_json()["handoffId"] == handoff_id  # claimed at the start, before any prompt


def _kept_for_the_first_prompt(repo, harness) -> bool:
    settings = repo / ".gemini" / "settings.json"
    return harness == "gemini-cli" and settings.exists() and "BeforeAgent" in settings.read_text()


def test_a_claude_code_start_that_claims_a_baton_gives_the_brief_itself_and_its_mark_holds_only_the_baton(repo):
    _wired(repo, "claude-code")
    handoff_id = _left_by_an_earlier_session(repo)
    started = _run(repo, "claude-code", 0, "fresh")
    assert "Active Session Handoff" in (injected("claude-code", started.answer) or "")
    baton_id = _mark(repo, "fresh").read_text()
    assert "Active Session Handoff" not in baton_id and baton_id.endswith("\n") and baton_id.count("\n") == 1
    assert started.result.to_json()["handoffId"] == handoff_id


def _next_start(repo):
    return hook(repo, "claude-code", "SessionStart",
                fixture("claude-code", "SessionStart.startup", repo, session_id="next"))


ENDED_BEFORE_ANY_PROMPT = [("claude-code", "prompt_input_exit"), ("claude-code", "resume"), ("claude-code", "clear"),
                           ("gemini-cli", "exit")]


@pytest.mark.parametrize(("harness", "reason"), ENDED_BEFORE_ANY_PROMPT)
def test_a_session_that_ends_before_any_prompt_leaves_the_baton_it_claimed_to_the_next_session(
        repo, harness, reason):
    _wired(repo, harness)
    handoff_id = _left_by_an_earlier_session(repo)
    _fresh_start_claims(repo, harness, handoff_id)
    _run(repo, harness, 2, "fresh", reason=reason)
    following = _next_start(repo)
    assert "Active Session Handoff" in (injected("claude-code", following.answer) or "")
    assert following.result.to_json()["handoffId"] == handoff_id


@pytest.mark.parametrize("harness", EVENTS)
def test_the_ledger_says_why_a_baton_claimed_before_any_prompt_is_handed_on_again(repo, harness):
    _wired(repo, harness)
    handoff_id = _ended_before_any_prompt(repo, harness)
    again = _created(repo)[-1]
    assert again["handoff_id"] == handoff_id
    assert again["reason"] == "unprompted"


@pytest.mark.parametrize("harness", EVENTS)
def test_a_baton_handed_on_again_is_claimed_once_by_each_session(repo, harness):
    _wired(repo, harness)
    _ended_before_any_prompt(repo, harness)
    _next_start(repo)
    hook(repo, "claude-code", "SessionStart", fixture("claude-code", "SessionStart.startup", repo, session_id="third"))
    assert _claims(repo) == ["fresh", "next"]


@pytest.mark.parametrize("harness", EVENTS)
def test_a_start_that_claims_a_baton_leaves_a_mark_the_first_prompt_removes(repo, harness):
    _wired(repo, harness)
    _fresh_start_claims(repo, harness, _left_by_an_earlier_session(repo))
    assert _mark(repo, "fresh").is_file()
    _run(repo, harness, 1, "fresh")
    assert not _mark(repo, "fresh").exists()


@pytest.mark.parametrize("harness", EVENTS)
def test_a_session_that_made_a_request_after_its_claim_spends_the_baton_with_the_prompt_hook_wired(repo, harness):
    _wired(repo, harness)
    handoff_id = _left_by_an_earlier_session(repo)
    _fresh_start_claims(repo, harness, handoff_id)
    _run(repo, harness, 1, "fresh")
    _run(repo, harness, 2, "fresh")
    assert "Active Session Handoff" not in (injected("claude-code", _next_start(repo).answer) or "")
    assert len(_created(repo)) == 1


def test_an_end_hands_a_baton_claimed_before_any_prompt_on_only_once(repo):
    _wired(repo, "claude-code")
    _ended_before_any_prompt(repo, "claude-code")
    _run(repo, "claude-code", 2, "fresh")  # the end again: the session had ended
    assert len(_created(repo)) == 2
    assert not _mark(repo, "fresh").exists()


def test_a_mark_left_by_a_killed_harness_hands_on_no_baton_handed_on_again_since(repo, capsys):
    _wired(repo, "claude-code")
    handoff_id = _left_by_an_earlier_session(repo)
    _fresh_start_claims(repo, "claude-code", handoff_id)  # then killed: no prompt, no end; its mark stays
    run_json(capsys, repo, "session", "handoff", "--from", handoff_id)
    _next_start(repo)  # the next session claims the baton handed on by hand
    _run(repo, "claude-code", 2, "fresh")  # the killed conversation resumed, and left at once
    assert len(_created(repo)) == 2
    assert _claims(repo) == ["fresh", "next"]


def test_a_codex_start_leaves_no_mark_its_start_comes_with_a_prompt(repo):
    _wired(repo, "codex")
    handoff_id = _left_by_an_earlier_session(repo)
    started = hook(repo, "codex", "SessionStart", fixture("codex", "SessionStart.startup", repo, session_id="fresh"))
    assert started.result.to_json()["handoffId"] == handoff_id
    hook(repo, "codex", "Stop", fixture("codex", "Stop", repo, session_id="fresh"))
    assert not _mark(repo, "fresh").exists()
    assert len(_created(repo)) == 1


@pytest.mark.parametrize("harness", EVENTS)
def test_a_first_prompt_that_asks_for_a_handoff_removes_the_mark_too(repo, harness):
    _wired(repo, harness)
    _fresh_start_claims(repo, harness, _left_by_an_earlier_session(repo))
    assert _mark(repo, "fresh").is_file()
    _run(repo, harness, 1, "fresh", prompt="handoff")
    assert not _mark(repo, "fresh").exists()


def test_a_start_below_the_project_root_leaves_no_mark_its_prompt_hook_would_not_find(repo):
    _wired(repo, "claude-code")
    (repo / "src").mkdir(exist_ok=True)
    handoff_id = _left_by_an_earlier_session(repo)
    started = hook(repo, "claude-code", "SessionStart",
                   fixture("claude-code", "SessionStart.startup", repo, session_id="fresh", cwd=str(repo / "src")))
    assert started.result.to_json()["handoffId"] == handoff_id
    assert not (repo / ".baton" / "cache" / "unprompted").exists()


def test_a_claude_code_start_whose_prompt_hook_is_not_wired_leaves_no_mark(repo):
    _fresh_start_claims(repo, "claude-code", _left_by_an_earlier_session(repo))
    assert not _mark(repo, "fresh").exists()


def test_a_baton_handed_on_again_replays_as_it_was_folded(repo):
    _wired(repo, "gemini-cli")
    _ended_before_any_prompt(repo, "gemini-cli")
    opened = Project.open(repo)
    incremental = opened.reading().snapshot()
    opened.runner.rebuild()
    assert opened.runner.snapshot() == incremental


@pytest.mark.parametrize("harness", EVENTS)
def test_a_session_that_made_a_request_after_its_claim_spends_the_baton(repo, harness):
    handoff_id = _left_by_an_earlier_session(repo)
    _fresh_start_claims(repo, harness, handoff_id)
    _run(repo, harness, 1, "fresh")
    _run(repo, harness, 2, "fresh")
    following = _next_start(repo)
    assert "Active Session Handoff" not in (injected("claude-code", following.answer) or "")
    with Baton.open(repo) as app:
        assert app.pending_batons().to_json()["items"] == []


@pytest.mark.parametrize("harness", EVENTS)
def test_without_the_prompt_hook_wired_the_next_start_is_pointed_at_a_baton_spent_before_any_prompt(
        repo, harness):
    handoff_id = _ended_before_any_prompt(repo, harness)
    brief = injected("claude-code", _next_start(repo).answer) or ""
    assert "## Latest ready handoff" in brief
    assert f"`baton resume {short_id(handoff_id)}`" in brief


def test_a_baton_spent_before_any_prompt_is_handed_on_again_with_session_handoff_from(repo, capsys):
    handoff_id = _ended_before_any_prompt(repo, "claude-code")
    run_json(capsys, repo, "session", "handoff", "--from", handoff_id)
    following = _next_start(repo)
    assert "Active Session Handoff" in (injected("claude-code", following.answer) or "")
    assert following.result.to_json()["handoffId"] == handoff_id
