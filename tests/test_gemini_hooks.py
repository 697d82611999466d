"""Gemini CLI 0.61's own shapes, as the real program sends them (tests/e2e/test_gemini_cli.py):

- BeforeAgent's ``prompt`` is the model's text, the SessionStart context in
  front: ``<hook_context>…</hook_context>\\n\\n`` then what the person typed;
- PreCompress fires with ``trigger: auto`` before every turn, ahead of the
  CLI's own threshold check, so only ``manual`` (``/compress``) is a real
  compaction; an ``auto`` costs nothing;
- ``/clear`` fires SessionStart ``clear`` but gives its ``additionalContext`` to
  no model (only a ``systemMessage`` is shown): such a start claims nothing.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from baton.harnesses import adapter
from baton.harnesses.gemini_cli import unwrap_prompt
from baton.harnesses.install import ALL_EVENTS, install_hooks
from tests.cli_support import run, run_json
from tests.handoff_support import ledger_lines
from tests.harness_support import fixture, hook, injected

BRIEF = ("## Baton\n\nNo ready handoff is waiting. Say \"continue later\" or \"handoff\" to prepare one; "
         "the skill names the tools (`mcp_baton_handoff_capture`).")


def _wrapped(context: str, typed: str) -> str:
    """What Gemini CLI 0.61 passes as BeforeAgent's ``prompt`` (gemini.js: ``${wrappedContext}\\n\\n${input}``)."""
    return f"<hook_context>{context}</hook_context>\n\n{typed}"


def _prompt(repo, prompt):
    return hook(repo, "gemini-cli", "BeforeAgent", fixture("gemini-cli", "BeforeAgent", repo, prompt=prompt))


def test_a_request_behind_geminis_hook_context_prepares_a_draft(repo):
    outcome = _prompt(repo, _wrapped(BRIEF, "continue later"))
    assert outcome.problem is None
    assert outcome.result.action == "prepare" and outcome.result.draft
    assert "draft handoff" in injected("gemini-cli", outcome.answer)


def test_the_prompt_gemini_0_61_sent_for_continue_later_prepares_a_draft(repo):
    # Captured from the real CLI (tests/fixtures/hooks/README.md): the brief wrapped in front.
    captured = fixture("gemini-cli", "BeforeAgent.wrapped", repo)
    assert captured["prompt"].startswith("<hook_context>## Baton") and captured["prompt"].endswith("continue later")
    outcome = hook(repo, "gemini-cli", "BeforeAgent", captured)
    assert outcome.problem is None and outcome.result.action == "prepare" and outcome.result.draft


def test_a_phrase_inside_the_context_is_not_the_persons_request(repo):
    lines = ledger_lines(repo)
    outcome = _prompt(repo, _wrapped("say continue later", "fix the parser"))
    assert outcome.result is None and outcome.answer == "{}"
    assert ledger_lines(repo) == lines


@pytest.mark.parametrize("prompt, typed", [
    (_wrapped(BRIEF, "continue later"), "continue later"),
    (_wrapped("quotes </hook_context> inside", "handoff"), "handoff"),
    ("  " + _wrapped("a", "") + _wrapped("b", "new session"), "new session"),
    ("continue later", "continue later"),
    ("<hook_context>never closed\n\ncontinue later", "<hook_context>never closed\n\ncontinue later"),
    ("handoff <hook_context>x</hook_context>", "handoff <hook_context>x</hook_context>"),
])
def test_unwrapping_keeps_only_what_follows_a_leading_hook_context(prompt, typed):
    assert unwrap_prompt(prompt) == typed


def test_an_automatic_precompress_writes_nothing_and_answers_nothing(repo):
    lines = ledger_lines(repo)
    outcome = hook(repo, "gemini-cli", "PreCompress", fixture("gemini-cli", "PreCompress.auto", repo))
    assert outcome.problem is None and outcome.result is None and outcome.answer == "{}"
    assert ledger_lines(repo) == lines


def test_an_automatic_precompress_does_not_even_open_the_project(project_dir):
    # Not a Baton project: opening it would report that; an ignored event never gets that far.
    outcome = hook(project_dir, "gemini-cli", "PreCompress", fixture("gemini-cli", "PreCompress.auto", project_dir))
    assert outcome.problem is None and outcome.answer == "{}"


def test_a_manual_compress_prepares_the_draft(repo):
    (repo / "src" / "app.py").write_text("x = 2\n")
    outcome = hook(repo, "gemini-cli", "PreCompress", fixture("gemini-cli", "PreCompress.manual", repo))
    assert outcome.problem is None and outcome.result.handoff_id
    assert ledger_lines(repo) > 0


