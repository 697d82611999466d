"""Cursor hooks in a multi-root workspace (docs/hooks.md, "Cursor"): the payload names the
workspace's roots (``workspace_roots``) and no ``cwd``. The session works in the root holding the
hook's own folder (where Cursor runs the project's ``.cursor/hooks.json``), else in the first root
that is a Baton project, else in the first root. Run through the real ``baton hook`` process."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_baton
from tests.harness_support import session_of


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=r@example.com", "-c", "user.name=R", *args], cwd=cwd,
                   check=True, capture_output=True)


@pytest.fixture
def workspace(tmp_path) -> tuple[Path, Path]:
    """A Baton project with a baton waiting, and a second root that is a plain git repository."""
    project, library = tmp_path / "app", tmp_path / "lib"
    for folder in (project, library):
        folder.mkdir()
        _git(folder, "init", "-q", "-b", "main")
        _git(folder, "commit", "-q", "--allow-empty", "-m", "a")
    assert run_baton("init", cwd=project).returncode == 0
    left = run_baton("session", "end", "pre1", "--harness", "cursor", "--handoff-steps", "cursor step",
                     cwd=project)
    assert left.returncode == 0, left.stderr
    return project, library


def _cursor(event: str, roots: list[str], cwd: Path, conversation: str = "cm1") -> subprocess.CompletedProcess:
    payload = {"conversation_id": conversation, "hook_event_name": event, "workspace_roots": roots}
    return run_baton("hook", "cursor", event, cwd=cwd, input=json.dumps(payload))


def test_a_cursor_start_in_a_workspace_whose_first_root_is_not_the_project_delivers_the_projects_brief(workspace):
    project, library = workspace
    started = _cursor("sessionStart", [str(library), str(project)], project)
    assert started.returncode == 0, started.stderr
    context = json.loads(started.stdout)["additional_context"]
    assert "cursor step" in context
    assert "baton init" not in context


def test_a_cursor_end_in_a_workspace_whose_first_root_is_elsewhere_is_recorded(workspace):
    project, library = workspace
    _cursor("sessionStart", [str(library), str(project)], project)
    ended = _cursor("sessionEnd", ["/etc", str(project)], project)
    assert ended.returncode == 0
    assert "not a Baton project" not in ended.stderr
    assert session_of(project, "cm1")["endedAt"]


def test_a_cursor_hook_run_outside_every_root_uses_the_first_root_that_is_a_baton_project(workspace, tmp_path):
    project, library = workspace
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    started = _cursor("sessionStart", [str(library), str(project)], elsewhere)
    assert "cursor step" in json.loads(started.stdout)["additional_context"]


def test_a_cursor_hook_run_in_a_root_that_is_no_baton_project_says_so_for_that_root(workspace):
    project, library = workspace
    started = _cursor("sessionStart", [str(project), str(library)], library)
    assert "cursor step" not in started.stdout
    assert str(library) in started.stderr
