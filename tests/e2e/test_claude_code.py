"""Claude Code 2.1.337 (``PINNED``), the real program from npm, driven headless (``claude -p``)
against a scripted Anthropic model on loopback (``fake_anthropic``), with
Baton's hooks and MCP server installed by ``baton install-hooks``.

Every assertion about what the agent was told is made on the request Claude
Code sent the model, never on Baton's own output; every assertion about what
the agent did is made on the project's ledger.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.common import (
    ProxyTrap,
    Recorded,
    git,
    git_project,
    harness_program,
    ledger_events,
    run_baton,
    run_harness,
)
from tests.e2e.fake_anthropic import FakeAnthropic, ToolUse, baton_tool, claude_argv, claude_env, said, tool_output

RUN_TIMEOUT = 300
"""A bound on one headless session (a quiet machine needs a few seconds; a busy one, far more)."""

ID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"

WORK = {
    "work": {"title": "Teach the zebra-42 parser dates", "objective": "Dates in the feed parse and the tests pass"},
    "summary": {"current_state": "The parser reads ISO dates; the feed's local format is next.",
                "completed": ["ISO date parsing"], "in_progress": ["The feed's local date format"]},
    "open_items": [{"description": "Parse the feed's local date format",
                    "suggested_action": "Add a format table to the parser",
                    "acceptance_check": "The feed fixture parses without errors"}],
}


@pytest.fixture
def claude() -> Path:
    return harness_program("claude-code")


@pytest.fixture
def model():
    with FakeAnthropic() as fake:
        yield fake


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return git_project(tmp_path / "project")


@pytest.fixture
def env(tmp_path: Path, model: FakeAnthropic, project: Path) -> dict[str, str]:
    environment = claude_env(tmp_path / "home", model)
    installed = run_baton(project, environment, "install-hooks", "--harness", "claude-code", "--events", "all")
    assert installed.returncode == 0, installed.stderr
    return environment




def session(claude: Path, project: Path, env: dict[str, str], model: FakeAnthropic, prompt: str,
            *options: str) -> dict[str, Any]:
    """One headless Claude Code session to its end (its hooks with it); its JSON result."""
    done = run_harness(claude_argv(claude, prompt, *options), project, env, timeout=RUN_TIMEOUT)
    assert done.returncode == 0, f"claude exited {done.returncode}\n{done.stderr[-4000:]}\n{done.stdout[-4000:]}"
    model.check()
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result.get("is_error") is False, result
    return result


def events(project: Path, env: dict[str, str], kind: str) -> list[dict[str, Any]]:
    return [e for e in ledger_events(project, env) if e.get("type") == kind]


def last_tool_result(recorded: Recorded) -> dict[str, Any]:
    """The JSON the last tool call answered with (a Baton MCP tool's result)."""
    for message in reversed(recorded.json["messages"]):
        content = message.get("content")
        blocks = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"] \
            if isinstance(content, list) else []
        if blocks:
            block = blocks[-1]
            assert not block.get("is_error"), block
            return json.loads(tool_output(block))
    raise AssertionError("no tool result in the request")


def handoff_id_in(result: dict[str, Any]) -> str:
    """The handoff id a capture answered with."""
    found = re.findall(ID, json.dumps(result))
    assert found, result
    return result.get("handoff_id") or result.get("handoffId") or result.get("id") or found[0]


def capture_validate_ready(parent: Any = None, session_id: Any = None) -> list[Any]:
    """The agent's turns that capture ``WORK`` (continuing ``parent(request)``, or naming the
    session ``session_id(request)``, when given), validate it and make it ready, each using
    the id the previous call answered with."""
    captured: dict[str, str] = {}

    def capture(recorded: Recorded) -> ToolUse:
        extra = {"parent": parent(recorded)} if parent else {}
        if session_id:
            extra["session_id"] = session_id(recorded)
        return baton_tool("handoff_capture", **WORK, **extra)

    def validate(recorded: Recorded) -> ToolUse:
        captured["id"] = handoff_id_in(last_tool_result(recorded))
        return baton_tool("handoff_validate", id=captured["id"])

    def ready(recorded: Recorded) -> ToolUse:
        last_tool_result(recorded)
        return baton_tool("handoff_ready", id=captured["id"], accept_warnings="e2e: the scripted work is the work")

    def done(recorded: Recorded) -> str:
        last_tool_result(recorded)
        return "Handed off."

    return [capture, validate, ready, done]


def draft_named_in(recorded: Recorded) -> str:
    """The draft Baton's prompt hook told the agent about (``handoff_capture`` with `parent` ID)."""
    found = re.findall(rf"`parent` ({ID})", said(recorded))
    assert found, "Baton's notice naming the draft is not in the request"
    return found[-1]


def hand_off_through_the_prepared_draft(claude, project, env, model) -> tuple[str, str]:
    """A session whose person asks for a handoff: Baton prepares a draft, the agent
    continues it over MCP, validates it and makes it ready. (draft, the agent's handoff)"""
    model.script = capture_validate_ready(parent=draft_named_in)
    session(claude, project, env, model, "handoff")
    captured = events(project, env, "handoff.captured")
    assert len(captured) == 2, [e.get("data") for e in captured]  # Baton's draft, then the agent's
    return subject(captured[0]), subject(captured[1])


def subject(event: dict[str, Any]) -> str:
    """The handoff an event is about: a baton's ``handoff_id``, else its ``handoff/<id>`` stream."""
    return event["data"].get("handoff_id") or event["stream"].split("/", 1)[1]


# -- the scenarios ---------------------------------------------------------------------------------

def test_a_session_run_by_user_level_hooks_in_claude_config_dir_names_that_file_in_a_folder_without_baton(
        claude, project, model, tmp_path):
    """``CLAUDE_CONFIG_DIR`` set elsewhere than ``~/.claude``: ``install-hooks --user-level`` writes Claude
    Code's user settings there, Claude Code runs those hooks in a folder never initialised for Baton, and
    the start tells the agent which file they came from."""
    config = tmp_path / "claude-config"
    environment = claude_env(tmp_path / "home", model, CLAUDE_CONFIG_DIR=str(config))
    installed = run_baton(tmp_path / "home", environment, "install-hooks", "--harness", "claude-code",
                          "--user-level")
    assert installed.returncode == 0, installed.stderr
    settings = config / "settings.json"
    assert f"created {settings}" in installed.stdout and not (tmp_path / "home" / ".claude").exists()
    model.script = ["Hello."]

    session(claude, project, environment, model, "hello")

    told = said(model.turns()[0])
    assert f"Baton's hooks in your user-level claude-code configuration (`{settings}`, read in every folder)" in told
    assert not (project / ".baton").exists()


def test_a_session_with_baton_sends_nothing_past_loopback(claude, project, env, model):
    trap = ProxyTrap()
    try:
        trapped = {**env, **{name: trap.url for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy",
                                                          "http_proxy", "all_proxy")}}
        model.script = capture_validate_ready(parent=draft_named_in)
        session(claude, project, trapped, model, "handoff")
    finally:
        trap.close()
    assert events(project, env, "baton.created")  # the session did its work
    assert trap.seen == []


