"""The hook notice file (`.baton/hook-notices.jsonl`) is Baton's own: a notice
file that is a symbolic link, or one reached through a `.baton` linked out of
the project, is never read into a brief, removed, nor appended to
(docs/security.md, "Paths")."""

from __future__ import annotations

import json
import os
from pathlib import Path

from baton.harnesses import notices
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
