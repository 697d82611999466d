"""`baton install-hooks --harness codex` says what the user must still do for Codex to run the hooks.

Codex 0.171 loads a project's `.codex/` only in a trusted folder and runs each
hook only once its definition is trusted (pinned to a hash in the user's own
config, which a project cannot write); an untrusted hook is skipped without a
word. The real program's behaviour is held by tests/e2e/test_codex.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from baton.harnesses import adapter
from tests.conftest import run_baton
from tests.handoff_support import git_init


def _install(root, *flags):
    done = run_baton("install-hooks", "--harness", "codex", *flags, cwd=root)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _step() -> str:
    """The trust step with all four hooks wired (``{hooks}``: how many, ``--events``)."""
    return adapter("codex").user_steps[0].replace("{hooks}", "4")  # start, the two ends (Stop, Interrupt) and compact: the default


def test_install_hooks_for_codex_ends_with_one_line_on_trusting_the_hooks(project_dir):
    git_init(project_dir)
    lines = _install(project_dir).splitlines()
    trust = [line for line in lines if "trust" in line]
    assert trust == [lines[-1]]
    assert lines[-1].startswith("codex: still to do: Codex runs these hooks only once you trust them")
    for needed in ("trust the folder", "/hooks", "Baton's 4 hooks", "--dangerously-bypass-hook-trust"):
        assert needed in lines[-1]


def test_the_trust_step_is_repeated_when_nothing_changes(project_dir):
    git_init(project_dir)
    _install(project_dir)
    again = _install(project_dir).splitlines()
    assert all("unchanged" in line for line in again[:-1] if "left out: prompt" not in line)
    assert again[-1] == f"codex: still to do: {_step()}"


def test_the_json_answer_carries_the_trust_step(project_dir):
    git_init(project_dir)
    out = json.loads(_install(project_dir, "--json"))
    assert out["userSteps"] == [_step()]
    assert len(out["userSteps"]) == 1 and "/hooks" in out["userSteps"][0]


def test_a_dry_run_names_the_trust_step_after_the_diff(project_dir):
    git_init(project_dir)
    text = _install(project_dir, "--dry-run")
    assert text.rstrip("\n").splitlines()[-1] == f"# then: {_step()}"
    assert not (project_dir / ".codex").exists()


def test_claude_code_install_names_no_codex_trust_step(project_dir):
    git_init(project_dir)
    done = run_baton("install-hooks", "--harness", "claude-code", cwd=project_dir)
    assert done.returncode == 0, done.stderr
    assert "/hooks" not in done.stdout and "hook-trust" not in done.stdout


# -- a start hook whose command cannot run says why (harness14 F5) -------------------------------

def _start_line(root) -> str:
    hooks = json.loads((root / ".codex" / "hooks.json").read_text())["hooks"]
    (group,) = hooks["SessionStart"]
    return group["hooks"][0]["command"]


def _sh(line: str, root, path: str) -> subprocess.CompletedProcess:
    """The line run as Codex runs a hook on Linux: by a POSIX shell (dash here, not bash)."""
    return subprocess.run(["/bin/sh", "-c", line], cwd=root, env={"PATH": path, "HOME": str(root)},
                          input="{}", capture_output=True, text=True, timeout=60)


def test_the_codex_start_hook_tells_the_agent_when_baton_is_not_on_the_path(project_dir):
    git_init(project_dir)
    _install(project_dir, "--command", "baton")
    done = _sh(_start_line(project_dir), project_dir, "/usr/bin:/bin")  # no `baton` there
    assert done.returncode == 0  # status 0 and a plain stdout: Codex hands it to the model as context
    assert done.stdout.startswith("Baton could not run its SessionStart hook (exit status 127; 127: the command "
                                  "was not found on the PATH Codex runs hooks with)")
    assert "Tell the person to run baton doctor in this project." in done.stdout


def _a_baton_at(folder) -> str:
    """An executable file that runs Baton, at ``folder/baton`` (install-hooks writes its absolute path)."""
    folder.mkdir(parents=True)
    program = folder / "baton"
    program.write_text(f"#!/bin/sh\nexec {sys.executable} -m baton \"$@\"\n")
    program.chmod(0o755)
    return str(program)


def test_the_codex_start_hook_names_the_missing_file_when_its_absolute_command_is_gone(project_dir, tmp_path):
    git_init(project_dir)
    program = _a_baton_at(tmp_path / "old venv" / "bin")  # a space: the path reaches the message intact
    _install(project_dir, "--command", program)
    os.remove(program)
    done = _sh(_start_line(project_dir), project_dir, "/usr/bin:/bin")
    assert done.returncode == 0
    assert done.stdout.startswith(f"Baton could not run its SessionStart hook (exit status 127: no file exists at "
                                  f"{program}), so this session got no brief")
    assert "PATH" not in done.stdout


def test_the_codex_start_hook_says_the_file_at_its_absolute_command_is_not_executable(project_dir, tmp_path):
    git_init(project_dir)
    program = _a_baton_at(tmp_path / "bin")
    _install(project_dir, "--command", program)
    os.chmod(program, 0o644)
    done = _sh(_start_line(project_dir), project_dir, "/usr/bin:/bin")
    assert done.returncode == 0
    assert done.stdout.startswith(f"Baton could not run its SessionStart hook (exit status 126: the file {program} "
                                  "is not executable), so this session got no brief")


def test_the_codex_start_hook_runs_the_file_at_its_absolute_command_as_before(project_dir, tmp_path):
    git_init(project_dir)
    program = _a_baton_at(tmp_path / "bin")
    _install(project_dir, "--command", program)
    done = _sh(_start_line(project_dir), project_dir, "/usr/bin:/bin")
    assert done.returncode == 0 and "Baton could not run" not in done.stdout, done.stdout


def test_the_codex_start_hook_runs_baton_as_before_when_it_is_found(project_dir):
    git_init(project_dir)
    _install(project_dir, "--command", "baton")
    folder = os.path.dirname(shutil.which("baton") or sys.executable)
    done = _sh(_start_line(project_dir), project_dir, f"{folder}:/usr/bin:/bin")
    assert done.returncode == 0 and "Baton could not run" not in done.stdout
    assert done.stdout == "" or json.loads(done.stdout)  # Baton's own answer: JSON, or nothing to add


def test_only_the_codex_start_hook_carries_the_fallback(project_dir):
    git_init(project_dir)
    _install(project_dir, "--events", "all")
    hooks = json.loads((project_dir / ".codex" / "hooks.json").read_text())["hooks"]
    carrying = {event for event, (group,) in hooks.items() if "||" in group["hooks"][0]["command"]}
    assert carrying == {"SessionStart"}
