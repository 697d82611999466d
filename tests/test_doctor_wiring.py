"""``baton doctor`` fails on a harness configuration file that is there but does not parse,
naming the file and what to do, whether or not Baton's wiring is in it (issue 26)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from baton.harnesses.install import install_hooks
from tests.cli_support import run


def _doctor(capsys, project_dir) -> tuple[int, dict]:
    code, out, err = run(capsys, project_dir, "doctor", "--json")
    return code, {c["name"]: c for c in json.loads(out)["checks"]}


def _write(root, path: str, text: str) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


@pytest.mark.parametrize(("harness", "path", "text"), [
    ("gemini-cli", ".gemini/settings.json", '{"hooks": '),
    ("claude-code", ".claude/settings.json", "{"),
    ("claude-code", ".mcp.json", "{'mcpServers': 1}"),
    ("cursor", ".cursor/hooks.json", "{,}"),
    ("codex", ".codex/hooks.json", "[1"),
])
def test_doctor_fails_on_a_json_file_that_does_not_parse(project_dir, capsys, harness, path, text):
    _write(project_dir, path, text)
    code, checks = _doctor(capsys, project_dir)
    check = checks[f"harness {harness}"]
    assert code == 3 and check["status"] == "fail"
    assert f"{path} does not parse as JSON" in check["detail"] and "fix it by hand" in check["detail"]


def test_doctor_fails_on_a_codex_config_toml_that_does_not_parse(project_dir, capsys):
    _write(project_dir, ".codex/config.toml", "[mcp_servers\nmodel = \n")
    code, checks = _doctor(capsys, project_dir)
    check = checks["harness codex"]
    assert code == 3 and check["status"] == "fail"
    assert ".codex/config.toml does not parse as TOML" in check["detail"]


def test_doctor_fails_on_a_broken_file_beside_a_wiring_otherwise_complete(project_dir, capsys):
    install_hooks(project_dir, "claude-code")
    _write(project_dir, ".claude/settings.local.json", "{")
    code, checks = _doctor(capsys, project_dir)
    check = checks["harness claude-code"]
    assert check["status"] == "fail" and ".claude/settings.local.json does not parse" in check["detail"]


def test_doctor_does_not_send_a_broken_file_to_install_hooks(project_dir, capsys):
    _write(project_dir, ".claude/settings.json", "{")
    code, checks = _doctor(capsys, project_dir)
    assert "run `baton install-hooks" not in checks["harness claude-code"]["detail"]


def test_doctor_fails_on_a_json_file_that_is_not_an_object(project_dir, capsys):
    _write(project_dir, ".cursor/mcp.json", "[]")
    code, checks = _doctor(capsys, project_dir)
    assert checks["harness cursor"]["status"] == "fail"
    assert ".cursor/mcp.json is not a JSON object" in checks["harness cursor"]["detail"]


def test_doctor_fails_on_a_file_install_hooks_would_refuse(project_dir, capsys):
    _write(project_dir, ".gemini/settings.json", '{"hooks": []}')
    code, checks = _doctor(capsys, project_dir)
    detail = checks["harness gemini-cli"]["detail"]
    assert checks["harness gemini-cli"]["status"] == "fail"
    assert ".gemini/settings.json cannot be updated by `baton install-hooks`" in detail and "hooks" in detail


def test_doctor_says_a_file_with_comments_cannot_be_read(project_dir, capsys):
    _write(project_dir, ".gemini/settings.json", '{\n  // mine\n  "theme": "dark"\n}\n')
    code, checks = _doctor(capsys, project_dir)
    assert "if it holds comments" in checks["harness gemini-cli"]["detail"]


def test_doctor_passes_over_an_empty_settings_file(project_dir, capsys):
    _write(project_dir, ".gemini/settings.json", "")
    code, checks = _doctor(capsys, project_dir)
    assert code == 0 and "harness gemini-cli" not in checks


def test_doctor_passes_over_a_valid_settings_file_without_batons_wiring(project_dir, capsys):
    _write(project_dir, ".claude/settings.json", '{"theme": "dark"}')
    code, checks = _doctor(capsys, project_dir)
    assert code == 0 and "harness claude-code" not in checks


def test_doctor_fails_on_a_file_that_is_not_utf8(project_dir, capsys):
    target = project_dir / ".cursor" / "hooks.json"
    target.parent.mkdir(parents=True)
    target.write_bytes(b'{"x": "\xff"}')
    code, checks = _doctor(capsys, project_dir)
    assert ".cursor/hooks.json cannot be read as UTF-8 text" in checks["harness cursor"]["detail"]


def test_doctor_says_how_to_connect_a_harness_when_none_is_wired(project_dir, capsys):
    code, checks = _doctor(capsys, project_dir)
    assert code == 0 and checks["harnesses"]["status"] == "ok"
    assert "none wired in this worktree; `baton install-hooks --harness NAME` connects one" in \
        checks["harnesses"]["detail"]


def test_doctor_says_nothing_of_connecting_a_harness_once_one_is_wired(project_dir, capsys):
    install_hooks(project_dir, "codex")
    code, checks = _doctor(capsys, project_dir)
    assert "harness codex" in checks and "harnesses" not in checks


BATON = str(Path(sys.executable).parent / "baton")
"""A ``baton`` that is found, so the wiring is otherwise complete."""


def _start_matcher(project_dir, matcher: str) -> None:
    settings = project_dir / ".claude" / "settings.json"
    config = json.loads(settings.read_text())
    (group,) = config["hooks"]["SessionStart"]
    group["matcher"] = matcher
    settings.write_text(json.dumps(config))


def test_doctor_warns_of_a_start_matcher_from_before_claude_code_forked_sessions(project_dir, capsys):
    """An install made before ``fork`` was in the matcher runs no hook when a forked session
    starts (Claude Code 2.1.214 and later): doctor says so, and that install-hooks fixes it."""
    install_hooks(project_dir, "claude-code", command=BATON)
    _start_matcher(project_dir, "startup|resume|clear|compact")
    code, checks = _doctor(capsys, project_dir)
    check = checks["harness claude-code"]
    assert check["status"] == "warn"
    assert "the SessionStart hook's matcher leaves out fork" in check["detail"]
    assert "install-hooks --harness claude-code" in check["detail"]


def test_doctor_is_content_once_install_hooks_widened_the_matcher(project_dir, capsys):
    install_hooks(project_dir, "claude-code", command=BATON)
    _start_matcher(project_dir, "startup|resume|clear|compact")
    install_hooks(project_dir, "claude-code", command=BATON)
    code, checks = _doctor(capsys, project_dir)
    assert checks["harness claude-code"]["status"] == "ok", checks["harness claude-code"]["detail"]


@pytest.mark.parametrize("matcher", ["*", "", ".*", "startup|resume|clear|compact|fork|other"])
def test_doctor_takes_a_matcher_that_lets_every_source_through_as_it_is(project_dir, capsys, matcher):
    install_hooks(project_dir, "claude-code", command=BATON)
    _start_matcher(project_dir, matcher)
    code, checks = _doctor(capsys, project_dir)
    assert checks["harness claude-code"]["status"] == "ok", checks["harness claude-code"]["detail"]


def _suggested_for_a_stale_start_matcher(project_dir, events: str) -> tuple[str, str | None]:
    """Claude Code wired with ``--events EVENTS`` (the real CLI), its start matcher then gone stale:
    doctor's detail for it, and the ``install-hooks`` command that detail suggests (None without one)."""
    subprocess.run([BATON, "install-hooks", "--harness", "claude-code", "--events", events],
                   cwd=project_dir, check=True, capture_output=True)
    _start_matcher(project_dir, "startup|resume|clear|compact")
    doctor = subprocess.run([BATON, "doctor", "--json"], cwd=project_dir, capture_output=True, text=True)
    detail = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}["harness claude-code"]["detail"]
    suggested = re.search(r"run `([^`]*install-hooks[^`]*)`", detail)
    return detail, suggested.group(1) if suggested else None


