"""The default ``baton install-hooks`` (no ``--events``) loses no baton in Claude Code and Gemini CLI,
run for real: each harness's TUI in a pseudo-terminal (``tests/e2e/terminal.py``), against its
scripted model on 127.0.0.1.

Both harnesses run ``SessionStart`` when their TUI opens, before anything is typed, and its claim of
the waiting baton is made then. The default install wires the prompt hook (``UserPromptSubmit``,
``BeforeAgent``; in Claude Code a turn's end, ``Stop`` and ``Interrupt``, too) beside start, end and compaction, so a
session closed before its first prompt — whose brief reached no model — hands the baton it claimed
on again at its end (``baton.created``, ``reason: "unprompted"``) and the next session receives it;
a session whose prompt reached the model spends it: claimed once, by that session, even when the person
cancels that turn (Esc) before the model answers; a bash-mode command stopped with Esc before any request
keeps it (docs/batons.md, "A baton spent without reaching a model").
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.common import Held, ProxyTrap, git_project, run_baton
from tests.e2e.fake_anthropic import FakeAnthropic, claude_env, said
from tests.e2e.fake_gemini import FakeGemini, hook_contexts
from tests.e2e.test_gemini_cli import Session
from tests.e2e.test_interactive import (
    claude_exit,
    claude_home,
    claude_prompt,
    claude_session,
    claude_tui,
    events,
    gemini_exit,
    gemini_prompt,
    gemini_session,
    gemini_tui,
    interactive,
    wait_on_screen,
)
from tests.harness_support import unprompted_mark

pytestmark = pytest.mark.e2e

STEP = "Wire the zebra-42 parser into the CLI"
"""The next step the waiting baton carries: a brief that delivers it shows it."""


def claims(project: Path, env: dict[str, str]) -> list[tuple[str, str]]:
    """Each ``baton.claimed``: (the handoff it carries, the session that claimed it), in order."""
    return [(e["data"]["handoff_id"], e["data"]["session"]) for e in events(project, env, "baton.claimed")]


def began(project: Path, env: dict[str, str]) -> list[str]:
    return [e["stream"].split("/", 1)[1] for e in events(project, env, "session.begun")]


def wait_for_claims(project: Path, env: dict[str, str], count: int, timeout: float = 120) -> None:
    """Until the ledger holds ``count`` claims (the start hook runs beside the TUI's first frames)."""
    deadline = time.monotonic() + timeout
    while len(claims(project, env)) < count:
        assert time.monotonic() < deadline, f"{count} claims never recorded: {claims(project, env)}"
        time.sleep(0.5)


def a_waiting_baton(project: Path, env: dict[str, str]) -> str:
    """An earlier session's baton, waiting on this branch; its handoff's id."""
    left = run_baton(project, env, "session", "end", "earlier-session", "--handoff-steps", STEP)
    assert left.returncode == 0, left.stderr
    (created,) = events(project, env, "baton.created")
    return created["data"]["handoff_id"]


def unprompted_hand_ons(project: Path, env: dict[str, str]) -> list[dict[str, Any]]:
    return [e for e in events(project, env, "baton.created") if e["data"].get("reason") == "unprompted"]


# -- Claude Code -----------------------------------------------------------------------------------

@pytest.fixture
def anthropic():
    with FakeAnthropic() as fake:
        yield fake


def claude_installed(tmp_path: Path, model: FakeAnthropic, project: Path) -> dict[str, str]:
    """Claude Code's environment for its TUI (first-run screens done, the folder trusted, Baton's MCP
    tools allowed), Baton wired by the default ``install-hooks``: the prompt hook is among them."""
    env = interactive(claude_env(tmp_path / "claude-home", model))
    installed = run_baton(project, env, "install-hooks", "--harness", "claude-code")
    assert installed.returncode == 0, installed.stderr
    hooks = json.loads((project / ".claude" / "settings.json").read_text())["hooks"]
    assert {"SessionStart", "SessionEnd", "PreCompact", "UserPromptSubmit", "Stop"} <= set(hooks), hooks
    claude_home(env, project)
    return env


def claude_with_a_waiting_baton(tmp_path: Path, model: FakeAnthropic) -> tuple[Path, dict[str, str], str]:
    """A git project, Claude Code wired by the default install (``claude_installed``), an earlier
    session's baton waiting there: the project, the environment, the baton's handoff."""
    project = git_project(tmp_path / "project")
    env = claude_installed(tmp_path, model, project)
    return project, env, a_waiting_baton(project, env)


def handed_on_again_and_claimed_by_the_next_claude_session(project: Path, env: dict[str, str],
                                                           model: FakeAnthropic, handoff: str) -> None:
    """The first session's end handed ``handoff`` on again (``unprompted``), the next session's model is
    given it, and that session claims it: claimed twice, once by each session."""
    (unprompted,) = unprompted_hand_ons(project, env)
    first = began(project, env)[0]
    assert unprompted["data"]["handoff_id"] == handoff and unprompted["data"]["session"] == first
    told = claude_next_session(project, env, model)
    assert f"(baton `{handoff}`)" in told and STEP in told, told
    _, second = began(project, env)
    assert claims(project, env) == [(handoff, first), (handoff, second)]


def claude_next_session(project: Path, env: dict[str, str], model: FakeAnthropic) -> str:
    """A next Claude Code session, one prompt, ``/exit``: what its model was told."""
    claude_session(project, env, model, "hello", "Next.")
    return said(model.turns()[-1])


def test_with_the_default_install_a_claude_code_session_closed_before_its_first_prompt_keeps_the_baton(
        tmp_path, anthropic):
    """Claude Code's TUI opens (its start claims the waiting baton) and is left with ``/exit`` before any
    prompt: its end hands the baton on again, and the next session's model is given it, which that
    session claims — once."""
    project, env, handoff = claude_with_a_waiting_baton(tmp_path, anthropic)
    anthropic.script = ["Next."]
    with claude_tui(project, env) as left:
        wait_for_claims(project, env, 1)
        claude_exit(left)
    handed_on_again_and_claimed_by_the_next_claude_session(project, env, anthropic, handoff)


def test_with_the_default_install_a_claude_code_session_whose_prompt_reached_the_model_spends_the_baton(
        tmp_path, anthropic):
    """The same start, then one prompt: the model is given the baton with it, the end hands nothing on
    again, and the next session is not given it — claimed once, by the session that was."""
    project = git_project(tmp_path / "project")
    env = claude_installed(tmp_path, anthropic, project)
    handoff = a_waiting_baton(project, env)
    anthropic.script = ["Hi.", "Next."]
    with claude_tui(project, env) as claude:
        claude_prompt(claude, "hello", "Hi.")
        claude_exit(claude)
    assert f"(baton `{handoff}`)" in said(anthropic.turns()[0])
    assert not unprompted_hand_ons(project, env)
    told = claude_next_session(project, env, anthropic)
    assert f"(baton `{handoff}`)" not in told, told
    assert claims(project, env) == [(handoff, began(project, env)[0])]


def test_with_the_default_install_a_claude_code_session_begun_in_bash_mode_spends_the_baton(
        tmp_path, anthropic):
    """The same start, then ``! echo …`` as the first input (bash mode): Claude Code runs the command
    and sends the model a turn with its output — the first request, carrying the baton — but runs no
    ``UserPromptSubmit`` for it, only that turn's ``Stop``. The default install wires ``Stop``, which
    removes the start's mark: the end hands nothing on again, and the next session is not given the
    baton — claimed once, by the session whose model was."""
    project = git_project(tmp_path / "project")
    env = claude_installed(tmp_path, anthropic, project)
    handoff = a_waiting_baton(project, env)
    anthropic.script = ["Bash output seen.", "Next."]
    with claude_tui(project, env) as claude:
        wait_for_claims(project, env, 1)
        claude.type("!")
        claude.wait_for("! for shell mode", why="Claude Code's bash mode (its footer)")
        claude.type("echo hi-from-bash-mode")
        claude.type("\r")
        claude.wait_for("Bash output seen.", why="the model's turn after the command")
        claude_exit(claude)
    (first_request,) = anthropic.turns()
    assert f"(baton `{handoff}`)" in said(first_request) and "hi-from-bash-mode" in said(first_request)
    assert not unprompted_hand_ons(project, env)
    told = claude_next_session(project, env, anthropic)
    assert f"(baton `{handoff}`)" not in told, told
    assert claims(project, env) == [(handoff, began(project, env)[0])]


def test_with_the_default_install_a_claude_code_session_begun_in_bash_mode_whose_turn_is_stopped_spends_the_baton(
        tmp_path, anthropic):
    """The same bash-mode first input, and the person presses Esc while the model's answer is held
    (``common.Held``): Claude Code 2.1.337 cancels the turn and runs no ``Stop`` — its ``Interrupt``
    instead (``source: "user"``, ``reason: "stop"``, ``via: "terminal"``; the recorded payload is
    ``tests/fixtures/hooks/claude-code/Interrupt.json``). The default install wires it beside
    ``Stop``: it removes the start's mark, the request that carried the baton having gone out, so
    the end hands nothing on again and the next session is not given the baton — claimed once."""
    project = git_project(tmp_path / "project")
    env = claude_installed(tmp_path, anthropic, project)
    handoff = a_waiting_baton(project, env)
    held = Held()
    anthropic.script = [held, "Next."]
    try:
        with claude_tui(project, env) as claude:
            wait_for_claims(project, env, 1)
            (first,) = began(project, env)
            assert unprompted_mark(project, first).exists()
            claude.type("!")
            claude.wait_for("! for shell mode", why="Claude Code's bash mode (its footer)")
            claude.type("echo hi-from-bash-mode")
            claude.type("\r")
            held.wait_asked()
            claude.type("\x1b")
            claude.wait_for("Interrupted", why="Claude Code's notice of the stopped turn")
            deadline = time.monotonic() + 60
            while unprompted_mark(project, first).exists():  # the Interrupt hook's one unlink
                assert time.monotonic() < deadline, "the stopped turn's hook never removed the start's mark"
                time.sleep(0.25)
            claude_exit(claude)
    finally:
        held.release()
    (first_request,) = anthropic.turns()
    assert f"(baton `{handoff}`)" in said(first_request) and "hi-from-bash-mode" in said(first_request)
    assert not unprompted_hand_ons(project, env)
    told = claude_next_session(project, env, anthropic)
    assert f"(baton `{handoff}`)" not in told, told
    assert claims(project, env) == [(handoff, first)]


def test_with_the_default_install_a_claude_code_session_whose_first_bash_mode_command_is_stopped_with_esc_keeps_the_baton(
        tmp_path, anthropic):
    """The same start, then ``! sleep 30`` as the first input, and Esc while the command itself runs:
    Claude Code 2.1.337 stops the command and puts it back at the prompt (``! sleep 30``, in bash
    mode). Nothing reaches a model — no request, and no ``UserPromptSubmit``, ``Stop`` or
    ``Interrupt`` runs (seen with a recording hook beside Baton's) — so the start's mark stays, and
    the exit's ``SessionEnd`` hands the baton on again (``reason: "unprompted"``): the next
    session's model is given it, which that session claims — as after a session left before its
    first prompt."""
    project, env, handoff = claude_with_a_waiting_baton(tmp_path, anthropic)
    anthropic.script = ["Next."]
    with claude_tui(project, env) as claude:
        wait_for_claims(project, env, 1)
        (first,) = began(project, env)
        claude.type("!")
        claude.wait_for("! for shell mode", why="Claude Code's bash mode (its footer)")
        claude.type("sleep 30")
        claude.type("\r")
        claude.wait_for("Running…", why="the command running")
        claude.type("\x1b")
        wait_on_screen(claude, lambda shown: "Running…" not in shown and "esc to interrupt" not in shown
                       and "sleep 30" in shown, "the stopped command, back at the prompt")
        assert not anthropic.turns() and unprompted_mark(project, first).exists()
        claude.type("\x7f" * (len("sleep 30") + 1))  # the command erased, and bash mode left
        claude_exit(claude)
    handed_on_again_and_claimed_by_the_next_claude_session(project, env, anthropic, handoff)


# -- Gemini CLI ------------------------------------------------------------------------------------

@pytest.fixture
def google():
    with FakeGemini() as fake:
        yield fake


@pytest.fixture
def trap():
    found = ProxyTrap()
    try:
        yield found
    finally:
        found.close()


def gemini_installed(tmp_path: Path, model: FakeGemini, trap: ProxyTrap) -> Session:
    """Gemini CLI's settings and trusted folder (``Session``), Baton wired by the default
    ``install-hooks``: the prompt hook is among them."""
    gemini = Session(tmp_path, model, trap, home=tmp_path / "home", events=None)
    gemini.env = interactive(gemini.env)
    hooks = json.loads((gemini.project / ".gemini" / "settings.json").read_text())["hooks"]
    assert {"SessionStart", "SessionEnd", "PreCompress", "BeforeAgent"} <= set(hooks), hooks
    return gemini


def gemini_next_session(gemini: Session, model: FakeGemini) -> str:
    """A next Gemini CLI session, one prompt, Ctrl-D twice: what its hooks put before its model."""
    gemini_session(gemini, "hello", "Next.")
    return "\n".join(hook_contexts(model.conversation()[-1]))


def test_with_the_default_install_a_gemini_cli_session_closed_before_its_first_prompt_keeps_the_baton(
        tmp_path, google, trap):
    """Gemini CLI opens (its start claims the waiting baton) and is left with Ctrl-D twice before any
    prompt: its end hands the baton on again, and the next session's model is given it, which that
    session claims — once."""
    gemini = gemini_installed(tmp_path, google, trap)
    handoff = a_waiting_baton(gemini.project, gemini.env)
    google.script = ["Next."]
    with gemini_tui(gemini) as left:
        wait_for_claims(gemini.project, gemini.env, 1)
        gemini_exit(left)
    (unprompted,) = unprompted_hand_ons(gemini.project, gemini.env)
    assert unprompted["data"]["handoff_id"] == handoff
    told = gemini_next_session(gemini, google)
    assert f"(baton `{handoff}`)" in told and STEP in told, told
    first, second = began(gemini.project, gemini.env)
    assert claims(gemini.project, gemini.env) == [(handoff, first), (handoff, second)]
    assert not google.script and not trap.seen


def test_with_the_default_install_a_gemini_cli_session_whose_prompt_reached_the_model_spends_the_baton(
        tmp_path, google, trap):
    """The same start, then one prompt: the model is given the baton with it, the end hands nothing on
    again, and the next session is not given it — claimed once, by the session that was."""
    gemini = gemini_installed(tmp_path, google, trap)
    handoff = a_waiting_baton(gemini.project, gemini.env)
    google.script = ["Hi.", "Next."]
    with gemini_tui(gemini) as terminal:
        gemini_prompt(terminal, "hello", "Hi.")
        gemini_exit(terminal)
    assert f"(baton `{handoff}`)" in "\n".join(hook_contexts(google.conversation()[0]))
    assert not unprompted_hand_ons(gemini.project, gemini.env)
    told = gemini_next_session(gemini, google)
    assert f"(baton `{handoff}`)" not in told, told
    assert claims(gemini.project, gemini.env) == [(handoff, began(gemini.project, gemini.env)[0])]
    assert not google.script and not trap.seen


def test_with_the_default_install_a_gemini_cli_session_whose_first_turn_is_cancelled_with_esc_spends_the_baton(
        tmp_path, google, trap):
    """The same start, then one prompt, and Esc while the model's answer is held ("esc to cancel"):
    Gemini CLI 0.61.0 cancels the request ("Request cancelled."). Its ``BeforeAgent`` ran before the
    request went out: it gave the brief, with the baton, in that request and removed the start's
    mark. (The cancelled turn then runs ``AfterAgent``, seen with a recording hook; Baton wires
    none: the mark is gone by then.) The exit's ``SessionEnd`` records the end once and hands
    nothing on again, and the next session is not given the baton — claimed once."""
    gemini = gemini_installed(tmp_path, google, trap)
    handoff = a_waiting_baton(gemini.project, gemini.env)
    held = Held()
    google.script = [held, "Next."]
    try:
        with gemini_tui(gemini) as terminal:
            wait_for_claims(gemini.project, gemini.env, 1)
            (first,) = began(gemini.project, gemini.env)
            assert unprompted_mark(gemini.project, first).exists()
            terminal.type("hello")
            terminal.wait_for("hello", why="the prompt typed")
            terminal.type("\r")
            held.wait_asked()
            assert not unprompted_mark(gemini.project, first).exists()  # BeforeAgent's, before the request
            terminal.wait_for("esc to cancel", why="Gemini CLI's running turn", now=True)
            terminal.type("\x1b")
            terminal.wait_for("Request cancelled.", why="Gemini CLI's notice of the cancelled request")
            gemini_exit(terminal)
    finally:
        held.release()
    assert f"(baton `{handoff}`)" in "\n".join(hook_contexts(google.conversation()[0]))
    assert not unprompted_hand_ons(gemini.project, gemini.env)
    ended = [e["stream"].split("/", 1)[1] for e in events(gemini.project, gemini.env, "session.ended")]
    assert ended.count(first) == 1
    told = gemini_next_session(gemini, google)
    assert f"(baton `{handoff}`)" not in told, told
    assert claims(gemini.project, gemini.env) == [(handoff, first)]
    assert not google.script and not trap.seen
