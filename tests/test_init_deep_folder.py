"""``baton init`` in a folder too deep for SQLite to open the index in (a path
past 511 bytes): refused before anything is written, saying why and what to
do, instead of a half-made ``.baton/`` whose every command fails with
"unable to open database file". A project moved into such a folder after
``init`` says the same and to move it to a shorter path; its hooks still
exit 0."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import run_baton
from tests.handoff_support import git_init
from tests.harness_support import fixture


def _folder_with_a_path_of(base, length: int):
    """A real folder under ``base`` whose absolute path is ``length`` characters."""
    folder = base
    while len(str(folder)) < length:
        folder = folder / ("d" * min(200, length - len(str(folder)) - 1))
    folder.mkdir(parents=True)
    return folder


@pytest.mark.skipif(os.name != "posix", reason="SQLite's 512-byte path limit is its POSIX one")
def test_init_in_a_folder_too_deep_for_the_index_is_refused_before_anything_is_written(tmp_path):
    deep = _folder_with_a_path_of(tmp_path, 600)
    done = subprocess.run([sys.executable, "-m", "baton", "init", "--project", str(deep)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "too deep a folder for Baton's index" in done.stderr and "shorter path" in done.stderr
    assert not (deep / ".baton").exists()


LONGEST = "/.baton/index.sqlite-journal"
"""The longest path Baton has SQLite open in a project (the index's journal; the sync id cache's
name, ``sync-ids.db``, is shorter, so it opens wherever the index does: tests/test_sync_deep_folder.py)."""


def test_init_in_a_folder_one_byte_too_deep_for_the_index_is_refused(tmp_path):
    # 512 bytes with ".baton/index.sqlite-journal": one past the longest path SQLite opens.
    deep = _folder_with_a_path_of(tmp_path, 512 - len(LONGEST))
    done = subprocess.run([sys.executable, "-m", "baton", "init", "--project", str(deep)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "index.sqlite-journal would take 512" in done.stderr
    assert not (deep / ".baton").exists()


def test_init_in_a_folder_just_short_enough_for_the_index_works(tmp_path):
    # 511 bytes with ".baton/index.sqlite-journal": the longest path SQLite opens.
    fits = _folder_with_a_path_of(tmp_path, 511 - len(LONGEST))
    done = subprocess.run([sys.executable, "-m", "baton", "init", "--project", str(fits)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    listed = subprocess.run([sys.executable, "-m", "baton", "handoff", "list", "--project", str(fits)],
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr


def _moved_too_deep(tmp_path):
    """A project made at a short path, then moved into a folder ~550 characters deep."""
    short = tmp_path / "p"
    short.mkdir()
    git_init(short)
    assert run_baton("init", "--project", str(short)).returncode == 0
    moved = _folder_with_a_path_of(tmp_path / "deep", 550) / "p"
    short.rename(moved)
    return moved


@pytest.mark.skipif(os.name != "posix", reason="SQLite's 512-byte path limit is its POSIX one")
def test_a_project_moved_into_a_folder_too_deep_for_the_index_says_so_and_to_move_it(tmp_path):
    moved = _moved_too_deep(tmp_path)
    done = run_baton("handoff", "list", "--project", str(moved))
    assert done.returncode == 1
    assert "too deep a folder for Baton's index" in done.stderr
    assert "move the project to a folder with a shorter path" in done.stderr
    assert "unable to open database file" not in done.stderr


@pytest.mark.skipif(os.name != "posix", reason="SQLite's 512-byte path limit is its POSIX one")
def test_a_hook_in_a_project_moved_too_deep_exits_0_saying_why_in_one_line(tmp_path):
    moved = _moved_too_deep(tmp_path)
    payload = fixture("claude-code", "SessionStart.startup", moved)
    done = run_baton("hook", "claude-code", "SessionStart", cwd=moved, input=json.dumps(payload))
    assert done.returncode == 0
    # A start on a project Baton cannot open answers with the failure as the agent's context, one line.
    [said] = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"].strip().splitlines()
    assert "too deep a folder for Baton's index" in said and "move the project" in said
