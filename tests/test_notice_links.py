"""The hook notice file (`.baton/hook-notices.jsonl`) is Baton's own: a notice
file that is a symbolic link, or one reached through a `.baton` linked out of
the project, is never read into a brief, removed, nor appended to
(docs/security.md, "Paths")."""

from __future__ import annotations

import json
import os
from pathlib import Path

from baton.harnesses import notices, notices_write
from tests.conftest import run_baton

OTHER = b'{"problem":"OTHER PROJECT notice","at":"x","harness":"h","event":"e","failed":true}\n'


def _start(project: Path) -> str:
    r = run_baton("hook", "claude-code", "SessionStart", cwd=project,
                  input=json.dumps({"session_id": "s3", "hook_event_name": "SessionStart", "cwd": str(project),
                                    "source": "startup"}))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    return r.stdout


def test_a_start_refusing_a_baton_folder_linked_out_neither_shows_nor_removes_its_notices(project, tmp_path):
    other = tmp_path / "other"
    os.rename(project / ".baton", other)
    (other / notices.FILE_NAME).write_bytes(OTHER)
    (project / ".baton").symlink_to(other)
    out = _start(project)
    assert "outside the project root" in out and "OTHER PROJECT" not in out
    assert (other / notices.FILE_NAME).read_bytes() == OTHER


def test_a_start_refusing_a_linked_notice_file_neither_shows_nor_removes_what_it_points_to(project, tmp_path):
    anywhere = tmp_path / "x.jsonl"
    anywhere.write_bytes(OTHER)
    (project / ".baton" / notices.FILE_NAME).symlink_to(anywhere)
    out = _start(project)
    assert "refused" in out and "OTHER PROJECT" not in out
    assert anywhere.read_bytes() == OTHER and (project / ".baton" / notices.FILE_NAME).is_symlink()


def test_taking_notices_refuses_a_notice_file_that_is_a_link(project):
    inside = project / "notes.jsonl"
    inside.write_bytes(OTHER)
    (project / ".baton" / notices.FILE_NAME).symlink_to(inside)
    assert notices.take(project / ".baton") == []
    assert inside.read_bytes() == OTHER and (project / ".baton" / notices.FILE_NAME).is_symlink()


def test_taking_notices_still_takes_the_projects_own_file(project):
    (project / ".baton" / notices.FILE_NAME).write_bytes(OTHER)
    assert [n["problem"] for n in notices.take(project / ".baton")] == ["OTHER PROJECT notice"]
    assert not (project / ".baton" / notices.FILE_NAME).exists()


def test_a_hook_never_appends_its_notice_through_a_notice_file_linked_inside_the_project(project):
    readme = project / "README.md"
    readme.write_bytes(b"# readme\n")
    (project / ".baton" / notices.FILE_NAME).symlink_to("../README.md")
    r = run_baton("hook", "claude-code", "SessionEnd", cwd=project,
                  input=json.dumps({"session_id": "s3", "hook_event_name": "SessionEnd", "cwd": str(project),
                                    "reason": "exit"}))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "refused" in r.stderr and readme.read_bytes() == b"# readme\n"


def test_leaving_a_notice_drops_it_rather_than_write_through_a_link(project):
    target = project / "notes.jsonl"
    target.write_bytes(b"")
    (project / ".baton" / notices.FILE_NAME).symlink_to(target)
    assert notices_write.leave(project / ".baton", harness="h", event="e", session="s", problem="p", at="x") is False
    assert target.read_bytes() == b""


def test_settling_never_reads_through_a_linked_notice_file(project):
    target = project / "notes.jsonl"
    target.write_bytes(b'{"problem":"p","handoff":"hf-1"}\n')
    (project / ".baton" / notices.FILE_NAME).symlink_to(target)
    assert notices_write.settle(project / ".baton", ["hf-1"], at="x") is False
    assert target.read_bytes() == b'{"problem":"p","handoff":"hf-1"}\n'
