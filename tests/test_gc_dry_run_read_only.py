"""`baton gc --dry-run` on a read-only `.baton/` (a read-only mount) lists what gc
would remove: a dry run writes nothing, so it needs no write access, and it lists
without the ledger lock (which a read-only mount cannot open for writing), saying
the answer may move. A real gc there is still refused (`read_only`, exit 1).

Tests run as root here, and root ignores ``chmod``: the last test runs ``baton`` in a
process of its own on a real read-only bind mount (``unshare --mount``; skipped where
the machine allows none); the others, in this process as ``tests/test_read_only.py``,
make ``os.access`` say what a read-only mount says and the ledger's lock fail as a
read-only mount's would.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_support import run, run_json


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def read_only(capsys, monkeypatch, project):
    """A project with an index and a cache, whose `.baton/` then reads as a read-only mount."""
    run_json(capsys, project, "checkpoint", "create", "--title", "visible", "--objective", "read me")
    (project / ".baton" / "cache").mkdir(exist_ok=True)
    (project / ".baton" / "cache" / "leftover.bin").write_bytes(b"x" * 10)
    baton = str(project / ".baton")
    real = os.access

    def access(path, mode, *args, **kwargs):
        if mode & os.W_OK and os.fspath(path).startswith(baton):
            return False
        return real(path, mode, *args, **kwargs)

    def no_lock_on_a_read_only_mount(self):
        raise OSError(errno.EROFS, "Read-only file system", str(Path(baton) / "ledger.lock"))

    monkeypatch.setattr(os, "access", access)
    monkeypatch.setattr("baton.ledger.store.Ledger.exclusive", no_lock_on_a_read_only_mount)
    return project


def test_gc_dry_run_on_a_read_only_baton_lists_what_gc_would_remove(capsys, read_only):
    before = _snapshot(read_only / ".baton")
    listed = run_json(capsys, read_only, "gc", "--dry-run")
    assert listed["dry_run"] is True
    assert {entry["path"] for entry in listed["removed"]} >= {".baton/index.sqlite", ".baton/cache"}
    assert _snapshot(read_only / ".baton") == before


def test_gc_dry_run_on_a_read_only_baton_says_it_listed_without_the_lock(capsys, read_only):
    code, out, err = run(capsys, read_only, "gc", "--dry-run")
    assert code == 0, err
    assert "Would remove .baton/index.sqlite" in out
    assert "Listed without the ledger lock: its .baton/ is read-only here" in out
    assert "may change the answer" in out
    assert run_json(capsys, read_only, "gc", "--dry-run")["unlocked"].startswith("its .baton/ is read-only")


def test_a_real_gc_on_a_read_only_baton_is_still_refused(capsys, read_only):
    before = _snapshot(read_only / ".baton")
    error = run_json(capsys, read_only, "gc", expect=1)["error"]
    assert error["code"] == "read_only" and "gc removes files from it" in error["message"]
    assert _snapshot(read_only / ".baton") == before


def test_gc_dry_run_on_a_writable_baton_takes_the_lock_and_says_nothing_of_it(capsys, project):
    listed = run_json(capsys, project, "gc", "--dry-run")
    assert listed["unlocked"] is None
    assert "without the ledger lock" not in run(capsys, project, "gc", "--dry-run")[1]


READ_ONLY_MOUNT = 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" "$1" || exit 97; shift; exec "$@"'
"""As ``tests/e2e/test_failure_isolation.py``: inside ``unshare --mount``, FOLDER becomes a read-only
bind mount in a mount namespace of its own, then the command runs there."""


def _on_a_read_only_mount(folder: Path, *argv: str) -> subprocess.CompletedProcess:
    """``argv`` run with ``folder`` a real read-only bind mount (EROFS, even for root); the test
    is skipped, saying why, where this machine allows no mount namespace."""
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("`unshare` is not installed: no read-only mount can be made here")
    done = subprocess.run([unshare, "--mount", "--", "sh", "-c", READ_ONLY_MOUNT, "sh", str(folder), *argv],
                          capture_output=True, text=True, timeout=120)
    if done.returncode == 97:
        pytest.skip(f"this machine allows no read-only bind mount in a mount namespace: {done.stderr.strip()[:200]}")
    return done


def test_gc_dry_run_on_a_real_read_only_mount_lists_and_changes_nothing(capsys, project):
    run_json(capsys, project, "checkpoint", "create", "--title", "visible", "--objective", "read me")
    before = _snapshot(project / ".baton")
    baton = [sys.executable, "-m", "baton", "--project", str(project)]
    listed = _on_a_read_only_mount(project / ".baton", *baton, "gc", "--dry-run")
    assert listed.returncode == 0, listed.stderr
    assert "Would remove .baton/index.sqlite" in listed.stdout and "without the ledger lock" in listed.stdout
    refused = _on_a_read_only_mount(project / ".baton", *baton, "gc")
    assert refused.returncode == 1 and "read-only here: gc removes files from it" in refused.stderr
    assert _snapshot(project / ".baton") == before
