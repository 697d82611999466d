"""The harnesses as people run them: each one's interactive TUI in a real pseudo-terminal.

The rest of the suite runs the harnesses headless (``claude -p``, ``codex exec``,
``gemini -p``). Here each runs as a person starts it, in a terminal
(``tests/e2e/terminal.py``: a pty of 120 x 40), in a scratch HOME whose
first-run settings skip the screens a new user meets once (onboarding, the
project's trust, the API key's approval), with Baton wired by ``baton
install-hooks`` and the harness pointed at its scripted model on 127.0.0.1.

One scenario per harness, in a git project where an earlier session left a
baton: start the TUI, wait for its prompt, type one prompt (the agent records
its work over Baton's MCP tools and makes it ready), wait for the model's reply
on the screen, and leave as a person does. Then: the brief of ``SessionStart``
reached the model (in the request the harness sent), the session's end left
its baton (the ledger), and nothing on the screen, then or at any moment
before (the terminal's transcript), is a hook's error or a traceback.

Beside those, what a person does next in each TUI: a fresh conversation inside
it (``/clear`` in Claude Code: the cleared conversation's baton goes to the new
one; ``/new`` in Codex, the same; ``/clear`` in Gemini CLI, whose start context
reaches no model: the baton waits for the next start), later prompts in one
Codex session (each turn's ``Stop``: one end, nothing claimed twice), leaving
with Ctrl-C, and resuming the conversation (``claude --continue``, ``codex
resume --last``, ``gemini --resume latest``: a repeated start, claiming
nothing). Then a hook that fails (it shows, and the screen check sees it),
and one project across the three (Claude Code leaves a baton, Codex receives
it once, Gemini CLI after it does not).

And what happens in the middle of things: Ctrl-C while a turn runs (the
scripted model holds its answer open, ``common.Held``, until the test has
pressed it: the turn is cancelled, the session goes on, its end is recorded
once), a terminal closed under each harness (``Terminal.hang_up``: its end
hook runs, or the next start's rule for a session that never ended holds),
``claude --resume ID`` and ``--fork-session``, and Codex's own ``/clear``,
``/resume`` and ``/fork``; two terminals on one branch at once (a second harness
started while the first (Claude Code, Gemini CLI, Codex in a turn) runs is told
of its live session and claims nothing;
the start after the first exits claims its baton once); Claude Code's ``--resume``
picker and its in-TUI ``/resume``, Gemini CLI's in-TUI ``/resume`` and ``/chat resume``; a terminal
closed during a running turn in Claude Code and Gemini CLI; Codex's "Run in
background" and "Exit" answers when leaving during a turn, and Esc in a Codex turn (and in
the first turn of a session given a baton: spent once);
a second terminal started during a *later* Codex turn; and ``/compact`` in Claude
Code and in Codex after the session received a baton.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from baton.model import frozen
from tests.background_support import kept_hooks
from tests.e2e.common import BATON_BIN, Held, ProxyTrap, git_project, harness_program, ledger_events, run_baton
from tests.e2e.fake_anthropic import FakeAnthropic, baton_tool, claude_env, said
from tests.e2e.fake_gemini import FakeGemini, call, hook_contexts, tool_result, user_text
from tests.e2e.fake_openai import Call, FakeResponses, function_outputs
from tests.e2e.terminal import Terminal
from tests.e2e.test_claude_code import capture_validate_ready, draft_named_in, session_named_in, subject
from tests.e2e.test_codex import MCP, CodexProject, _capture_body, captured_validated_ready, developer_texts, result_of
from tests.e2e.test_gemini_cli import HANDOFF, RESULT_ID, Session
from tests.harness_support import lock_held_elsewhere

pytestmark = pytest.mark.e2e

EARLIER_STEP = "Wire the zebra-42 parser into the CLI"
"""The next step an earlier session's baton carries: the brief of the next session start shows it."""

FAILURE_SIGNS = ("hook error", "blocking error", "Traceback (most recent call last)", "hook failed",
                 "Hook failed", "non-blocking status", "hook exited with code", "hook exited without",
                 "hook returned invalid")
"""What a hook that broke shows in a harness's TUI (a harness's own wording, and Python's)."""


def interactive(env: dict[str, str]) -> dict[str, str]:
    """A harness's environment for its TUI: a colour terminal, and not in CI (Ink, the TUI
    library of Claude Code and Gemini CLI, draws only the last frame when it sees ``CI``)."""
    return {**{k: v for k, v in env.items() if k not in ("CI", "NO_COLOR")}, "TERM": "xterm-256color"}


def no_hook_trouble_shown(terminal: Terminal) -> None:
    shown = terminal.transcript() + "\n" + terminal.screen()
    found = [sign for sign in FAILURE_SIGNS if sign in shown]
    assert not found, f"the TUI showed {found}; the screen:\n{terminal.screen()}"


def started(terminal: Terminal, ready: str, why: str) -> Terminal:
    """``terminal`` once its program shows ``ready`` (its prompt); if it never does, the program
    is ended (its process group killed) before the test fails: no process outlives a test."""
    try:
        terminal.wait_for(ready, why=why)
    except BaseException:
        terminal.__exit__(None, None, None)
        raise
    return terminal


def events(project: Path, env: dict[str, str], kind: str) -> list[dict[str, Any]]:
    return [e for e in ledger_events(project, env) if e.get("type") == kind]


def wait_for_event(project: Path, env: dict[str, str], kind: str, count: int = 1,
                   timeout: float = 120) -> list[dict[str, Any]]:
    """The ledger's ``kind`` events once there are ``count`` of them (a hook that runs after the
    reply shows, as Codex's ``Stop``, may still be writing); past ``timeout`` the test fails."""
    deadline = time.monotonic() + timeout
    while len(found := events(project, env, kind)) < count:
        recorded = [e["type"] for e in ledger_events(project, env)]
        assert time.monotonic() < deadline, f"{count} {kind} never recorded: {recorded}"
        time.sleep(0.5)
    return found


def an_earlier_baton(project: Path, env: dict[str, str]) -> None:
    left = run_baton(project, env, "session", "end", "earlier-session", "--handoff-steps", EARLIER_STEP)
    assert left.returncode == 0, left.stderr


# -- Claude Code -----------------------------------------------------------------------------------

WRAP_UP = "Wrap up the parser work for the next session."
"""The prompt of a Codex turn in which the agent readies its handoff (``codex_hands_off``)."""

CLAUDE_READY = "? for shortcuts"
"""Claude Code's prompt line when it waits for the person to type."""


def claude_home(env: dict[str, str], project: Path) -> None:
    """``~/.claude.json`` as after the first run: onboarding done, the API key of the environment
    approved (Claude Code keeps its last 20 characters), the project's folder trusted; and
    ``~/.claude/settings.json`` allowing Baton's MCP tools, as a person does once."""
    home = Path(env["HOME"])
    (home / ".claude.json").write_text(json.dumps({
        "hasCompletedOnboarding": True,
        "customApiKeyResponses": {"approved": [env["ANTHROPIC_API_KEY"].strip()[-20:]], "rejected": []},
        "projects": {str(project): {"hasTrustDialogAccepted": True}},
    }))
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["mcp__baton"]}}))


@pytest.fixture
def anthropic():
    with FakeAnthropic() as fake:
        yield fake


def claude_ready(tmp_path: Path, model: FakeAnthropic, project: Path) -> dict[str, str]:
    """Claude Code's environment for its TUI, Baton installed in ``project`` for it."""
    env = interactive(claude_env(tmp_path / "claude-home", model))
    installed = run_baton(project, env, "install-hooks", "--harness", "claude-code", "--events", "all")
    assert installed.returncode == 0, installed.stderr
    claude_home(env, project)
    return env


def claude_prompt(claude: Terminal, prompt: str, reply: str) -> None:
    """At Claude Code's prompt: type ``prompt``, send it, wait for ``reply`` and the prompt after it."""
    claude.wait_for(CLAUDE_READY, why="Claude Code's prompt", now=True)
    claude.type(prompt)
    claude.type("\r")
    claude.wait_for(reply, why="the model's reply")
    claude.wait_for(CLAUDE_READY, why="Claude Code's prompt after the reply", now=True)


def claude_exit(claude: Terminal) -> None:
    """``/exit`` at Claude Code's prompt, and its process ends with status 0."""
    claude.wait_for(CLAUDE_READY, why="Claude Code's prompt", now=True)
    claude.type("/exit")
    claude.type("\r")
    assert claude.wait_until_ended() == 0, claude.screen()


def claude_tui(project: Path, env: dict[str, str], *arguments: str) -> Terminal:
    """Claude Code's TUI (``claude ARGUMENTS…``) in a terminal, once it shows its prompt."""
    return started(Terminal([str(harness_program("claude-code")), *arguments], project, env), CLAUDE_READY,
                   "Claude Code's prompt")


def claude_session(project: Path, env: dict[str, str], model: FakeAnthropic, prompt: str, reply: str) -> Terminal:
    """One interactive Claude Code session: start, one typed prompt, ``reply`` on the screen, ``/exit``."""
    with claude_tui(project, env) as claude:
        claude_prompt(claude, prompt, reply)
        claude_exit(claude)
    model.check()
    return claude


def test_an_interactive_claude_code_session_is_briefed_and_its_end_leaves_its_baton(tmp_path, anthropic):
    project = git_project(tmp_path / "project")
    env = claude_ready(tmp_path, anthropic, project)
    an_earlier_baton(project, env)
    anthropic.script = capture_validate_ready(session_id=session_named_in)
    claude = claude_session(project, env, anthropic, "Record where the zebra-42 work stands.", "Handed off.")
    first = said(anthropic.turns()[0])
    assert "SessionStart hook additional context: ## 🤝 Active Session Handoff" in first
    assert EARLIER_STEP in first
    (begun,) = events(project, env, "session.begun")
    sid = begun["stream"].split("/", 1)[1]
    (_, captured) = events(project, env, "handoff.captured")  # the earlier baton's, then the agent's
    (_, created) = events(project, env, "baton.created")
    assert subject(created) == subject(captured) and created["data"]["session"] == sid
    assert sid in [e["stream"].split("/", 1)[1] for e in events(project, env, "session.ended")]
    no_hook_trouble_shown(claude)




def test_after_clear_in_claude_code_the_fresh_conversation_is_given_the_baton_the_cleared_one_left(
        tmp_path, anthropic):
    """``/clear`` ends the conversation (``SessionEnd``: its ready handoff is left as its baton) and
    starts a new one under a new id (``SessionStart``, source ``clear``), which claims that baton:
    the next prompt's request carries it, once, and the new conversation's end leaves no other."""
    project = git_project(tmp_path / "project")
    env = claude_ready(tmp_path, anthropic, project)
    anthropic.script = [*capture_validate_ready(session_id=session_named_in), "Going on."]
    with claude_tui(project, env) as claude:
        claude_prompt(claude, "Record where the zebra-42 work stands.", "Handed off.")
        claude.type("/clear")
        claude.type("\r")
        (created,) = wait_for_event(project, env, "baton.created")
        wait_for_event(project, env, "session.begun", 2)
        asked = len(anthropic.turns())
        claude.type("go on")
        claude.type("\r")
        claude.wait_for("Going on.", why="the model's reply after /clear")
        claude.type("/exit")
        claude.type("\r")
        assert claude.wait_until_ended() == 0, claude.screen()
    anthropic.check()
    first, second = [e["stream"].split("/", 1)[1] for e in events(project, env, "session.begun")]
    assert created["data"]["session"] == first
    told = said(anthropic.turns()[asked])
    assert f"(baton `{subject(created)}`)" in told and f"This is claude-code session `{second}`" in told
    assert [(subject(e), e["data"]["session"]) for e in events(project, env, "baton.claimed")] \
        == [(subject(created), second)]
    assert len(events(project, env, "baton.created")) == 1
    assert [e["stream"].split("/", 1)[1] for e in events(project, env, "session.ended")] == [first, second]
    no_hook_trouble_shown(claude)

def test_leaving_interactive_claude_code_with_ctrl_c_twice_records_the_end_and_leaves_the_baton(
        tmp_path, anthropic):
    """Ctrl-C at Claude Code's empty prompt asks for another ("Press Ctrl-C again to exit"); the
    second leaves, running ``SessionEnd`` as ``/exit`` does: the handoff the agent readied is the
    session's baton and its end is recorded."""
    project = git_project(tmp_path / "project")
    env = claude_ready(tmp_path, anthropic, project)
    anthropic.script = capture_validate_ready(session_id=session_named_in)
    with claude_tui(project, env) as claude:
        claude_prompt(claude, "Record where the zebra-42 work stands.", "Handed off.")
        claude.type("\x03")
        claude.wait_for("again to exit", why="Claude Code's exit notice")
        claude.type("\x03")
        assert claude.wait_until_ended() == 0, claude.screen()
    (sid,) = sessions_of(project, env, "session.begun")
    (created,) = events(project, env, "baton.created")
    assert created["data"]["session"] == sid and sessions_of(project, env, "session.ended") == [sid]
    assert subject(created) == [e["stream"].split("/", 1)[1] for e in events(project, env, "handoff.promoted")][0]
    no_hook_trouble_shown(claude)


def test_a_resumed_claude_code_conversation_is_told_the_baton_it_left_and_claims_nothing(tmp_path, anthropic):
    """``claude --continue`` after a session that left a baton resumes that conversation under its
    id (``SessionStart`` source ``resume``): its next request is told, read-only, that this
    conversation left baton ID, waiting for the next session; nothing is claimed, and its second
    end leaves no second baton and records no second end."""
    project = git_project(tmp_path / "project")
    env = claude_ready(tmp_path, anthropic, project)
    anthropic.script = [*capture_validate_ready(session_id=session_named_in), "Resumed."]
    claude_session(project, env, anthropic, "Record where the zebra-42 work stands.", "Handed off.")
    (created,) = events(project, env, "baton.created")
    (sid,) = sessions_of(project, env, "session.begun")
    with claude_tui(project, env, "--continue") as claude:
        claude_prompt(claude, "go on", "Resumed.")
        claude_exit(claude)
    anthropic.check()
    told = said(anthropic.turns()[-1])
    assert f"This conversation left baton `{subject(created)}`" in told and f"This is claude-code session `{sid}`" in told
    assert sessions_of(project, env, "session.begun") == [sid]
    assert not events(project, env, "baton.claimed") and len(events(project, env, "baton.created")) == 1
    assert sessions_of(project, env, "session.ended") == [sid]
    no_hook_trouble_shown(claude)


