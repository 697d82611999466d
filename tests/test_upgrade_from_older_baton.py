"""A clone upgraded in the middle of its work: what an older Baton left is read as it meant it.

The older Baton's files are committed fixtures (``tests/fixtures/older-baton/``),
made by the code of commit 8d9d3550 (2026-12-02) running ``make.sh`` there: only
what an upgraded clone keeps (``config.json``, ``local.json``, the feeds,
``sync-state.json``) is stored, and today's Baton rebuilds the rest. That version
recorded no owner on a handoff's capture (``actor`` null) and no record of what a
remote took (no ``remotes`` section in ``sync-state.json``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli_support import run
from tests.owner_support import git

OLDER = Path(__file__).parent / "fixtures" / "older-baton"


def upgraded(root: Path, fixture: str, *, email: str = "dan@example.com") -> Path:
    """A git repository on ``main`` (its user ``email``, as the older Baton's was) holding the
    ``.baton/`` files the older Baton left in ``fixture``."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", email)
    git(root, "config", "user.name", "Dan")
    (root / "f").write_text("x\n")
    git(root, "add", "f")
    git(root, "commit", "-q", "-m", "i")
    shutil.copytree(OLDER / fixture, root / ".baton")
    return root


def test_a_session_begun_under_an_older_baton_hands_on_its_ready_handoff_when_ended_after_the_upgrade(
        tmp_path, capsys):
    project = upgraded(tmp_path / "span", "session-span")
    code, out, err = run(capsys, project, "session", "end", "sp1", "--json")
    assert code == 0, (out, err)
    ended = json.loads(out)
    assert ended["notices"] == []
    assert ended["handedOn"] is True
    assert ended["handoff"]["nextSteps"] == ["Span step — do"] and ended["handoff"]["sessionId"] == "sp1"
    code, out, err = run(capsys, project, "bootstrap")
    assert code == 0, err
    assert "Span step" in out and "Left by session `sp1` of `dan@example.com`" in out


def test_status_after_an_older_batons_sync_says_what_a_remote_holds_is_not_known_yet(tmp_path, capsys):
    project = upgraded(tmp_path / "synced", "synced")
    code, out, err = run(capsys, project, "status")
    assert code == 0, err
    assert "Not yet shared" not in out
    assert ("Shared: not known yet — the last sync was made by an older Baton, which kept no record of what "
            "a remote took") in out
    assert "the next `baton sync` finds out and records it" in out


def test_status_json_after_an_older_batons_sync_gives_no_shared_count(tmp_path, capsys):
    project = upgraded(tmp_path / "synced", "synced")
    code, out, err = run(capsys, project, "status", "--json")
    assert code == 0, err
    sync = json.loads(out)["sync"]
    assert sync["sharedUnknown"] is True
    assert sync["sharedSeq"] is None and sync["unshared"] is None and sync["seq"] == 2


def test_the_first_sync_after_the_upgrade_records_what_the_remote_holds(tmp_path, capsys):
    project = upgraded(tmp_path / "synced", "synced")
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(project, "remote", "add", "origin", str(remote))
    code, out, err = run(capsys, project, "sync")
    assert code == 0, (out, err)
    code, out, err = run(capsys, project, "status")
    assert code == 0, err
    assert "Shared: every event of this clone's feed" in out and "not known yet" not in out


@pytest.mark.slow  # a real server and a real browser
def test_the_status_page_says_what_a_remote_holds_is_not_known_yet_after_an_older_batons_sync(tmp_path):
    from tests.browser_support import chromium_or_skip, sharing_line_shown

    chromium = chromium_or_skip()
    project = upgraded(tmp_path / "synced", "synced")
    shown = sharing_line_shown(project, chromium)
    assert shown.startswith("Shared: not known yet — the last sync was made by an older Baton")
    assert shown.endswith("the next baton sync finds out and records it.")