def test_the_brief_is_in_the_models_first_request(claude, project, env, model):
    left = run_baton(project, env, "session", "end", "earlier-session",
                     "--handoff-steps", "Wire the zebra-42 parser into the CLI")
    assert left.returncode == 0, left.stderr
    model.script = ["Hello."]
    session(claude, project, env, model, "hello")
    first = model.turns()[0]
    assert "SessionStart hook additional context: ## 🤝 Active Session Handoff" in said(first)
    assert "Wire the zebra-42 parser into the CLI" in said(first)


def test_batons_mcp_tools_are_offered_from_the_first_request(claude, project, env, model):
    model.script = ["Hello."]
    session(claude, project, env, model, "hello")
    offered = {t["name"] for t in model.turns()[0].json["tools"]}
    assert {"mcp__baton__handoff_capture", "mcp__baton__handoff_validate", "mcp__baton__handoff_ready",
            "mcp__baton__baton_status"} <= offered


def test_the_agents_mcp_calls_land_in_the_ledger(claude, project, env, model):
    def status_then_capture(recorded: Recorded) -> ToolUse:
        assert Path(last_tool_result(recorded)["root"]).resolve() == project.resolve()
        return baton_tool("handoff_capture", **WORK)

    model.script = [baton_tool("baton_status"), *capture_validate_ready()]
    model.script[1] = status_then_capture
    session(claude, project, env, model, "Record where the zebra-42 work stands.")
    (captured,) = events(project, env, "handoff.captured")
    handoff = subject(captured)
    assert [subject(e) for e in events(project, env, "handoff.validated")] == [handoff]
    assert [subject(e) for e in events(project, env, "handoff.promoted")] == [handoff]
    shown = json.loads(run_baton(project, env, "handoff", "show", handoff, "--json").stdout)["handoff"]
    assert shown["work"]["title"] == WORK["work"]["title"] and shown["status"] == "ready"