def test_a_hook_that_fails_shows_on_claude_codes_screen_and_the_check_sees_it(tmp_path, anthropic):
    """The check on the screen is no formality: a prompt hook that fails (not Baton's: a
    command that writes to stderr and exits 1) shows in the TUI, and ``no_hook_trouble_shown``
    fails on it."""
    project = git_project(tmp_path / "project")
    env = claude_ready(tmp_path, anthropic, project)
    settings = project / ".claude" / "settings.json"
    wired = json.loads(settings.read_text())
    for entry in wired["hooks"]["UserPromptSubmit"]:
        for hook in entry["hooks"]:
            hook["command"] = "echo the-hook-broke >&2; exit 1"
    settings.write_text(json.dumps(wired))
    anthropic.script = ["Hello."]
    claude = claude_session(project, env, anthropic, "hello", "Hello.")
    assert "the-hook-broke" in claude.transcript()
    with pytest.raises(AssertionError, match="the TUI showed"):
        no_hook_trouble_shown(claude)

# -- Codex CLI -------------------------------------------------------------------------------------

CODEX_READY = "baton-e2e-model default · "
"""Codex's status line under its prompt, once it has loaded (the model, then the folder): it
takes what is typed before it into the prompt, but not the Enter that would send it."""


@pytest.fixture
def openai():
    with FakeResponses() as fake:
        yield fake


@pytest.fixture
def trap() -> Iterator[ProxyTrap]:
    caught = ProxyTrap()
    yield caught
    caught.close()


def codex_ready(root: Path, model: FakeResponses, trap: ProxyTrap) -> CodexProject:
    """Codex's user config (the fake model, the project trusted: ``CodexProject``), Baton installed
    in ``root/project`` and its hooks trusted as ``/hooks`` trusts them."""
    codex = CodexProject(root, model, trap)
    codex.install_baton()
    assert {h["trustStatus"] for h in codex.trust_baton_hooks()} == {"trusted"}
    codex.env = interactive(codex.env)
    return codex


def codex_daemon_stopped(codex: CodexProject) -> None:
    """Codex 0.171's TUI runs its sessions in a background server it starts (``codex app-server
    --managed-daemon``, in its own session, outliving the TUI: "Any running work continues"):
    stopped as ``codex app-server daemon stop`` stops it, and any process it left (its
    ``pid-update-loop``, run from under ``CODEX_HOME``) ended by its id."""
    subprocess.run([str(codex.program), "app-server", "daemon", "stop"], cwd=codex.project, env=codex.env,
                   capture_output=True, timeout=120)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            arguments = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if str(codex.codex_home).encode() in arguments and int(entry.name) != os.getpid():
            try:
                os.kill(int(entry.name), signal.SIGKILL)
            except ProcessLookupError:
                pass


def codex_session_named_in(recorded) -> str:
    """The session id the brief tells the agent to pass to Baton's MCP tools. (The TUI sends the
    brief inside the developer message that opens with Codex's own instructions, where ``codex
    exec`` sends it as a developer message of its own.)"""
    found = {m for t in developer_texts(recorded) for m in re.findall(r'Pass `"session_id": "([^"]+)"`', t)}
    assert len(found) == 1, developer_texts(recorded)
    return found.pop()


def codex_hands_off() -> list[Any]:
    """The agent's replies: capture its work over MCP naming the session its brief gave, validate
    it, make it ready, each with the id the capture answered."""
    return captured_validated_ready(
        lambda recorded: {**_capture_body(), "session_id": codex_session_named_in(recorded)})


def codex_session(codex: CodexProject, prompt: str, reply: str) -> Terminal:
    """One interactive Codex session: start, one typed prompt, ``reply`` on the screen, ``/exit``."""
    with codex_tui(codex) as terminal:
        codex_prompt(terminal, prompt, reply)
        codex_exit(terminal)
    return terminal


def test_an_interactive_codex_session_is_briefed_and_its_turns_end_leaves_its_baton(tmp_path, openai, trap):
    codex = codex_ready(tmp_path, openai, trap)
    try:
        an_earlier_baton(codex.project, codex.env)
        openai.script = codex_hands_off()
        terminal = codex_session(codex, "Wrap up the parser work for the next session.", "Handed off.")
        (created,) = [e for e in wait_for_event(codex.project, codex.env, "baton.created", 2)
                      if e["data"].get("session") != "earlier-session"]
    finally:
        codex_daemon_stopped(codex)
    brief = "\n".join(developer_texts(openai.turns()[0]))
    assert "## 🤝 Active Session Handoff" in brief and EARLIER_STEP in brief
    (begun,) = events(codex.project, codex.env, "session.begun")
    sid = begun["stream"].split("/", 1)[1]
    assert created["data"]["session"] == sid
    captured = result_of(openai.turns()[1], function_outputs(openai.turns()[1]).popitem()[0])["id"]
    assert subject(created) == captured
    assert sid in [e["stream"].split("/", 1)[1] for e in events(codex.project, codex.env, "session.ended")]
    no_hook_trouble_shown(terminal)



def codex_tui(codex: CodexProject, *arguments: str) -> Terminal:
    """Codex's TUI (``codex ARGUMENTS…``) in a terminal, once it shows its prompt."""
    return started(Terminal([str(codex.program), *arguments, "--dangerously-bypass-approvals-and-sandbox"],
                            codex.project, codex.env), CODEX_READY, "Codex's prompt")


def codex_prompt(terminal: Terminal, prompt: str, reply: str) -> None:
    """Type ``prompt``, send it, and wait until ``reply`` and the end of the turn show."""
    turns = terminal.screen().count("Worked for")
    terminal.type(prompt)
    terminal.wait_for(f"› {prompt}", why="the prompt typed", now=True)
    terminal.type("\r")
    terminal.wait_for(reply, why="the model's reply")
    wait_on_screen(terminal, lambda shown: shown.count("Worked for") > turns, "the end of Codex's turn")


def codex_turn_held(terminal: Terminal, held: Held) -> None:
    """Type the prompt that makes the agent ready its handoff ("Wrap up the parser work …"), send it,
    and wait until the model's answer after it is asked for (``held``: the turn runs on)."""
    terminal.type(WRAP_UP)
    terminal.wait_for(f"› {WRAP_UP}", why="the prompt typed", now=True)
    terminal.type("\r")
    held.wait_asked()


@contextmanager
def codex_turn_running(codex: CodexProject, openai: FakeResponses) -> Iterator[Terminal]:
    """Codex's TUI with a turn running: the agent readies its handoff, and the model's next answer
    is held open ("esc to interrupt" shows) while the block runs; then that answer is let go and
    the Codex daemon stopped, whatever the block did."""
    held = Held()
    try:
        openai.script = [*codex_hands_off()[:-1], held, "Going on."]
        with codex_tui(codex) as terminal:
            codex_turn_held(terminal, held)
            terminal.wait_for("esc to interrupt", why="Codex's running turn", now=True)
            yield terminal
    finally:
        held.release()
        codex_daemon_stopped(codex)


def wait_on_screen(terminal: Terminal, holds: Any, why: str, timeout: float = 180) -> None:
    """Poll the screen until ``holds(screen)``; past ``timeout`` the test fails, showing it."""
    deadline = time.monotonic() + timeout
    while not holds(terminal.screen()):
        if time.monotonic() > deadline:
            pytest.fail(f"{why} never showed; the screen:\n{terminal.screen()}")
        time.sleep(0.25)


def codex_exit(terminal: Terminal) -> None:
    terminal.type("/exit")
    # Enter before it is lost; on the screen now ("… and exit Codex" of the question after a Ctrl-C
    # in a turn went by in the transcript)
    terminal.wait_for("exit Codex", why="/exit in Codex's command menu", now=True)
    terminal.type("\r")
    assert terminal.wait_until_ended() == 0, terminal.screen()


def sessions_of(project: Path, env: dict[str, str], kind: str) -> list[str]:
    """The session of each ``kind`` event (``session.begun``, ``session.ended``), in order."""
    return [e["stream"].split("/", 1)[1] for e in events(project, env, kind)]


def codex_hands_off_again() -> list[Any]:
    """A later turn's replies in the same conversation: capture more work naming the session,
    validate it and make it ready (the newest tool output is the capture's answer)."""
    captured: dict[str, str] = {}

    def capture(recorded):
        body = {**_capture_body(), "session_id": codex_session_named_in(recorded)}
        body["summary"] = {**body["summary"], "current_state": "Expressions recover too; docs remain."}
        return Call("handoff_capture", body, MCP)

    def validate(recorded):
        newest = list(function_outputs(recorded))[-1]
        captured["id"] = result_of(recorded, newest)["id"]
        return Call("handoff_validate", {"id": captured["id"]}, MCP)

    def ready(recorded):
        return Call("handoff_ready", {"id": captured["id"], "accept_warnings": "a scripted end-to-end session"},
                    MCP)

    return [capture, validate, ready, "Handed off again."]


def test_a_later_prompt_in_an_interactive_codex_session_records_no_second_end_and_claims_nothing_again(
        tmp_path, openai, trap):
    """Codex runs ``Stop`` after every turn: the first turn's records the session's end and leaves its
    baton; a second turn that readies nothing adds nothing (no second end, no second baton, no second
    claim, no second brief); a third that readies more work has it handed on by its ``Stop``
    (``baton.created`` naming the session), still with no second end."""
    codex = codex_ready(tmp_path, openai, trap)
    try:
        an_earlier_baton(codex.project, codex.env)
        openai.script = [*codex_hands_off(), "Second done.", *codex_hands_off_again()]
        with codex_tui(codex) as terminal:
            codex_prompt(terminal, "Wrap up the parser work for the next session.", "Handed off.")
            wait_for_event(codex.project, codex.env, "baton.created", 2)
            codex_prompt(terminal, "Anything else?", "Second done.")
            codex_prompt(terminal, "Hand off the expression work too.", "Handed off again.")
            wait_for_event(codex.project, codex.env, "baton.created", 3)
            codex_exit(terminal)
    finally:
        codex_daemon_stopped(codex)
    (sid,) = [s for s in sessions_of(codex.project, codex.env, "session.begun")]
    created = [e for e in events(codex.project, codex.env, "baton.created") if e["data"]["session"] == sid]
    readied = [e["stream"].split("/", 1)[1] for e in events(codex.project, codex.env, "handoff.promoted")]
    assert [subject(e) for e in created] == readied and len(readied) == 2
    assert sessions_of(codex.project, codex.env, "session.ended") == ["earlier-session", sid]
    assert [e["data"]["session"] for e in events(codex.project, codex.env, "baton.claimed")] == [sid]
    briefed = [t for r in openai.turns() for t in developer_texts(r) if "Active Session Handoff" in t]
    assert len(set(briefed)) == 1 and EARLIER_STEP in briefed[0]
    no_hook_trouble_shown(terminal)


def test_after_new_in_codex_the_fresh_conversation_is_given_the_baton_the_old_one_left_once(
        tmp_path, openai, trap):
    """``/new`` ("start a new chat during a conversation"; Codex 0.171 first asks where it runs:
    the current worktree) starts a thread under a new id: its first prompt's ``SessionStart``
    claims the baton the old conversation's ``Stop`` left, so that request carries it, once, with
    the new session's id; the new conversation's end leaves no other baton."""
    def new_chat(terminal: Terminal) -> None:
        terminal.type("/new")
        terminal.wait_for("start a new chat during a conversation", why="/new in Codex's command menu")
        terminal.type("\r")
        terminal.wait_for("Where should the new conversation run?", why="Codex's worktree question")
        terminal.type("\r")  # 1. Use current Git worktree
        wait_on_screen(terminal, lambda shown: "Where should" not in shown and "› Wrap up" not in shown
                       and CODEX_READY in shown, "the new conversation's prompt")

    _a_fresh_codex_conversation_claims_the_baton_once(tmp_path, openai, trap, new_chat)


def _a_fresh_codex_conversation_claims_the_baton_once(tmp_path, openai, trap, fresh) -> None:
    """A conversation readies a handoff, ``fresh(terminal)`` starts a new one in the same TUI: its
    first request carries the baton under the new session's id, claimed once, and no second
    baton is left."""
    codex = codex_ready(tmp_path, openai, trap)
    try:
        openai.script = [*codex_hands_off(), "Going on."]
        with codex_tui(codex) as terminal:
            codex_prompt(terminal, "Wrap up the parser work for the next session.", "Handed off.")
            (created,) = wait_for_event(codex.project, codex.env, "baton.created")
            fresh(terminal)
            asked = len(openai.turns())
            codex_prompt(terminal, "go on", "Going on.")
            wait_for_event(codex.project, codex.env, "session.ended", 2)
            codex_exit(terminal)
    finally:
        codex_daemon_stopped(codex)
    first, second = sessions_of(codex.project, codex.env, "session.begun")
    assert created["data"]["session"] == first
    told = "\n".join(developer_texts(openai.turns()[asked]))
    assert f"(baton `{subject(created)}`)" in told and f"This is codex session `{second}`" in told
    assert [(subject(e), e["data"]["session"]) for e in events(codex.project, codex.env, "baton.claimed")] \
        == [(subject(created), second)]
    assert len(events(codex.project, codex.env, "baton.created")) == 1
    assert sessions_of(codex.project, codex.env, "session.ended") == [first, second]
    no_hook_trouble_shown(terminal)


