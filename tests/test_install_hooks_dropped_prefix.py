"""``install-hooks`` writes Baton's hook line whole: a variable a person set before it by hand
(``BATON_HOOK_DEADLINE=5 baton hook claude-code Stop``) is gone after a re-run, and it says so."""

from __future__ import annotations

import json

from tests.conftest import run_baton
from tests.handoff_support import git_init

SETTINGS = ".claude/settings.json"


def _prefixed(project, event: str, prefix: str) -> str:
    file = project / SETTINGS
    config = json.loads(file.read_text())
    hook = config["hooks"][event][0]["hooks"][0]
    hook["command"] = f"{prefix} {hook['command']}"
    file.write_text(json.dumps(config, indent=2))
    return hook["command"]


def test_install_hooks_says_when_it_drops_a_variable_set_before_baton_s_hook(project):
    git_init(project)
    run_baton("install-hooks", "--harness", "claude-code", cwd=project)
    line = _prefixed(project, "Stop", "BATON_HOOK_DEADLINE=5")
    result = run_baton("install-hooks", "--harness", "claude-code", "--json", cwd=project)
    assert result.returncode == 0
    [warning] = json.loads(result.stdout)["warnings"]
    assert f"{SETTINGS}: Baton's Stop hook ran `{line}`" in warning
    assert "`BATON_HOOK_DEADLINE=5` before it is gone" in warning
    assert "BATON_HOOK_DEADLINE" not in (project / SETTINGS).read_text()


def test_install_hooks_run_again_on_its_own_lines_warns_of_nothing(project):
    git_init(project)
    run_baton("install-hooks", "--harness", "claude-code", cwd=project)
    result = run_baton("install-hooks", "--harness", "claude-code", "--json", cwd=project)
    assert json.loads(result.stdout)["warnings"] == []
