"""What a ``kill -9`` leaves beside the files Baton writes, and what must not survive it.

A materialized file (``handoffs/…``, ``batons/…``) is written to a temporary
file and renamed into place, so a reader never sees half of it; a process
killed between the two leaves the temporary file behind, holding the whole
record. Those copies are the project's text as much as the ledger is.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from tests.cli_support import run_json

SECRET_TEXT = "PLANTED-BODY-TEXT-c14d2e"
KILLED_AT_RENAME = Path(__file__).with_name("killed_at_rename.py")


def killed_at_rename(project: Path, folder: str, *argv: str) -> None:
    """The real ``baton`` CLI with ``argv``, killed just before it renames a file into ``.baton/folder/``."""
    done = subprocess.run([sys.executable, str(KILLED_AT_RENAME), folder, "--project", str(project), *argv],
                          capture_output=True, text=True)
    assert done.returncode == -signal.SIGKILL, done.stderr


def files_holding(root: Path, text: str) -> list[str]:
    needle = text.encode()
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes())


def test_forget_removes_the_copy_a_materializer_killed_before_its_rename_left(capsys, project):
    killed_at_rename(project, "handoffs", "checkpoint", "create", "--title", f"note {SECRET_TEXT}",
                     "--objective", "kept", "--no-input")
    assert files_holding(project / ".baton", SECRET_TEXT)  # the ledger and the temporary copy
    [handoff] = run_json(capsys, project, "handoff", "list")["handoffs"]
    run_json(capsys, project, "forget", handoff["id"], "--yes")
    assert files_holding(project / ".baton", SECRET_TEXT) == []


def test_forget_removes_the_baton_copy_a_session_end_killed_before_its_rename_left(capsys, project):
    killed_at_rename(project, "batons", "session", "end", "s1", "--handoff-steps", f"{SECRET_TEXT} step",
                     "--owner", "al", "--branch", "main")
    assert any(name.startswith("batons/.tmp.") for name in files_holding(project / ".baton", SECRET_TEXT))
    listed = run_json(capsys, project, "handoff", "list", "--kind", "all")["handoffs"]
    [handoff] = [h["id"] for h in listed if h["title"].startswith("Session baton")]
    result = run_json(capsys, project, "forget", handoff, "--yes")
    assert [name.split("/")[0] for name in result["removed_leftovers"]] == ["batons"]
    assert files_holding(project / ".baton", SECRET_TEXT) == []