def test_leaving_interactive_codex_with_ctrl_c_keeps_the_baton_its_turns_end_left(tmp_path, openai, trap):
    """Ctrl-C at Codex's empty prompt leaves at once ("Disconnected from this task"): the turn's
    ``Stop`` had already recorded the end and left the baton, and the next session receives it."""
    codex = codex_ready(tmp_path, openai, trap)
    try:
        openai.script = [*codex_hands_off(), "Next."]
        with codex_tui(codex) as terminal:
            codex_prompt(terminal, "Wrap up the parser work for the next session.", "Handed off.")
            (created,) = wait_for_event(codex.project, codex.env, "baton.created")
            terminal.type("\x03")
            terminal.wait_for("Disconnected from this task", why="Codex's goodbye after Ctrl-C")
            assert terminal.wait_until_ended() == 0, terminal.screen()
        (sid,) = sessions_of(codex.project, codex.env, "session.begun")
        assert created["data"]["session"] == sid and sessions_of(codex.project, codex.env, "session.ended") == [sid]
        with codex_tui(codex) as after:
            codex_prompt(after, "go on", "Next.")
            codex_exit(after)
    finally:
        codex_daemon_stopped(codex)
    assert f"(baton `{subject(created)}`)" in "\n".join(developer_texts(openai.turns()[-1]))
    assert [subject(e) for e in events(codex.project, codex.env, "baton.claimed")] == [subject(created)]
    no_hook_trouble_shown(terminal)



def test_a_codex_conversation_resumed_with_resume_last_is_told_the_baton_it_left_and_claims_nothing(
        tmp_path, openai, trap):
    """``codex resume --last`` after a session whose turn left a baton resumes that thread under its
    id: its next turn's ``SessionStart`` (source ``resume``) tells it, read-only, that this
    conversation left baton ID for the next session; nothing is claimed, and that turn's ``Stop``
    leaves no second baton and records no second end."""
    codex = codex_ready(tmp_path, openai, trap)
    try:
        openai.script = [*codex_hands_off(), "Resumed."]
        with codex_tui(codex) as terminal:
            codex_prompt(terminal, "Wrap up the parser work for the next session.", "Handed off.")
            (created,) = wait_for_event(codex.project, codex.env, "baton.created")
            codex_exit(terminal)
        (sid,) = sessions_of(codex.project, codex.env, "session.begun")
        with codex_tui(codex, "resume", "--last") as resumed:
            resumed.wait_for("› Wrap up the parser work", why="the resumed conversation")
            codex_prompt(resumed, "go on", "Resumed.")
            codex_exit(resumed)
    finally:
        codex_daemon_stopped(codex)
    told = "\n".join(developer_texts(openai.turns()[-1]))
    assert f"This conversation left baton `{subject(created)}`" in told, told
    assert sessions_of(codex.project, codex.env, "session.begun") == [sid]
    assert not events(codex.project, codex.env, "baton.claimed")
    assert len(events(codex.project, codex.env, "baton.created")) == 1
    assert sessions_of(codex.project, codex.env, "session.ended") == [sid]
    no_hook_trouble_shown(terminal)
    no_hook_trouble_shown(resumed)

# -- Gemini CLI ------------------------------------------------------------------------------------

GEMINI_READY = "Type your message"
"""The placeholder of Gemini CLI's empty prompt."""


@pytest.fixture
def google():
    with FakeGemini() as fake:
        yield fake


def gemini_ready(root: Path, model: FakeGemini, trap: ProxyTrap, home: Path) -> Session:
    """Gemini CLI's settings (API-key auth chosen, no telemetry or update check: ``Session``), the
    folder trusted, Baton installed in ``root/project``."""
    gemini = Session(root, model, trap, home=home)
    gemini.env = interactive(gemini.env)
    return gemini


def gemini_hands_off() -> list[Any]:
    """The agent's replies: capture its work over MCP naming the session its brief gave, validate
    it, make it ready, each with the id the tool before answered."""
    def session_id(recorded) -> str:
        found = {m for t in hook_contexts(recorded) for m in re.findall(r'Pass `"session_id": "([^"]+)"`', t)}
        assert len(found) == 1, hook_contexts(recorded)
        return found.pop()

    def answered_id(recorded, tool: str) -> str:
        return RESULT_ID.findall(tool_result(recorded, tool))[0]

    return [
        lambda r: call("mcp_baton_handoff_capture", **HANDOFF, session_id=session_id(r)),
        lambda r: call("mcp_baton_handoff_validate", id=answered_id(r, "mcp_baton_handoff_capture")),
        lambda r: call("mcp_baton_handoff_ready", id=answered_id(r, "mcp_baton_handoff_validate"),
                       accept_warnings="a scripted end-to-end session"),
        "Handed off.",
    ]


def gemini_tui(gemini: Session, *arguments: str) -> Terminal:
    """Gemini CLI's TUI (``gemini -y ARGUMENTS…``: tools run without asking) in a terminal, once it
    shows its prompt."""
    return started(Terminal([str(gemini.program), "-y", *arguments], gemini.project, gemini.env), GEMINI_READY,
                   "Gemini CLI's prompt")


def gemini_session(gemini: Session, prompt: str, reply: str) -> Terminal:
    """One interactive Gemini CLI session: start, one typed prompt, ``reply`` on the screen, Ctrl-D twice."""
    with gemini_tui(gemini) as terminal:
        gemini_prompt(terminal, prompt, reply)
        gemini_exit(terminal)
    return terminal


def test_an_interactive_gemini_cli_session_is_briefed_and_its_end_leaves_its_baton(tmp_path, google, trap):
    gemini = gemini_ready(tmp_path, google, trap, tmp_path / "home")
    an_earlier_baton(gemini.project, gemini.env)
    google.script = gemini_hands_off()
    terminal = gemini_session(gemini, "Wrap up the greeting work for the next session.", "Handed off.")
    [brief] = hook_contexts(google.conversation()[0])
    assert brief.startswith("## 🤝 Active Session Handoff") and EARLIER_STEP in brief
    (begun,) = events(gemini.project, gemini.env, "session.begun")
    sid = begun["stream"].split("/", 1)[1]
    (_, captured) = events(gemini.project, gemini.env, "handoff.captured")
    (_, created) = events(gemini.project, gemini.env, "baton.created")
    assert subject(created) == subject(captured) and created["data"]["session"] == sid
    assert sid in [e["stream"].split("/", 1)[1] for e in events(gemini.project, gemini.env, "session.ended")]
    assert not google.script and not trap.seen
    no_hook_trouble_shown(terminal)


def gemini_prompt(terminal: Terminal, prompt: str, reply: str) -> None:
    terminal.wait_for(GEMINI_READY, why="Gemini CLI's prompt", now=True)
    terminal.type(prompt)
    terminal.wait_for(prompt, why="the prompt typed")
    terminal.type("\r")
    terminal.wait_for(reply, why="the model's reply")


def gemini_exit(terminal: Terminal, key: str = "\x04", notice: str = "Press Ctrl+D again to exit.") -> None:
    terminal.wait_for(GEMINI_READY, why="Gemini CLI's prompt after the reply", now=True)
    terminal.type(key)
    terminal.wait_for(notice, why="Gemini CLI's exit notice")
    terminal.type(key)
    assert terminal.wait_until_ended() == 0, terminal.screen()


def test_after_clear_in_gemini_cli_the_baton_the_cleared_conversation_left_waits_for_the_next_start(
        tmp_path, google, trap):
    """``/clear`` in Gemini CLI 0.61.0 runs ``SessionEnd`` (reason ``clear``: the cleared
    conversation's ready handoff is left as its baton) and ``SessionStart`` (source ``clear``, a new
    id) — but gives that start's context to no model (it shows only a ``systemMessage``). So the
    cleared-to conversation claims nothing and is told nothing (its request carries no baton); the
    baton waits, and the next ``gemini`` start receives it, once."""
    gemini = gemini_ready(tmp_path, google, trap, tmp_path / "home")
    google.script = [*gemini_hands_off(), "After clear.", "Next session."]
    with gemini_tui(gemini) as terminal:
        gemini_prompt(terminal, "Wrap up the greeting work for the next session.", "Handed off.")
        terminal.wait_for(GEMINI_READY, why="Gemini CLI's prompt after the reply", now=True)
        terminal.type("/clear")
        terminal.wait_for("/clear", why="/clear typed")
        terminal.type("\r")
        (created,) = wait_for_event(gemini.project, gemini.env, "baton.created")
        wait_on_screen(terminal, lambda shown: "Handed off." not in shown and GEMINI_READY in shown,
                       "the cleared screen")
        cleared = len(google.conversation())
        gemini_prompt(terminal, "go on", "After clear.")
        gemini_exit(terminal)
    (first,) = sessions_of(gemini.project, gemini.env, "session.begun")
    assert created["data"]["session"] == first
    handoff = f"(baton `{subject(created)}`)"
    assert handoff not in user_text(google.conversation()[cleared]) and not events(gemini.project, gemini.env,
                                                                                   "baton.claimed")
    with gemini_tui(gemini) as after:
        gemini_prompt(after, "hello", "Next session.")
        gemini_exit(after)
    [brief] = hook_contexts(google.conversation()[-1])
    assert brief.startswith("## 🤝 Active Session Handoff") and handoff in brief
    _, nxt = sessions_of(gemini.project, gemini.env, "session.begun")
    assert [(subject(e), e["data"]["session"]) for e in events(gemini.project, gemini.env, "baton.claimed")] \
        == [(subject(created), nxt)]
    assert len(events(gemini.project, gemini.env, "baton.created")) == 1
    assert not trap.seen
    no_hook_trouble_shown(terminal)
    no_hook_trouble_shown(after)


def test_leaving_interactive_gemini_cli_with_ctrl_c_twice_records_the_end_and_leaves_the_baton(
        tmp_path, google, trap):
    """Ctrl-C at Gemini CLI's prompt asks for another ("Press Ctrl+C again to exit."); the second
    leaves through the same clean-up as Ctrl-D, whose ``SessionEnd`` leaves the baton and records the end."""
    gemini = gemini_ready(tmp_path, google, trap, tmp_path / "home")
    google.script = gemini_hands_off()
    with gemini_tui(gemini) as terminal:
        gemini_prompt(terminal, "Wrap up the greeting work for the next session.", "Handed off.")
        gemini_exit(terminal, "\x03", "Press Ctrl+C again to exit.")
    (sid,) = sessions_of(gemini.project, gemini.env, "session.begun")
    (captured,) = events(gemini.project, gemini.env, "handoff.captured")
    (created,) = events(gemini.project, gemini.env, "baton.created")
    assert subject(created) == subject(captured) and created["data"]["session"] == sid
    assert sessions_of(gemini.project, gemini.env, "session.ended") == [sid]
    no_hook_trouble_shown(terminal)


def logged_baton(folder: Path, project: Path) -> tuple[Path, Path]:
    """A ``--command`` for ``install-hooks``: this checkout's ``baton``, run through a script that
    logs each call as a line — its arguments, then how many lines the project's ledger feeds held
    before and after it — and the log it writes."""
    log = folder / "baton-calls.log"
    script = folder / "baton-logged"
    ledger = shlex.quote(str(project / ".baton" / "ledger"))
    count = f"$(find {ledger} -name '*.jsonl' -exec cat {{}} + 2>/dev/null | wc -l)"
    script.write_text("#!/bin/sh\n"
                      f"before={count}\n"
                      f"{shlex.quote(str(BATON_BIN / 'baton'))} \"$@\"\n"
                      "status=$?\n"
                      f"printf '%s %s %s\\n' \"$*\" \"$before\" \"{count}\" >> {shlex.quote(str(log))}\n"
                      "exit $status\n")
    script.chmod(0o755)
    return script, log


def test_one_exit_from_gemini_cli_may_run_session_end_more_than_once_and_only_the_first_writes_to_the_ledger(
        tmp_path, google, trap):
    """Gemini CLI 0.61.0 runs ``SessionEnd`` more than once, one after another, on one exit (Ctrl-D
    twice): three times in harness28's runs, twice in one of CI's. The first records the end and leaves
    the baton; each repeat finds the session ended and appends nothing (the ledger's lines the same
    before and after it), so the ledger shows one end and one baton."""
    gemini = gemini_ready(tmp_path, google, trap, tmp_path / "home")
    command, log = logged_baton(tmp_path, gemini.project)
    rewired = run_baton(gemini.project, gemini.env, "install-hooks", "--harness", "gemini-cli", "--events", "all",
                        "--command", str(command))
    assert rewired.returncode == 0, rewired.stderr
    google.script = gemini_hands_off()
    terminal = gemini_session(gemini, "Wrap up the greeting work for the next session.", "Handed off.")

    ends = [line.split()[-2:] for line in log.read_text().splitlines() if line.startswith("hook gemini-cli SessionEnd")]
    assert ends, log.read_text()
    (first_before, first_after), *repeats = [(int(before), int(after)) for before, after in ends]
    assert first_after > first_before
    assert repeats == [(first_after, first_after)] * len(repeats)
    (sid,) = sessions_of(gemini.project, gemini.env, "session.begun")
    assert sessions_of(gemini.project, gemini.env, "session.ended") == [sid]
    (created,) = events(gemini.project, gemini.env, "baton.created")
    assert created["data"]["session"] == sid
    no_hook_trouble_shown(terminal)


