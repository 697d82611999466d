"""``baton install-hooks --events``: the optional hook events (compaction, prompt) can be
left out; start and end cannot. Per harness: what is wired (by default all four in Claude Code
and Gemini CLI, whose prompt hook keeps a baton claimed before the first prompt; start, end and
compaction in Codex and Cursor), what an install with fewer events takes out,
``--json``/``--dry-run`` saying so, ``--remove`` and ``baton doctor`` (which names the command
that adds Claude Code's or Gemini CLI's missing prompt hook, never as a gap)."""

from __future__ import annotations

import json
import sys

import pytest

from baton.harnesses import HARNESSES, adapter
from baton.harnesses.install import ALL_EVENTS, install_hooks, parse_events
from baton.harnesses.wiring import inspect_wiring
from tests.cli_support import run, run_json

HOOKS_FILE = {"claude-code": ".claude/settings.json", "codex": ".codex/hooks.json",
              "gemini-cli": ".gemini/settings.json", "cursor": ".cursor/hooks.json"}
PROMPT_EVENT = {"claude-code": "UserPromptSubmit", "codex": "UserPromptSubmit", "gemini-cli": "BeforeAgent",
                "cursor": "beforeSubmitPrompt"}
COMPACT_EVENT = {"claude-code": "PreCompact", "codex": "PreCompact", "gemini-cli": "PreCompress",
                 "cursor": "preCompact"}
END_EVENTS = {"claude-code": {"SessionEnd"}, "codex": {"Stop", "Interrupt"}, "gemini-cli": {"SessionEnd"},
              "cursor": {"sessionEnd"}}
"""The end's hooks: Codex's are two, a turn's ``Stop`` and a stopped turn's ``Interrupt``."""
PROMPT_BY_DEFAULT = ("claude-code", "gemini-cli")
"""The harnesses whose session start runs before the first prompt: their default wires the prompt hook."""
LEFT_OUT_BY_DEFAULT = tuple(h for h in HARNESSES if h not in PROMPT_BY_DEFAULT)
PROGRAM = sys.executable
"""A program found wherever the tests run, so ``baton doctor`` judges the wiring, not ``PATH``."""


def _events(project_dir, harness: str) -> set[str]:
    return set(json.loads((project_dir / HOOKS_FILE[harness]).read_text())["hooks"])


def _snapshot(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and ".baton" not in p.parts}


@pytest.mark.parametrize("harness", PROMPT_BY_DEFAULT)
def test_by_default_claude_code_and_gemini_cli_wire_all_four_events_the_prompt_hook_included(project_dir, harness):
    result = install_hooks(project_dir, harness)
    assert result.events == ALL_EVENTS and result.left_out == ()
    assert _events(project_dir, harness) == {hook.event for hook in adapter(harness).hooks}


@pytest.mark.parametrize("harness", LEFT_OUT_BY_DEFAULT)
def test_by_default_codex_and_cursor_wire_start_end_and_compact_and_leave_the_prompt_hook_out(project_dir, harness):
    result = install_hooks(project_dir, harness)
    assert result.events == ("start", "end", "compact") and result.left_out == ("prompt",)
    wired = _events(project_dir, harness)
    assert PROMPT_EVENT[harness] not in wired and COMPACT_EVENT[harness] in wired
    assert END_EVENTS[harness] <= wired and len(wired) == 2 + len(END_EVENTS[harness])


@pytest.mark.parametrize("harness", PROMPT_BY_DEFAULT)
def test_the_command_line_without_events_wires_the_prompt_hook_in_claude_code_and_gemini_cli(
        project_dir, capsys, harness):
    out = run_json(capsys, project_dir, "install-hooks", "--harness", harness, "--command", PROGRAM)
    assert out["events"] == list(ALL_EVENTS) and out["leftOut"] == []
    assert PROMPT_EVENT[harness] in _events(project_dir, harness)


@pytest.mark.parametrize("harness", HARNESSES)
def test_events_all_wires_all_four(project_dir, harness):
    result = install_hooks(project_dir, harness, events=parse_events("all"))
    assert result.events == ALL_EVENTS and result.left_out == ()
    assert _events(project_dir, harness) == {hook.event for hook in adapter(harness).hooks}


@pytest.mark.parametrize("harness", HARNESSES)
def test_events_without_prompt_wires_no_prompt_hook(project_dir, harness):
    install_hooks(project_dir, harness, events=("start", "end", "compact"))
    wired = _events(project_dir, harness)
    assert PROMPT_EVENT[harness] not in wired and COMPACT_EVENT[harness] in wired
    assert END_EVENTS[harness] <= wired and len(wired) == 2 + len(END_EVENTS[harness])


