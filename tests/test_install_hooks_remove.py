"""``baton install-hooks --remove`` takes out exactly Baton's wiring; ``install-hooks`` warns when the
program it writes is not found on PATH; ``baton doctor`` checks the wiring (issue 26)."""

from __future__ import annotations

import json

import orjson
import pytest

from baton.harnesses import HARNESSES, adapter
from baton.harnesses.install import install_hooks
from baton.harnesses.wiring import remove_wiring
from tests.cli_support import run, run_json

SKILL = ".agents/skills/baton/SKILL.md"

START = adapter("claude-code").event_suffix("SessionStart", "baton")
"""What follows Claude Code's SessionStart line run by a bare ``baton``: what the agent is told when it cannot
run (``start_failed``)."""


def _snapshot(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and ".baton" not in p.parts}


def _write(root, path: str, text: str) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


def _as_baton_writes(value: dict) -> str:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode() + "\n"


@pytest.fixture
def script(tmp_path):
    """An executable named baton outside PATH."""
    folder = tmp_path / "bin"
    folder.mkdir()
    path = folder / "baton"
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def no_baton_on_path(monkeypatch, tmp_path):
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


@pytest.fixture
def no_running_baton(monkeypatch, tmp_path, no_baton_on_path):
    """No ``baton`` to be found at all: not on PATH, not the program this process was started as,
    not a console script beside the running interpreter."""
    import sys
    import sysconfig

    empty = tmp_path / "no-scripts"
    empty.mkdir()
    monkeypatch.setattr(sys, "argv", [str(empty / "pytest")])
    monkeypatch.setattr(sys, "executable", str(empty / "python"))
    monkeypatch.setattr(sysconfig, "get_path", lambda *args, **kwargs: str(empty))


# -- --remove ---------------------------------------------------------------------------------

@pytest.mark.parametrize("harness", HARNESSES)
def test_remove_after_install_leaves_no_file_and_no_folder_behind(project_dir, harness):
    install_hooks(project_dir, harness)
    remove_wiring(project_dir, harness)
    assert _snapshot(project_dir) == {}
    assert sorted(p.name for p in project_dir.iterdir()) == [".baton"]


USER_FILES = {
    "claude-code": {".claude/settings.json": {"theme": "dark", "hooks": {"SessionStart": [
        {"matcher": "startup", "hooks": [{"type": "command", "command": "./my-start.sh"}]}]}},
        ".mcp.json": {"mcpServers": {"other": {"command": "other-server"}}},
        ".claude/settings.local.json": {"enabledMcpjsonServers": ["other"], "permissions": {"allow": []}}},
    "codex": {".codex/hooks.json": {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}}},
    "gemini-cli": {".gemini/settings.json": {"general": {"vimMode": True},
                                             "mcpServers": {"other": {"command": "other-server"}}}},
    "cursor": {".cursor/hooks.json": {"version": 1, "hooks": {"sessionStart": [{"command": "./mine.sh"}]}},
               ".cursor/mcp.json": {"mcpServers": {"other": {"command": "x"}}}},
}


@pytest.mark.parametrize("harness", HARNESSES)
def test_remove_gives_back_the_users_files_byte_for_byte(project_dir, harness):
    for path, value in USER_FILES[harness].items():
        _write(project_dir, path, _as_baton_writes(value))
    before = _snapshot(project_dir)
    install_hooks(project_dir, harness)
    assert _snapshot(project_dir) != before
    remove_wiring(project_dir, harness)
    assert _snapshot(project_dir) == before


def test_remove_gives_back_a_users_codex_config_toml_byte_for_byte(project_dir):
    text = 'model = "o3"\n\n[mcp_servers.other]\ncommand = "other"\n'
    _write(project_dir, ".codex/config.toml", text)
    install_hooks(project_dir, "codex")
    remove_wiring(project_dir, "codex")
    assert (project_dir / ".codex" / "config.toml").read_text() == text


def test_remove_takes_a_baton_table_out_of_the_middle_of_config_toml(project_dir):
    text = ('model = "o3"\n\n[mcp_servers.baton]\ncommand = "baton"\nargs = ["mcp"]\n\n[mcp_servers.baton.env]\n'
            'A = "1"\n\n[profiles.fast]\nmodel = "mini"\n')
    _write(project_dir, ".codex/config.toml", text)
    remove_wiring(project_dir, "codex")
    assert (project_dir / ".codex" / "config.toml").read_text() == 'model = "o3"\n\n[profiles.fast]\nmodel = "mini"\n'


