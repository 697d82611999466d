"""``baton doctor`` names a hand-edited Baton hook line — ``baton hook HARNESS EVENT`` with a word
Baton's own line does not have (``--verbose``) — that ``install-hooks`` keeps beside Baton's own
(not Baton's shape), so the harness runs Baton twice and that run only leaves a notice."""

from __future__ import annotations

import json

from tests.conftest import run_baton
from tests.handoff_support import git_init

HAND_EDITED = "/usr/local/bin/baton hook claude-code Stop --verbose"


def _with_hook(project, path: str, event: str, command: str) -> None:
    file = project / path
    config = json.loads(file.read_text())
    config["hooks"][event].append({"hooks": [{"type": "command", "command": command}]})
    file.write_text(json.dumps(config, indent=2))


def _hand_edited_checks(project) -> list[dict]:
    result = run_baton("doctor", "--json", cwd=project)
    return [check for check in json.loads(result.stdout)["checks"] if "hand-edited" in check["name"]]


def test_doctor_names_a_hand_edited_baton_hook_line_kept_beside_baton_s_own(project):
    git_init(project)
    run_baton("install-hooks", "--harness", "claude-code", cwd=project)
    _with_hook(project, ".claude/settings.json", "Stop", HAND_EDITED)
    [check] = _hand_edited_checks(project)
    assert check["status"] == "warn"
    assert f".claude/settings.json: `{HAND_EDITED}`" in check["detail"]
    assert "runs Baton twice" in check["detail"] and "delete it by hand" in check["detail"]


def test_install_hooks_keeps_the_hand_edited_line_doctor_names(project):
    """Not Baton's shape, so not Baton's to replace: the person deletes it (doctor says so)."""
    git_init(project)
    run_baton("install-hooks", "--harness", "claude-code", cwd=project)
    _with_hook(project, ".claude/settings.json", "Stop", HAND_EDITED)
    run_baton("install-hooks", "--harness", "claude-code", cwd=project)
    assert HAND_EDITED in (project / ".claude" / "settings.json").read_text()
    assert _hand_edited_checks(project)


def test_doctor_names_a_hand_edited_gemini_line_with_its_non_blocking_tail(project):
    git_init(project)
    run_baton("install-hooks", "--harness", "gemini-cli", cwd=project)
    line = "baton hook gemini-cli SessionEnd extra || exit 1"
    _with_hook(project, ".gemini/settings.json", "SessionEnd", line)
    [check] = _hand_edited_checks(project)
    assert f"`{line}`" in check["detail"]


def test_doctor_says_nothing_of_the_person_s_own_hooks(project):
    git_init(project)
    run_baton("install-hooks", "--harness", "claude-code", cwd=project)
    _with_hook(project, ".claude/settings.json", "Stop", "notify-send 'hook claude-code done'")
    _with_hook(project, ".claude/settings.json", "Stop", "./scripts/hook claude-code-lint --fix")
    assert _hand_edited_checks(project) == []
