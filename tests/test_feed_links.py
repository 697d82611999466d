"""A feed — or any file Baton reads or writes in `.baton/` — that is a symbolic
link or not a regular file is never read, written or cut through: a clone of
a repository with a committed `.baton/ledger/x.jsonl -> ~/.ssh/authorized_keys`
once had `baton repair --yes` copy that file into quarantine and empty it.
Every command refuses it (exit 5, `unsafe_path`, `symlink-escape`), `verify`
reports it, `repair --yes` removes the link and never its target
(docs/security.md, "Paths"; docs/ledger.md, "baton repair")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_support import run

SECRET = b"ssh-ed25519 AAAAvictimkeytext victim@host\n"
LINK = ".baton/ledger/vm-mal-111111.jsonl"


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=m@x", "-c", "user.name=m", *args], cwd=cwd, check=True,
                   capture_output=True)


def _nothing_of_it_in_baton(project: Path) -> bool:
    return not any(SECRET.strip() in p.read_bytes() for p in (project / ".baton").rglob("*")
                   if p.is_file() and not p.is_symlink())


def _target(tmp_path: Path, project: Path, where: str) -> Path:
    """Where the link points: a file outside the project, one inside it, or nowhere."""
    target = tmp_path / "victim.txt" if where == "outside" else project / "notes" / "keys.txt"
    if where != "dangling":
        target.parent.mkdir(exist_ok=True)
        target.write_bytes(SECRET)
    return target


@pytest.fixture
def clone(tmp_path) -> Path:
    """A clone of a repository whose commit holds a feed that is a link to a file outside it."""
    src = tmp_path / "src"
    src.mkdir()
    _git(src, "init", "-q", "-b", "main")
    code, out, err = run_cmd(src, "init")
    assert code == 0, out + err
    (tmp_path / "victim.txt").write_bytes(SECRET)
    (src / LINK).symlink_to(tmp_path / "victim.txt")
    _git(src, "add", "-f", ".baton/.gitignore", ".baton/config.json", LINK)
    _git(src, "commit", "-qm", "p")
    _git(tmp_path, "clone", "-q", str(src), "victim")
    return tmp_path / "victim"


def run_cmd(cwd: Path, *args: str) -> tuple[int, str, str]:
    r = subprocess.run([sys.executable, "-m", "baton", *args], cwd=cwd, capture_output=True, text=True,
                       timeout=120)
    return r.returncode, r.stdout, r.stderr


def test_init_in_a_clone_refuses_a_committed_feed_link_and_names_what_to_do(clone, tmp_path):
    code, out, err = run_cmd(clone, "init")
    assert code == 5, out + err
    assert LINK in err and "symbolic link" in err and "rm " in err and len(err.strip().splitlines()) == 1
    assert (tmp_path / "victim.txt").read_bytes() == SECRET and _nothing_of_it_in_baton(clone)


def test_repair_yes_in_a_clone_removes_the_feed_link_and_leaves_its_target_whole(clone, tmp_path):
    run_cmd(clone, "init")
    code, out, err = run_cmd(clone, "repair", "--yes")
    assert code == 0, out + err
    assert "Removed " + LINK in out and "The ledger verifies." in out
    assert not os.path.lexists(clone / LINK)
    assert (tmp_path / "victim.txt").read_bytes() == SECRET
    assert _nothing_of_it_in_baton(clone) and not (clone / ".baton" / "quarantine").exists()
    assert run_cmd(clone, "init")[0] == 0


@pytest.mark.parametrize("where", ["outside", "inside", "dangling"])
def test_verify_reports_a_feed_link_as_symlink_escape_without_reading_it(capsys, project, tmp_path, where):
    target = _target(tmp_path, project, where)
    (project / LINK).symlink_to(target)
    code, out, _err = run(capsys, project, "verify", "--json")
    problems = json.loads(out)["problems"]
    assert code == 3
    assert [(p["feed"], p["kind"]) for p in problems] == [("vm-mal-111111", "symlink-escape")]
    assert where == "dangling" or target.read_bytes() == SECRET


@pytest.mark.parametrize("where", ["outside", "inside", "dangling"])
def test_every_other_command_refuses_a_feed_link_in_one_line(capsys, project, tmp_path, where):
    target = _target(tmp_path, project, where)
    (project / LINK).symlink_to(target)
    for argv in (["status"], ["checkpoint", "create", "--no-input", "--title", "t", "--objective", "o"]):
        code, out, err = run(capsys, project, *argv)
        assert code == 5 and LINK in err and "remove it" in err and len(err.strip().splitlines()) == 1, out + err
    assert where == "dangling" or target.read_bytes() == SECRET
    assert _nothing_of_it_in_baton(project)


@pytest.mark.parametrize("where", ["outside", "inside", "dangling"])
def test_repair_yes_removes_the_link_not_the_file_it_points_to(capsys, project, tmp_path, where):
    target = _target(tmp_path, project, where)
    (project / LINK).symlink_to(target)
    code, out, err = run(capsys, project, "repair", "--yes", "--json")
    assert code == 0, out + err
    assert json.loads(out)["links"] == [{"path": LINK, "what": f"a symbolic link to {target}", "removed": True}]
    assert not os.path.lexists(project / LINK)
    assert where == "dangling" or target.read_bytes() == SECRET
    assert _nothing_of_it_in_baton(project)


def test_repair_without_yes_removes_nothing(capsys, project, tmp_path):
    target = _target(tmp_path, project, "outside")
    (project / LINK).symlink_to(target)
    code, _out, err = run(capsys, project, "repair")
    assert code == 2 and "would remove " + LINK in err
    assert (project / LINK).is_symlink()


def test_a_feed_link_whose_feed_the_index_recorded_is_removed_and_its_heads_acknowledged(capsys, project, tmp_path):
    code, out, err = run(capsys, project, "checkpoint", "create", "--no-input", "--title", "t", "--objective", "o")
    assert code == 0, out + err
    feed = next((project / ".baton" / "ledger").glob("*.jsonl"))
    moved = tmp_path / "moved.jsonl"
    os.rename(feed, moved)
    feed.symlink_to(moved)
    before = moved.read_bytes()
    code, out, err = run(capsys, project, "repair", "--yes")
    assert code == 0, out + err
    assert "Acknowledged as lost" in out and moved.read_bytes() == before


def test_a_fifo_where_a_feed_belongs_is_refused_without_blocking(capsys, project):
    os.mkfifo(project / LINK)
    code, out, err = run(capsys, project, "status")
    assert code == 5 and "a FIFO" in err, out + err


@pytest.mark.parametrize("name", ["local.json", "index.sqlite", "ledger.lock", "allowed_signers",
                                  "index.sqlite-wal", "index.sqlite-shm", "index.sqlite-journal"])
def test_a_file_of_baton_linked_inside_the_project_is_refused(capsys, project, name):
    path = project / ".baton" / name
    inside = project / "kept"
    if path.exists():
        os.rename(path, inside)
    else:
        inside.write_bytes(b"")
    before = inside.read_bytes()
    path.symlink_to(inside)
    code, out, err = run(capsys, project, "status", "--json")
    error = json.loads(out)["error"]
    assert (code, error["details"]["reason"], error["details"]["path"]) == (5, "symlink-escape", f".baton/{name}")
    assert inside.read_bytes() == before


def test_cutting_a_feed_path_that_is_a_link_refuses_and_leaves_the_target_whole(tmp_path):
    from baton.errors import StorageError
    from baton.ledger import files

    target = tmp_path / "victim.txt"
    target.write_bytes(SECRET)
    link = tmp_path / "feed.jsonl"
    link.symlink_to(target)
    with pytest.raises(StorageError, match="symbolic link"):
        files.cut(link, 0)
    assert target.read_bytes() == SECRET


FOLDER = ".baton/ledger/dir.jsonl"


def test_verify_says_to_move_a_folder_where_a_feed_belongs_out_never_to_rm_it(capsys, project):
    (project / FOLDER).mkdir()
    code, out, _err = run(capsys, project, "verify", "--json")
    [problem] = json.loads(out)["problems"]
    assert code == 3 and f"mv {FOLDER}" in problem["message"]
    assert "rm " not in problem["message"] and "which removes it" not in problem["message"]


def test_other_commands_say_to_move_a_folder_where_a_feed_belongs_out_never_to_repair(capsys, project):
    (project / FOLDER).mkdir()
    code, out, err = run(capsys, project, "status")
    assert code == 5 and f"mv {FOLDER}" in err and "baton repair" not in err, out + err


def test_verify_names_no_file_pointed_to_for_a_fifo(capsys, project):
    os.mkfifo(project / LINK)
    code, out, _err = run(capsys, project, "verify", "--json")
    [problem] = json.loads(out)["problems"]
    assert code == 3 and f"rm {LINK}" in problem["message"] and "points to" not in problem["message"]


def test_repair_dry_run_never_says_it_would_remove_a_folder(capsys, project):
    (project / FOLDER).mkdir()
    code, out, err = run(capsys, project, "repair", "--dry-run")
    assert code == 0, out + err
    assert "Would remove" not in out and "points to" not in out and f"Would not remove {FOLDER}" in out


def test_repair_yes_refuses_a_folder_where_a_feed_belongs_before_removing_anything(capsys, project, tmp_path):
    (project / FOLDER).mkdir()
    target = _target(tmp_path, project, "outside")
    (project / LINK).symlink_to(target)
    code, out, err = run(capsys, project, "repair", "--yes")
    assert code == 5 and FOLDER in err and f"mv {FOLDER}" in err and len(err.strip().splitlines()) == 1, out + err
    assert (project / LINK).is_symlink() and (project / FOLDER).is_dir()
