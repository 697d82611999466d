"""``baton hook claude-code SessionStart`` runs at every session start: it must
not load the MCP SDK (measured with ``python -X importtime``, not timed)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.handoff_support import git_init
from tests.harness_support import fixture

HEAVY = ("mcp", "sqlite_utils", "dulwich.porcelain", "click")


def test_the_session_start_hook_loads_no_heavy_module(project):
    git_init(project, {"src/app.py": "x = 1\n"})
    subprocess.run([sys.executable, "-m", "baton", "bootstrap", "--peek", "--project", str(project)],
                   capture_output=True, check=True)  # the index is warm, as in a project in use
    payload = json.dumps(fixture("claude-code", "SessionStart.startup", project))
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "baton", "hook", "claude-code", "SessionStart"],
                       input=payload, capture_output=True, text=True, cwd=project)
    assert r.returncode == 0
    assert "additionalContext" in r.stdout
    loaded = {line.split("|")[-1].strip() for line in r.stderr.splitlines() if "|" in line}
    assert "baton.harnesses.claude_code" in loaded
    assert "mcp" not in loaded
    assert not [m for m in HEAVY if m in loaded]


def _session_start_loads(project) -> set[str]:
    payload = json.dumps(fixture("claude-code", "SessionStart.startup", project))
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "baton", "hook", "claude-code", "SessionStart"],
                       input=payload, capture_output=True, text=True, cwd=project)
    assert r.returncode == 0 and "additionalContext" in r.stdout, r.stderr[-2000:]
    return {line.split("|")[-1].strip() for line in r.stderr.splitlines() if "|" in line}


def test_a_session_start_with_no_baton_waiting_defines_only_the_session_events(project):
    """Recording ``session.begun`` needs the sessions' and objectives' event
    classes (``baton.events_session``), not the other 20 of the catalogue,
    nor cattrs."""
    git_init(project, {"src/app.py": "x = 1\n"})
    subprocess.run([sys.executable, "-m", "baton", "bootstrap", "--peek", "--project", str(project)],
                   capture_output=True, check=True)
    loaded = _session_start_loads(project)
    assert {"baton.events_base", "baton.events_session", "baton.commands.record"} <= loaded  # it did record
    assert not {"baton.events", "baton.events_baton", "baton.domain.aggregates.baton", "cattrs",
                "baton.commands.baton_cases"} & loaded


def test_a_session_start_that_claims_a_baton_defines_the_baton_events_too(project):
    from tests.app_support import end_session

    git_init(project, {"src/app.py": "x = 1\n"})
    end_session(project, "s1", {"nextSteps": ["carry on"]})
    subprocess.run([sys.executable, "-m", "baton", "bootstrap", "--peek", "--project", str(project)],
                   capture_output=True, check=True)
    loaded = _session_start_loads(project)
    assert {"baton.events_session", "baton.events_baton", "baton.domain.aggregates.baton"} <= loaded