def _hooks_once_run(project_dir, command: str) -> dict:
    """Claude Code's hooks after ``command`` is run as it is written."""
    subprocess.run(shlex.split(command), cwd=project_dir, check=True, capture_output=True)
    return json.loads((project_dir / ".claude" / "settings.json").read_text())["hooks"]


def test_doctor_suggests_an_install_that_keeps_the_prompt_hook_wired(project_dir):
    """With ``--events all`` wired (Claude Code's default) and the start matcher gone stale, the command
    doctor suggests, run as it is, widens the matcher and keeps the UserPromptSubmit hook (the real CLI)."""
    detail, suggested = _suggested_for_a_stale_start_matcher(project_dir, "all")
    assert suggested is not None, detail
    hooks = _hooks_once_run(project_dir, suggested)
    assert "UserPromptSubmit" in hooks and "fork" in hooks["SessionStart"][0]["matcher"].split("|")


def test_doctor_suggests_an_install_that_keeps_the_prompt_hook_out_when_the_user_left_it_out(project_dir):
    """With ``--events start,end,compact`` wired and the start matcher gone stale, the command doctor
    suggests for the gap names those events, and run as it is widens the matcher and wires no
    UserPromptSubmit hook (the real CLI); the hint beside it names the command that would."""
    detail, suggested = _suggested_for_a_stale_start_matcher(project_dir, "start,end,compact")
    assert suggested is not None and "--events start,end,compact" in suggested, detail
    assert "no hook for UserPromptSubmit, so a baton" in detail
    hooks = _hooks_once_run(project_dir, suggested)
    assert "UserPromptSubmit" not in hooks and "fork" in hooks["SessionStart"][0]["matcher"].split("|")


