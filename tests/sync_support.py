"""Two clones of one repository and a bare remote, all on local disk, for ``baton sync``.

The remote is reached by its file path (dulwich's local transport). Clone A
runs ``baton init`` and commits ``.baton/config.json`` (as a team would);
clone B is a git clone of the remote, so both share the project id and each
mints its own writer id.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

from dulwich import porcelain
from dulwich.objects import Tree
from dulwich.repo import Repo

from baton.sync.ledger_ref import DEFAULT_REF, RefFeed, read_feeds, write_commit
from tests.app_support import init_project
from tests.cli_support import run_json

REF = DEFAULT_REF.encode()


def _quiet() -> dict:
    return {"errstream": io.BytesIO()}


def set_remote(clone: Path, url: str, name: str = "origin") -> None:
    with Repo(str(clone)) as repo:
        config = repo.get_config()
        config.set((b"remote", name.encode()), b"url", url.encode())
        config.write_to_path()


def make_team(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(remote, a, b): a bare remote and two clones of it, both Baton projects."""
    remote = tmp_path / "remote.git"
    Repo.init_bare(str(remote), mkdir=True).close()
    a = tmp_path / "a"
    a.mkdir()
    porcelain.init(str(a)).close()
    init_project(a)
    porcelain.add(str(a), [str(a / ".baton" / "config.json"), str(a / ".baton" / ".gitignore")])
    porcelain.commit(str(a), b"baton init", author=b"A <a@example.com>", committer=b"A <a@example.com>")
    set_remote(a, str(remote))
    porcelain.push(str(a), "origin", b"refs/heads/master", **_quiet())
    b = tmp_path / "b"
    porcelain.clone(str(remote), str(b), **_quiet()).close()
    init_project(b)
    return remote, a, b


def third_clone(remote: Path, tmp_path: Path, name: str = "c") -> Path:
    """One more git clone of ``remote`` (``tmp_path / name``), a Baton project with a writer of its own."""
    clone = tmp_path / name
    porcelain.clone(str(remote), str(clone), **_quiet()).close()
    init_project(clone)
    return clone


def refs_of(path: Path) -> dict[bytes, bytes]:
    with Repo(str(path)) as repo:
        return dict(repo.get_refs())


def remote_feeds(remote: Path) -> dict[str, RefFeed]:
    with Repo(str(remote)) as repo:
        return read_feeds(repo, repo.refs.as_dict().get(REF))


def tamper_remote_line(remote: Path, writer: str, seq: int, old: bytes, new: bytes) -> None:
    """Rewrite line ``seq`` of ``writer``'s feed on the remote's ledger ref
    (``old`` → ``new`` in its bytes), keeping head.json: what a hostile or
    broken remote would serve."""
    with Repo(str(remote)) as repo:
        sha = repo.refs[REF]
        feeds = read_feeds(repo, sha)
        feed = feeds[writer]
        store = repo.object_store
        tree = store[feed.tree]
        for start, blob_id in feed.segments:
            data = store[blob_id].data
            lines = data.split(b"\n")
            for i, line in enumerate(lines):
                if f'"seq":{seq},'.encode() in line:
                    assert old in line, (old, line)
                    lines[i] = line.replace(old, new, 1)
                    from dulwich.objects import Blob

                    blob = Blob.from_string(b"\n".join(lines))
                    store.add_object(blob)
                    changed = Tree()
                    for entry in tree.iteritems():
                        changed.add(entry.path, entry.mode, blob.id if entry.sha == blob_id else entry.sha)
                    store.add_object(changed)
                    feeds[writer] = RefFeed(writer, feed.head, changed.id, feed.segments)
                    new_sha = write_commit(repo, feeds, [sha], "tampered\n", b"x <x@x>", 0)
                    repo.refs[REF] = new_sha
                    return
    raise AssertionError(f"no line with seq {seq} in {writer}'s feed")


def take_writer_id(source: Path, clone: Path) -> None:
    """``clone`` writes under ``source``'s writer id from now on: its
    ``local.json`` names that id and records ``clone``'s own folder as the
    place it was minted in — what someone impersonating ``source`` writes (or
    a copy whose ``local.json`` predates that record), which the place check
    cannot tell from a genuine id (docs/sync.md, "Two machines under one writer id")."""
    import json
    import os

    local = json.loads((source / ".baton" / "local.json").read_text())
    st = (clone / ".baton").stat()
    local["minted_in"] = {"root": str(clone.resolve()), "host": os.uname().nodename, "dev": st.st_dev,
                          "ino": st.st_ino}
    (clone / ".baton" / "local.json").write_text(json.dumps(local))


