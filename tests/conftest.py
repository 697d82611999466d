"""Shared fixtures. No test touches the real home, git config or BATON_PROJECT.

Hypothesis profile: ``BATON_HYPOTHESIS_PROFILE`` picks one of ``ci`` (lean,
derandomized; the default when ``CI`` is set), ``dev`` (the local default) and
``deep`` (long local runs).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import HealthCheck, settings

# A test run started in the background (``cmd &`` in a script, as a CI job may be) ignores
# SIGINT, and every process it starts inherits that: the tests that press Ctrl-C on a child
# (``status serve``, a relayed command) would wait for it in vain. A person's terminal
# delivers it, so the tests run as one would: a Python handler is reset to the default
# in every child a test starts.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

settings.register_profile("ci", max_examples=25, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile("deep", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("BATON_HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("home")
    isolate(monkeypatch, home)
    return home


def isolate(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """What every test runs under (``isolated_home``); also for a module- or session-scoped
    fixture, built before any test's own ``isolated_home``, that must not see the real home."""
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("BATON_PROJECT", raising=False)
    for git_named in ("GIT_DIR", "GIT_WORK_TREE"):  # Baton honours them as git does: a test run by a git hook sets them
        monkeypatch.delenv(git_named, raising=False)
    monkeypatch.delenv("BATON_DEBUG", raising=False)
    for harness_named in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"):  # a harness running the tests names its own
        monkeypatch.delenv(harness_named, raising=False)
    # doctor and install-hooks read the user's harness configuration: the scratch home's, where no
    # harness's own variable (config_text.CONFIG_HOMES) moves it
    for config_home in ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME"):
        monkeypatch.delenv(config_home, raising=False)
    # A `baton` program run by a test runs every hook in its own process and starts no hook
    # server (tests/test_hook_server.py turns it on, in a folder of its own).
    monkeypatch.setenv("BATON_HOOK_SERVER", "0")


@pytest.fixture(autouse=True)
def fresh_id_clock(monkeypatch):
    """Each test starts with the UUIDv7 generator's monotonic state of its own: a
    test whose ledger clock runs years ahead (``test_ledger_merge``) must not
    push every later id of the same worker process into the future."""
    from baton.ledger import ids

    monkeypatch.setattr(ids, "_last_ms", ids._last_ms)
    monkeypatch.setattr(ids, "_counter", ids._counter)


@pytest.fixture
def project_dir(tmp_path) -> Path:
    """An empty directory that is not (yet) a Baton project."""
    d = tmp_path / "proj"
    d.mkdir()
    return d


@pytest.fixture
def project(project_dir) -> Path:
    """An initialised Baton project (not a git repository)."""
    from tests.app_support import init_project

    init_project(project_dir)
    return project_dir


@pytest.fixture
def repo(project) -> Path:
    """An initialised Baton project that is a git repository: one commit, of ``src/app.py``."""
    from tests.handoff_support import git_init

    git_init(project, {"src/app.py": "x = 1\n"})
    return project


@pytest.fixture
def runtime() -> Iterator[Path]:
    """A private socket folder of this test's own for its hook servers (every one stopped at the end)."""
    from tests.harness_support import hook_server_runtime

    with hook_server_runtime() as folder:
        yield folder


@pytest.fixture
def other_file_system(tmp_path) -> Iterator[Path]:
    """A folder on another file system than ``tmp_path`` (tmpfs), removed afterwards: where a project
    ``mv``-ed there is copied, then deleted (the test is skipped where /dev/shm shares the file system)."""
    shm = Path("/dev/shm")
    if not shm.is_dir() or shm.stat().st_dev == tmp_path.stat().st_dev:
        pytest.skip("needs /dev/shm on a file system of its own")
    place = Path(os.path.realpath(shm)) / f"baton-test-{os.getpid()}-{tmp_path.name}"
    place.mkdir()
    yield place
    shutil.rmtree(place, ignore_errors=True)


def run_baton(*args: str, cwd: Path | None = None, env: dict | None = None, input: str | None = None,
              timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the real CLI in a child process, as a user or hook would."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "baton", *args], cwd=cwd, env=full_env, input=input,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def baton_cli():
    return run_baton
