"""``baton sync`` from a shallow clone (``git clone --depth 1``): the ledger ref shares
no history with the code, so its push needs nothing beyond the clone's shallow boundary
(``.git/shallow``) and is made over a path, ``file://`` and smart http (real ``git
http-backend`` on loopback) alike; it used to fail every push with dulwich's missing-object
``KeyError``, printed as a bare ``b'<id>'`` (docs/sync.md, "Shallow clones"). Real git
makes the clones, as a user does.
"""

from __future__ import annotations

import json
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.cli_support import run, run_json
from tests.sync_support import REF, checkpoint, refs_of, remote_feeds, set_remote, writer_of


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "user.name=A", "-c", "user.email=a@example.com", *args], cwd=cwd, check=True,
                   capture_output=True)


@pytest.fixture
def shallow(capsys, tmp_path) -> tuple[Path, Path]:
    """(remote, clone): a bare remote with three commits of code and a synced ledger, and a
    ``--depth 1`` clone of it (its one commit's parent absent), made a Baton project."""
    remote, full = tmp_path / "team.git", tmp_path / "full"
    git("init", "-q", "--bare", "-b", "main", str(remote), cwd=tmp_path)
    git("clone", "-q", str(remote), str(full), cwd=tmp_path)
    for n in (1, 2):
        (full / "f").write_text(f"{n}\n")
        git("add", "f", cwd=full)
        git("commit", "-qm", f"c{n}", cwd=full)
    run_json(capsys, full, "init")
    git("add", ".baton/.gitignore", ".baton/config.json", cwd=full)
    git("commit", "-qm", "baton", cwd=full)
    git("push", "-q", "origin", "main", cwd=full)
    checkpoint(capsys, full, "from the full clone")
    assert run_json(capsys, full, "sync")["pushed"] is True
    clone = tmp_path / "shallow"
    git("clone", "-q", "--depth", "1", remote.as_uri(), str(clone), cwd=tmp_path)
    assert (clone / ".git" / "shallow").is_file()
    run_json(capsys, clone, "init")
    return remote, clone


@contextmanager
def _http_url(remote: Path):
    from tests.http_git_support import serve

    with serve(remote.parent, "alice", "s3cret-pass") as base:
        yield f"{base.replace('http://', 'http://alice:s3cret-pass@')}/{remote.name}"


@contextmanager
def _url(kind: str, remote: Path):
    if kind == "http":
        with _http_url(remote) as url:
            yield url
    else:
        yield str(remote) if kind == "path" else remote.as_uri()


@pytest.mark.parametrize("kind", ["path", "file", "http"])
def test_a_shallow_clone_pushes_its_ledger_to_the_team(capsys, shallow, kind):
    remote, clone = shallow
    checkpoint(capsys, clone, "from the shallow clone")
    with _url(kind, remote) as url:
        set_remote(clone, url)
        code, out, err = run(capsys, clone, "sync", "--json")
    assert code == 0, out + err
    result = json.loads(out)
    assert result["pushed"] is True and writer_of(clone) in remote_feeds(remote)


def test_a_shallow_clones_second_sync_pushes_what_came_since(capsys, shallow):
    remote, clone = shallow
    checkpoint(capsys, clone, "first")
    assert run_json(capsys, clone, "sync")["pushed"] is True
    checkpoint(capsys, clone, "second")
    assert run_json(capsys, clone, "sync")["pushed"] is True
    assert refs_of(remote)[REF] == refs_of(clone)[REF]


def test_a_missing_git_object_is_told_in_words_never_as_a_bytes_repr():
    from baton.sync.transport import _failure

    sha = "3ed82b7eb2414b7bfa8ccd330a1198fe3c4f0fe5"
    error = _failure(KeyError(sha.encode()), "push refs/baton/ledger to", "file:///team.git")
    assert error.code == "remote_unreachable"
    assert "b'" not in error.message and f"git object {sha}" in error.message
    assert "git fetch --unshallow" in error.message
