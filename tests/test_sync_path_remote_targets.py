"""Which repositories a path remote may be (docs/sync.md "A remote given by its path or URL"):
never this clone's own repository, never another clone's working repository holding a Baton
project (its ledger ref is that clone's own), and a clone whose own ledger ref holds another
project's feeds never publishes them (review 16, R5 and R11; real repositories, real git)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from dulwich import porcelain

from tests.app_support import init_project
from tests.cli_support import run, run_json
from tests.sync_support import REF, make_team, refs_of, remote_feeds, set_remote
from tests.sync_support import checkpoint as _checkpoint
from tests.sync_support import writer_of as _writer


def _git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, check=True).stdout


def _project(tmp_path: Path, name: str, origin: Path | None = None) -> Path:
    """A working clone holding a Baton project of its own (its own `baton init`), with ``origin`` if given."""
    folder = tmp_path / name
    folder.mkdir()
    porcelain.init(str(folder)).close()
    init_project(folder)
    if origin is not None:
        porcelain.init(str(origin), bare=True).close()
        set_remote(folder, str(origin))
    return folder


def _sibling_projects(capsys, tmp_path: Path) -> tuple[Path, Path, Path]:
    """(p, q, q's bare team remote): project P with a confidential checkpoint, project Q never synced."""
    p = _project(tmp_path, "p")
    _checkpoint(capsys, p, "P confidential plan")
    q = _project(tmp_path, "q", origin=tmp_path / "q.git")
    return p, q, tmp_path / "q.git"


def test_a_sibling_projects_working_clone_given_as_the_remote_is_refused_and_its_ledger_ref_left_unwritten(
        capsys, tmp_path):
    p, q, q_team = _sibling_projects(capsys, tmp_path)
    code, out, err = run(capsys, p, "sync", "--remote", "../q", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "remote_other_project"), out + err
    assert error["details"]["working_clone"] is True and len(error["details"]["remote_project_ids"]) == 1
    assert REF not in refs_of(q) and REF not in refs_of(p)
    assert run_json(capsys, q, "sync")["pushed"] is True  # Q's ordinary sync to its own team remote
    assert set(remote_feeds(q_team)) == {_writer(q)}  # none of P's feeds reached Q's team


def test_a_sibling_projects_working_clone_is_refused_in_one_line_naming_the_teams_repository(capsys, tmp_path):
    p, _q, _team = _sibling_projects(capsys, tmp_path)
    code, out, err = run(capsys, p, "sync", "--remote", "../q")
    assert code == 4 and err.count("\n") == 1 and "Traceback" not in err, err
    assert "working clone of another Baton project" in err and "team repository" in err


def test_syncing_back_with_the_first_projects_path_imports_nothing_and_pushes_nothing(capsys, tmp_path):
    p, q, _team = _sibling_projects(capsys, tmp_path)
    run(capsys, p, "sync", "--remote", "../q")  # the mistyped path, refused
    code, out, err = run(capsys, q, "sync", "--remote", str(p), "--json")
    assert (code, json.loads(out)["error"]["code"]) == (4, "remote_other_project"), out + err
    assert REF not in refs_of(p) and REF not in refs_of(q)
    assert "No handoffs yet" in run(capsys, q, "handoff", "list")[1]


def test_a_working_clone_of_this_project_is_never_pushed_into_and_the_teams_bare_repository_is_named(capsys,
                                                                                                     tmp_path):
    remote, a, b = make_team(tmp_path)
    _checkpoint(capsys, a, "alice's work")
    before = refs_of(b)
    code, out, err = run(capsys, a, "sync", "--remote", str(b), "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "remote_working_clone"), out + err
    assert "bare repository" in error["message"] and "nothing was imported or pushed" in error["message"]
    assert refs_of(b) == before and REF not in refs_of(a)
    assert run_json(capsys, a, "sync", "--remote", str(remote))["pushed"] is True  # the team's bare one works


def test_a_working_clone_named_by_its_git_folder_is_refused_as_its_work_tree_is(capsys, tmp_path):
    _remote, a, b = make_team(tmp_path)
    _checkpoint(capsys, a, "alice's work")
    code, out, err = run(capsys, a, "sync", "--remote", str(b / ".git"), "--json")
    assert (code, json.loads(out)["error"]["code"]) == (4, "remote_working_clone"), out + err
    assert REF not in refs_of(b)


def test_a_clones_own_ledger_ref_holding_another_projects_feeds_is_never_published(capsys, tmp_path):
    p, q, q_team = _sibling_projects(capsys, tmp_path)
    porcelain.init(str(tmp_path / "p.git"), bare=True).close()
    assert run_json(capsys, p, "sync", "--remote", "../p.git")["pushed"] is True
    _git(p, "push", "-q", str(q), f"{REF.decode()}:{REF.decode()}")  # what an older version's sync did
    code, out, err = run(capsys, q, "sync", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "remote_other_project"), out + err
    assert error["details"]["own_ref"] is True and list(error["details"]["feeds"]) == [_writer(p)]
    assert f"git update-ref -d {REF.decode()}" in error["message"]
    assert REF not in refs_of(q_team)  # nothing of P's reached Q's team remote


def test_the_way_named_after_another_projects_feeds_on_the_own_ref_publishes_this_projects_feed_alone(
        capsys, tmp_path):
    p, q, q_team = _sibling_projects(capsys, tmp_path)
    porcelain.init(str(tmp_path / "p.git"), bare=True).close()
    run_json(capsys, p, "sync", "--remote", "../p.git")
    _git(p, "push", "-q", str(q), f"{REF.decode()}:{REF.decode()}")
    run(capsys, q, "sync")
    _git(q, "update-ref", "-d", REF.decode())
    assert run_json(capsys, q, "sync")["pushed"] is True
    assert set(remote_feeds(q_team)) == {_writer(q)}


@pytest.mark.parametrize("given", [".", "own path", "own git folder"])
def test_this_clones_own_repository_given_as_the_remote_is_a_usage_error_and_shares_nothing(capsys, tmp_path,
                                                                                            monkeypatch, given):
    from baton.cli import main

    a = _project(tmp_path, "a")
    _checkpoint(capsys, a, "not shared yet")
    assert "Shared" not in run(capsys, a, "status")[1]
    remote = {".": ".", "own path": str(a), "own git folder": str(a / ".git")}[given]
    monkeypatch.chdir(a)
    capsys.readouterr()
    code = main(["sync", "--remote", remote])
    out, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and "this clone's own repository" in err, out + err
    assert REF not in refs_of(a)
    assert "Shared" not in run(capsys, a, "status")[1]  # not counted as shared on a remote


def test_a_remote_name_git_would_refuse_is_never_offered_to_git_remote_add(capsys, tmp_path):
    a = _project(tmp_path, "a")
    code, out, err = run(capsys, a, "sync", "--remote", "my team", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"]) == (4, "no_sync_remote"), out + err
    assert "`git remote add origin URL`" in error["message"] and "add my team" not in error["message"]
