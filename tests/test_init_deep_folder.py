"""``baton init`` in a folder too deep for SQLite to open the index in (a path
past 511 bytes): refused before anything is written, saying why and what to
do, instead of a half-made ``.baton/`` whose every command fails with
"unable to open database file"."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


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


LONGEST = "/.baton/sync-ids.sqlite-journal"
"""The longest path Baton has SQLite open in a project (the sync id cache's journal)."""


def test_init_in_a_folder_one_byte_too_deep_for_the_sync_id_cache_is_refused(tmp_path):
    # 512 bytes with ".baton/sync-ids.sqlite-journal": one past the longest path SQLite opens.
    deep = _folder_with_a_path_of(tmp_path, 512 - len(LONGEST))
    done = subprocess.run([sys.executable, "-m", "baton", "init", "--project", str(deep)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "sync-ids.sqlite-journal would take 512" in done.stderr
    assert not (deep / ".baton").exists()


def test_init_in_a_folder_just_short_enough_for_the_index_works(tmp_path):
    # 511 bytes with ".baton/sync-ids.sqlite-journal": the longest path SQLite opens.
    fits = _folder_with_a_path_of(tmp_path, 511 - len(LONGEST))
    done = subprocess.run([sys.executable, "-m", "baton", "init", "--project", str(fits)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    listed = subprocess.run([sys.executable, "-m", "baton", "handoff", "list", "--project", str(fits)],
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