def test_remove_keeps_a_comment_a_teammate_put_above_the_table_after_batons(project_dir):
    """Tester harness15 G5: the comment heads the next table, though it sits where Baton's ends."""
    text = '# team settings\nmodel = "o3"  # keep\n\n[mcp_servers.docs]\n# docs server\ncommand = "docs-mcp"\n'
    _write(project_dir, ".codex/config.toml", text)
    install_hooks(project_dir, "codex")
    config = project_dir / ".codex" / "config.toml"
    config.write_text(config.read_text() + '\n# added later by a teammate\n[mcp_servers.jira]\ncommand = "jira-mcp"\n')
    remove_wiring(project_dir, "codex")
    assert config.read_text() == text + '\n# added later by a teammate\n[mcp_servers.jira]\ncommand = "jira-mcp"\n'


def test_remove_keeps_a_comment_left_at_the_end_of_the_file_after_batons_table(project_dir):
    text = 'model = "o3"\n\n[mcp_servers.baton]\ncommand = "baton"\nargs = ["mcp"]\n\n# the end\n'
    _write(project_dir, ".codex/config.toml", text)
    remove_wiring(project_dir, "codex")
    assert (project_dir / ".codex" / "config.toml").read_text() == 'model = "o3"\n\n# the end\n'


def test_an_array_of_tables_after_the_baton_table_is_kept(project_dir):
    text = '[mcp_servers.baton]\ncommand = "baton"\n\n[[hooks.extra]]\nname = "mine"\n'
    _write(project_dir, ".codex/config.toml", text)
    remove_wiring(project_dir, "codex")
    assert (project_dir / ".codex" / "config.toml").read_text() == '[[hooks.extra]]\nname = "mine"\n'


def test_a_baton_server_defined_inline_is_refused_and_left_untouched(project_dir, capsys):
    text = 'mcp_servers = { baton = { command = "baton", args = ["mcp"] } }\n'
    _write(project_dir, ".codex/config.toml", text)
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "codex", "--remove")
    assert code == 2 and "by hand" in err
    assert (project_dir / ".codex" / "config.toml").read_text() == text


def test_remove_takes_batons_hook_whatever_program_runs_it_and_keeps_the_users_in_the_same_group(project_dir):
    group = {"hooks": [{"type": "command", "command": "'/opt/my tools/baton' hook claude-code SessionEnd"},
                       {"type": "command", "command": "./log-end.sh"}]}
    _write(project_dir, ".claude/settings.json", _as_baton_writes({"hooks": {"SessionEnd": [group]}}))
    remove_wiring(project_dir, "claude-code")
    kept = json.loads((project_dir / ".claude" / "settings.json").read_text())
    assert kept == {"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "./log-end.sh"}]}]}}


def test_remove_withdraws_the_baton_servers_approval_and_keeps_the_others(project_dir):
    local = project_dir / ".claude" / "settings.local.json"
    _write(project_dir, ".claude/settings.local.json", _as_baton_writes({"enabledMcpjsonServers": ["other"]}))
    install_hooks(project_dir, "claude-code")
    assert json.loads(local.read_text())["enabledMcpjsonServers"] == ["other", "baton"]
    remove_wiring(project_dir, "claude-code")
    assert json.loads(local.read_text()) == {"enabledMcpjsonServers": ["other"]}


def test_remove_keeps_another_harnesss_baton_hook(project_dir):
    other = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "baton hook codex SessionStart"}]}]}}
    _write(project_dir, ".claude/settings.json", _as_baton_writes(other))
    remove_wiring(project_dir, "claude-code")
    assert json.loads((project_dir / ".claude" / "settings.json").read_text()) == other


def test_the_shared_skill_stays_while_another_harness_is_wired(project_dir):
    install_hooks(project_dir, "codex")
    install_hooks(project_dir, "cursor")
    result = remove_wiring(project_dir, "codex")
    (skill,) = [c for c in result.changes if c.path == SKILL]
    assert skill.action == "kept" and "cursor" in skill.note
    assert (project_dir / SKILL).exists()


def test_the_shared_skill_goes_with_the_last_harness_using_it(project_dir):
    install_hooks(project_dir, "codex")
    install_hooks(project_dir, "cursor")
    remove_wiring(project_dir, "codex")
    remove_wiring(project_dir, "cursor")
    assert not (project_dir / ".agents").exists()


def test_other_skills_and_their_folder_are_kept(project_dir):
    _write(project_dir, ".agents/skills/mine/SKILL.md", "mine\n")
    install_hooks(project_dir, "gemini-cli")
    remove_wiring(project_dir, "gemini-cli")
    assert (project_dir / ".agents" / "skills" / "mine" / "SKILL.md").read_text() == "mine\n"
    assert not (project_dir / ".agents" / "skills" / "baton").exists()


def test_a_remove_dry_run_shows_the_diff_and_writes_nothing(project_dir, capsys):
    install_hooks(project_dir, "claude-code")
    before = _snapshot(project_dir)
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code", "--remove", "--dry-run")
    assert code == 0 and "--- a/.claude/settings.json" in out and "-        \"hooks\": [" in out
    assert _snapshot(project_dir) == before


