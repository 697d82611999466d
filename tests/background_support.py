"""What the tests of hooks handed to the background share: a Claude Code hook
run as the harness runs it, and the background process's pid and end
(``baton.background``)."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import run_baton
from tests.harness_support import fixture, process_running

WAITS_FOR_A_CATCH_UP = pytest.mark.slow(reason="a hook run in a child process that hands its work to a "
                                                 "background catch-up process, waited for")
"""Run by the README's slow command (CI runs it), with the other tests of real processes started
and waited for: a test that waits for the background process a hook started (``wait_gone``).
The hooks' in-process tests and the catch-up's own commands stay in the main suite."""

def claude_hook(repo: Path, event: str, name: str, session: str, **env: str) -> subprocess.CompletedProcess:
    """``baton hook claude-code EVENT`` given the recorded payload ``name`` for ``session``."""
    body = fixture("claude-code", name, repo, session_id=session)
    return run_baton("hook", "claude-code", event, cwd=repo, input=json.dumps(body), env=env, timeout=60)


def background_pid(stderr: str) -> int:
    """The pid of the background process a hook says it started."""
    found = re.search(r"pid (\d+)", stderr)
    assert found, stderr
    return int(found.group(1))


def wait_gone(pid: int, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while process_running(pid):
        assert time.monotonic() < deadline, f"the background process {pid} did not end"
        time.sleep(0.05)


def kept_hooks(repo: Path) -> list[Path]:
    """The hooks waiting in ``.baton/deferred/``, oldest first."""
    return sorted((repo / ".baton" / "deferred").glob("*.json"))


def catch_up_pid(repo: Path) -> int:
    """The pid the background catch-up's lock file names (its first line)."""
    return int((repo / ".baton" / "cache" / "catch-up.lock").read_text().split("\n", 1)[0])
