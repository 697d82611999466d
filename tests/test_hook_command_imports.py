"""``baton hook claude-code SessionStart`` runs at every session start: it must
not load the MCP SDK (measured with ``python -X importtime``, not timed)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

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
    classes (``baton.events.session``), not the other 20 of the catalogue,
    nor cattrs, nor the freshness rules (no baton's freshness to judge)."""
    git_init(project, {"src/app.py": "x = 1\n"})
    subprocess.run([sys.executable, "-m", "baton", "bootstrap", "--peek", "--project", str(project)],
                   capture_output=True, check=True)
    loaded = _session_start_loads(project)
    assert {"baton.events.base", "baton.events.session", "baton.commands.record"} <= loaded  # it did record
    assert not {"baton.events.catalogue", "baton.events.baton", "baton.domain.aggregates.baton", "cattrs",
                "baton.commands.baton_cases", "baton.domain.freshness"} & loaded


def test_a_session_start_that_claims_a_baton_defines_the_baton_events_too(project):
    from tests.app_support import end_session

    git_init(project, {"src/app.py": "x = 1\n"})
    end_session(project, "s1", {"nextSteps": ["carry on"]})
    subprocess.run([sys.executable, "-m", "baton", "bootstrap", "--peek", "--project", str(project)],
                   capture_output=True, check=True)
    loaded = _session_start_loads(project)
    assert {"baton.events.session", "baton.events.baton", "baton.domain.aggregates.baton"} <= loaded
    assert "cattrs" not in loaded  # the claimed record is read from the index and written back without the converter


PROMPT_HOOKS = [("claude-code", "UserPromptSubmit"), ("codex", "UserPromptSubmit"),
                ("gemini-cli", "BeforeAgent"), ("cursor", "beforeSubmitPrompt")]
PROMPT_HOOK_MODULES = {
    # Baton's own: the command line, the hook runner and its notices, the adapter, the recogniser.
    "baton", "baton.cli_run", "baton.errors", "baton.domain", "baton.domain.limits", "baton.domain.handoff_requests",
    "baton.domain.regexes", "baton.values",  # the protocol's value classes' one definition
    "baton.domain.shell_words",  # the adapters' shell words (their MCP entry splits its command), not ``shlex``
    "baton.harnesses", "baton.harnesses.protocol", "baton.harnesses.hook", "baton.harnesses.notices",
    # The standard library beyond the floor's: the watchdog's thread, the recogniser's Unicode
    # folding, argparse's messages, ``python -m`` and the paused collector (not ``typing``:
    # annotations' names are imported for type checkers only).
    "threading", "unicodedata", "locale", "_locale", "runpy", "gc",
    # How the process ends (``baton.cli_run.run`` marks a hook-path process, which keeps the
    # index's connection open to its ``os._exit``): two functions, no import.
    "baton.process_end",
}
"""What ``baton hook HARNESS <prompt event>`` may import beyond ``python -c "import orjson,
sqlite3, hashlib, argparse"`` (the stack's floor without attrs), besides its adapter's module."""


def _imported(argv: list[str], cwd, stdin: str | None = None) -> set[str]:
    r = subprocess.run([sys.executable, "-X", "importtime", *argv], input=stdin, capture_output=True, text=True,
                       cwd=cwd)
    assert r.returncode == 0, r.stderr[-2000:]
    return {line.split("|")[-1].strip() for line in r.stderr.splitlines() if "|" in line}


@pytest.mark.parametrize("harness,event", PROMPT_HOOKS, ids=[" ".join(h) for h in PROMPT_HOOKS])
def test_an_ordinary_prompt_loads_only_the_named_modules_beyond_the_floor_and_no_attrs(project, harness, event):
    """A prompt that asks for no handoff is recognised and answered without
    a model class: no attrs, no cattrs, nothing of the application."""
    git_init(project, {"src/app.py": "x = 1\n"})
    subprocess.run([sys.executable, "-m", "baton", "bootstrap", "--peek", "--project", str(project)],
                   capture_output=True, check=True)
    floor = _imported(["-c", "import orjson, sqlite3, hashlib, argparse"], project)
    payload = json.dumps(fixture(harness, event, project, prompt="fix the failing parser test in src/app.py"))
    loaded = _imported(["-m", "baton", "hook", harness, event], project, payload)
    adapter = "baton.harnesses." + harness.replace("-", "_")
    assert adapter in loaded  # the hook really read the prompt
    assert not [m for m in loaded if m in ("attr", "attrs", "cattrs", "baton.model", "baton.app")]
    assert loaded - floor - {adapter} <= PROMPT_HOOK_MODULES, sorted(loaded - floor - {adapter} - PROMPT_HOOK_MODULES)


def test_a_prompt_that_asks_for_a_handoff_still_prepares_its_draft_through_the_application(project):
    """The other side of the line: a request opens the application (and its models)."""
    git_init(project, {"src/app.py": "x = 1\n"})
    payload = json.dumps(fixture("claude-code", "UserPromptSubmit", project, prompt="handoff"))
    loaded = _imported(["-m", "baton", "hook", "claude-code", "UserPromptSubmit"], project, payload)
    assert {"baton.app", "attrs"} <= loaded