def _groups(root, event):
    return json.loads((root / ".gemini" / "settings.json").read_text())["hooks"][event]


def test_the_precompress_hook_is_installed_for_manual_compression_only(project_dir):
    install_hooks(project_dir, "gemini-cli")
    [group] = _groups(project_dir, "PreCompress")
    assert group["matcher"] == "manual"
    assert "matcher" not in _groups(project_dir, "SessionStart")[0]


def test_reinstalling_gives_batons_own_older_precompress_group_the_matcher(project_dir):
    settings = project_dir / ".gemini" / "settings.json"
    settings.parent.mkdir()
    mine = {"type": "command", "command": "notify-me"}
    settings.write_text(json.dumps({"hooks": {
        "PreCompress": [{"hooks": [{"type": "command", "command": "baton hook gemini-cli PreCompress",
                                    "timeout": 30000}]}],
        "SessionEnd": [{"matcher": "exit", "hooks": [mine, {"type": "command",
                                                           "command": "baton hook gemini-cli SessionEnd"}]}],
    }}))
    install_hooks(project_dir, "gemini-cli")
    [group] = _groups(project_dir, "PreCompress")
    assert group["matcher"] == "manual" and group["hooks"][0]["timeout"] == 30000
    [shared] = _groups(project_dir, "SessionEnd")
    assert shared["matcher"] == "exit" and shared["hooks"][0] == mine  # a group shared with others keeps its own


def test_install_hooks_says_in_one_line_that_the_folder_must_be_trusted(project_dir, capsys):
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "gemini-cli")
    assert code == 0
    [line] = [line for line in out.splitlines() if "trusted folder" in line]
    assert line.startswith("gemini-cli: ") and "--skip-trust" in line


def test_the_json_result_lists_what_the_user_must_still_do(project_dir, capsys):
    out = run_json(capsys, project_dir, "install-hooks", "--harness", "gemini-cli", "--dry-run")
    [step] = out["userSteps"]
    assert step == adapter("gemini-cli").user_steps[0] and "trusted folder" in step


def test_a_hook_that_cannot_run_is_a_warning_to_gemini_never_a_deny(project_dir):
    # Gemini CLI 0.61 takes exit status 2 and above as "deny": a `baton` missing
    # from PATH (127) would block every prompt; 1 is a warning and the prompt goes on.
    install_hooks(project_dir, "gemini-cli", command="/nonexistent/baton", events=ALL_EVENTS)
    [command] = [h["command"] for h in _groups(project_dir, "BeforeAgent")[0]["hooks"]]
    ran = subprocess.run(["bash", "-c", command], input="{}", capture_output=True, text=True)
    assert ran.returncode == 1 and "/nonexistent/baton" in ran.stderr


def test_batons_hook_with_the_suffix_is_still_recognised_and_replaced(project_dir):
    install_hooks(project_dir, "gemini-cli", events=ALL_EVENTS)
    install_hooks(project_dir, "gemini-cli", command="/venv/bin/baton", events=ALL_EVENTS)
    [group] = _groups(project_dir, "BeforeAgent")
    assert [h["command"] for h in group["hooks"]] == ["/venv/bin/baton hook gemini-cli BeforeAgent || exit 1"]



def _a_baton_left(repo, capsys) -> None:
    code, out, err = run(capsys, repo, "session", "end", "earlier-session", "--handoff-steps", "Wire the parser")
    assert code == 0, err


def test_a_clear_start_claims_nothing_and_writes_nothing(repo, capsys):
    _a_baton_left(repo, capsys)
    lines = ledger_lines(repo)
    outcome = hook(repo, "gemini-cli", "SessionStart", fixture("gemini-cli", "SessionStart.clear", repo))
    assert outcome.problem is None and outcome.result is None and outcome.answer == "{}"
    assert ledger_lines(repo) == lines


def test_the_baton_a_clear_start_left_waiting_goes_to_the_next_start_gemini_delivers(repo, capsys):
    _a_baton_left(repo, capsys)
    hook(repo, "gemini-cli", "SessionStart", fixture("gemini-cli", "SessionStart.clear", repo))
    outcome = hook(repo, "gemini-cli", "SessionStart",
                   fixture("gemini-cli", "SessionStart.startup", repo, session_id="next-synthetic-session"))
    told = injected("gemini-cli", outcome.answer)
    assert told and told.startswith("## 🤝 Active Session Handoff") and "Wire the parser" in told