def test_a_gemini_cli_conversation_resumed_with_resume_latest_claims_nothing(tmp_path, google, trap):
    """``gemini --resume latest`` after a session that left a baton resumes that conversation
    under its id (``SessionStart`` source ``resume``): a repeated start, which claims nothing and
    records no second start; the resumed conversation's end leaves no second baton. What Baton
    answers that start reaches no model in 0.61.0 (below), so the baton still waits, untouched."""
    gemini = gemini_ready(tmp_path, google, trap, tmp_path / "home")
    google.script = [*gemini_hands_off(), "Resumed."]
    gemini_session(gemini, "Wrap up the greeting work for the next session.", "Handed off.")
    (created,) = events(gemini.project, gemini.env, "baton.created")
    (sid,) = sessions_of(gemini.project, gemini.env, "session.begun")
    with gemini_tui(gemini, "--resume", "latest") as resumed:
        resumed.wait_for("Wrap up the greeting work", why="the resumed conversation")
        gemini_prompt(resumed, "go on", "Resumed.")
        gemini_exit(resumed)
    # What the model is given: Gemini CLI 0.61.0 loads the saved history over the context its resume
    # start added (``resumeChat`` replaces the chat), and saves no hook context in that history, so
    # the resumed request carries neither the first brief nor Baton's read-only notice.
    assert not hook_contexts(google.conversation()[-1])
    assert "Wrap up the greeting work" in user_text(google.conversation()[-1])
    assert sessions_of(gemini.project, gemini.env, "session.begun") == [sid]
    assert not events(gemini.project, gemini.env, "baton.claimed")
    assert len(events(gemini.project, gemini.env, "baton.created")) == 1
    assert sessions_of(gemini.project, gemini.env, "session.ended") == [sid]
    no_hook_trouble_shown(resumed)


# -- across the harnesses --------------------------------------------------------------------------

def test_a_baton_left_by_interactive_claude_code_reaches_interactive_codex_once_and_gemini_cli_after_it_not(
        tmp_path, anthropic, openai, google, trap):
    """One project, one person, one branch, the three harnesses installed in it: an interactive
    Claude Code session readies its work and ends; the interactive Codex session after it is given
    that baton and claims it; the interactive Gemini CLI session after that is given no baton."""
    project = git_project(tmp_path / "project")
    claude_env_ = claude_ready(tmp_path, anthropic, project)
    codex = codex_ready(tmp_path, openai, trap)
    gemini = gemini_ready(tmp_path, google, trap, tmp_path / "gemini-home")
    assert codex.project == gemini.project == project
    try:
        anthropic.script = capture_validate_ready(session_id=session_named_in)
        screens = [claude_session(project, claude_env_, anthropic, "Record where the zebra-42 work stands.",
                                  "Handed off.")]
        (created,) = events(project, claude_env_, "baton.created")
        handoff = subject(created)
        delivered = f"(baton `{handoff}`)"

        openai.script = ["On it."]
        screens.append(codex_session(codex, "Go on with the zebra-42 work.", "On it."))
    finally:
        codex_daemon_stopped(codex)
    told = [t for r in openai.turns() for t in developer_texts(r) if "Active Session Handoff" in t]
    assert len(told) == 1 and delivered in told[0], told
    (codex_begun,) = [e for e in events(project, codex.env, "session.begun") if e["data"].get("harness") == "codex"]
    codex_sid = codex_begun["stream"].split("/", 1)[1]
    assert [(subject(e), e["data"]["session"]) for e in events(project, codex.env, "baton.claimed")] \
        == [(handoff, codex_sid)]

    google.script = ["Hello."]
    screens.append(gemini_session(gemini, "hello", "Hello."))
    [brief] = hook_contexts(google.conversation()[0])
    assert "Active Session Handoff" not in user_text(google.conversation()[0]) and delivered not in brief
    assert [subject(e) for e in events(project, gemini.env, "baton.claimed")] == [handoff]
    for terminal in screens:
        no_hook_trouble_shown(terminal)


# -- what a person does mid-turn, and after ------------------------------------------------------

def test_ctrl_c_during_a_claude_code_turn_cancels_it_and_the_session_goes_on_to_leave_its_baton(
        tmp_path, anthropic):
    """The agent readies its handoff; the model's next answer is held open, and Ctrl-C while the turn
    runs cancels it (Claude Code: "Interrupted"); the session goes on (the next prompt is answered),
    and its ``/exit`` records the end once and leaves the readied handoff as its baton."""
    project = git_project(tmp_path / "project")
    env = claude_ready(tmp_path, anthropic, project)
    held = Held()
    anthropic.script = [*capture_validate_ready(session_id=session_named_in)[:-1], held, "Going on."]
    try:
        with claude_tui(project, env) as claude:
            claude.type("Record where the zebra-42 work stands.")
            claude.type("\r")
            held.wait_asked()
            claude.wait_for("esc to interrupt", why="Claude Code's running turn", now=True)
            claude.type("\x03")
            claude.wait_for("Interrupted", why="Claude Code's notice of the cancelled turn")
            claude.wait_for(CLAUDE_READY, why="Claude Code's prompt after the cancelled turn", now=True)
            claude_prompt(claude, "go on", "Going on.")
            claude_exit(claude)
    finally:
        held.release()
    anthropic.check()
    (sid,) = sessions_of(project, env, "session.begun")
    (created,) = events(project, env, "baton.created")
    assert created["data"]["session"] == sid and sessions_of(project, env, "session.ended") == [sid]
    assert subject(created) == [e["stream"].split("/", 1)[1] for e in events(project, env, "handoff.promoted")][0]
    no_hook_trouble_shown(claude)


def test_ctrl_c_during_a_codex_turn_cancels_it_and_its_interrupt_leaves_the_readied_handoff_as_the_baton(
        tmp_path, openai, trap):
    """The agent readies its handoff; the model's next answer is held open, and Ctrl-C while the turn
    runs, then "Cancel task", interrupts it: Codex runs no ``Stop`` for it but ``Interrupt``, the end
    of that turn, which records the session's end and leaves the readied handoff as its baton. The
    session goes on, and the next turn's ``Stop`` records no second end and leaves no second baton."""
    codex = codex_ready(tmp_path, openai, trap)
    with codex_turn_running(codex, openai) as terminal:
        terminal.type("\x03")
        terminal.wait_for("Task is still running", why="Codex's question after Ctrl-C in a turn")
        terminal.wait_for("› 1. Cancel task", why="Codex's first choice, selected", now=True)
        terminal.type("\r")
        wait_on_screen(terminal, lambda shown: "Task is still running" not in shown
                       and "esc to interrupt" not in shown, "the cancelled turn")
        (created,) = wait_for_event(codex.project, codex.env, "baton.created")  # the Interrupt hook's
        codex_prompt(terminal, "go on", "Going on.")
        codex_exit(terminal)
    (sid,) = sessions_of(codex.project, codex.env, "session.begun")
    assert len(events(codex.project, codex.env, "baton.created")) == 1
    assert created["data"]["session"] == sid and sessions_of(codex.project, codex.env, "session.ended") == [sid]
    assert subject(created) == [e["stream"].split("/", 1)[1] for e in events(codex.project, codex.env,
                                                                              "handoff.promoted")][0]
    no_hook_trouble_shown(terminal)


def test_ctrl_c_during_a_gemini_cli_turn_cancels_it_and_the_session_goes_on_to_leave_its_baton(
        tmp_path, google, trap):
    """The agent readies its handoff; the model's next answer is held open, and Ctrl-C while the turn
    runs cancels the request (Gemini CLI: "Request cancelled."); the session goes on, and its exit's
    ``SessionEnd`` records the end once and leaves the readied handoff as its baton."""
    gemini = gemini_ready(tmp_path, google, trap, tmp_path / "home")
    held = Held()
    google.script = [*gemini_hands_off()[:-1], held, "Going on."]
    try:
        with gemini_tui(gemini) as terminal:
            prompt = "Wrap up the greeting work for the next session."
            terminal.type(prompt)
            terminal.wait_for(prompt, why="the prompt typed")
            terminal.type("\r")
            held.wait_asked()
            terminal.wait_for("esc to cancel", why="Gemini CLI's running turn", now=True)
            terminal.type("\x03")
            terminal.wait_for("cancelled", why="Gemini CLI's notice of the cancelled request")
            assert not events(gemini.project, gemini.env, "session.ended")
            gemini_prompt(terminal, "go on", "Going on.")
            gemini_exit(terminal)
    finally:
        held.release()
    (sid,) = sessions_of(gemini.project, gemini.env, "session.begun")
    (created,) = events(gemini.project, gemini.env, "baton.created")
    assert created["data"]["session"] == sid and sessions_of(gemini.project, gemini.env, "session.ended") == [sid]
    assert subject(created) == [e["stream"].split("/", 1)[1] for e in events(gemini.project, gemini.env,
                                                                              "handoff.promoted")][0]
    assert not trap.seen
    no_hook_trouble_shown(terminal)



# -- a terminal closed under a running harness ---------------------------------------------------

def test_a_terminal_closed_under_claude_code_runs_its_session_end_which_leaves_the_baton(tmp_path, anthropic):
    """Closing the terminal (``SIGHUP``) under Claude Code, after its agent readied a handoff: Claude
    Code leaves as on ``/exit`` (status 0), running ``SessionEnd`` first: the handoff is the
    session's baton and its end is recorded, once, by the time the process is gone.

    Its status is 0 when Claude Code notices its terminal gone first, or 129 when its ``SIGHUP``
    handler runs first (2.1.337: ``shutdown(129)``; twice in about twenty runs on a loaded machine);
    ``SessionEnd`` runs on either path (the next test makes it 129 and shows it). No one sees a
    closed terminal's status: what this holds — the end recorded, the baton left — either way."""
    project = git_project(tmp_path / "project")
    env = claude_ready(tmp_path, anthropic, project)
    anthropic.script = capture_validate_ready(session_id=session_named_in)
    with claude_tui(project, env) as claude:
        claude_prompt(claude, "Record where the zebra-42 work stands.", "Handed off.")
        claude.hang_up()
        assert claude.wait_until_ended() in (0, 129)
    anthropic.check()
    (sid,) = sessions_of(project, env, "session.begun")
    (created,) = events(project, env, "baton.created")
    assert created["data"]["session"] == sid and sessions_of(project, env, "session.ended") == [sid]
    no_hook_trouble_shown(claude)


def test_a_terminal_closed_under_claude_code_while_its_stop_hook_runs_ends_it_with_129_after_its_session_end(
        tmp_path, anthropic):
    """The status-129 end, made certain: a second ``Stop`` hook beside Baton's holds the turn's end
    (it marks that it runs, then sleeps), and the hang-up comes while it runs, its ``SIGHUP`` before
    the closed terminal is read (``Terminal.hang_up(signal_first=True)``). Claude Code 2.1.337 does
    not wait for that hook: it runs ``SessionEnd`` and exits with 129 — the end recorded once, the
    readied handoff left as the baton, once, as on ``/exit``. No later start is needed to hand the
    session on (``A session that never ended`` in docs/batons.md is not this case)."""
    project = git_project(tmp_path / "project")
    env = claude_ready(tmp_path, anthropic, project)
    running, finished = tmp_path / "stop-hook-running", tmp_path / "stop-hook-finished"
    settings = project / ".claude" / "settings.json"
    wired = json.loads(settings.read_text())
    wired["hooks"]["Stop"].append({"hooks": [{"type": "command", "timeout": 60,
                                              "command": f"touch {running}; sleep 30; touch {finished}"}]})
    settings.write_text(json.dumps(wired))
    anthropic.script = capture_validate_ready(session_id=session_named_in)
    with claude_tui(project, env) as claude:
        claude.type("Record where the zebra-42 work stands.")
        claude.type("\r")
        claude.wait_for("Handed off.", why="the model's reply")
        deadline = time.monotonic() + 60
        while not running.exists():
            assert time.monotonic() < deadline, "the turn's Stop hooks never ran"
            time.sleep(0.1)
        claude.hang_up(signal_first=True)
        assert claude.wait_until_ended() == 129, claude.screen()
    assert not finished.exists()  # the hang-up came while the turn's Stop hook ran
    (sid,) = sessions_of(project, env, "session.begun")
    (created,) = events(project, env, "baton.created")
    assert created["data"]["session"] == sid and sessions_of(project, env, "session.ended") == [sid]
    no_hook_trouble_shown(claude)


def test_a_terminal_closed_under_a_running_codex_turn_leaves_the_turn_running_and_its_stop_leaves_the_baton(
        tmp_path, openai, trap):
    """Closing the terminal under Codex's TUI while a turn runs (the agent has readied its handoff,
    the model's answer is held) ends the TUI, not the turn: its background server goes on ("Any
    running work continues"), and once the model answers, the turn's ``Stop`` there records the
    session's end and leaves the handoff as its baton, as if the terminal had stayed open."""
    codex = codex_ready(tmp_path, openai, trap)
    held = Held("Handed off.")
    try:
        openai.script = [*codex_hands_off()[:-1], held]
        with codex_tui(codex) as terminal:
            codex_turn_held(terminal, held)
            terminal.hang_up()
            terminal.wait_until_ended()  # 0.171.0 ends by SIGABRT here: the TUI's own
        assert not events(codex.project, codex.env, "session.ended")  # the turn waits for its answer
        held.release()
        (created,) = wait_for_event(codex.project, codex.env, "baton.created")
    finally:
        held.release()
        codex_daemon_stopped(codex)
    (sid,) = sessions_of(codex.project, codex.env, "session.begun")
    assert created["data"]["session"] == sid and sessions_of(codex.project, codex.env, "session.ended") == [sid]


