"""Baton's Claude Code hooks moved by hand into ``.claude/settings.local.json`` (hooks for
oneself, not the team) count as installed: ``install-hooks`` updates them there and adds no
second copy to ``.claude/settings.json`` (Claude Code would run two different command lines
both, a second Baton process per event), keeps the personal copy when both files hold one, says where they are, and
``--remove`` takes them out of both files (docs/hooks.md, "Claude Code")."""

from __future__ import annotations

import json
from pathlib import Path

import orjson

from baton.harnesses import adapter
from baton.harnesses.install import ALL_EVENTS, install_hooks
from baton.harnesses.wiring import remove_wiring
from tests.cli_support import run, run_json

SHARED = ".claude/settings.json"
LOCAL = ".claude/settings.local.json"
OLD_START = "startup|resume|clear|compact"
"""The SessionStart matcher of an install made before Claude Code's ``fork`` source."""

START = adapter("claude-code").event_suffix
"""What follows Claude Code's SessionStart line run by a program: what the agent is told when it cannot run
(``start_failed``)."""


def _read(project: Path, path: str) -> dict:
    return json.loads((project / path).read_text())


def _write(project: Path, path: str, value: dict) -> None:
    (project / path).parent.mkdir(parents=True, exist_ok=True)
    (project / path).write_text(json.dumps(value, indent=2) + "\n")


def _batons(config: dict) -> dict[str, list[dict]]:
    """Per event, Baton's hooks (their group's matcher with them) in a parsed settings file."""
    found: dict[str, list[dict]] = {}
    for event, groups in (config.get("hooks") or {}).items():
        for group in groups:
            for hook in group["hooks"]:
                if " hook claude-code " in hook["command"]:
                    found.setdefault(event, []).append({**hook, "matcher": group.get("matcher")})
    return found


def _moved(project: Path, *events: str, keep_shared: bool = False) -> None:
    """Move Baton's hooks (``events``; none: all) from settings.json into settings.local.json, by
    hand, as a person does: the hooks section cut and pasted (``keep_shared``: copied, not cut)."""
    shared, local = _read(project, SHARED), _read(project, LOCAL)
    hooks = shared["hooks"]
    chosen = events or tuple(hooks)
    local["hooks"] = {event: hooks[event] for event in chosen}
    if not keep_shared:
        shared["hooks"] = {event: groups for event, groups in hooks.items() if event not in chosen}
        if not shared["hooks"]:
            del shared["hooks"]
    _write(project, SHARED, shared)
    _write(project, LOCAL, local)


def _edit_local(project: Path, change) -> None:
    local = _read(project, LOCAL)
    change(local["hooks"])
    _write(project, LOCAL, local)


def _change(result, path: str):
    return next(c for c in result.changes if c.path == path)


# -- install-hooks -------------------------------------------------------------------------------

def test_hooks_moved_to_the_local_settings_are_not_copied_back_into_settings_json(project_dir):
    install_hooks(project_dir, "claude-code")
    _moved(project_dir)
    install_hooks(project_dir, "claude-code")
    assert _batons(_read(project_dir, SHARED)) == {}
    assert set(_batons(_read(project_dir, LOCAL))) == {"SessionStart", "PreCompact", "SessionEnd", "UserPromptSubmit",
                                                    "Stop", "Interrupt"}


def test_install_run_again_after_the_move_changes_no_file(project_dir):
    install_hooks(project_dir, "claude-code")
    _moved(project_dir)
    again = install_hooks(project_dir, "claude-code")
    assert {c.path: c.action for c in again.changes if c.path in (SHARED, LOCAL)} == {
        SHARED: "unchanged", LOCAL: "unchanged"}


def test_a_moved_start_hook_without_fork_gains_it_in_the_local_settings(project_dir):
    install_hooks(project_dir, "claude-code")
    _moved(project_dir)
    _edit_local(project_dir, lambda hooks: hooks["SessionStart"][0].update(matcher=OLD_START))
    result = install_hooks(project_dir, "claude-code")
    assert [h["matcher"] for h in _batons(_read(project_dir, LOCAL))["SessionStart"]] == [f"{OLD_START}|fork"]
    assert _change(result, LOCAL).action == "updated" and _batons(_read(project_dir, SHARED)) == {}


def test_a_moved_hook_without_a_timeout_gains_it_in_the_local_settings(project_dir):
    install_hooks(project_dir, "claude-code")
    _moved(project_dir)
    _edit_local(project_dir, lambda hooks: hooks["SessionEnd"][0]["hooks"][0].pop("timeout"))
    install_hooks(project_dir, "claude-code")
    assert [h["timeout"] for h in _batons(_read(project_dir, LOCAL))["SessionEnd"]] == [30]


