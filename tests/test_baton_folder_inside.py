"""A `.baton/` (or a file or folder in it) that is a symbolic link out of the
project is refused before anything is read or written there: a repository
cloned with a committed `.baton -> ~/.ssh` must not have commands, nor the
harness hooks that run them unasked, write a ledger and an index into it
(docs/security.md, "Paths")."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli_support import run


def _contents(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_init_refuses_a_baton_folder_linked_outside_and_writes_nothing_there(capsys, project_dir, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (project_dir / ".baton").symlink_to(outside)
    code, out, _err = run(capsys, project_dir, "init", "--json")
    error = json.loads(out)["error"]
    assert (code, error["code"], error["details"]["reason"]) == (5, "unsafe_path", "symlink-escape")
    assert error["details"]["path"] == ".baton" and str(outside) in error["message"]
    assert _contents(outside) == []


@pytest.mark.parametrize("place", ["policy.json", "ledger", "handoffs", "index.sqlite", "config.json",
                                   "hook-notices.jsonl", "deferred"])
def test_a_file_or_folder_of_baton_linked_outside_is_refused_by_every_command(capsys, project, tmp_path, place):
    outside = tmp_path / "elsewhere"
    target = project / ".baton" / place
    if target.is_dir():
        os.rename(target, outside)
    elif target.exists():
        os.rename(target, outside)
    else:
        outside.write_text("{}")
    target.symlink_to(outside)
    before = outside.read_bytes() if outside.is_file() else _contents(outside)
    for argv in (["status", "--json"], ["checkpoint", "create", "--no-input", "--json", "--title", "t",
                                        "--objective", "o"]):
        code, out, err = run(capsys, project, *argv)
        assert code == 5 and json.loads(out)["error"]["details"]["path"] == f".baton/{place}", out + err
    assert (outside.read_bytes() if outside.is_file() else _contents(outside)) == before


def test_a_baton_folder_linked_inside_the_project_is_used(capsys, project_dir):
    real = project_dir / "state" / "baton"
    real.parent.mkdir()
    real.mkdir()
    (project_dir / ".baton").symlink_to(real)
    code, out, err = run(capsys, project_dir, "init", "--json")
    assert code == 0, out + err
    assert (real / "config.json").is_file()


def test_a_hook_in_a_project_whose_baton_folder_links_outside_exits_0_and_writes_nothing(project, tmp_path):
    from tests.conftest import run_baton

    outside = tmp_path / "elsewhere"
    os.rename(project / ".baton", outside)
    (project / ".baton").symlink_to(outside)
    before = {p: p.read_bytes() for p in outside.rglob("*") if p.is_file()}
    r = run_baton("hook", "claude-code", "SessionStart", "--project", str(project),
                  input=json.dumps({"session_id": "s-1", "cwd": str(project), "hook_event_name": "SessionStart"}))
    assert r.returncode == 0 and "Traceback" not in r.stderr
    assert "outside the project root" in r.stderr
    assert {p: p.read_bytes() for p in outside.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("folder", ["ledger", "handoffs", "batons", "quarantine", "deferred", "cache"])
def test_a_folder_of_baton_linked_inside_the_project_is_refused(capsys, project, folder):
    import shutil

    data = project / "data"
    data.mkdir()
    (data / "events.jsonl").write_bytes(b'{"mine": 1}\n')
    if (project / ".baton" / folder).exists():
        shutil.rmtree(project / ".baton" / folder)
    (project / ".baton" / folder).symlink_to("../data")
    code, out, err = run(capsys, project, "status")
    assert code == 5, out + err
    assert f".baton/{folder}" in err and "symbolic link" in err and len(err.strip().splitlines()) == 1


def test_repair_never_empties_a_file_of_a_ledger_folder_linked_inside_the_project(capsys, project):
    import shutil

    data = project / "data"
    data.mkdir()
    (data / "events.jsonl").write_bytes(b'{"mine": 1}\n')
    shutil.rmtree(project / ".baton" / "ledger")
    (project / ".baton" / "ledger").symlink_to("../data")
    code, out, err = run(capsys, project, "repair", "--yes")
    assert code == 5, out + err
    assert (data / "events.jsonl").read_bytes() == b'{"mine": 1}\n'