def test_doctor_suggests_no_events_option_for_the_default_events(project_dir, capsys):
    install_hooks(project_dir, "claude-code", command=BATON)
    _start_matcher(project_dir, "startup|resume|clear|compact")
    code, checks = _doctor(capsys, project_dir)
    assert "--events" not in checks["harness claude-code"]["detail"]


def test_doctor_suggests_the_events_list_that_leaves_compaction_out(project_dir, capsys):
    install_hooks(project_dir, "claude-code", command=BATON, events=("start", "end"))
    _start_matcher(project_dir, "startup|resume|clear|compact")
    code, checks = _doctor(capsys, project_dir)
    assert "install-hooks --harness claude-code --events start,end`" in checks["harness claude-code"]["detail"]


def _share_start_group(project_dir, matcher: str) -> None:
    settings = project_dir / ".claude" / "settings.json"
    config = json.loads(settings.read_text())
    (group,) = config["hooks"]["SessionStart"]
    group["matcher"] = matcher
    group["hooks"].append({"type": "command", "command": "echo mine"})
    settings.write_text(json.dumps(config))


def test_doctor_warns_of_an_old_start_matcher_on_a_group_shared_with_the_users_hook(project_dir, capsys):
    install_hooks(project_dir, "claude-code", command=BATON)
    _share_start_group(project_dir, "startup|resume|clear|compact")
    code, checks = _doctor(capsys, project_dir)
    check = checks["harness claude-code"]
    assert check["status"] == "warn", check["detail"]
    assert ("SessionStart group in .claude/settings.json that runs Baton's hook beside 1 hook of yours "
            "has matcher `startup|resume|clear|compact`, which leaves out fork") in check["detail"]


def test_doctor_is_content_with_a_shared_start_group_whose_matcher_lets_fork_through(project_dir, capsys):
    install_hooks(project_dir, "claude-code", command=BATON)
    _share_start_group(project_dir, "startup|resume|clear|compact|fork")
    code, checks = _doctor(capsys, project_dir)
    assert checks["harness claude-code"]["status"] == "ok", checks["harness claude-code"]["detail"]


def test_install_hooks_leaves_a_shared_start_group_as_it_is(project_dir):
    install_hooks(project_dir, "claude-code", command=BATON)
    _share_start_group(project_dir, "startup|resume|clear|compact")
    before = (project_dir / ".claude" / "settings.json").read_text()
    install_hooks(project_dir, "claude-code", command=BATON)
    assert (project_dir / ".claude" / "settings.json").read_text() == before


# -- Baton's hooks moved by hand into .claude/settings.local.json ---------------------------------

LOCAL = ".claude/settings.local.json"


def _move_hooks_to_local(project_dir, *, copy: bool = False) -> None:
    """Baton's hooks cut from settings.json and pasted into settings.local.json, as a person does
    (``copy``: pasted without cutting, or a second copy an earlier install-hooks added back)."""
    shared_path, local_path = project_dir / ".claude" / "settings.json", project_dir / LOCAL
    shared, local = json.loads(shared_path.read_text()), json.loads(local_path.read_text())
    local["hooks"] = shared["hooks"] if copy else shared.pop("hooks")
    shared_path.write_text(json.dumps(shared))
    local_path.write_text(json.dumps(local))


def test_doctor_counts_hooks_moved_to_the_local_settings_as_installed(project_dir, capsys):
    install_hooks(project_dir, "claude-code", command=BATON)
    _move_hooks_to_local(project_dir)
    code, checks = _doctor(capsys, project_dir)
    check = checks["harness claude-code"]
    assert check["status"] == "ok", check["detail"]
    assert check["detail"].startswith(f"6 hooks in {LOCAL} and the `baton` MCP server run"), check["detail"]