@pytest.mark.parametrize("harness", HARNESSES)
def test_events_start_end_wires_only_those_two(project_dir, harness):
    install_hooks(project_dir, harness, events=("start", "end"))
    wired = _events(project_dir, harness)
    assert PROMPT_EVENT[harness] not in wired and COMPACT_EVENT[harness] not in wired
    assert END_EVENTS[harness] <= wired and len(wired) == 1 + len(END_EVENTS[harness])


@pytest.mark.parametrize("harness", HARNESSES)
def test_an_install_with_fewer_events_takes_out_batons_hook_for_the_others(project_dir, harness):
    install_hooks(project_dir, harness, events=ALL_EVENTS)
    result = install_hooks(project_dir, harness, events=("start", "end", "compact"))
    assert PROMPT_EVENT[harness] not in _events(project_dir, harness)
    assert any(c.path == HOOKS_FILE[harness] and c.action == "updated" for c in result.changes)
    again = install_hooks(project_dir, harness, events=("start", "end", "compact"))
    assert {c.action for c in again.changes} == {"unchanged"}


@pytest.mark.parametrize("harness", HARNESSES)
def test_an_install_without_events_wires_the_default_again(project_dir, harness):
    install_hooks(project_dir, harness, events=("start", "end"))
    install_hooks(project_dir, harness)
    assert COMPACT_EVENT[harness] in _events(project_dir, harness)
    install_hooks(project_dir, harness, events=ALL_EVENTS)
    install_hooks(project_dir, harness)
    assert _events(project_dir, harness) == {hook.event for hook in adapter(harness).hooks
                                             if adapter(harness).role(hook) in adapter(harness).default_roles()}
    install_hooks(project_dir, harness, events=("start", "end", "compact"))
    install_hooks(project_dir, harness)
    assert (PROMPT_EVENT[harness] in _events(project_dir, harness)) == (harness in PROMPT_BY_DEFAULT)


@pytest.mark.parametrize("harness", ["claude-code", "codex", "gemini-cli"])
def test_leaving_an_event_out_keeps_another_tools_hook_on_it(project_dir, harness):
    path = project_dir / HOOKS_FILE[harness]
    path.parent.mkdir(parents=True)
    theirs = {"type": "command", "command": "other-tool log"}
    path.write_text(json.dumps({"hooks": {PROMPT_EVENT[harness]: [{"hooks": [theirs]}]}}))
    install_hooks(project_dir, harness, events=ALL_EVENTS)
    install_hooks(project_dir, harness, events=("start", "end", "compact"))
    entries = json.loads(path.read_text())["hooks"][PROMPT_EVENT[harness]]
    assert entries == [{"hooks": [theirs]}]


@pytest.mark.parametrize("harness", HARNESSES)
def test_json_and_dry_run_say_which_events_are_wired(project_dir, capsys, harness):
    out = run_json(capsys, project_dir, "install-hooks", "--harness", harness, "--events", "end,start,prompt",
                   "--dry-run")
    assert out["events"] == ["start", "end", "prompt"] and out["leftOut"] == ["compact"]
    diff = next(f["diff"] for f in out["files"] if f["path"] == HOOKS_FILE[harness])
    assert f"hook {harness} {PROMPT_EVENT[harness]}" in diff
    assert f"hook {harness} {COMPACT_EVENT[harness]}" not in diff
    assert _snapshot(project_dir) == {}
    code, text, _ = run(capsys, project_dir, "install-hooks", "--harness", harness, "--events", "start,end",
                        "--dry-run")
    assert code == 0 and "left out: compact, prompt" in text


@pytest.mark.parametrize("harness", HARNESSES)
def test_remove_takes_out_exactly_what_an_install_with_fewer_events_added(project_dir, capsys, harness):
    path = project_dir / HOOKS_FILE[harness]
    path.parent.mkdir(parents=True)
    original = b'{\n  "hooks": {}, "mine": 1\n}\n'
    path.write_bytes(original)
    install_hooks(project_dir, harness, events=("start", "end"))
    code, _, err = run(capsys, project_dir, "install-hooks", "--harness", harness, "--remove")
    assert code == 0, err
    assert path.read_bytes() == original
    assert not inspect_wiring(project_dir, harness).wired


@pytest.mark.parametrize("harness", HARNESSES)
def test_doctor_says_nothing_wrong_of_an_event_left_out(project_dir, capsys, harness):
    install_hooks(project_dir, harness, command=PROGRAM, events=("start", "end"))
    code, out, _ = run(capsys, project_dir, "doctor", "--json")
    check = {c["name"]: c for c in json.loads(out)["checks"]}[f"harness {harness}"]
    assert check["status"] == "ok", check
    assert "left out" in check["detail"]