def writer_of(project: Path) -> str:
    """The clone's writer id (``.baton/local.json``)."""
    return json.loads((project / ".baton" / "local.json").read_text())["writer"]


def checkpoint(capsys, project: Path, title: str) -> None:
    """One capture on ``project``, through the command line."""
    run_json(capsys, project, "checkpoint", "create", "--title", title, "--objective", "o", "--no-input")


def restore_in_place(project: Path, backup: Path) -> None:
    """``find .baton -mindepth 1 -delete; cp -a BACKUP/. .baton/``: the same folder (same inode)."""
    baton = project / ".baton"
    for entry in baton.iterdir():
        shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
    shutil.copytree(backup, baton, dirs_exist_ok=True, symlinks=True)


def backed_up_then_more(capsys, project: Path, tmp_path: Path) -> Path:
    """Clone ``project`` synced, backed up (``.baton/`` whole: its sync state too), then wrote and
    synced more: the backup."""
    checkpoint(capsys, project, "before the backup")
    run_json(capsys, project, "sync")
    backup = tmp_path / "backup"
    shutil.copytree(project / ".baton", backup, symlinks=True)
    checkpoint(capsys, project, "after the backup")
    checkpoint(capsys, project, "after the backup, two")
    run_json(capsys, project, "sync")
    return backup


def restored_then_written(capsys, project: Path, tmp_path: Path, write_after: bool = True) -> None:
    """``backed_up_then_more``, the backup restored in place and (``write_after``) a new handoff
    written that the remote's copy does not have."""
    restore_in_place(project, backed_up_then_more(capsys, project, tmp_path))
    if write_after:
        checkpoint(capsys, project, "after the restore")


def synced_then_remote_rolled_back(capsys, remote: Path, project: Path) -> None:
    """``project`` syncs one capture, then a second; the remote's ledger ref is then put back to the
    first (a ref reset by hand, or a backup of the remote restored): it went back from seq 3 to 2."""
    checkpoint(capsys, project, "first")
    run_json(capsys, project, "sync")
    with Repo(str(remote)) as repo:
        earlier = repo.refs[REF]
    checkpoint(capsys, project, "second")
    run_json(capsys, project, "sync")
    with Repo(str(remote)) as repo:
        repo.refs[REF] = earlier


def planned(capsys, project: Path, objective: str) -> str:
    """The id of one capture titled "plan" with ``objective`` on ``project``, through the command line."""
    return run_json(capsys, project, "checkpoint", "create", "--title", "plan", "--objective", objective,
                    "--no-input")["id"]


BATON_OWNER = "bob@example.com"
"""Whom the two batons left apart (``batons_left_apart``) are for."""


def leave_baton_for(capsys, project: Path, session: str, step: str, owner: str = BATON_OWNER) -> str:
    """``session end SESSION --handoff-steps STEP --owner OWNER --branch main``: the baton's id."""
    out = run_json(capsys, project, "session", "end", session, "--handoff-steps", step, "--owner", owner,
                   "--branch", "main")
    return out["handoff"]["id"] if "handoff" in out else out["created"]["id"]


def batons_left_apart(capsys, team: tuple[Path, Path, Path]) -> tuple[Path, Path, str, str]:
    """A baton superseded unseen (docs/sync.md "Batons left apart on one owner/branch"): Alice, on
    clone a, leaves a baton for bob on main and syncs; bob, offline on clone b, leaves his own
    newer baton on the same owner/branch; then bob syncs. (a, b, alice's baton, bob's baton)."""
    _remote, a, b = team
    alices = leave_baton_for(capsys, a, "alice-s", "alice's step for bob")
    run_json(capsys, a, "sync")
    bobs = leave_baton_for(capsys, b, "bob-s", "bob's own step")
    run_json(capsys, b, "sync")
    return a, b, alices, bobs


FAST = """
import sys, time
ahead = int(sys.argv[1])
real_ns = time.time_ns
time.time_ns = lambda: real_ns() + ahead * 10**9
real = time.time
time.time = lambda: real() + ahead
sys.argv = ["baton", *sys.argv[2:]]
from baton.cli import run
run()
"""
"""``baton ARGS`` with the wall clock ``ahead`` seconds fast (a VM's clock gone wrong), in a process of its own."""