def test_the_session_end_leaves_a_baton_for_the_draft_baton_prepared(claude, project, env, model):
    draft, handoff = hand_off_through_the_prepared_draft(claude, project, env, model)
    (created,) = events(project, env, "baton.created")
    assert subject(created) == handoff
    shown = json.loads(run_baton(project, env, "handoff", "show", handoff, "--json").stdout)["handoff"]
    assert shown["lineage"]["parents"] == [draft]


def session_named_in(recorded: Recorded) -> str:
    """The session id the brief gave the agent for Baton's MCP tools."""
    found = re.findall(r'`"session_id": "([^"]+)"`', said(recorded))
    assert found, "the brief names no session id for the MCP tools"
    return found[0]


def test_the_session_end_leaves_a_baton_for_a_handoff_the_agent_captured_over_mcp(claude, project, env, model):
    model.script = capture_validate_ready(session_id=session_named_in)
    sid = session(claude, project, env, model, "Record where the zebra-42 work stands.")["session_id"]
    (captured,) = events(project, env, "handoff.captured")
    (created,) = events(project, env, "baton.created")
    assert subject(created) == subject(captured) and created["data"]["session"] == sid


def test_the_next_session_receives_the_baton_once_and_the_one_after_does_not(claude, project, env, model):
    _, handoff = hand_off_through_the_prepared_draft(claude, project, env, model)
    delivered = f"(baton `{handoff}`)"
    model.script = ["On it."]
    asked = len(model.turns())
    second = session(claude, project, env, model, "hello")["session_id"]
    told = said(model.turns()[asked])
    assert "SessionStart hook additional context: ## 🤝 Active Session Handoff" in told and delivered in told
    assert WORK["work"]["objective"] in told
    model.script = ["Hello."]
    asked = len(model.turns())
    session(claude, project, env, model, "hello")
    told = said(model.turns()[asked])
    assert "SessionStart hook additional context: " in told  # a brief, and no baton in it
    assert "Active Session Handoff" not in told and delivered not in told
    assert [(subject(e), e["data"]["session"]) for e in events(project, env, "baton.claimed")] == [(handoff, second)]


def test_a_forked_session_receives_the_baton_once_under_its_own_id(claude, project, env, model):
    """``--resume ID --fork-session``: a new session, with an id of its own, that goes on from
    an earlier conversation. It starts with source ``fork`` (since 2.1.214), so the baton
    left after that conversation is delivered to it and claimed by it, once."""
    model.script = ["Hello."]
    earlier = session(claude, project, env, model, "hello")["session_id"]
    _, handoff = hand_off_through_the_prepared_draft(claude, project, env, model)
    model.script = ["On it."]
    asked = len(model.turns())
    forked = session(claude, project, env, model, "go on", "--resume", earlier, "--fork-session")["session_id"]
    assert forked != earlier
    told = said(model.turns()[asked])
    assert "SessionStart hook additional context: ## 🤝 Active Session Handoff" in told
    assert f"(baton `{handoff}`)" in told
    assert [(subject(e), e["data"]["session"]) for e in events(project, env, "baton.claimed")] == [(handoff, forked)]


