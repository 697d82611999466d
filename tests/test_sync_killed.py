"""What a ``baton sync`` killed midway leaves behind (docs/sync.md, "A sync killed midway").

dulwich writes a loose object under ``<sha>.lock``; a sync killed while
writing one used to leave that lock, and every later sync that had to write
the same object (the same bytes: its name is its content) stopped on it.
Sync writes loose objects as git does (a temporary file renamed into place),
so such a leftover no longer stops anything. The random kills themselves run
in ``tests/test_sync_team_race.py`` (slow).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from dulwich.objects import Blob

from tests.cli_support import run, run_json
from tests.sync_support import make_team, remote_feeds
from tests.sync_support import writer_of as _writer


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _segment_lock(objects: Path, project: Path) -> Path:
    """The lock a sync killed while writing ``project``'s first segment (its whole feed) leaves in ``objects``."""
    sha = Blob.from_string((project / ".baton" / "ledger" / f"{_writer(project)}.jsonl").read_bytes()).id.decode()
    lock = objects / sha[:2] / f"{sha[2:]}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_bytes(b"")
    return lock


def _checkpoint(capsys, project: Path) -> None:
    run_json(capsys, project, "checkpoint", "create", "--title", "T", "--objective", "O", "--no-input")


def test_a_loose_object_lock_a_killed_sync_left_in_the_clone_does_not_stop_the_next_sync(capsys, team):
    remote, a, b = team
    _checkpoint(capsys, a)
    _segment_lock(a / ".git" / "objects", a)
    result = run_json(capsys, a, "sync")
    assert result["pushed"] is True and result["published"] == {_writer(a): 2}
    assert run_json(capsys, b, "sync")["imported"] == {_writer(a): 2}
    assert remote_feeds(remote)[_writer(a)].head.seq == 2


def test_a_loose_object_lock_a_killed_push_left_on_a_path_remote_does_not_stop_the_next_push(capsys, team):
    remote, a, b = team
    _checkpoint(capsys, a)
    _segment_lock(remote / "objects", a)
    code, out, err = run(capsys, a, "sync", "--json")
    assert code == 0, out + err
    assert run_json(capsys, b, "sync")["imported"] == {_writer(a): 2}
    checked = subprocess.run(["git", "-C", str(remote), "fsck", "--no-progress", "--no-dangling"],
                             capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_loose_object_written_by_sync_is_read_only_and_readable_by_git(capsys, team):
    remote, a, _b = team
    _checkpoint(capsys, a)
    run_json(capsys, a, "sync")
    sha = Blob.from_string((a / ".baton" / "ledger" / f"{_writer(a)}.jsonl").read_bytes()).id.decode()
    for repo in (a / ".git", remote):
        path = repo / "objects" / sha[:2] / sha[2:]
        assert path.stat().st_mode & 0o777 == 0o444
        shown = subprocess.run(["git", "--git-dir", str(repo), "cat-file", "-p", sha], capture_output=True,
                               timeout=120)
        assert shown.stdout == (a / ".baton" / "ledger" / f"{_writer(a)}.jsonl").read_bytes()
        assert not list((repo / "objects").glob("*/tmp_obj_*"))