def test_remove_json_lists_each_file_and_what_happened_to_it(project_dir, capsys):
    _write(project_dir, ".gemini/settings.json", _as_baton_writes({"general": {"vimMode": True}}))
    install_hooks(project_dir, "gemini-cli")
    out = run_json(capsys, project_dir, "install-hooks", "--harness", "gemini-cli", "--remove")
    assert out["removed"] is True and out["changed"] is True and out["dryRun"] is False
    assert [(f["path"], f["action"]) for f in out["files"]] == [(".gemini/settings.json", "updated"),
                                                                (SKILL, "deleted")]


def test_remove_where_nothing_is_installed_changes_nothing(project_dir, capsys):
    _write(project_dir, ".mcp.json", _as_baton_writes({"mcpServers": {"other": {"command": "x"}}}))
    before = _snapshot(project_dir)
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code", "--remove")
    assert code == 0 and "nothing of Baton's to remove" in out
    assert _snapshot(project_dir) == before


def test_remove_leaves_a_file_that_does_not_parse_untouched(project_dir, capsys):
    _write(project_dir, ".mcp.json", "{not json")
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code", "--remove")
    assert code == 2 and (project_dir / ".mcp.json").read_text() == "{not json"


def test_remove_with_command_is_an_input_error(project_dir, capsys):
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "codex", "--remove", "--command", "x")
    assert code == 2 and "--remove" in err


def test_remove_does_not_initialise_the_project(project_dir, capsys):
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "codex", "--remove")
    assert code == 0 and not (project_dir / ".baton").exists()


# -- the PATH warning ----------------------------------------------------------------------------

def test_install_warns_in_one_line_when_no_baton_is_found_and_writes_the_portable_form(project_dir, capsys,
                                                                                        no_running_baton):
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "claude-code")
    assert code == 0
    (line,) = err.strip().splitlines()
    assert "`baton` is not found on PATH" in line and "--command" in line and "--command baton" in line
    settings = json.loads((project_dir / ".claude" / "settings.json").read_text())
    assert settings["hooks"]["SessionStart"][0]["hooks"][0]["command"] == "baton hook claude-code SessionStart" + START


def test_the_warning_is_in_the_json_result(project_dir, capsys, no_running_baton):
    out = run_json(capsys, project_dir, "install-hooks", "--harness", "codex", "--dry-run")
    assert len(out["warnings"]) == 1 and "--command" in out["warnings"][0]
    assert out["command"] == "baton" and out["commandNote"] is None


def test_the_portable_form_not_on_path_warns_even_where_a_running_baton_is_found(project_dir, capsys,
                                                                                no_baton_on_path):
    out = run_json(capsys, project_dir, "install-hooks", "--harness", "codex", "--command", "baton")
    assert len(out["warnings"]) == 1 and "`baton` is not found on PATH" in out["warnings"][0]


def test_install_warns_that_a_command_at_a_path_that_is_gone_is_no_executable_file_not_off_path(
        project_dir, capsys):
    """As doctor says it: an absolute --command that is not there has nothing to do with PATH
    (install-hooks said "`/…/baton` is not found on PATH here")."""
    gone = project_dir / "gone" / "bin" / "baton"
    out = run_json(capsys, project_dir, "install-hooks", "--harness", "codex", "--command", str(gone))
    (warning,) = out["warnings"]
    assert f"`{gone}` is no executable file here" in warning and "on PATH here" not in warning


def test_a_command_that_resolves_gives_no_warning(project_dir, capsys, no_baton_on_path, script):
    code, out, err = run(capsys, project_dir, "install-hooks", "--harness", "codex", "--command", str(script))
    assert code == 0 and err == ""


def test_a_program_found_on_path_gives_no_warning(project_dir, capsys, monkeypatch, script):
    monkeypatch.setenv("PATH", str(script.parent))
    out = run_json(capsys, project_dir, "install-hooks", "--harness", "gemini-cli")
    assert out["warnings"] == []


# -- baton doctor ------------------------------------------------------------------------------------

def _doctor(capsys, project_dir) -> tuple[int, dict]:
    code, out, err = run(capsys, project_dir, "doctor", "--json")
    return code, {c["name"]: c for c in json.loads(out)["checks"]}


def test_doctor_fails_when_the_hooks_program_is_not_found_naming_the_running_baton_to_rewire(
        project_dir, capsys, no_baton_on_path):
    from baton.harnesses.wiring import running_baton

    install_hooks(project_dir, "claude-code")
    code, checks = _doctor(capsys, project_dir)
    check = checks["harness claude-code"]
    assert code == 3 and check["status"] == "fail"
    assert "`baton`" in check["detail"]
    assert f"run `{running_baton()} install-hooks --harness claude-code`" in check["detail"]