def test_doctor_warns_of_batons_hooks_in_both_settings_files_naming_both(project_dir, capsys):
    install_hooks(project_dir, "claude-code", command=BATON)
    _move_hooks_to_local(project_dir, copy=True)
    code, checks = _doctor(capsys, project_dir)
    check = checks["harness claude-code"]
    assert check["status"] == "warn"
    assert (f"Baton's SessionStart, PreCompact, SessionEnd, UserPromptSubmit, Stop, Interrupt hooks are in both "
            f".claude/settings.json and {LOCAL}"
            ) in check["detail"]
    assert f"install-hooks keeps the ones in {LOCAL}" in check["detail"]
    assert "install-hooks --harness claude-code" in check["detail"]


def test_doctor_says_identical_hooks_in_both_settings_files_run_once(project_dir, capsys):
    install_hooks(project_dir, "claude-code", command=BATON)
    _move_hooks_to_local(project_dir, copy=True)
    detail = _doctor(capsys, project_dir)[1]["harness claude-code"]["detail"]
    assert "(the same command line in both, so claude-code runs each once; still one brief and one claim)" in detail
    assert "twice" not in detail and "two briefs" not in detail


def test_doctor_says_different_hooks_in_both_settings_files_both_run_with_one_brief(project_dir, capsys):
    install_hooks(project_dir, "claude-code", command=BATON)
    _move_hooks_to_local(project_dir, copy=True)
    local_path = project_dir / LOCAL
    local_path.write_text(local_path.read_text().replace(BATON, f"{BATON} "))  # another command line, same program
    detail = _doctor(capsys, project_dir)[1]["harness claude-code"]["detail"]
    assert ("(with different command lines, so claude-code runs both: a second Baton process for each event, "
            "which answers with nothing; still one brief and one claim)") in detail


def test_doctor_is_content_once_install_hooks_took_the_second_copy_out(project_dir, capsys):
    install_hooks(project_dir, "claude-code", command=BATON)
    _move_hooks_to_local(project_dir, copy=True)
    install_hooks(project_dir, "claude-code", command=BATON)
    code, checks = _doctor(capsys, project_dir)
    assert checks["harness claude-code"]["status"] == "ok", checks["harness claude-code"]["detail"]


def test_doctor_warns_of_an_old_start_matcher_in_the_local_settings_naming_it(project_dir, capsys):
    install_hooks(project_dir, "claude-code", command=BATON)
    _move_hooks_to_local(project_dir)
    local = json.loads((project_dir / LOCAL).read_text())
    local["hooks"]["SessionStart"][0]["matcher"] = "startup|resume|clear|compact"
    (project_dir / LOCAL).write_text(json.dumps(local))
    code, checks = _doctor(capsys, project_dir)
    check = checks["harness claude-code"]
    assert check["status"] == "warn"
    assert f"the SessionStart hook's matcher in {LOCAL} leaves out fork" in check["detail"]
    assert "no Baton hook" not in check["detail"]


def test_doctor_warns_of_a_shared_start_group_in_the_local_settings_naming_that_file(project_dir, capsys):
    install_hooks(project_dir, "claude-code", command=BATON)
    _move_hooks_to_local(project_dir)
    local = json.loads((project_dir / LOCAL).read_text())
    (group,) = local["hooks"]["SessionStart"]
    group["matcher"] = "startup|resume|clear|compact"
    group["hooks"].append({"type": "command", "command": "echo mine"})
    (project_dir / LOCAL).write_text(json.dumps(local))
    code, checks = _doctor(capsys, project_dir)
    assert f"the SessionStart group in {LOCAL} that runs Baton's hook beside 1 hook of yours" in \
        checks["harness claude-code"]["detail"]


