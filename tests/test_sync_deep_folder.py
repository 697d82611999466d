"""``baton sync`` in a project as deep as its index allows (a root of up to 483
bytes, the bound ``init`` keeps: SQLite opens a path of at most 511,
``.baton/index.sqlite-journal`` the longest): its id cache opens there too, so
an import checks the ids it brings against the cache, not by reading every
local feed again. Deeper than SQLite opens the index, sync says the folder is
too deep, as every command does. Built with
real clones moved into real deep folders and a real remote."""

from __future__ import annotations

import os
import shutil

import pytest

from baton.sync.ids import ID_CACHE, LEGACY_ID_CACHE
from tests.cli_support import run, run_json
from tests.sync_support import checkpoint, make_team

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SQLite's 512-byte path limit is its POSIX one")

DEEPEST = 511 - len("/.baton/index.sqlite-journal")
"""The deepest project root (in bytes) whose index SQLite opens: 483."""


def _moved_to_a_root_of(project, base, length: int):
    """``project`` moved to a real folder whose absolute path is ``length`` bytes."""
    folder = base
    # Folders of 200 while more than one such and the project's own name remain: what is left,
    # 2 to 202 bytes, is the name's. (Filling to the last byte looped for ever when the room
    # left was exactly 3: a folder of no letters, on a temporary path of one length.)
    while length - len(os.fsencode(str(folder))) > 202:
        folder = folder / ("d" * 200)
    folder.mkdir(parents=True)
    moved = folder / ("p" * (length - len(os.fsencode(str(folder))) - 1))
    shutil.move(str(project), str(moved))
    assert len(os.fsencode(str(moved))) == length
    return moved


@pytest.mark.parametrize("length", [DEEPEST - 2, DEEPEST])  # 481 and 483: past the cache's old name's bound
def test_sync_at_a_root_as_deep_as_the_index_allows_imports_through_its_id_cache(capsys, tmp_path, length):
    _remote, a, b = make_team(tmp_path)
    checkpoint(capsys, a, "alice's work")
    run_json(capsys, a, "sync")
    deep = _moved_to_a_root_of(b, tmp_path / "deep", length)
    result = run_json(capsys, deep, "sync")
    assert sum(result["imported"].values()) > 0
    assert (deep / ".baton" / ID_CACHE).is_file()  # opened, not skipped for reading every feed


@pytest.mark.parametrize("command", [("sync",), ("handoff", "list")])
def test_a_root_too_deep_for_the_index_says_so_for_sync_as_for_every_command(capsys, tmp_path, command):
    _remote, a, b = make_team(tmp_path)
    checkpoint(capsys, a, "alice's work")
    run_json(capsys, a, "sync")
    deep = _moved_to_a_root_of(b, tmp_path / "deep", DEEPEST + 10)
    code, _out, err = run(capsys, deep, *command)
    assert code == 1
    assert "too deep a folder for Baton's index" in err and "move the project to a folder with a shorter path" in err
    assert "unable to open database file" not in err


def test_the_id_cache_of_the_name_before_is_removed_when_the_cache_is_made_again(capsys, tmp_path):
    _remote, a, b = make_team(tmp_path)
    checkpoint(capsys, a, "alice's work")
    run_json(capsys, a, "sync")
    legacy = b / ".baton" / LEGACY_ID_CACHE
    legacy.write_bytes(b"a cache an older Baton made")
    run_json(capsys, b, "sync")
    assert (b / ".baton" / ID_CACHE).is_file() and not legacy.exists()