def _doctor_check(capsys, project_dir, harness: str) -> dict:
    code, out, _ = run(capsys, project_dir, "doctor", "--json")
    assert code == 0, out
    return {c["name"]: c for c in json.loads(out)["checks"]}[f"harness {harness}"]


@pytest.mark.parametrize("harness", PROMPT_BY_DEFAULT)
def test_doctor_names_install_hooks_to_add_the_prompt_hook_an_earlier_default_install_lacks(
        project_dir, capsys, harness):
    install_hooks(project_dir, harness, command=PROGRAM, events=("start", "end", "compact"))
    check = _doctor_check(capsys, project_dir, harness)
    assert check["status"] == "ok", check
    assert (f"no hook for {PROMPT_EVENT[harness]}, so a baton a session claims at its start is spent when the "
            f"session is closed before its first prompt") in check["detail"]
    assert f"install-hooks --harness {harness} --command {PROGRAM}` adds it" in check["detail"], check
    assert "left out" not in check["detail"]


@pytest.mark.parametrize("harness", PROMPT_BY_DEFAULT)
def test_doctor_s_command_to_add_the_prompt_hook_keeps_compaction_left_out(project_dir, capsys, harness):
    install_hooks(project_dir, harness, command=PROGRAM, events=("start", "end"))
    check = _doctor_check(capsys, project_dir, harness)
    assert check["status"] == "ok", check
    assert f"no hook for {COMPACT_EVENT[harness]}: left out, see --events" in check["detail"]
    assert f"install-hooks --harness {harness} --events start,end,prompt --command {PROGRAM}` adds it" \
        in check["detail"], check


@pytest.mark.parametrize("harness", PROMPT_BY_DEFAULT)
def test_the_command_doctor_names_wires_the_prompt_hook_and_doctor_then_says_nothing_of_it(
        project_dir, capsys, harness):
    install_hooks(project_dir, harness, command=PROGRAM, events=("start", "end", "compact"))
    install_hooks(project_dir, harness, command=PROGRAM)
    check = _doctor_check(capsys, project_dir, harness)
    assert check["status"] == "ok" and "no hook for" not in check["detail"], check
    assert PROMPT_EVENT[harness] in _events(project_dir, harness)


@pytest.mark.parametrize("harness", LEFT_OUT_BY_DEFAULT)
def test_doctor_says_only_left_out_of_codex_s_and_cursor_s_prompt_hook(project_dir, capsys, harness):
    install_hooks(project_dir, harness, command=PROGRAM)
    check = _doctor_check(capsys, project_dir, harness)
    assert check["status"] == "ok", check
    assert f"no hook for {PROMPT_EVENT[harness]}: left out, see --events" in check["detail"]
    assert "adds it" not in check["detail"]


@pytest.mark.parametrize("harness", PROMPT_BY_DEFAULT)
def test_doctor_warns_of_a_gap_and_still_names_the_missing_prompt_hook(project_dir, capsys, harness):
    install_hooks(project_dir, harness, command=PROGRAM, events=("start", "end", "compact"))
    path = project_dir / HOOKS_FILE[harness]
    config = json.loads(path.read_text())
    del config["hooks"]["SessionEnd"]
    path.write_text(json.dumps(config))
    check = _doctor_check(capsys, project_dir, harness)
    assert check["status"] == "warn" and "no Baton hook for SessionEnd" in check["detail"], check
    assert f"no hook for {PROMPT_EVENT[harness]}, so a baton" in check["detail"]


@pytest.mark.parametrize("harness", HARNESSES)
def test_doctor_still_warns_when_the_end_hook_is_missing(project_dir, capsys, harness):
    install_hooks(project_dir, harness, command=PROGRAM)
    path = project_dir / HOOKS_FILE[harness]
    config = json.loads(path.read_text())
    end = next(h.event for h in adapter(harness).hooks if adapter(harness).role(h) == "end")
    del config["hooks"][end]
    path.write_text(json.dumps(config))
    code, out, _ = run(capsys, project_dir, "doctor", "--json")
    check = {c["name"]: c for c in json.loads(out)["checks"]}[f"harness {harness}"]
    assert check["status"] == "warn" and f"no Baton hook for {end}" in check["detail"]


