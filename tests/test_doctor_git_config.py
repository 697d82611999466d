"""``baton doctor`` says when the repository's own git config cannot be read: git refuses the
repository, and Baton goes on as outside git with the owner from the user's config."""

from __future__ import annotations

import subprocess

from baton.commands.doctor import diagnose
from tests.app_support import init_project


def _repo(root) -> None:
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, capture_output=True)
    init_project(root)


def _check(root, name: str):
    return next((c for c in diagnose(root).checks if c.name == name), None)


def test_doctor_warns_that_a_broken_git_config_cannot_be_read(project_dir):
    _repo(project_dir)
    with open(project_dir / ".git" / "config", "a") as fh:
        fh.write("[user\n\temail = broken@example.com\n")
    found = _check(project_dir, "git config")
    assert found is not None and found.status == "warn"
    assert ".git/config cannot be read" in found.detail and "owner from your user config" in found.detail


def test_doctor_says_nothing_of_a_readable_git_config(project_dir):
    _repo(project_dir)
    assert _check(project_dir, "git config") is None
