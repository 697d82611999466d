"""A stray copy of a feed in ``.baton/ledger/`` (a cloud drive's "conflicted copy", a
``feed.bak.jsonl``) is no feed: every command and the session-start brief go on, ``verify`` and
``doctor`` name it, and nothing deletes it (team15 G7; docs/architecture.md, "Feeds").

The same rule for a copy saved under another *valid* writer id's name (``cp A.jsonl B.jsonl``, a
teammate's feed saved as the wrong file): its events are not B's, so it is no feed — never folded
as B's, named with the fix, never deleted (team16 G7)."""

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


# -- a copy under another writer id's name (team16 G7) -------------------------------------------

BOB = "bob-laptop-1234"


@pytest.fixture
def with_misnamed_copy(capsys, project) -> tuple[Path, Path, Path]:
    """A project with one handoff, and its feed copied as writer BOB's (``cp A.jsonl B.jsonl``)."""
    run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "copied once", "--objective", "o")
    [feed] = sorted((project / ".baton" / "ledger").glob("*.jsonl"))
    copy = feed.parent / f"{BOB}.jsonl"
    shutil.copyfile(feed, copy)
    return project, feed, copy


def test_a_copy_under_another_writers_name_is_not_folded_as_that_writers_feed(capsys, with_misnamed_copy):
    project, feed, _copy = with_misnamed_copy
    code, out, err = run(capsys, project, "log", "--json")
    assert code == 0, out + err
    events = [json.loads(line) for line in out.splitlines()]
    assert {e["writer"] for e in events} == {feed.stem}
    assert len({e["id"] for e in events}) == len(events)
    status = run_json(capsys, project, "status")
    assert [h["title"] for h in status["latestHandoffs"]] == ["copied once"] and status["handoffTotal"] == 1


def test_the_session_start_brief_goes_on_beside_a_copy_under_another_writers_name(with_misnamed_copy):
    project, _feed, _copy = with_misnamed_copy
    r = run_baton("bootstrap", "--peek", "--project", str(project))
    assert r.returncode == 0, r.stderr
    assert "could not read the ledger" not in r.stdout and "corrupt" not in r.stdout + r.stderr


def test_verify_passes_and_names_a_copy_under_another_writers_name_with_whose_events_it_holds(
        capsys, with_misnamed_copy):
    project, feed, copy = with_misnamed_copy
    code, out, err = run(capsys, project, "verify", "--json")
    result = json.loads(out)
    assert code == 0 and result["ok"] is True, out + err
    assert result["stray_files"] == [copy.name] and result["stray_copies"] == {copy.name: feed.stem}
    assert [f["feed"] for f in result["feeds"]] == [feed.stem]
    code, out, _ = run(capsys, project, "verify")
    assert f"ignored {copy.name}: named for writer {BOB} but holding writer {feed.stem}'s events" in out
    assert f"{feed.stem}.jsonl is there, so move this copy out of .baton/ledger/" in out


def test_doctor_warns_about_a_copy_under_another_writers_name(capsys, with_misnamed_copy):
    project, _feed, copy = with_misnamed_copy
    _code, out, _ = run(capsys, project, "doctor")
    assert f"warn  ledger: {copy.name}: named for writer {BOB}" in out
    assert "fail" not in out.split("ledger:", 1)[1].split("\n", 2)[0]


def test_a_copy_under_another_writers_name_is_never_deleted(capsys, with_misnamed_copy):
    project, _feed, copy = with_misnamed_copy
    before = copy.read_bytes()
    for command in (["status"], ["verify"], ["doctor"], ["rebuild"], ["log"]):
        run(capsys, project, *command)
    run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "after", "--objective", "o")
    assert copy.read_bytes() == before


def test_a_teammates_feed_saved_under_the_wrong_name_is_named_with_the_rename_that_fixes_it(capsys, tmp_path):
    from tests.sync_support import make_team
    from tests.sync_support import writer_of as _writer

    _remote, a, b = make_team(tmp_path)
    run_json(capsys, b, "checkpoint", "create", "--no-input", "--title", "from b", "--objective", "o")
    wrong = a / ".baton" / "ledger" / f"{BOB}.jsonl"
    shutil.copyfile(b / ".baton" / "ledger" / f"{_writer(b)}.jsonl", wrong)
    code, out, err = run(capsys, a, "verify")
    assert code == 0, out + err
    fix = f"mv .baton/ledger/{BOB}.jsonl .baton/ledger/{_writer(b)}.jsonl"
    assert fix in out
    wrong.rename(a / ".baton" / "ledger" / f"{_writer(b)}.jsonl")  # the fix it names
    assert run_json(capsys, a, "verify")["ok"] is True
    assert "from b" in [h["title"] for h in run_json(capsys, a, "status")["latestHandoffs"]]


def test_this_clones_own_feed_holding_another_writers_events_still_fails_verify_as_wrong_writer(
        capsys, tmp_path):
    from tests.sync_support import make_team
    from tests.sync_support import writer_of as _writer

    _remote, a, b = make_team(tmp_path)
    run_json(capsys, b, "checkpoint", "create", "--no-input", "--title", "from b", "--objective", "o")
    own = a / ".baton" / "ledger" / f"{_writer(a)}.jsonl"
    shutil.copyfile(b / ".baton" / "ledger" / f"{_writer(b)}.jsonl", own)  # the file this clone appends to
    code, out, _ = run(capsys, a, "verify", "--json")
    result = json.loads(out)
    assert code == 3 and result["stray_files"] == []
    assert any(p["kind"] == "wrong_writer" and p["feed"] == _writer(a) for p in result["problems"])


@pytest.mark.parametrize("content", [b"", b'{"writer": "someone-else", "seq": 1'], ids=["empty", "first-line-unfinished"])
def test_a_feed_without_a_whole_first_line_yet_is_still_a_feed(tmp_path, content):
    from baton.ledger.feed import holds_another_writer, stray_files

    (tmp_path / f"{BOB}.jsonl").write_bytes(content)
    assert holds_another_writer(str(tmp_path / f"{BOB}.jsonl"), f"{BOB}.jsonl") is None
    assert stray_files(tmp_path) == {}


def test_a_copy_under_another_writers_name_is_never_published_by_sync_nor_removed(capsys, tmp_path):
    from tests.sync_support import make_team, remote_feeds
    from tests.sync_support import writer_of as _writer

    remote, a, _b = make_team(tmp_path)
    run_json(capsys, a, "checkpoint", "create", "--no-input", "--title", "t", "--objective", "o")
    copy = a / ".baton" / "ledger" / f"{BOB}.jsonl"
    shutil.copyfile(a / ".baton" / "ledger" / f"{_writer(a)}.jsonl", copy)
    before = copy.read_bytes()
    code, out, err = run(capsys, a, "sync", "--json")
    result = json.loads(out)
    assert code == 0 and result["refused"] == [], out + err  # no feed, so nothing to refuse (tests/test_sync_stray_copies.py)
    assert result["stray_copies"] == {copy.name: _writer(a)}
    assert set(remote_feeds(remote)) == {_writer(a)} and result["published"] == {_writer(a): 2}
    assert copy.read_bytes() == before