def test_codex_trust_step_counts_the_hooks_wired(project_dir):
    assert "trust Baton's 4 hooks" in install_hooks(project_dir, "codex", dry_run=True).user_steps[0]
    assert "trust Baton's 5 hooks" in install_hooks(project_dir, "codex", dry_run=True, events=ALL_EVENTS).user_steps[0]
    step = install_hooks(project_dir, "codex", dry_run=True, events=("start", "end")).user_steps[0]
    assert "trust Baton's 3 hooks" in step


@pytest.mark.parametrize(("value", "expected"), [
    (None, None), ("all", ALL_EVENTS), (" ALL ", ALL_EVENTS), ("start,end", ("start", "end")), (" Prompt , end,start ", ("start", "end", "prompt")),
])
def test_parse_events_reads_a_comma_separated_list_in_any_order(value, expected):
    assert parse_events(value) == expected


@pytest.mark.parametrize(("value", "says"), [
    ("start,end,resume", "unknown event 'resume'"),
    ("start,compact,prompt", "must include end"),
    ("prompt", "must include start and end"),
    ("", "must include start and end"),
])
def test_a_bad_events_list_is_an_input_error(project_dir, capsys, value, says):
    out = run_json(capsys, project_dir, "install-hooks", "--harness", "codex", "--events", value, expect=2)
    assert out["error"]["code"] == "input_error" and says in out["error"]["message"]
    assert _snapshot(project_dir) == {} and not (project_dir / ".baton").exists()


def test_events_has_no_meaning_with_remove(project_dir, capsys):
    out = run_json(capsys, project_dir, "install-hooks", "--harness", "codex", "--remove", "--events", "start,end",
                   expect=2)
    assert "--events has no meaning with --remove" in out["error"]["message"]


def _without(project_dir, *events: str) -> None:
    """A Claude Code install made before its turn's ends were wired beside the prompt hook (``Stop``
    and ``Interrupt`` before harness26; ``Interrupt`` alone in harness26's)."""
    install_hooks(project_dir, "claude-code", command=PROGRAM)
    path = project_dir / HOOKS_FILE["claude-code"]
    config = json.loads(path.read_text())
    for event in events:
        del config["hooks"][event]
    path.write_text(json.dumps(config))


def test_doctor_names_install_hooks_to_add_the_turn_s_ends_an_earlier_claude_code_install_lacks(project_dir, capsys):
    _without(project_dir, "Stop", "Interrupt")
    check = _doctor_check(capsys, project_dir, "claude-code")
    assert check["status"] == "ok", check
    assert ("no hook for Stop, Interrupt, so a baton a session claims at its start reaches the next session too "
            "when the session's first input runs no prompt hook (bash mode, `! cmd`);") in check["detail"], check
    assert f"install-hooks --harness claude-code --command {PROGRAM}` adds them" in check["detail"], check
    assert "left out" not in check["detail"]


def test_doctor_names_install_hooks_to_add_the_interrupted_turn_s_end_a_harness26_install_lacks(project_dir, capsys):
    _without(project_dir, "Interrupt")
    check = _doctor_check(capsys, project_dir, "claude-code")
    assert check["status"] == "ok", check
    assert ("no hook for Interrupt, so a baton a session claims at its start reaches the next session too when "
            "the session's first input runs no prompt hook (bash mode, `! cmd`) and the person stops its turn "
            "(Esc);") in check["detail"], check
    assert f"install-hooks --harness claude-code --command {PROGRAM}` adds it" in check["detail"], check


@pytest.mark.parametrize("missing", [("Stop", "Interrupt"), ("Interrupt",)])
def test_install_hooks_again_adds_the_turn_s_ends_and_doctor_then_says_nothing_of_them(project_dir, capsys, missing):
    _without(project_dir, *missing)
    install_hooks(project_dir, "claude-code", command=PROGRAM)
    assert {"Stop", "Interrupt"} <= _events(project_dir, "claude-code")
    check = _doctor_check(capsys, project_dir, "claude-code")
    assert check["status"] == "ok" and "no hook for" not in check["detail"], check


def test_leaving_the_prompt_hook_out_leaves_claude_code_s_turn_s_end_out_too(project_dir):
    """``Stop`` and ``Interrupt`` only remove the mark a start leaves when the prompt hook is wired:
    they go with it."""
    install_hooks(project_dir, "claude-code", command=PROGRAM, events=("start", "end", "compact"))
    assert not {"UserPromptSubmit", "Stop", "Interrupt"} & _events(project_dir, "claude-code")
    install_hooks(project_dir, "claude-code", command=PROGRAM, events=("start", "end", "prompt"))
    assert {"UserPromptSubmit", "Stop", "Interrupt"} <= _events(project_dir, "claude-code")
