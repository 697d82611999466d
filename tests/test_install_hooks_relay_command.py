"""Without ``--command``, the hooks start the installed ``baton``'s own Python
directly (``python -P -c 'from baton.launch import run; run()' hook …``): the
same program as its console script, without the wrapper's start-up at every
hook (docs/cli.md, ``install-hooks``). The MCP server still runs the ``baton``
path; ``--command`` is written as given."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from baton.harnesses import adapter
from baton.harnesses.wiring import RELAY_CODE, relay_command
from tests.cli_support import run_json

CONSOLE_SCRIPT = Path(sys.executable).parent / "baton"


def _interpreter(script: Path) -> str:
    return script.read_text().splitlines()[0][2:].strip()


def _hooks(project: Path) -> dict[str, str]:
    config = json.loads((project / ".claude" / "settings.json").read_text())
    return {event: groups[0]["hooks"][0]["command"] for event, groups in config["hooks"].items()}


def test_the_default_hooks_start_the_console_scripts_python_with_the_program_entry_point(capsys, project_dir):
    answer = run_json(capsys, project_dir, "install-hooks", "--harness", "claude-code")
    expected = shlex.join([_interpreter(CONSOLE_SCRIPT), "-P", "-c", RELAY_CODE])
    wired = adapter("claude-code")
    assert answer["hookCommand"] == expected
    assert answer["command"] == str(CONSOLE_SCRIPT)
    assert set(_hooks(project_dir).values()) == {f"{expected} hook claude-code {event}{wired.event_suffix(event, expected)}"
                                                for event in ("SessionStart", "PreCompact", "SessionEnd",
                                                              "UserPromptSubmit", "Stop", "Interrupt")}
    mcp = json.loads((project_dir / ".mcp.json").read_text())["mcpServers"]["baton"]
    assert mcp["command"] == str(CONSOLE_SCRIPT)


def test_a_default_hook_line_runs_the_hook(capsys, project_dir):
    run_json(capsys, project_dir, "install-hooks", "--harness", "claude-code")
    line = _hooks(project_dir)["SessionStart"]
    payload = json.dumps({"session_id": "s1", "cwd": str(project_dir), "hook_event_name": "SessionStart",
                          "source": "startup"})
    done = subprocess.run(["sh", "-c", line], input=payload, cwd=project_dir, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "session `s1`" in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]


def test_a_command_given_is_what_the_hooks_run(capsys, project_dir):
    answer = run_json(capsys, project_dir, "install-hooks", "--harness", "claude-code", "--command",
                      str(CONSOLE_SCRIPT))
    assert answer["hookCommand"] == answer["command"] == str(CONSOLE_SCRIPT)
    assert _hooks(project_dir)["SessionEnd"] == f"{CONSOLE_SCRIPT} hook claude-code SessionEnd"


def test_a_program_that_is_not_batons_console_script_is_not_started_another_way(tmp_path):
    shell = tmp_path / "baton"
    shell.write_text("#!/bin/sh\nexec python3 -m baton \"$@\"\n")
    shell.chmod(0o755)
    by_env = tmp_path / "baton-env"
    by_env.write_text("#!/usr/bin/env python3\nfrom baton.launch import run\nrun()\n")
    by_env.chmod(0o755)
    pip_for_spaces = tmp_path / "baton-spaces"  # what pip writes when the interpreter's path has spaces
    pip_for_spaces.write_text("#!/bin/sh\n'" + "''exec' \"/opt/my venv/bin/python\" \"$0\" \"$@\"\n' '" + "''\n"
                              "import re\nimport sys\nfrom baton.launch import run\n")
    pip_for_spaces.chmod(0o755)
    assert relay_command(str(shell)) is None
    assert relay_command(str(by_env)) is None
    assert relay_command(str(pip_for_spaces)) is None
    assert relay_command(str(tmp_path / "missing")) is None
    assert relay_command(None) is None


def test_doctor_asks_to_rerun_without_a_command_when_the_hooks_start_python_directly(capsys, project_dir):
    run_json(capsys, project_dir, "install-hooks", "--harness", "claude-code")
    (project_dir / ".mcp.json").unlink()
    checks = run_json(capsys, project_dir, "doctor")["checks"]
    line = next(c for c in checks if c["name"] == "harness claude-code")
    assert line["status"] == "warn"
    assert "install-hooks --harness claude-code`" in line["detail"] and "--command" not in line["detail"]