def test_a_moved_hook_gets_the_new_command_line_in_place(project_dir, tmp_path):
    install_hooks(project_dir, "claude-code", command="baton")
    _moved(project_dir)
    program = tmp_path / "bin" / "baton"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    install_hooks(project_dir, "claude-code", command=str(program))
    commands = {event: [h["command"] for h in found] for event, found in _batons(_read(project_dir, LOCAL)).items()}
    assert commands["SessionStart"] == [f"{program} hook claude-code SessionStart{START('SessionStart', str(program))}"]
    assert _batons(_read(project_dir, SHARED)) == {}


def test_the_users_own_hooks_and_keys_in_the_local_settings_are_kept(project_dir):
    install_hooks(project_dir, "claude-code")
    _moved(project_dir)
    local = _read(project_dir, LOCAL)
    local["permissions"] = {"allow": ["Bash(make test)"]}
    local["hooks"]["SessionStart"][0]["matcher"] = OLD_START
    local["hooks"]["SessionStart"].append({"hooks": [{"type": "command", "command": "echo mine"}]})
    local["hooks"]["Notification"] = [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
    _write(project_dir, LOCAL, local)
    install_hooks(project_dir, "claude-code")
    after = _read(project_dir, LOCAL)
    assert after["permissions"] == {"allow": ["Bash(make test)"]}
    assert after["enabledMcpjsonServers"] == ["baton"]
    assert after["hooks"]["SessionStart"][1] == {"hooks": [{"type": "command", "command": "echo mine"}]}
    assert after["hooks"]["Notification"] == [{"hooks": [{"type": "command", "command": "notify-send done"}]}]


def test_hooks_in_both_files_keep_the_local_copy_and_leave_the_users_hooks_in_settings_json(project_dir):
    """What an install before this one did to hooks moved by hand: a second copy in settings.json."""
    install_hooks(project_dir, "claude-code")
    _moved(project_dir, keep_shared=True)
    shared = _read(project_dir, SHARED)
    shared["hooks"]["SessionStart"][0]["hooks"].append({"type": "command", "command": "echo mine"})
    _write(project_dir, SHARED, shared)
    install_hooks(project_dir, "claude-code")
    assert _batons(_read(project_dir, SHARED)) == {}
    assert _read(project_dir, SHARED)["hooks"] == {"SessionStart": [
        {"matcher": "startup|resume|clear|compact|fork", "hooks": [{"type": "command", "command": "echo mine"}]}]}
    assert {event: len(found) for event, found in _batons(_read(project_dir, LOCAL)).items()} == {
        "SessionStart": 1, "PreCompact": 1, "SessionEnd": 1, "UserPromptSubmit": 1, "Stop": 1, "Interrupt": 1}


def test_taking_the_duplicates_out_of_settings_json_says_so_on_that_file(project_dir):
    install_hooks(project_dir, "claude-code")
    _moved(project_dir, keep_shared=True)
    result = install_hooks(project_dir, "claude-code")
    change = _change(result, SHARED)
    assert change.action == "deleted"  # it held nothing else (install-hooks created it)
    assert change.note is not None and change.note.startswith(
        f"Baton's SessionStart, PreCompact, SessionEnd, UserPromptSubmit, Stop, Interrupt hooks taken out: {LOCAL} holds them too")


def test_install_says_where_the_hooks_are_in_one_line(project_dir, capsys):
    install_hooks(project_dir, "claude-code")
    _moved(project_dir)
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code")
    assert code == 0
    assert [line for line in out.splitlines() if "where you moved" in line] == [
        f"claude-code: Baton's hooks are in {LOCAL}, where you moved them (yours alone, not the team's): "
        f"kept there, up to date, with no copy in {SHARED}"]


def test_install_json_names_the_file_each_hook_is_in(project_dir, capsys):
    install_hooks(project_dir, "claude-code")
    _moved(project_dir, "SessionStart")
    out = run_json(capsys, project_dir, "install-hooks", "--harness", "claude-code")
    assert out["hookFiles"] == {"SessionStart": LOCAL, "PreCompact": SHARED, "SessionEnd": SHARED,
                                "UserPromptSubmit": SHARED, "Stop": SHARED,
                                "Interrupt": SHARED}


def test_install_json_names_settings_json_where_nothing_was_moved(project_dir, capsys):
    out = run_json(capsys, project_dir, "install-hooks", "--harness", "claude-code")
    assert out["hookFiles"] == {"SessionStart": SHARED, "PreCompact": SHARED, "SessionEnd": SHARED,
                                "UserPromptSubmit": SHARED, "Stop": SHARED,
                                "Interrupt": SHARED}
    assert _batons(_read(project_dir, LOCAL)) == {}


def test_a_dry_run_shows_the_update_in_the_local_settings_and_writes_nothing(project_dir, capsys):
    install_hooks(project_dir, "claude-code")
    _moved(project_dir)
    _edit_local(project_dir, lambda hooks: hooks["SessionStart"][0].update(matcher=OLD_START))
    before = {path: (project_dir / path).read_text() for path in (SHARED, LOCAL)}
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code", "--dry-run")
    assert code == 0
    assert f"+++ b/{LOCAL}" in out and f'+        "matcher": "{OLD_START}|fork",' in out
    assert f"+++ b/{SHARED}" not in out
    assert f"# Baton's hooks are in {LOCAL}, where you moved them" in out
    assert {path: (project_dir / path).read_text() for path in (SHARED, LOCAL)} == before


def test_a_new_event_goes_beside_the_moved_hooks(project_dir):
    install_hooks(project_dir, "claude-code", events=("start", "end", "compact"))
    _moved(project_dir)
    install_hooks(project_dir, "claude-code", events=ALL_EVENTS)
    assert "UserPromptSubmit" in _batons(_read(project_dir, LOCAL))
    assert _batons(_read(project_dir, SHARED)) == {}


def test_a_hook_left_in_settings_json_stays_there(project_dir):
    install_hooks(project_dir, "claude-code")
    _moved(project_dir, "SessionStart")
    install_hooks(project_dir, "claude-code")
    assert set(_batons(_read(project_dir, LOCAL))) == {"SessionStart"}
    assert set(_batons(_read(project_dir, SHARED))) == {"PreCompact", "SessionEnd", "UserPromptSubmit", "Stop",
                                                       "Interrupt"}


def test_an_event_left_out_is_taken_out_of_the_local_settings(project_dir):
    install_hooks(project_dir, "claude-code")
    _moved(project_dir)
    install_hooks(project_dir, "claude-code", events=("start", "end"))
    assert set(_batons(_read(project_dir, LOCAL))) == {"SessionStart", "SessionEnd"}


def test_settings_json_is_not_created_when_every_hook_is_in_the_local_settings(project_dir):
    install_hooks(project_dir, "claude-code")
    _moved(project_dir)
    (project_dir / SHARED).unlink()
    result = install_hooks(project_dir, "claude-code")
    assert not (project_dir / SHARED).exists()
    assert all(c.path != SHARED for c in result.changes)


def test_local_settings_that_do_not_parse_are_refused_and_nothing_is_written(project_dir, capsys):
    install_hooks(project_dir, "claude-code")
    _moved(project_dir, keep_shared=True)
    broken = (project_dir / LOCAL).read_text().replace('"hooks": {', '"hooks": {,', 1)
    (project_dir / LOCAL).write_text(broken)
    shared = (project_dir / SHARED).read_text()
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code")
    assert code == 2 and f"{LOCAL} is not valid JSON" in err and "fix it by hand" in err
    assert (project_dir / LOCAL).read_text() == broken and (project_dir / SHARED).read_text() == shared


# -- --remove ------------------------------------------------------------------------------------

def test_remove_takes_batons_hooks_out_of_the_local_settings_and_keeps_the_users(project_dir):
    install_hooks(project_dir, "claude-code")
    _moved(project_dir)
    local = _read(project_dir, LOCAL)
    local["permissions"] = {"allow": ["Bash(make test)"]}
    local["hooks"]["SessionStart"][0]["hooks"].append({"type": "command", "command": "echo mine"})
    _write(project_dir, LOCAL, local)
    remove_wiring(project_dir, "claude-code")
    assert _read(project_dir, LOCAL) == {"permissions": {"allow": ["Bash(make test)"]}, "hooks": {"SessionStart": [
        {"matcher": "startup|resume|clear|compact|fork", "hooks": [{"type": "command", "command": "echo mine"}]}]}}


def test_remove_takes_batons_hooks_out_of_both_files(project_dir):
    _write(project_dir, SHARED, {"permissions": {"allow": ["Bash(ls)"]}})
    install_hooks(project_dir, "claude-code")
    _moved(project_dir, "SessionStart", keep_shared=True)
    remove_wiring(project_dir, "claude-code")
    assert _read(project_dir, SHARED) == {"permissions": {"allow": ["Bash(ls)"]}}
    assert not (project_dir / LOCAL).exists()


def test_remove_deletes_local_settings_left_holding_only_batons_part(project_dir):
    install_hooks(project_dir, "claude-code")
    _moved(project_dir)
    result = remove_wiring(project_dir, "claude-code")
    assert not (project_dir / LOCAL).exists()
    assert next(c for c in result.changes if c.path == LOCAL).action == "deleted"


def test_remove_gives_back_the_users_local_settings_byte_for_byte(project_dir):
    mine = '{"permissions": {"allow": ["Bash(make test)"]}}'
    (project_dir / ".claude").mkdir()
    (project_dir / LOCAL).write_text(mine)
    install_hooks(project_dir, "claude-code")
    _moved(project_dir)
    remove_wiring(project_dir, "claude-code")
    assert (project_dir / LOCAL).read_text() == mine


def test_a_remove_dry_run_shows_the_hooks_leaving_the_local_settings_and_writes_nothing(project_dir, capsys):
    _write(project_dir, LOCAL, {"permissions": {"allow": ["Bash(ls)"]}})
    install_hooks(project_dir, "claude-code")
    _moved(project_dir)
    before = (project_dir / LOCAL).read_bytes()
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code", "--remove", "--dry-run")
    assert code == 0 and f"--- a/{LOCAL}" in out and '-            "command": "' in out
    assert (project_dir / LOCAL).read_bytes() == before


def test_remove_leaves_local_settings_that_do_not_parse_untouched(project_dir, capsys):
    install_hooks(project_dir, "claude-code")
    _moved(project_dir)
    (project_dir / LOCAL).write_text("{")
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code", "--remove")
    assert code == 2 and f"{LOCAL} is not valid JSON" in err
    assert (project_dir / LOCAL).read_text() == "{" and (project_dir / ".mcp.json").exists()


def test_remove_writes_the_local_settings_back_as_install_hooks_writes_json(project_dir):
    """A file edited since install-hooks (hooks moved into it) is written back re-formatted, its
    keys all kept (``--remove``'s rule for any file it cannot give back byte for byte)."""
    install_hooks(project_dir, "claude-code")
    _moved(project_dir)
    _edit_local(project_dir, lambda hooks: hooks.update(Stop=[{"hooks": [{"type": "command", "command": "x"}]}]))
    remove_wiring(project_dir, "claude-code")
    expected = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}
    assert (project_dir / LOCAL).read_text() == orjson.dumps(expected, option=orjson.OPT_INDENT_2).decode() + "\n"