def test_a_second_fork_of_one_session_is_told_who_claimed_the_baton_and_nothing_is_claimed_twice(
        claude, project, env, model):
    """Two ``--fork-session`` sessions of one conversation: the first receives the baton left after
    it and claims it; the second receives no baton, and its brief says which session claimed it,
    when, and how to read it (``baton resume ID``), instead of "no active session handoff yet".
    The baton is claimed once."""
    model.script = ["Hello."]
    earlier = session(claude, project, env, model, "hello")["session_id"]
    _, handoff = hand_off_through_the_prepared_draft(claude, project, env, model)
    model.script = ["On it."]
    asked = len(model.turns())
    first = session(claude, project, env, model, "go on", "--resume", earlier, "--fork-session")["session_id"]
    assert "SessionStart hook additional context: ## 🤝 Active Session Handoff" in said(model.turns()[asked])
    model.script = ["On it too."]
    asked = len(model.turns())
    second = session(claude, project, env, model, "go on", "--resume", earlier, "--fork-session")["session_id"]
    assert len({earlier, first, second}) == 3
    # A fork's request carries the conversation it was forked from (the earlier session's brief with
    # it): the second fork's own brief is the last SessionStart context in it.
    told = said(model.turns()[asked]).rsplit("SessionStart hook additional context: ", 1)[1]
    told = told.split("</system-reminder>", 1)[0]
    assert f"This is claude-code session `{second}`" in told
    assert "Active Session Handoff" not in told and "No session handoff waits" not in told
    assert f"(baton {handoff}) was already claimed by session {first} at " in told
    assert f"`baton resume {handoff}`" in told
    assert [(subject(e), e["data"]["session"]) for e in events(project, env, "baton.claimed")] == [(handoff, first)]


def test_a_draft_baton_prepares_lists_the_work_and_not_claude_codes_files(claude, project, env, model):
    (project / "parser.py").write_text("def parse(text):\n    return text\n")
    model.script = ["I will complete the draft."]
    session(claude, project, env, model, "handoff")
    (captured,) = events(project, env, "handoff.captured")
    shown = json.loads(run_baton(project, env, "handoff", "show", subject(captured), "--json").stdout)
    assert [a["path"] for a in shown["handoff"]["artifacts"]] == ["parser.py"]


def test_after_compact_the_model_is_pointed_at_the_draft_saved_before_it(claude, project, env, model):
    # Enough of a conversation for Claude Code to compact it.
    model.script = [baton_tool("baton_status"), baton_tool("handoff_list"), baton_tool("baton_status"), "Hello."]
    sid = session(claude, project, env, model, "Look at the project's handoffs.")["session_id"]
    session(claude, project, env, model, "/compact", "--resume", sid)
    drafts = [e for e in events(project, env, "handoff.captured")]
    assert len(drafts) == 1
    draft = subject(drafts[0])
    model.script = ["Continuing."]
    asked = len(model.turns())
    session(claude, project, env, model, "go on", "--resume", sid)
    after = said(model.turns()[asked])
    assert "Baton saved this session's work before the compaction" in after
    assert draft in after


def test_a_session_end_hook_slower_than_claude_codes_default_still_hands_the_baton_on(
        claude, project, env, model, tmp_path):
    """Without a ``timeout`` Claude Code gives all SessionEnd hooks together 1.5 s and
    cancels the rest; ``install-hooks`` writes one, so a hand-on that takes longer (a busy
    machine; here a wrapper that waits 4 s first) still lands."""
    slow = tmp_path / "slow-baton"
    slow.write_text("#!/bin/sh\ncase \"$*\" in *SessionEnd*) sleep 4;; esac\n"
                    f"exec '{Path(env['PATH'].split(':')[0]) / 'baton'}' \"$@\"\n")
    slow.chmod(0o755)
    installed = run_baton(project, env, "install-hooks", "--harness", "claude-code", "--command", str(slow),
                          "--events", "all")
    assert installed.returncode == 0, installed.stderr
    _, handoff = hand_off_through_the_prepared_draft(claude, project, env, model)
    assert [subject(e) for e in events(project, env, "baton.created")] == [handoff]


def test_without_the_prompt_hook_no_hook_runs_on_a_handoff_request_and_the_agents_handoff_is_still_handed_on(
        claude, project, env, model):
    """``install-hooks --events start,end,compact`` (the prompt hook left out): Claude Code runs no Baton
    hook on a prompt (no draft, no notice), and a handoff the agent captures over MCP is still handed on
    at the session's end. (The fixture wired ``--events all``; this install takes the prompt hook out.)"""
    wired = run_baton(project, env, "install-hooks", "--harness", "claude-code", "--events", "start,end,compact")
    assert wired.returncode == 0, wired.stderr
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert "UserPromptSubmit" not in settings["hooks"]
    model.script = capture_validate_ready(session_id=session_named_in)
    session(claude, project, env, model, "handoff")
    assert "Baton prepared a draft" not in said(model.turns()[0])
    (captured,) = events(project, env, "handoff.captured")  # the agent's own, no draft of Baton's
    (created,) = events(project, env, "baton.created")
    assert subject(created) == subject(captured)
    assert not events(project, env, "detector.recommended")