def test_doctor_says_a_hook_program_at_a_path_that_is_gone_is_no_executable_file_not_off_path(
        project_dir, capsys):
    """An installation moved or deleted (a venv rebuilt elsewhere) leaves absolute paths that
    PATH has nothing to do with: doctor said they were "not found on PATH here"."""
    gone = project_dir / "gone" / "bin" / "baton"
    install_hooks(project_dir, "claude-code", command=str(gone))
    code, checks = _doctor(capsys, project_dir)
    check = checks["harness claude-code"]
    assert code == 3 and check["status"] == "fail"
    assert f"`{gone}` (no such executable file)" in check["detail"]
    assert "on PATH" not in check["detail"].split(": its hooks do nothing")[0]


def test_doctor_fails_when_no_baton_is_found_saying_to_put_one_on_path(project_dir, capsys, no_running_baton):
    install_hooks(project_dir, "claude-code")
    code, checks = _doctor(capsys, project_dir)
    check = checks["harness claude-code"]
    assert code == 3 and check["status"] == "fail"
    assert "put `baton` on PATH" in check["detail"] and "install-hooks --harness claude-code" in check["detail"]


def test_doctor_passes_a_complete_wiring_whose_program_is_found(project_dir, capsys, script):
    install_hooks(project_dir, "codex", command=str(script))
    code, checks = _doctor(capsys, project_dir)
    assert code == 0 and checks["harness codex"]["status"] == "ok"
    assert str(script) in checks["harness codex"]["detail"]


def test_doctor_warns_of_a_missing_hook_saying_what_to_run(project_dir, capsys, script):
    install_hooks(project_dir, "claude-code", command=str(script))
    settings = project_dir / ".claude" / "settings.json"
    config = json.loads(settings.read_text())
    del config["hooks"]["SessionEnd"]  # an optional one (PreCompact) may be left out: tests/test_install_hooks_events.py
    settings.write_text(json.dumps(config))
    code, checks = _doctor(capsys, project_dir)
    check = checks["harness claude-code"]
    assert code == 0 and check["status"] == "warn"
    from baton.harnesses.wiring import running_baton

    assert "SessionEnd" in check["detail"]
    assert f"`{running_baton()} install-hooks --harness claude-code --command {script}`" in check["detail"]


def test_doctor_keeps_the_portable_form_in_what_it_says_to_run(project_dir, capsys, script, monkeypatch):
    from baton.harnesses.wiring import running_baton

    monkeypatch.setenv("PATH", str(script.parent))
    install_hooks(project_dir, "codex", command="baton")
    (project_dir / SKILL).unlink()
    code, checks = _doctor(capsys, project_dir)
    check = checks["harness codex"]
    assert check["status"] == "warn"
    assert f"`{running_baton()} install-hooks --harness codex --command baton`" in check["detail"]


def test_doctor_warns_of_an_outdated_skill(project_dir, capsys, script):
    install_hooks(project_dir, "gemini-cli", command=str(script))
    (project_dir / SKILL).write_text("an older skill\n")
    code, checks = _doctor(capsys, project_dir)
    assert checks["harness gemini-cli"]["status"] == "warn"
    assert f"{SKILL} outdated" in checks["harness gemini-cli"]["detail"]


def test_doctor_fails_when_the_mcp_servers_program_is_not_found(project_dir, capsys, script):
    install_hooks(project_dir, "cursor", command=str(script))
    (project_dir / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": {"baton": {
        "command": "/nowhere/baton", "args": ["mcp"]}}}))
    code, checks = _doctor(capsys, project_dir)
    assert code == 3 and "/nowhere/baton" in checks["harness cursor"]["detail"]


def test_doctor_has_no_harness_check_where_none_is_wired(project_dir, capsys):
    code, checks = _doctor(capsys, project_dir)
    assert not [name for name in checks if name.startswith("harness ")]
    assert checks["harnesses"]["status"] == "ok"  # only how to connect one


def test_doctor_has_no_check_for_a_harness_removed_again(project_dir, capsys, script):
    install_hooks(project_dir, "codex", command=str(script))
    remove_wiring(project_dir, "codex")
    code, checks = _doctor(capsys, project_dir)
    assert "harness codex" not in checks


@pytest.mark.parametrize("harness", HARNESSES)
def test_remove_from_a_project_folder_that_does_not_exist_is_refused_not_reported_as_nothing_to_remove(
        tmp_path, capsys, harness):
    missing = tmp_path / "projetc"
    code, out, err = run(capsys, missing, "install-hooks", "--harness", harness, "--remove")
    assert code == 2, (out, err)
    assert f"cannot take Baton's wiring out of {missing}: no such directory" in err
    assert "nothing of Baton's to remove" not in out and not missing.exists()