def test_doctor_names_both_files_and_both_command_lines_when_the_copies_differ_and_the_fix_for_each(
        project_dir, capsys):
    install_hooks(project_dir, "claude-code", command=BATON)
    _move_hooks_to_local(project_dir, copy=True)
    other = f"{shlex.quote(sys.executable)} -m baton"  # another command line, found on this machine
    local_path = project_dir / LOCAL
    local = json.loads(local_path.read_text())
    for groups in local["hooks"].values():
        for group in groups:
            for hook in group["hooks"]:
                hook["command"] = hook["command"].replace(BATON, other, 1)
    local_path.write_text(json.dumps(local))

    code, checks = _doctor(capsys, project_dir)  # --json: the detail carries it all
    detail = checks["harness claude-code"]["detail"]
    assert checks["harness claude-code"]["status"] == "warn", detail
    assert f".claude/settings.json (runs `{BATON}`)" in detail
    assert f"{LOCAL} (runs `{other}`)" in detail
    assert "runs both" in detail and "still one brief and one claim" in detail
    # one fix, for whichever command line is to stay — not settings.json's chosen silently
    assert (f"run `{BATON} install-hooks --harness claude-code --command {shlex.quote(other)}` to keep {LOCAL}'s "
            f"command line, or `{BATON} install-hooks --harness claude-code` to keep .claude/settings.json's") in detail


# -- Claude Code started in a subfolder runs none of the project's hooks (harness14 F2) ----------------

def _git_project_wired_for(project_dir, harness):
    from tests.handoff_support import git_init

    git_init(project_dir, {"src/deep/app.py": "x = 1\n"})
    install_hooks(project_dir, harness)
    return project_dir / "src" / "deep"


def test_doctor_run_in_a_subfolder_warns_that_claude_code_must_be_started_at_the_project_root(project_dir):
    from tests.cli_support import run_here

    sub = _git_project_wired_for(project_dir, "claude-code")
    code, out, err = run_here("doctor", "--json", cwd=sub)
    check = {c["name"]: c for c in json.loads(out)["checks"]}["harness claude-code (here)"]
    assert check["status"] == "warn"
    assert "src/deep" in check["detail"] and "start it at the project root" in check["detail"]
    assert str(project_dir.resolve()) in check["detail"]


def test_doctor_at_the_project_root_says_nothing_of_where_claude_code_starts(project_dir):
    from tests.cli_support import run_here

    _git_project_wired_for(project_dir, "claude-code")
    code, out, err = run_here("doctor", "--json", cwd=project_dir)
    assert "harness claude-code (here)" not in {c["name"] for c in json.loads(out)["checks"]}


def test_doctor_in_a_subfolder_of_a_project_not_wired_for_claude_code_says_nothing_of_it(project_dir):
    from tests.cli_support import run_here

    sub = _git_project_wired_for(project_dir, "codex")
    code, out, err = run_here("doctor", "--json", cwd=sub)
    assert "harness claude-code (here)" not in {c["name"] for c in json.loads(out)["checks"]}


def test_doctor_run_in_a_subfolder_warns_that_gemini_cli_must_be_started_at_the_project_root(project_dir):
    """Gemini CLI 0.61.0 started in a subfolder reads no .gemini/settings.json: no hook, no MCP tool (s13)."""
    from tests.cli_support import run_here

    sub = _git_project_wired_for(project_dir, "gemini-cli")
    code, out, err = run_here("doctor", "--json", cwd=sub)
    check = {c["name"]: c for c in json.loads(out)["checks"]}["harness gemini-cli (here)"]
    assert check["status"] == "warn"
    assert "Gemini CLI started here runs none of the project's hooks and offers none of Baton's MCP tools" in check["detail"]
    assert f"start it at the project root ({project_dir.resolve()})" in check["detail"]


def test_doctor_in_a_subfolder_says_nothing_of_where_codex_starts(project_dir):
    """Codex 0.171.0 finds the project's .codex/ from a subfolder: its hooks ran there (s13)."""
    from tests.cli_support import run_here

    sub = _git_project_wired_for(project_dir, "codex")
    code, out, err = run_here("doctor", "--json", cwd=sub)
    assert "harness codex (here)" not in {c["name"] for c in json.loads(out)["checks"]}


def test_doctor_in_a_linked_worktree_without_wiring_warns_when_the_main_worktree_is_wired(project_dir, capsys):
    """Tester harness15 G10: the wiring files are the main worktree's (not committed, or per clone):
    a harness started in the linked worktree runs no Baton at all, so doctor says so and how."""
    git = ["git", "-C", str(project_dir), "-c", "user.name=A", "-c", "user.email=a@x"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    assert run(capsys, project_dir, "init")[0] == 0
    linked = project_dir.parent / "linked"
    subprocess.run([*git, "worktree", "add", "-q", "-b", "feat", str(linked)], check=True)
    install_hooks(project_dir, "claude-code")
    code, checks = _doctor(capsys, linked)
    check = checks["harnesses"]
    assert check["status"] == "warn" and "claude-code" in check["detail"]
    assert "baton install-hooks --harness claude-code" in check["detail"]
