"""A SHA-256 git repository, here or as the remote (docs/sync.md, "SHA-256
repositories"): `baton sync` refuses it up front, exit 4 (`git_unsupported`),
without writing a ref or an object — dulwich would write SHA-1 objects git
cannot read there, and `git fsck`/`git gc` would then fail on the whole
repository. `baton doctor` says so. Real `git init --object-format=sha256`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.http_git_support import serve
from tests.team_support import baton, git


def _sha256_supported() -> bool:
    done = subprocess.run(["git", "init", "-q", "--bare", "--object-format=sha256", "/dev/null/x"],
                          capture_output=True, text=True)
    return "unknown" not in done.stderr and "object-format" not in done.stderr


pytestmark = pytest.mark.skipif(not _sha256_supported(), reason="this git cannot make SHA-256 repositories")


def _project(where: Path, *init: str) -> Path:
    git(where.parent, "init", "-q", *init, where.name)
    git(where, "config", "user.email", "a@example.com")
    git(where, "config", "user.name", "A")
    git(where, "commit", "-q", "--allow-empty", "-m", "i")
    assert baton(where, "init").returncode == 0
    assert baton(where, "checkpoint", "create", "--no-input", "--title", "t", "--objective", "o").returncode == 0
    return where


def _sync_refused(clone: Path) -> dict:
    done = baton(clone, "sync", "--json")
    assert done.returncode == 4, (done.stdout, done.stderr)
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "git_unsupported" and "not yet SHA-256" in error["message"], error
    return error


def _untouched(repo: Path) -> None:
    assert "refs/baton" not in git(repo, "for-each-ref")
    git(repo, "fsck", "--no-dangling")  # asserts exit 0: no object git cannot read


def test_sync_in_a_sha256_repository_is_refused_and_writes_nothing(tmp_path):
    remote = tmp_path / "r.git"
    git(tmp_path, "init", "-q", "--bare", "--object-format=sha256", "r.git")
    a = _project(tmp_path / "a", "--object-format=sha256")
    git(a, "remote", "add", "origin", str(remote))
    error = _sync_refused(a)
    assert error["details"]["object_format"] == "sha256"
    _untouched(a)
    _untouched(remote)
    git(a, "gc", "-q")


@pytest.mark.parametrize("form", ["path", "file"])
def test_sync_of_a_sha1_clone_to_a_sha256_remote_is_refused_and_the_remote_keeps_no_ref(tmp_path, form):
    remote = tmp_path / "r.git"
    git(tmp_path, "init", "-q", "--bare", "--object-format=sha256", "r.git")
    a = _project(tmp_path / "a")
    git(a, "remote", "add", "origin", str(remote) if form == "path" else remote.as_uri())
    error = _sync_refused(a)
    assert "the remote" in error["message"]
    _untouched(remote)
    _untouched(a)


def test_sync_of_a_sha1_clone_to_a_sha256_remote_over_http_is_refused(tmp_path):
    served = tmp_path / "served"
    served.mkdir()
    git(served, "init", "-q", "--bare", "--object-format=sha256", "r.git")
    git(served / "r.git", "config", "http.receivepack", "true")
    seed = tmp_path / "seed"
    git(tmp_path, "init", "-q", "--object-format=sha256", "seed")
    git(seed, "-c", "user.email=s@x", "-c", "user.name=S", "commit", "-q", "--allow-empty", "-m", "s")
    git(seed, "push", "-q", str(served / "r.git"), "HEAD:refs/heads/main")  # a ref: its id has 64 hex digits
    a = _project(tmp_path / "a")
    with serve(served, "alice", "pw") as base:
        git(a, "remote", "add", "origin", f"{base.replace('://', '://alice:pw@')}/r.git")
        _sync_refused(a)
    _untouched(served / "r.git")


def test_doctor_names_a_sha256_repository(tmp_path):
    a = _project(tmp_path / "a", "--object-format=sha256")
    done = baton(a, "doctor", "--json")
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert checks["git object format"]["status"] == "warn"
    assert "sha256" in checks["git object format"]["detail"]