def test_gemini_cli_with_its_terminal_closed_hands_its_session_on_once_its_process_is_gone(
        tmp_path, google, trap):
    """Gemini CLI 0.61.0 runs no ``SessionEnd`` when its terminal is closed (``SIGHUP``). Most
    often its processes go on without a terminal; sometimes they end by a signal of their own soon
    after (CI saw ``SIGSEGV``). Either way the session's readied handoff is no baton yet. A start
    that finds the harness process that session recorded alive claims nothing and says what waits
    ("has not reported its end … Nothing was claimed"); the first start after that process is gone
    (ended by itself, or killed as a person ends it) takes the session over at once ("its harness
    process is gone": the handoff handed on as its end would have, and claimed, once) —
    docs/batons.md, "A session that never ended"."""
    gemini = gemini_ready(tmp_path, google, trap, tmp_path / "home")
    google.script = [*gemini_hands_off(), "Second start.", "Third start."]
    with gemini_tui(gemini) as closed:
        gemini_prompt(closed, "Wrap up the greeting work for the next session.", "Handed off.")
        closed.wait_for(GEMINI_READY, why="Gemini CLI's prompt after the reply", now=True)
        closed.hang_up()
        (begun,) = events(gemini.project, gemini.env, "session.begun")
        first, harness = begun["data"]["session"], begun["data"]["harness_process"]["pid"]
        with gemini_tui(gemini) as second:
            gemini_prompt(second, "hello", "Second start.")
            gemini_exit(second)
        [told] = hook_contexts(google.conversation()[-1])
        outlived = "has not reported its end" in told
        if outlived:  # alive at that start: nothing claimed, nothing handed on
            assert f"Session `{first}` (gemini-cli" in told and "Nothing was claimed." in told, told
            assert not events(gemini.project, gemini.env, "baton.created")
            _killed(harness)  # as a person ends it
    if outlived:
        with gemini_tui(gemini) as third:
            gemini_prompt(third, "hello", "Third start.")
            gemini_exit(third)
        [told] = hook_contexts(google.conversation()[-1])
        no_hook_trouble_shown(third)
    assert f"Session `{first}` (gemini-cli" in told and "(its harness process is gone)" in told, told
    (created,) = events(gemini.project, gemini.env, "baton.created")
    assert created["data"]["session"] == first and f"(baton `{subject(created)}`)" in told
    taker = sessions_of(gemini.project, gemini.env, "session.begun")[-1]
    assert [(subject(e), e["data"]["session"]) for e in events(gemini.project, gemini.env, "baton.claimed")] \
        == [(subject(created), taker)]
    assert sessions_of(gemini.project, gemini.env, "session.ended").count(first) == 1
    assert not trap.seen
    no_hook_trouble_shown(second)


def _killed(pid: int, timeout: float = 60) -> None:
    """``pid`` killed (``SIGKILL``), once it no longer runs (gone, or a zombie no one reaped yet)."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_bytes().rpartition(b")")[2].split()[0]
        except (OSError, IndexError):
            return
        if state in (b"Z", b"X"):
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} still runs {timeout:g} s after SIGKILL")


# -- resuming and forking inside the harnesses ---------------------------------------------------

def claude_resumed(project: Path, env: dict[str, str], arguments: list[str], prompt: str, reply: str) -> Terminal:
    """Claude Code started with ``arguments`` (``--resume ID``…): the earlier conversation shows,
    one prompt is answered, ``/exit``."""
    with claude_tui(project, env, *arguments) as claude:
        claude.wait_for("Record where the zebra-42 work stands.", why="the resumed conversation")
        claude_prompt(claude, prompt, reply)
        claude_exit(claude)
    return claude


def test_claude_code_resumed_by_id_claims_nothing_and_a_fork_of_it_claims_the_baton_once_under_its_own_id(
        tmp_path, anthropic):
    """``claude --resume ID`` after a session that left a baton resumes it under its id (source
    ``resume``): told, read-only, "This conversation left baton …", nothing claimed, no second start
    or end. ``claude --resume ID --fork-session`` then starts a new conversation from it under a new
    id (source ``fork``): a new session, which claims that baton, once, and is told its id is the
    current one (the transcript it carries names the earlier id); its end leaves no second baton."""
    project = git_project(tmp_path / "project")
    env = claude_ready(tmp_path, anthropic, project)
    anthropic.script = [*capture_validate_ready(session_id=session_named_in), "Resumed.", "Forked."]
    screens = [claude_session(project, env, anthropic, "Record where the zebra-42 work stands.", "Handed off.")]
    (created,) = events(project, env, "baton.created")
    (sid,) = sessions_of(project, env, "session.begun")
    screens.append(claude_resumed(project, env, ["--resume", sid], "go on", "Resumed."))
    told = said(anthropic.turns()[-1])
    assert f"This conversation left baton `{subject(created)}`" in told and f"This is claude-code session `{sid}`" in told
    assert sessions_of(project, env, "session.begun") == [sid] and not events(project, env, "baton.claimed")
    assert sessions_of(project, env, "session.ended") == [sid]
    screens.append(claude_resumed(project, env, ["--resume", sid, "--fork-session"], "go on", "Forked."))
    anthropic.check()
    first, fork = sessions_of(project, env, "session.begun")
    assert first == sid and fork != sid
    told = said(anthropic.turns()[-1])
    assert f"(baton `{subject(created)}`)" in told and f"This is claude-code session `{fork}`" in told
    assert "This id is the current one" in told
    assert [(subject(e), e["data"]["session"]) for e in events(project, env, "baton.claimed")] \
        == [(subject(created), fork)]
    assert len(events(project, env, "baton.created")) == 1
    assert sessions_of(project, env, "session.ended") == [sid, fork]
    for screen in screens:
        no_hook_trouble_shown(screen)


def test_after_clear_in_codex_the_fresh_conversation_is_given_the_baton_the_old_one_left_once(
        tmp_path, openai, trap):
    """``/clear`` ("clear the terminal and start a new chat") starts a thread under a new id, as
    ``/new`` does: its first prompt's ``SessionStart`` claims the baton the old conversation's
    ``Stop`` left, so that request carries it, once, with the new session's id."""
    def clear(terminal: Terminal) -> None:
        terminal.type("/clear")
        terminal.wait_for("clear the terminal and start a new chat", why="/clear in Codex's command menu",
                          now=True)
        terminal.type("\r")
        wait_on_screen(terminal, lambda shown: "› Wrap up" not in shown and CODEX_READY in shown,
                       "the new conversation's prompt")

    _a_fresh_codex_conversation_claims_the_baton_once(tmp_path, openai, trap, clear)



def test_codex_resume_in_the_tui_claims_nothing_and_fork_there_runs_no_start_so_the_baton_waits(
        tmp_path, openai, trap):
    """``/resume`` in Codex's TUI (its picker: "Resume a previous session") resumes a conversation that
    left a baton under its id, as ``codex resume --last`` does: its next turn is told, read-only,
    "This conversation left baton …", nothing is claimed, no second start or end is recorded.
    ``/fork`` there ("fork the current chat"; first asking where it runs: the current worktree)
    starts a thread under a new id for which 0.171.0 runs no ``SessionStart``, as ``codex exec fork``:
    the fork is given no baton and claims none (the baton waits for the next session, untouched),
    and its turn's ``Stop`` records the fork's end, once, handing nothing on."""
    codex = codex_ready(tmp_path, openai, trap)
    try:
        openai.script = [*codex_hands_off(), "Resumed.", "Forked."]
        with codex_tui(codex) as terminal:
            codex_prompt(terminal, "Wrap up the parser work for the next session.", "Handed off.")
            (created,) = wait_for_event(codex.project, codex.env, "baton.created")
            codex_exit(terminal)
        (sid,) = sessions_of(codex.project, codex.env, "session.begun")
        with codex_tui(codex) as terminal:
            terminal.type("/resume")
            terminal.wait_for("resume a saved chat", why="/resume in Codex's command menu", now=True)
            terminal.type("\r")
            terminal.wait_for("Resume a previous session", why="Codex's resume picker", now=True)
            terminal.wait_for("› ", why="the picker's selected conversation", now=True)
            terminal.type("\r")
            terminal.wait_for("› Wrap up the parser work", why="the resumed conversation", now=True)
            wait_on_screen(terminal, lambda shown: CODEX_READY in shown and "Resume a previous" not in shown,
                           "the resumed conversation's prompt")
            resumed = len(openai.turns())
            codex_prompt(terminal, "go on", "Resumed.")
            terminal.type("/fork")
            terminal.wait_for("fork the current chat", why="/fork in Codex's command menu", now=True)
            terminal.type("\r")
            terminal.wait_for("Where should the forked conversation run?", why="Codex's worktree question", now=True)
            terminal.type("\r")  # 1. Use current Git worktree
            wait_on_screen(terminal, lambda shown: "Where should" not in shown and CODEX_READY in shown,
                           "the forked conversation's prompt")
            forked = len(openai.turns())
            codex_prompt(terminal, "go on in the fork", "Forked.")
            wait_for_event(codex.project, codex.env, "session.ended", 2)
            codex_exit(terminal)
    finally:
        codex_daemon_stopped(codex)
    told = "\n".join(developer_texts(openai.turns()[resumed]))
    assert f"This conversation left baton `{subject(created)}`" in told and f"This is codex session `{sid}`" in told
    assert sessions_of(codex.project, codex.env, "session.begun") == [sid]
    assert not events(codex.project, codex.env, "baton.claimed")
    assert len(events(codex.project, codex.env, "baton.created")) == 1
    first, fork = sessions_of(codex.project, codex.env, "session.ended")
    assert first == sid and fork != sid
    assert f"(baton `{subject(created)}`)" not in "\n".join(developer_texts(openai.turns()[forked]))
    no_hook_trouble_shown(terminal)


# -- two terminals on one branch -----------------------------------------------------------------

@frozen
class Harness:
    """One harness as a person drives it in these tests: its name in Baton's notices, how its TUI
    starts (at its prompt), how a prompt is answered, how a person leaves it, and the hook context
    the model's newest request carried."""

    name: str
    start: Callable[[], Terminal]
    prompt: Callable[[Terminal, str, str], None]
    leave: Callable[[Terminal], None]
    told: Callable[[], str]
    script: Callable[[list[Any]], None]
    hands_off: Callable[[], list[Any]]


def claude_code(project: Path, env: dict[str, str], model: FakeAnthropic) -> Harness:
    return Harness("claude-code", lambda: claude_tui(project, env), claude_prompt, claude_exit,
                   lambda: said(model.turns()[-1]), model.script.extend,
                   lambda: capture_validate_ready(session_id=session_named_in))


def gemini_cli(gemini: Session, model: FakeGemini) -> Harness:
    return Harness("gemini-cli", lambda: gemini_tui(gemini), gemini_prompt, gemini_exit,
                   lambda: "\n".join(hook_contexts(model.conversation()[-1])), model.script.extend,
                   gemini_hands_off)


def codex_cli(codex: CodexProject, model: FakeResponses) -> Harness:
    return Harness("codex", lambda: codex_tui(codex), codex_prompt, codex_exit,
                   lambda: "\n".join(developer_texts(model.turns()[-1])),
                   lambda replies: model.script.extend(replies), codex_hands_off)


def hello_in(harness: Harness, reply: str, screens: list[Terminal]) -> str:
    """A session of ``harness`` in a terminal of its own: "hello", answered ``reply``, and left (its
    terminal kept in ``screens``). What its model was told."""
    with harness.start() as terminal:
        harness.prompt(terminal, "hello", reply)
        harness.leave(terminal)
    screens.append(terminal)
    return harness.told()


def nothing_claimed_beside(project: Path, env: dict[str, str], told: str, session: str, name: str,
                           unreported: str) -> None:
    """A second terminal's brief, ``told``, names the live ``session`` (harness ``name``) as one that
    "has not reported ``unreported``" and says nothing was claimed; no baton is made or claimed."""
    assert f"Session `{session}` ({name}" in told and f"has not reported {unreported}" in told, told
    assert "Nothing was claimed." in told
    assert not events(project, env, "baton.created") and not events(project, env, "baton.claimed")


def claimed_once_by_the_next_start(project: Path, env: dict[str, str], harness: Harness, baton: str, first: str,
                                   screens: list[Terminal]) -> None:
    """The next start (``harness``, "hello") is told of ``baton``, and of no session that has not
    reported, and claims it, exactly once; it is the one baton made, session ``first`` ended once,
    and no screen in ``screens`` (the next start's added) shows a hook's trouble."""
    told = hello_in(harness, "Next start.", screens)
    assert f"(baton `{baton}`)" in told and "has not reported" not in told, told
    taker = sessions_of(project, env, "session.begun")[-1]
    assert [(subject(e), e["data"]["session"]) for e in events(project, env, "baton.claimed")] == [(baton, taker)]
    assert len(events(project, env, "baton.created")) == 1
    assert sessions_of(project, env, "session.ended").count(first) == 1
    for screen in screens:
        no_hook_trouble_shown(screen)


def two_terminals_on_one_branch(project: Path, env: dict[str, str], a: Harness, b: Harness) -> None:
    """Terminal A runs harness ``a``, whose agent has readied its handoff; terminal B starts ``b``
    on the same project and branch while A still runs: B's brief says A's session "has not reported
    its end", and B claims nothing (no baton is made of A's handoff, none is claimed). Then A
    exits: its end leaves the baton; the next start (``b`` again) claims it, exactly once."""
    a.script([*a.hands_off()])
    b.script(["Second terminal.", "Next start."])
    screens: list[Terminal] = []
    with a.start() as first_terminal:
        a.prompt(first_terminal, "Record where the work stands for the next session.", "Handed off.")
        (first,) = sessions_of(project, env, "session.begun")
        nothing_claimed_beside(project, env, hello_in(b, "Second terminal.", screens), first, a.name, "its end")
        a.leave(first_terminal)
    screens.append(first_terminal)
    (created,) = events(project, env, "baton.created")
    assert created["data"]["session"] == first
    claimed_once_by_the_next_start(project, env, b, subject(created), first, screens)


def test_a_second_terminal_on_the_branch_is_told_of_claude_codes_live_session_and_claims_its_baton_only_after_it_ends(
        tmp_path, anthropic, google, trap):
    """Claude Code in terminal A, Gemini CLI in terminal B (``two_terminals_on_one_branch``)."""
    project = git_project(tmp_path / "project")
    env = claude_ready(tmp_path, anthropic, project)
    gemini = gemini_ready(tmp_path, google, trap, tmp_path / "gemini-home")
    two_terminals_on_one_branch(project, env, claude_code(project, env, anthropic), gemini_cli(gemini, google))
    anthropic.check()
    assert not trap.seen


