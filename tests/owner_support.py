"""What the tests of who captured a handoff share: git run in a project, and a
project that is a git repository whose identity is Ann's."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def anns_repository(project: Path) -> Path:
    """``project`` made a git repository on ``main`` whose user is Ann (ann@example.com)."""
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "user.email", "ann@example.com")
    git(project, "config", "user.name", "Ann")
    return project