def test_a_session_that_switches_branch_before_it_hands_off_leaves_its_baton_for_that_branch(
        claude, project, env, model):
    """The agent's first action is ``git checkout -b feature-y``; it then captures over MCP naming
    no session, validates and readies. The end hands it on keyed to ``feature-y`` (the branch it was
    captured on): the next session there starts with it (docs/batons.md, "Which branch a baton is for")."""
    switch = ToolUse("Bash", {"command": "git checkout -q -b feature-y", "description": "Switch branch"})
    model.script = [switch, *capture_validate_ready()]
    session(claude, project, env, model, "Start the zebra-42 work on a feature branch.")
    (captured,) = events(project, env, "handoff.captured")
    (created,) = events(project, env, "baton.created")
    assert subject(created) == subject(captured) and created["data"]["branch"] == "feature-y"
    model.script = ["On it."]
    asked = len(model.turns())
    session(claude, project, env, model, "hello")  # still on feature-y
    told = said(model.turns()[asked])
    assert "SessionStart hook additional context: ## 🤝 Active Session Handoff" in told
    assert f"(baton `{subject(captured)}`)" in told


def test_started_in_a_subfolder_it_runs_no_hook_and_batons_first_answer_says_so(claude, project, env, model):
    """Claude Code 2.1.337 started in a subfolder of a project wired at its root runs none of the
    project's hooks (no session begins) yet finds ``.mcp.json``: Baton's first tool answer tells
    the agent why, once (docs/hooks.md, "Start Claude Code at the project root")."""
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    answers: list[str] = []

    def read_answer(recorded: Recorded) -> Any:
        for message in reversed(recorded.json["messages"]):
            content = message.get("content")
            blocks = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"] \
                if isinstance(content, list) else []
            if blocks:
                answers.append(tool_output(blocks[-1]))
                break
        return baton_tool("handoff_list") if len(answers) == 1 else "Done."

    model.script = [baton_tool("baton_status"), read_answer, read_answer]
    session(claude, sub, env, model, "What does Baton say?")
    assert not events(project, env, "session.begun")  # no start hook ran
    first, second = answers
    assert "Baton's SessionStart hook did not run for this session" in first and "src/deep" in first
    assert "did not run" not in second