def test_a_second_terminal_on_the_branch_is_told_of_gemini_clis_live_session_and_claims_its_baton_only_after_it_ends(
        tmp_path, anthropic, google, trap):
    """Gemini CLI in terminal A, Claude Code in terminal B (``two_terminals_on_one_branch``)."""
    project = git_project(tmp_path / "project")
    env = claude_ready(tmp_path, anthropic, project)
    gemini = gemini_ready(tmp_path, google, trap, tmp_path / "gemini-home")
    two_terminals_on_one_branch(project, env, gemini_cli(gemini, google), claude_code(project, env, anthropic))
    anthropic.check()
    assert not trap.seen


# -- resuming from Claude Code's picker, and inside its TUI -----------------------------------------

def test_claude_code_resumed_from_its_resume_picker_is_told_the_baton_it_left_and_claims_nothing(
        tmp_path, anthropic):
    """``claude --resume`` with no id shows Claude Code's picker ("Resume session", the project's
    conversations); Enter on the conversation that left a baton resumes it under its id (source
    ``resume``, no start of its own before it): its next request is told, read-only, "This
    conversation left baton …"; nothing is claimed, no second start or end is recorded, and its
    process (a new one) is recorded in place of the first (``session.resumed``)."""
    project = git_project(tmp_path / "project")
    env = claude_ready(tmp_path, anthropic, project)
    anthropic.script = [*capture_validate_ready(session_id=session_named_in), "Resumed."]
    screens = [claude_session(project, env, anthropic, "Record where the zebra-42 work stands.", "Handed off.")]
    (created,) = events(project, env, "baton.created")
    (sid,) = sessions_of(project, env, "session.begun")
    with Terminal([str(harness_program("claude-code")), "--resume"], project, env) as claude:
        claude.wait_for("Resume session", why="Claude Code's resume picker")
        claude.wait_for("❯ Record where the zebra-42 work stands.", why="the picker's selected conversation",
                        now=True)
        claude.type("\r")
        claude.wait_for(CLAUDE_READY, why="Claude Code's prompt, resumed")
        claude.wait_for("Handed off.", why="the resumed conversation", now=True)
        claude_prompt(claude, "go on", "Resumed.")
        claude_exit(claude)
    screens.append(claude)
    anthropic.check()
    told = said(anthropic.turns()[-1])
    assert f"This conversation left baton `{subject(created)}`" in told and f"This is claude-code session `{sid}`" in told
    assert sessions_of(project, env, "session.begun") == [sid] and not events(project, env, "baton.claimed")
    assert len(events(project, env, "baton.created")) == 1 and sessions_of(project, env, "session.ended") == [sid]
    assert sessions_of(project, env, "session.resumed") == [sid]
    for screen in screens:
        no_hook_trouble_shown(screen)


def test_resume_inside_claude_code_ends_the_fresh_conversation_once_and_the_resumed_one_claims_nothing(
        tmp_path, anthropic):
    """A fresh Claude Code conversation claims the baton an earlier one left (its first request
    carries it); ``/resume`` there ("Resume a previous session", its picker) ends it (``SessionEnd``:
    its end recorded, once, leaving no baton) and resumes the earlier conversation under its id
    (source ``resume``, in the same process: ``session.resumed``): that one claims nothing and
    starts and ends no second time; the baton stays claimed once, by the fresh conversation."""
    project = git_project(tmp_path / "project")
    env = claude_ready(tmp_path, anthropic, project)
    anthropic.script = [*capture_validate_ready(session_id=session_named_in), "Fresh.", "Resumed."]
    screens = [claude_session(project, env, anthropic, "Record where the zebra-42 work stands.", "Handed off.")]
    (created,) = events(project, env, "baton.created")
    (first,) = sessions_of(project, env, "session.begun")
    with claude_tui(project, env) as claude:
        claude_prompt(claude, "Take the zebra-42 work on.", "Fresh.")
        assert f"(baton `{subject(created)}`)" in said(anthropic.turns()[-1])
        claude.type("/resume")
        claude.wait_for("Resume a previous session", why="/resume in Claude Code's command menu", now=True)
        claude.type("\r")
        claude.wait_for("Resume session", why="Claude Code's resume picker")
        claude.wait_for("❯ Record where the zebra-42 work stands.", why="the picker's selected conversation",
                        now=True)
        claude.type("\r")
        claude.wait_for("Handed off.", why="the resumed conversation", now=True)
        claude_prompt(claude, "go on", "Resumed.")
        claude_exit(claude)
    screens.append(claude)
    anthropic.check()
    fresh = sessions_of(project, env, "session.begun")[-1]
    assert sessions_of(project, env, "session.begun") == [first, fresh]
    told = said(anthropic.turns()[-1])
    assert f"This is claude-code session `{first}`" in told and f"(baton `{subject(created)}`)" not in told
    assert [(subject(e), e["data"]["session"]) for e in events(project, env, "baton.claimed")] \
        == [(subject(created), fresh)]
    assert len(events(project, env, "baton.created")) == 1
    assert sessions_of(project, env, "session.ended") == [first, fresh]
    assert sessions_of(project, env, "session.resumed") == [first]
    for screen in screens:
        no_hook_trouble_shown(screen)


def test_resume_at_once_inside_a_fresh_claude_code_conversation_loses_no_baton(tmp_path, anthropic):
    """A fresh Claude Code conversation's start claims the baton an earlier one left; ``/resume``
    before any prompt ends it (its brief reached no model) and resumes the earlier conversation.
    The baton is not lost: the next session is given it."""
    project = git_project(tmp_path / "project")
    env = claude_ready(tmp_path, anthropic, project)
    anthropic.script = [*capture_validate_ready(session_id=session_named_in), "Resumed.", "Next."]
    claude_session(project, env, anthropic, "Record where the zebra-42 work stands.", "Handed off.")
    (created,) = events(project, env, "baton.created")
    with claude_tui(project, env) as claude:
        claude.type("/resume")
        claude.wait_for("Resume a previous session", why="/resume in Claude Code's command menu", now=True)
        claude.type("\r")
        claude.wait_for("Resume session", why="Claude Code's resume picker")
        claude.wait_for("❯ Record where the zebra-42 work stands.", why="the picker's selected conversation",
                        now=True)
        claude.type("\r")
        claude.wait_for("Handed off.", why="the resumed conversation", now=True)
        claude_prompt(claude, "go on", "Resumed.")
        claude_exit(claude)
    claude_session(project, env, anthropic, "hello", "Next.")
    anthropic.check()
    assert f"(baton `{subject(created)}`)" in said(anthropic.turns()[-1])


# -- a terminal closed during a running turn -------------------------------------------------------

def closed_during_a_turn(project: Path, env: dict[str, str], harness: Harness) -> list[Terminal]:
    """The agent readies its handoff and the model's last answer is held open; the terminal is
    closed (``SIGHUP``) while that turn runs. Whatever the harness then does — runs its end hook,
    ends without it (by a signal of its own), or goes on without a terminal — the documented rule
    holds: the first start after its process is gone has the readied handoff as a baton, claimed
    once; the session's end is recorded once; a start while that process lives claims nothing
    and says what waits ("has not reported its end … Nothing was claimed")."""
    *readied, answer = harness.hands_off()
    held = Held(answer)
    harness.script([*readied, held])
    harness.script(["Next start.", "Third start."])
    screens = []
    try:
        with harness.start() as closed:
            closed.type("Record where the work stands for the next session.")
            closed.wait_for("Record where the work stands", why="the prompt typed")
            closed.type("\r")
            held.wait_asked()
            closed.hang_up()
            (begun,) = events(project, env, "session.begun")
            first, process = begun["data"]["session"], begun["data"]["harness_process"]["pid"]
            with harness.start() as second:
                harness.prompt(second, "hello", "Next start.")
                harness.leave(second)
            screens.append(second)
            told = harness.told()
            outlived = "has not reported its end" in told
            if outlived:  # alive at that start: nothing claimed, nothing handed on
                assert f"Session `{first}` ({harness.name}" in told and "Nothing was claimed." in told, told
                assert not events(project, env, "baton.created") and not events(project, env, "baton.claimed")
                _killed(process)  # as a person ends it
    finally:
        held.release()
    if outlived:
        with harness.start() as third:
            harness.prompt(third, "hello", "Third start.")
            harness.leave(third)
        screens.append(third)
        told = harness.told()
    (created,) = events(project, env, "baton.created")
    assert created["data"]["session"] == first and f"(baton `{subject(created)}`)" in told, told
    taker = sessions_of(project, env, "session.begun")[-1]
    assert [(subject(e), e["data"]["session"]) for e in events(project, env, "baton.claimed")] \
        == [(subject(created), taker)]
    assert sessions_of(project, env, "session.ended").count(first) == 1
    return screens


def test_a_terminal_closed_during_a_claude_code_turn_leaves_the_readied_handoff_as_a_baton_claimed_once(
        tmp_path, anthropic):
    """``closed_during_a_turn`` with Claude Code."""
    project = git_project(tmp_path / "project")
    env = claude_ready(tmp_path, anthropic, project)
    for screen in closed_during_a_turn(project, env, claude_code(project, env, anthropic)):
        no_hook_trouble_shown(screen)


def test_a_terminal_closed_during_a_gemini_cli_turn_leaves_the_readied_handoff_as_a_baton_claimed_once(
        tmp_path, google, trap):
    """``closed_during_a_turn`` with Gemini CLI."""
    gemini = gemini_ready(tmp_path, google, trap, tmp_path / "home")
    for screen in closed_during_a_turn(gemini.project, gemini.env, gemini_cli(gemini, google)):
        no_hook_trouble_shown(screen)
    assert not trap.seen


# -- resuming inside Gemini CLI's TUI ---------------------------------------------------------------

def gemini_left_a_baton(tmp_path: Path, google: FakeGemini, trap: ProxyTrap,
                        *replies: str) -> tuple[Session, dict[str, Any], str, list[Terminal]]:
    """A first Gemini CLI session readies its handoff and leaves (its baton waits); the model then
    answers ``replies``. The project, that baton's ``baton.created``, the session's id, its screen."""
    gemini = gemini_ready(tmp_path, google, trap, tmp_path / "home")
    google.script = [*gemini_hands_off(), *replies]
    screens = [gemini_session(gemini, "Wrap up the greeting work for the next session.", "Handed off.")]
    (created,) = events(gemini.project, gemini.env, "baton.created")
    (first,) = sessions_of(gemini.project, gemini.env, "session.begun")
    return gemini, created, first, screens


def gemini_resume_in_browser(terminal: Terminal, listed: tuple[str, ...], chosen: str, down: int = 0) -> None:
    """``/resume`` in Gemini CLI's TUI (0.61.0: "Browse auto-saved conversations"), its browser showing
    each of ``listed``; ``down`` presses of the down arrow select ``chosen``, Enter resumes it."""
    terminal.type("/resume")
    terminal.wait_for("Browse auto-saved conversations", why="/resume in Gemini CLI's command list", now=True)
    terminal.type("\r")
    for shown in listed:
        terminal.wait_for(shown, why="Gemini CLI's session browser", now=True)
    if down:
        terminal.type("\x1b[B" * down)  # down, to the earlier conversation
    terminal.wait_for(chosen, why="the earlier conversation selected", now=True)
    terminal.type("\r")
    wait_on_screen(terminal, lambda shown: "Chat Sessions" not in shown and GEMINI_READY in shown,
                   "the resumed conversation's prompt")


def test_resume_inside_gemini_cli_resumes_the_earlier_conversation_which_claims_nothing_and_ends_once(
        tmp_path, google, trap):
    """A fresh Gemini CLI conversation claims the baton an earlier one left (its first request
    carries it); ``/resume`` there (0.61.0: "Browse auto-saved conversations and manage chat
    checkpoints", as ``/chat``; its browser lists the current conversation first, "(current)") and
    Enter on the earlier one resumes it under its id, in the same process: its model is given the
    earlier conversation, nothing is claimed, no second start is recorded, no second baton is left
    and no end recorded twice. (0.61.0 runs no ``SessionEnd`` for the conversation it leaves: the
    fresh one's end is never recorded — a handoff it readied would wait for the first start after
    its process is gone, docs/batons.md, "A session that never ended".)"""
    gemini, created, first, screens = gemini_left_a_baton(tmp_path, google, trap, "Fresh.", "Resumed.")
    with gemini_tui(gemini) as terminal:
        gemini_prompt(terminal, "Take the greeting work on.", "Fresh.")
        assert f"(baton `{subject(created)}`)" in "\n".join(hook_contexts(google.conversation()[-1]))
        terminal.wait_for(GEMINI_READY, why="Gemini CLI's prompt after the reply", now=True)
        # the current conversation is named by its first message: the prompt, and the brief it came with
        gemini_resume_in_browser(terminal, ("Take the greeting work on.<hook_context>", "(current)"), "❯ #2",
                                 down=1)
        resumed = len(google.conversation())
        gemini_prompt(terminal, "go on", "Resumed.")
        gemini_exit(terminal)
    screens.append(terminal)
    fresh = sessions_of(gemini.project, gemini.env, "session.begun")[-1]
    recorded = [(e["type"], e["stream"]) for e in ledger_events(gemini.project, gemini.env)]
    assert "Wrap up the greeting work" in user_text(google.conversation()[resumed]), recorded
    assert sessions_of(gemini.project, gemini.env, "session.begun") == [first, fresh], recorded
    assert [(subject(e), e["data"]["session"]) for e in events(gemini.project, gemini.env, "baton.claimed")] \
        == [(subject(created), fresh)], recorded
    assert len(events(gemini.project, gemini.env, "baton.created")) == 1, recorded
    # 0.61.0 runs no ``SessionEnd`` for the conversation /resume leaves, and its exit's ends the
    # resumed one, whose end was recorded before: the fresh conversation's end is never recorded
    assert sessions_of(gemini.project, gemini.env, "session.ended") == [first], recorded
    assert sessions_of(gemini.project, gemini.env, "session.resumed") == [], recorded
    assert not trap.seen
    for screen in screens:
        no_hook_trouble_shown(screen)