def test_install_deletes_the_settings_json_it_created_once_its_hooks_are_only_in_the_local_settings(project_dir):
    """The hooks copied by hand into settings.local.json: the second install takes them out of the
    settings.json it created, which then holds nothing (not ``{"hooks": {}}``)."""
    install_hooks(project_dir, "claude-code")
    _moved(project_dir, keep_shared=True)
    result = install_hooks(project_dir, "claude-code")
    assert _change(result, SHARED).action == "deleted"
    assert not (project_dir / SHARED).exists()


def test_remove_after_the_copy_leaves_no_settings_json(project_dir):
    install_hooks(project_dir, "claude-code")
    _moved(project_dir, keep_shared=True)
    install_hooks(project_dir, "claude-code")
    remove_wiring(project_dir, "claude-code")
    assert not (project_dir / ".claude").exists()


def test_the_users_settings_json_keeps_its_keys_with_no_empty_hooks_section(project_dir):
    _write(project_dir, SHARED, {"model": "opus"})
    install_hooks(project_dir, "claude-code")
    _moved(project_dir, keep_shared=True)
    install_hooks(project_dir, "claude-code")
    assert _read(project_dir, SHARED) == {"model": "opus"}


def test_remove_gives_back_the_users_settings_json_byte_for_byte_after_the_copy(project_dir):
    (project_dir / ".claude").mkdir()
    mine = b'{ "model":   "opus" }'
    (project_dir / SHARED).write_bytes(mine)
    install_hooks(project_dir, "claude-code")
    _moved(project_dir, keep_shared=True)
    install_hooks(project_dir, "claude-code")
    result = remove_wiring(project_dir, "claude-code")
    assert (project_dir / SHARED).read_bytes() == mine
    assert _change(result, SHARED).note == "put back as it was before install-hooks"


def test_remove_deletes_the_empty_hooks_section_an_earlier_install_left_in_settings_json(project_dir):
    """What the install before this fix left in the settings.json it created: ``{"hooks": {}}``."""
    install_hooks(project_dir, "claude-code")
    _moved(project_dir)
    _write(project_dir, SHARED, {"hooks": {}})
    result = remove_wiring(project_dir, "claude-code")
    assert _change(result, SHARED).action == "deleted"
    assert not (project_dir / ".claude").exists()


def test_the_note_on_the_duplicates_taken_out_says_different_command_lines_would_both_run(project_dir):
    install_hooks(project_dir, "claude-code")
    _moved(project_dir, keep_shared=True)
    note = _change(install_hooks(project_dir, "claude-code"), SHARED).note
    assert note is not None and "with two different command lines claude-code would run both" in note
    assert "twice" not in note