def test_after_a_session_is_killed_without_its_end_the_next_one_takes_it_over_at_once_and_receives_its_handoff(
        claude, project, env, model):
    """The harness's process group gets SIGKILL right after the agent readied a handoff
    (harness14 F4): no SessionEnd runs, no baton is left. The session's start recorded the
    Claude Code process it ran in (alive19): the next session, on the same machine, finds it
    gone, ends that session as its end would have, and receives the handoff as its baton at
    once, its brief saying why ("its harness process is gone")."""
    import os
    import signal
    import subprocess
    import threading

    asked, released = threading.Event(), threading.Event()

    def stall(recorded: Recorded) -> str:
        asked.set()  # the ready call's result is in this request: the handoff is ready
        released.wait(RUN_TIMEOUT)
        return "Too late."

    model.script = capture_validate_ready()[:3] + [stall]
    harness = subprocess.Popen(claude_argv(claude, "Record where the zebra-42 work stands."), cwd=project, env=env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    try:
        assert asked.wait(RUN_TIMEOUT), "the agent never readied its handoff"
    finally:
        os.killpg(harness.pid, signal.SIGKILL)
        harness.wait(60)
        released.set()
    (begun,) = events(project, env, "session.begun")
    assert begun["data"]["harness_process"]["pid"] == harness.pid  # Claude Code's own process, not the hook's shell
    (captured,) = events(project, env, "handoff.captured")
    handoff = subject(captured)
    assert events(project, env, "handoff.promoted") and not events(project, env, "session.ended")
    model.script = ["On it."]
    asked_at = len(model.turns())
    session(claude, project, env, model, "hello")
    told = said(model.turns()[asked_at])
    assert re.search(rf"Session `{ID}` \(claude-code, begun [^)]*\) never reported its end \(its harness process "
                     rf"is gone\) after it readied handoff `{handoff}`", told), told
    assert [subject(e) for e in events(project, env, "baton.created")] == [handoff]
    assert [subject(e) for e in events(project, env, "baton.claimed")] == [handoff]
    assert [e["data"]["session"] for e in events(project, env, "session.ended")][:1] == [begun["data"]["session"]]


def test_a_baton_left_on_a_detached_head_reaches_the_next_detached_session_and_a_branch_at_its_commit_is_told(
        claude, project, env, model):
    """On a plain detached HEAD the agent captures, validates and readies over MCP; the end hands it on
    for ``(detached)`` (harness16). A session started on a branch at that commit is told once that
    it waits, with the command that claims it, and gets no handoff; the next session started on a
    detached HEAD receives it."""
    import subprocess

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=project, check=True, capture_output=True, text=True).stdout

    git("checkout", "-q", "--detach")
    model.script = capture_validate_ready()
    session(claude, project, env, model, "Record where the zebra-42 work stands.")
    (captured,) = events(project, env, "handoff.captured")
    (created,) = events(project, env, "baton.created")
    assert subject(created) == subject(captured) and created["data"]["branch"] == "(detached)"
    tip = git("rev-parse", "HEAD").strip()

    git("switch", "-q", "-c", "rescued")
    model.script = ["On it."]
    asked = len(model.turns())
    session(claude, project, env, model, "hello")
    told = said(model.turns()[asked])
    assert "## 🤝 Active Session Handoff" not in told
    assert (f"A baton this clone left for {created['data']['owner']} on a detached HEAD at commit {tip[:12]}, the "
            f"tip of rescued (baton {subject(created)}, ") in told
    assert "`baton session begin` with (detached) as its branch claims it here" in told

    git("checkout", "-q", "--detach")
    model.script = ["On it."]
    asked = len(model.turns())
    session(claude, project, env, model, "hello")
    told = said(model.turns()[asked])
    assert "SessionStart hook additional context: ## 🤝 Active Session Handoff" in told
    assert f"(baton `{subject(created)}`)" in told
    assert [e["data"]["handoff_id"] for e in events(project, env, "baton.claimed")] == [subject(created)]


def test_disable_all_hooks_in_the_local_settings_runs_none_of_batons_hooks(claude, project, env, model):
    """Claude Code 2.1.337's ``"disableAllHooks": true`` (here in ``.claude/settings.local.json``)
    runs no hook at all: no session begins, no brief reaches the model — what ``install-hooks``
    and ``baton doctor`` warn of (docs/hooks.md, "Claude Code's off switch")."""
    left = run_baton(project, env, "session", "end", "earlier-session", "--handoff-steps", "Wire the quokka-7 parser")
    assert left.returncode == 0, left.stderr
    local = project / ".claude" / "settings.local.json"
    local.write_text(json.dumps({**json.loads(local.read_text()), "disableAllHooks": True}))
    model.script = ["Hello."]
    session(claude, project, env, model, "hello")
    assert "quokka-7" not in said(model.turns()[0])
    assert not events(project, env, "session.begun")
    doctor = run_baton(project, env, "doctor")
    assert "disableAllHooks" in doctor.stdout


def test_a_session_whose_agent_cd_s_into_a_submodule_leaves_its_baton_in_the_project_it_began_in(
        claude, project, env, model, tmp_path):
    """The agent's first action is ``cd lib`` — a submodule, its own git repository — and Claude
    Code's Bash tool keeps that folder, so the end hook's payload ``cwd`` is ``lib``. The end is
    served by the project ``$CLAUDE_PROJECT_DIR`` names (docs/hooks.md, "Which project a hook
    serves"): the readied handoff is handed on there, and nothing is made in the submodule."""
    origin = git_project(tmp_path / "origin")
    git(project, "-c", "protocol.file.allow=always", "submodule", "add", "-q", origin.as_uri(), "lib")
    git(project, "commit", "-q", "-m", "submodule")
    into = ToolUse("Bash", {"command": "cd lib && git log --oneline -1", "description": "Look at the submodule"})
    model.script = [into, *capture_validate_ready()]
    session(claude, project, env, model, "Look at lib, then hand the zebra-42 work off.")
    (captured,) = events(project, env, "handoff.captured")
    assert len(events(project, env, "session.ended")) == 1  # the end was recorded here, not refused
    (created,) = events(project, env, "baton.created")
    assert subject(created) == subject(captured)
    assert not (project / "lib" / ".baton").exists()