def test_resume_at_once_inside_a_fresh_gemini_cli_session_spends_the_baton_its_start_claimed(tmp_path, google, trap):
    """A known gap, run for real (docs/batons.md, "A baton spent without reaching a model"): a fresh
    ``gemini`` start claims the waiting baton and keeps its brief for its first prompt; ``/resume``
    at once (its browser lists only the earlier conversation: the fresh one has no message yet) and
    Enter switch the process to the earlier conversation under *its* id. No hook runs for the switch
    and 0.61.0 runs no ``SessionEnd`` for the conversation it leaves: the first prompt's
    ``BeforeAgent`` names the earlier id, so the fresh start's mark is never found, its brief never
    given (the resumed request carries no baton), its end never recorded. The next start is told the
    baton was claimed by that session, with the pointer to the handoff, and claims nothing."""
    gemini, created, first, screens = gemini_left_a_baton(tmp_path, google, trap, "Resumed.", "Next session.")
    with gemini_tui(gemini) as terminal:
        gemini_resume_in_browser(terminal, ("Chat Sessions (1 total)",), "❯ #1")
        resumed = len(google.conversation())
        gemini_prompt(terminal, "go on", "Resumed.")
        gemini_exit(terminal)
    screens.append(terminal)
    _, fresh = sessions_of(gemini.project, gemini.env, "session.begun")
    handoff = subject(created)
    assert [(subject(e), e["data"]["session"]) for e in events(gemini.project, gemini.env, "baton.claimed")] \
        == [(handoff, fresh)]
    assert handoff not in user_text(google.conversation()[resumed])  # the claimed baton reached no model
    assert sessions_of(gemini.project, gemini.env, "session.ended") == [first]  # the fresh one's: never
    assert (gemini.project / ".baton" / "cache" / "unprompted" / fresh).exists()
    with gemini_tui(gemini) as after:
        gemini_prompt(after, "hello", "Next session.")
        gemini_exit(after)
    screens.append(after)
    [told] = hook_contexts(google.conversation()[-1])
    assert f"was already claimed by session {fresh}" in told and "## Latest ready handoff" in told, told
    assert len(events(gemini.project, gemini.env, "baton.claimed")) == 1
    assert len(events(gemini.project, gemini.env, "baton.created")) == 1
    assert not trap.seen
    for screen in screens:
        no_hook_trouble_shown(screen)


# -- Codex: leaving a running turn in the background ------------------------------------------------

def test_run_in_background_when_leaving_codex_during_a_turn_leaves_it_running_and_its_stop_leaves_the_baton(
        tmp_path, openai, trap):
    """Ctrl-C while a Codex turn runs (the agent has readied its handoff, the model's answer is held)
    asks "Task is still running"; "2. Run in background" ("Exit Codex and leave the task running")
    leaves the TUI (status 0, "Disconnected from this task. Any running work continues.") and not the
    turn: no end is recorded while it waits, and once the model answers, the turn's ``Stop`` in
    Codex's background server records the session's end, once, and leaves the handoff as its baton."""
    codex = codex_ready(tmp_path, openai, trap)
    held = Held("Handed off.")
    try:
        openai.script = [*codex_hands_off()[:-1], held]
        with codex_tui(codex) as terminal:
            codex_turn_held(terminal, held)
            terminal.wait_for("esc to interrupt", why="Codex's running turn", now=True)
            terminal.type("\x03")
            terminal.wait_for("Task is still running", why="Codex's question after Ctrl-C in a turn")
            terminal.type("\x1b[B")  # down, to the second choice
            terminal.wait_for("› 2. Run in background", why="Codex's second choice, selected", now=True)
            terminal.type("\r")
            terminal.wait_for("Any running work continues.", why="Codex's goodbye, the turn left running")
            assert terminal.wait_until_ended() == 0, terminal.screen()
        assert not events(codex.project, codex.env, "session.ended")  # the turn waits for its answer
        held.release()
        (created,) = wait_for_event(codex.project, codex.env, "baton.created")
    finally:
        held.release()
        codex_daemon_stopped(codex)
    (sid,) = sessions_of(codex.project, codex.env, "session.begun")
    assert created["data"]["session"] == sid and sessions_of(codex.project, codex.env, "session.ended") == [sid]
    assert subject(created) == [e["stream"].split("/", 1)[1] for e in events(codex.project, codex.env,
                                                                              "handoff.promoted")][0]
    no_hook_trouble_shown(terminal)


def test_chat_resume_in_a_fresh_gemini_cli_session_loads_the_checkpoint_and_its_first_prompt_carries_the_claimed_baton(
        tmp_path, google, trap):
    """``/chat save TAG`` in a session that readied its handoff ("Conversation checkpoint saved with
    tag"), then its exit leaves the baton; a fresh ``gemini`` start claims it, once, and ``/chat
    resume TAG`` there loads the checkpoint into that session (no hook runs: no second start, no
    claim, no end). 0.61.0 replaces the history — the earlier session's brief is in it — but the
    fresh start's brief comes with its first prompt (``BeforeAgent``, docs/batons.md, "A baton spent
    without reaching a model"): the model is given the checkpoint's conversation and, with the
    prompt, the fresh session's brief carrying the baton it claimed; its end hands nothing on again."""
    gemini = gemini_ready(tmp_path, google, trap, tmp_path / "home")
    google.script = [*gemini_hands_off(), "Resumed."]
    screens = []
    with gemini_tui(gemini) as terminal:
        gemini_prompt(terminal, "Wrap up the greeting work for the next session.", "Handed off.")
        terminal.wait_for(GEMINI_READY, why="Gemini CLI's prompt after the reply", now=True)
        terminal.type("/chat save greeting")
        terminal.wait_for("/chat save greeting", why="/chat save typed", now=True)
        terminal.type("\r")
        terminal.wait_for("Conversation checkpoint saved with tag: greeting.", why="the checkpoint saved")
        gemini_exit(terminal)
    screens.append(terminal)
    (created,) = events(gemini.project, gemini.env, "baton.created")
    (first,) = sessions_of(gemini.project, gemini.env, "session.begun")
    with gemini_tui(gemini) as terminal:
        # The prompt shows while the start's hook still runs, and an Enter pressed while the command's
        # suggestions load is taken by the menu (seen once under CI's load): type when both are done.
        terminal.wait_gone("Executing Hook", why="the start's hook still running")
        terminal.type("/chat resume greeting")
        terminal.wait_for("/chat resume greeting", why="/chat resume typed", now=True)
        terminal.wait_gone("Loading suggestions", why="the command's suggestions still loading")
        terminal.type("\r")
        terminal.wait_for("Handed off.", why="the checkpoint's conversation", now=True)
        gemini_prompt(terminal, "go on", "Resumed.")
        gemini_exit(terminal)
    screens.append(terminal)
    _, fresh = sessions_of(gemini.project, gemini.env, "session.begun")
    earlier, told = hook_contexts(google.conversation()[-1])
    assert "Wrap up the greeting work" in user_text(google.conversation()[-1])
    assert f"This is gemini-cli session `{first}`" in earlier  # the checkpoint's, as saved
    assert told.startswith("## 🤝 Active Session Handoff") and f"(baton `{subject(created)}`)" in told, told
    assert f"This is gemini-cli session `{fresh}`" in told
    assert [(subject(e), e["data"]["session"]) for e in events(gemini.project, gemini.env, "baton.claimed")] \
        == [(subject(created), fresh)]
    assert len(events(gemini.project, gemini.env, "baton.created")) == 1
    assert sessions_of(gemini.project, gemini.env, "session.ended") == [first, fresh]
    assert not trap.seen
    for screen in screens:
        no_hook_trouble_shown(screen)


def test_a_second_terminal_on_the_branch_while_a_codex_turn_runs_claims_nothing_until_its_stop_leaves_the_baton(
        tmp_path, anthropic, openai, trap):
    """Terminal A runs Codex, whose agent has readied its handoff in a turn still running (the
    model's answer held: its ``Stop``, which records a Codex session's end, has not run); terminal
    B starts Claude Code on the same project and branch: B's brief says A's session "has not
    reported its end", and B claims nothing. Once A's turn ends, its ``Stop`` leaves the baton; the
    next start claims it, exactly once."""
    project, env, codex, claude = codex_beside_claude_code(tmp_path, anthropic, openai, trap)
    held = Held("Handed off.")
    screens: list[Terminal] = []
    try:
        openai.script = [*codex_hands_off()[:-1], held]
        with codex_tui(codex) as a:
            codex_turn_held(a, held)
            (first,) = sessions_of(project, env, "session.begun")
            nothing_claimed_beside(project, env, hello_in(claude, "Second terminal.", screens), first, "codex",
                                   "its end")
            created = codex_turn_released(codex, a, held)
        screens.append(a)
    finally:
        held.release()
        codex_daemon_stopped(codex)
    assert created["data"]["session"] == first
    claimed_once_by_the_next_start(project, env, claude, subject(created), first, screens)
    anthropic.check()


def codex_beside_claude_code(tmp_path: Path, anthropic: FakeAnthropic, openai: FakeResponses, trap: ProxyTrap
                             ) -> tuple[Path, dict[str, str], CodexProject, Harness]:
    """One git project, Claude Code's environment and Codex's, both ready in it (Claude Code's
    answers scripted: "Second terminal.", then "Next start.")."""
    project = git_project(tmp_path / "project")
    env = claude_ready(tmp_path, anthropic, project)
    codex = codex_ready(tmp_path, openai, trap)
    assert codex.project == project
    claude = claude_code(project, env, anthropic)
    claude.script(["Second terminal.", "Next start."])
    return project, env, codex, claude


def codex_turn_released(codex: CodexProject, terminal: Terminal, held: Held) -> dict[str, Any]:
    """The held answer given: the turn's ``Stop`` leaves a baton (its event returned), the turn's end
    shows, and the person leaves Codex."""
    held.release()
    (created,) = wait_for_event(codex.project, codex.env, "baton.created")
    wait_on_screen(terminal, lambda shown: CODEX_READY in shown and "esc to interrupt" not in shown,
                   "the end of Codex's turn")
    codex_exit(terminal)
    return created


# -- inter22: Codex's "Exit" after Ctrl-C in a turn, a later Codex turn beside a second terminal ----

def codex_interrupted_then(terminal: Terminal, choice: str) -> None:
    """Ctrl-C while a Codex turn runs ("Task is still running"), and ``choice`` (``"3. Exit"``, …) chosen
    with the arrow keys and Enter."""
    terminal.wait_for("esc to interrupt", why="Codex's running turn", now=True)
    terminal.type("\x03")
    terminal.wait_for("Task is still running", why="Codex's question after Ctrl-C in a turn")
    terminal.wait_for("› 1. Cancel task", why="Codex's first choice, selected", now=True)
    for number in range(1, int(choice.split(".")[0])):
        terminal.type("\x1b[B")  # down
        terminal.wait_for(f"› {number + 1}. ", why="the next choice, selected", now=True)
    terminal.wait_for(f"› {choice}", why=f"Codex's choice {choice!r}, selected", now=True)
    terminal.type("\r")


def test_exit_when_leaving_codex_during_a_turn_stops_it_and_its_interrupt_leaves_the_readied_handoff_as_the_baton(
        tmp_path, openai, trap):
    """Ctrl-C while a Codex turn runs (the agent has readied its handoff, the model's answer is held)
    and "3. Exit" ("Stop the current task and exit Codex"): the TUI leaves (status 0, "The current turn
    was stopped", "To reconnect, run: codex resume ID") and the turn stops with no ``Stop`` — but with
    ``Interrupt``, which Codex 0.171.0 runs for it in its background server: that hook records the
    session's end and leaves the readied handoff as its baton. The next ``codex`` start in the project
    receives it, exactly once, with no word of a session that "has not reported its end"."""
    codex = codex_ready(tmp_path, openai, trap)
    held = Held()
    screens = []
    try:
        openai.script = [*codex_hands_off()[:-1], held, "Next start."]
        with codex_tui(codex) as terminal:
            codex_turn_held(terminal, held)
            codex_interrupted_then(terminal, "3. Exit")
            terminal.wait_for("The current turn was stopped.", why="Codex's goodbye, the turn stopped")
            assert terminal.wait_until_ended() == 0, terminal.screen()
        screens.append(terminal)
        (sid,) = sessions_of(codex.project, codex.env, "session.begun")
        assert f"codex resume {sid}" in terminal.screen(), terminal.screen()
        (readied,) = [e["stream"].split("/", 1)[1] for e in events(codex.project, codex.env, "handoff.promoted")]
        (created,) = wait_for_event(codex.project, codex.env, "baton.created")
        assert created["data"]["session"] == sid and subject(created) == readied
        assert sessions_of(codex.project, codex.env, "session.ended") == [sid]
        claimed_once_by_the_next_start(codex.project, codex.env, codex_cli(codex, openai), readied, sid, screens)
    finally:
        held.release()
        codex_daemon_stopped(codex)


