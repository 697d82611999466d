"""A stray copy of a feed in ``.baton/ledger/`` (a cloud drive's "conflicted copy", a
``feed.bak.jsonl``) is no feed: every command and the session-start brief go on, ``verify`` and
``doctor`` name it, and nothing deletes it (team15 G7; docs/architecture.md, "Feeds")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli_support import run, run_json
from tests.conftest import run_baton

COPIES = ("{w} (conflicted copy 2026-12-06).jsonl", "feed.bak.jsonl")


@pytest.fixture
def with_copy(capsys, project) -> tuple[Path, list[Path]]:
    run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "t", "--objective", "o")
    [feed] = sorted((project / ".baton" / "ledger").glob("*.jsonl"))
    copies = [feed.parent / name.format(w=feed.stem) for name in COPIES]
    for copy in copies:
        shutil.copyfile(feed, copy)
    return project, copies


def test_status_goes_on_beside_a_stray_copy_of_a_feed(capsys, with_copy):
    project, _ = with_copy
    code, _, err = run(capsys, project, "status")
    assert code == 0, err


def test_the_session_start_brief_goes_on_beside_a_stray_copy_of_a_feed(with_copy):
    project, _ = with_copy
    r = run_baton("bootstrap", "--peek", "--project", str(project))
    assert r.returncode == 0, r.stderr
    assert "could not read the ledger" not in r.stdout


def test_verify_names_each_stray_copy_and_passes(capsys, with_copy):
    project, copies = with_copy
    code, out, err = run(capsys, project, "verify", "--json")
    result = json.loads(out)
    assert code == 0 and result["ok"] is True, out + err
    assert result["stray_files"] == sorted(c.name for c in copies)


def test_doctor_warns_about_a_stray_copy(capsys, with_copy):
    project, copies = with_copy
    _code, out, _ = run(capsys, project, "doctor")
    assert all(c.name in out for c in copies) and "not read, and left where it is" in out


def test_a_stray_copy_is_never_deleted(capsys, with_copy):
    project, copies = with_copy
    run(capsys, project, "status")
    run(capsys, project, "verify")
    assert all(c.exists() for c in copies)