def test_a_second_terminal_on_the_branch_during_a_later_codex_turn_claims_nothing_until_that_turns_stop_leaves_the_baton(
        tmp_path, anthropic, openai, trap):
    """Terminal A runs Codex: its first turn readies nothing (its ``Stop`` records the session's end,
    leaving no baton); in its second the agent readies its handoff and the model's answer is held
    (that turn's ``Stop`` has not run). Terminal B starts Claude Code on the same project and branch:
    B's brief says A's session "has not reported the end of the turn in which it readied handoff …
    Nothing was claimed" (its harness process, Codex's background server, lives), and no baton is
    made or claimed. Once A's turn ends, its ``Stop`` hands the handoff on as the baton (no second
    end); the next start claims it, exactly once."""
    project, env, codex, claude = codex_beside_claude_code(tmp_path, anthropic, openai, trap)
    held = Held("Handed off.")
    screens: list[Terminal] = []
    try:
        openai.script = ["Hello.", *codex_hands_off()[:-1], held]
        with codex_tui(codex) as a:
            codex_prompt(a, "hello", "Hello.")
            (first,) = sessions_of(project, env, "session.begun")
            assert wait_for_event(project, env, "session.ended") and not events(project, env, "baton.created")
            codex_turn_held(a, held)
            (readied,) = [e["stream"].split("/", 1)[1] for e in events(project, env, "handoff.promoted")]
            nothing_claimed_beside(project, env, hello_in(claude, "Second terminal.", screens), first, "codex",
                                   f"the end of the turn in which it readied handoff `{readied}`")
            created = codex_turn_released(codex, a, held)
        screens.append(a)
    finally:
        held.release()
        codex_daemon_stopped(codex)
    assert created["data"]["session"] == first and subject(created) == readied
    claimed_once_by_the_next_start(project, env, claude, readied, first, screens)
    anthropic.check()



# -- inter22: /compact in an interactive Claude Code session that received a baton ------------------

def test_compact_in_claude_code_after_it_received_a_baton_saves_one_draft_and_its_completion_is_the_baton_claimed_once(
        tmp_path, anthropic):
    """A Claude Code session whose start claimed the earlier session's baton looks around (three tool
    calls), then the person types ``/compact`` ("Compacted"): ``PreCompact`` saves one draft for the
    session, and the next request is told it ("Baton saved this session's work before the
    compaction: draft handoff …") and, read-only, the baton the session received ("nothing was
    claimed again", its next step); no second start, no second claim. The agent completes the draft
    as told (``handoff_capture`` with the draft as ``parent``, validate, ready); ``/exit`` records the
    end once and leaves that handoff as the baton, and the next start claims it, exactly once."""
    project = git_project(tmp_path / "project")
    env = claude_ready(tmp_path, anthropic, project)
    an_earlier_baton(project, env)
    (earlier,) = [subject(e) for e in events(project, env, "baton.created")]
    anthropic.script = [baton_tool("baton_status"), baton_tool("handoff_list"), baton_tool("baton_status"), "Looked.",
                        *capture_validate_ready(parent=draft_named_in)]
    with claude_tui(project, env) as claude:
        claude_prompt(claude, "Look at the project's handoffs.", "Looked.")
        claude.type("/compact")
        claude.wait_for("Free up context by summarizing", why="/compact in Claude Code's command menu", now=True)
        claude.type("\r")
        claude.wait_for("Compacted", why="Claude Code's compaction")
        (sid,) = sessions_of(project, env, "session.begun")
        (draft,) = [subject(e) for e in events(project, env, "handoff.captured") if subject(e) != earlier]
        asked = len(anthropic.turns())
        claude_prompt(claude, "Hand the work on as Baton says.", "Handed off.")
        claude_exit(claude)
    told = said(anthropic.turns()[asked])
    assert f"Baton saved this session's work before the compaction: draft handoff {draft[-8:]} ({draft})" in told
    assert f"This session received baton `{earlier}`" in told and "nothing was claimed again" in told, told
    assert EARLIER_STEP in told.split("This session received baton", 1)[1]
    assert sessions_of(project, env, "session.begun") == [sid]
    assert [(subject(e), e["data"]["session"]) for e in events(project, env, "baton.claimed")] == [(earlier, sid)]
    (created,) = [e for e in events(project, env, "baton.created") if e["data"]["session"] == sid]
    assert subject(created) not in (earlier, draft)
    assert sessions_of(project, env, "session.ended") == ["earlier-session", sid]
    anthropic.script = ["Next start."]
    nxt = claude_session(project, env, anthropic, "hello", "Next start.")
    assert f"(baton `{subject(created)}`)" in said(anthropic.turns()[-1])
    taker = sessions_of(project, env, "session.begun")[-1]
    assert [(subject(e), e["data"]["session"]) for e in events(project, env, "baton.claimed")] \
        == [(earlier, sid), (subject(created), taker)]
    for screen in (claude, nxt):
        no_hook_trouble_shown(screen)


# -- inter22: Esc during a Codex turn ---------------------------------------------------------------

def test_esc_during_a_codex_turn_interrupts_it_without_a_question_and_its_interrupt_leaves_the_baton(
        tmp_path, openai, trap):
    """Esc while a Codex turn runs ("esc to interrupt", the key its status line names; the agent has
    readied its handoff, the model's answer is held) interrupts the turn at once, asking nothing (no
    "Task is still running"), and runs no ``Stop`` for it but ``Interrupt``: the session's end is
    recorded, once, and the handoff readied in the interrupted turn is its baton. The session goes on
    (its next turn's ``Stop`` leaves no second baton); the next start claims it, exactly once."""
    codex = codex_ready(tmp_path, openai, trap)
    held = Held()
    screens = []
    try:
        openai.script = [*codex_hands_off()[:-1], held, "Going on.", "Next start."]
        with codex_tui(codex) as terminal:
            codex_turn_held(terminal, held)
            terminal.wait_for("esc to interrupt", why="Codex's running turn", now=True)
            terminal.type("\x1b")
            wait_on_screen(terminal, lambda shown: "esc to interrupt" not in shown and CODEX_READY in shown,
                           "the interrupted turn")
            assert "Task is still running" not in terminal.transcript()
            (created,) = wait_for_event(codex.project, codex.env, "baton.created")  # the Interrupt hook's
            codex_prompt(terminal, "go on", "Going on.")
            codex_exit(terminal)
        screens.append(terminal)
        (sid,) = sessions_of(codex.project, codex.env, "session.begun")
        (readied,) = [e["stream"].split("/", 1)[1] for e in events(codex.project, codex.env, "handoff.promoted")]
        assert created["data"]["session"] == sid and subject(created) == readied
        assert sessions_of(codex.project, codex.env, "session.ended") == [sid]
        claimed_once_by_the_next_start(codex.project, codex.env, codex_cli(codex, openai), readied, sid, screens)
    finally:
        held.release()
        codex_daemon_stopped(codex)
    assert len(sessions_of(codex.project, codex.env, "session.begun")) == 2



def test_esc_in_the_first_turn_of_a_codex_session_given_a_baton_ends_the_session_there_and_spends_the_baton_once(
        tmp_path, openai, trap):
    """A baton waits; Codex runs ``SessionStart`` with the first prompt, which claims it, and that
    turn's request carries it. Esc while the model's answer is held: Codex 0.171.0 runs no ``Stop``
    for the turn but ``Interrupt`` (its payload recorded: ``tests/fixtures/hooks/codex/Interrupt.json``),
    which records the session's end, the TUI still open; leaving it runs no hook. The baton is spent:
    nothing is handed on again, and the next start is not given it — claimed once, by the session
    whose request carried it."""
    codex = codex_ready(tmp_path, openai, trap)
    an_earlier_baton(codex.project, codex.env)
    (handoff,) = [subject(e) for e in events(codex.project, codex.env, "baton.created")]
    held = Held()
    screens = []
    try:
        openai.script = [held, "Next start."]
        with codex_tui(codex) as terminal:
            terminal.type("hello")
            terminal.wait_for("› hello", why="the prompt typed", now=True)
            terminal.type("\r")
            held.wait_asked()
            terminal.wait_for("esc to interrupt", why="Codex's running turn", now=True)
            terminal.type("\x1b")
            wait_on_screen(terminal, lambda shown: "esc to interrupt" not in shown and CODEX_READY in shown,
                           "the interrupted turn")
            wait_for_event(codex.project, codex.env, "session.ended", 2)  # the earlier one's, and the Interrupt's
            codex_exit(terminal)
        screens.append(terminal)
        (sid,) = sessions_of(codex.project, codex.env, "session.begun")
        assert f"(baton `{handoff}`)" in "\n".join(developer_texts(openai.turns()[0]))
        told = hello_in(codex_cli(codex, openai), "Next start.", screens)
    finally:
        held.release()
        codex_daemon_stopped(codex)
    assert f"(baton `{handoff}`)" not in told, told
    assert len(sessions_of(codex.project, codex.env, "session.begun")) == 2
    assert [(subject(e), e["data"]["session"]) for e in events(codex.project, codex.env, "baton.claimed")] \
        == [(handoff, sid)]
    assert len(events(codex.project, codex.env, "baton.created")) == 1
    assert sessions_of(codex.project, codex.env, "session.ended").count(sid) == 1
    for screen in screens:
        no_hook_trouble_shown(screen)


def test_esc_during_a_codex_turn_on_a_busy_ledger_keeps_the_end_within_codex_s_limit_and_hands_the_baton_on_after(
        tmp_path, openai, trap):
    """Esc while another process holds the ledger lock (a long rebuild or sync): Codex gives the
    ``Interrupt`` hook at most 3 s, whatever Baton writes, so the hook waits for the lock at most
    1.2 s and keeps the session's end for a process that waits (``.baton/deferred/``) — not killed
    with "hook timed out after 3s" and nothing kept, as when it waited 3 s (harness25, run for real).
    Once the lock is let go, that process records the end and hands the readied handoff on."""
    codex = codex_ready(tmp_path, openai, trap)
    codex.env = {k: v for k, v in codex.env.items() if k != "BATON_HOOK_LOCK_WAIT"}  # the default wait
    with codex_turn_running(codex, openai) as terminal:
        with lock_held_elsewhere(codex.project):
            terminal.type("\x1b")
            wait_on_screen(terminal, lambda shown: "esc to interrupt" not in shown and CODEX_READY in shown,
                           "the interrupted turn")
            deadline = time.monotonic() + 60
            while not kept_hooks(codex.project):
                assert time.monotonic() < deadline, terminal.screen()
                time.sleep(0.2)
            assert events(codex.project, codex.env, "baton.created") == []  # kept, not done: the lock is held
        (created,) = wait_for_event(codex.project, codex.env, "baton.created")  # the waiting process's
        assert "timed out" not in terminal.transcript() + terminal.screen()
        codex_exit(terminal)
    (sid,) = sessions_of(codex.project, codex.env, "session.begun")
    (readied,) = [e["stream"].split("/", 1)[1] for e in events(codex.project, codex.env, "handoff.promoted")]
    assert created["data"]["session"] == sid and subject(created) == readied
    assert sessions_of(codex.project, codex.env, "session.ended") == [sid]


# -- inter22: /compact in an interactive Codex session that received a baton ------------------------

def test_compact_in_codex_after_it_received_a_baton_saves_one_draft_whose_completion_a_later_stop_hands_on_once(
        tmp_path, openai, trap):
    """A Codex session whose start claimed the earlier session's baton has one turn (its ``Stop``
    records the session's end, leaving no baton), then the person types ``/compact`` ("Context
    compacted"): ``PreCompact`` saves one draft for the session, and the next turn's request is told
    it ("Baton saved this session's work before the compaction: draft handoff …") and, read-only,
    the baton the session received ("nothing was claimed again"); no second start, no second claim.
    The agent completes the draft as told (``handoff_capture`` with the draft as ``parent``,
    validate, ready); that turn's ``Stop`` hands it on as the baton (no second end), and the next
    start claims it, exactly once."""
    codex = codex_ready(tmp_path, openai, trap)
    screens = []

    def the_draft(recorded) -> dict[str, Any]:
        found = re.findall(r"`parent` ([0-9a-f-]{36})", "\n".join(developer_texts(recorded)))
        assert found, developer_texts(recorded)
        return {**_capture_body(), "parent": found[-1]}

    try:
        an_earlier_baton(codex.project, codex.env)
        (earlier,) = [subject(e) for e in events(codex.project, codex.env, "baton.created")]
        openai.script = ["Hello.", "Summary of the work so far.", *captured_validated_ready(the_draft), "Next start."]
        with codex_tui(codex) as terminal:
            codex_prompt(terminal, "hello", "Hello.")
            wait_for_event(codex.project, codex.env, "session.ended", 2)
            (sid,) = sessions_of(codex.project, codex.env, "session.begun")
            terminal.type("/compact")
            terminal.wait_for("summarize conversation", why="/compact in Codex's command menu", now=True)
            terminal.type("\r")
            terminal.wait_for("Context compacted", why="Codex's compaction")
            (draft,) = [subject(e) for e in events(codex.project, codex.env, "handoff.captured")
                        if subject(e) != earlier]
            asked = len(openai.turns())
            codex_prompt(terminal, "Hand the work on as Baton says.", "Handed off.")
            (created,) = [e for e in wait_for_event(codex.project, codex.env, "baton.created", 2)
                          if e["data"]["session"] == sid]
            codex_exit(terminal)
        screens.append(terminal)
        hello_in(codex_cli(codex, openai), "Next start.", screens)
    finally:
        codex_daemon_stopped(codex)
    told = "\n".join(developer_texts(openai.turns()[asked]))
    assert f"Baton saved this session's work before the compaction: draft handoff {draft[-8:]} ({draft})" in told
    assert f"This session received baton `{earlier}`" in told and "nothing was claimed again" in told, told
    assert EARLIER_STEP in told.split("This session received baton", 1)[1]
    assert subject(created) not in (earlier, draft)
    assert sessions_of(codex.project, codex.env, "session.ended").count(sid) == 1
    _, taker = sessions_of(codex.project, codex.env, "session.begun")
    assert f"(baton `{subject(created)}`)" in "\n".join(developer_texts(openai.turns()[-1]))
    assert [(subject(e), e["data"]["session"]) for e in events(codex.project, codex.env, "baton.claimed")] \
        == [(earlier, sid), (subject(created), taker)]
    for screen in screens:
        no_hook_trouble_shown(screen)
