"""`baton sync` beside a stray copy in `.baton/ledger/` (docs/sync.md, "A stray copy in the ledger
folder"): a file named for writer B holding another writer's events, or a file named no writer id,
is no feed — sync publishes every real feed, refuses nothing for it, names it with the fix `verify`
gives, and never loses its bytes. When the remote holds writer B's real feed, the copy is moved
whole into `.baton/quarantine/` with a note, and B's feed is imported in its place.

Two clones of one repository and a bare remote (``tests.sync_support.make_team``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli_support import run, run_json
from tests.sync_support import checkpoint, make_team, remote_feeds, writer_of

BOB = "bob-laptop-1234"


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _ledger(project: Path) -> Path:
    return project / ".baton" / "ledger"


@pytest.fixture
def copied(capsys, team) -> tuple[Path, Path, Path]:
    """(remote, a, the copy): clone a holds one handoff, and its feed copied as writer BOB's."""
    remote, a, _b = team
    checkpoint(capsys, a, "copied once")
    copy = _ledger(a) / f"{BOB}.jsonl"
    shutil.copyfile(_ledger(a) / f"{writer_of(a)}.jsonl", copy)
    return remote, a, copy


def _verify_note(capsys, project: Path, name: str) -> str:
    """What `baton verify` says of the stray file ``name`` (after ``ignored NAME: ``)."""
    _code, out, _ = run(capsys, project, "verify")
    [line] = [line for line in out.splitlines() if line.strip().startswith(f"ignored {name}: ")]
    return line.strip()[len(f"ignored {name}: "):]


def test_sync_publishes_every_real_feed_and_refuses_nothing_beside_a_copy_under_another_writers_name(
        capsys, copied):
    remote, a, _copy = copied
    result = run_json(capsys, a, "sync")
    assert result["refused"] == [] and result["published"] == {writer_of(a): 2}
    assert set(remote_feeds(remote)) == {writer_of(a)}


def test_sync_names_a_copy_under_another_writers_name_in_its_json(capsys, copied):
    _remote, a, copy = copied
    result = run_json(capsys, a, "sync")
    assert result["stray_files"] == [copy.name] and result["stray_copies"] == {copy.name: writer_of(a)}
    assert result["stray_notes"] == {copy.name: _verify_note(capsys, a, copy.name)}
    assert result["moved_aside"] == []


def test_sync_names_a_copy_under_another_writers_name_in_one_line_with_the_fix_verify_gives(capsys, copied):
    _remote, a, copy = copied
    code, out, err = run(capsys, a, "sync")
    assert code == 0, out + err
    lines = [line for line in out.splitlines() if copy.name in line]
    assert lines == [f"IGNORED .baton/ledger/{copy.name}: {_verify_note(capsys, a, copy.name)}"]
    assert "move this copy out of .baton/ledger/" in lines[0]


def test_sync_leaves_a_copy_under_another_writers_name_byte_for_byte(capsys, copied):
    _remote, a, copy = copied
    before = copy.read_bytes()
    run_json(capsys, a, "sync")
    checkpoint(capsys, a, "after")
    run_json(capsys, a, "sync")
    assert copy.read_bytes() == before
    assert not (a / ".baton" / "quarantine").exists()


def test_a_second_sync_beside_the_copy_is_already_in_sync_and_names_it_again(capsys, copied):
    _remote, a, copy = copied
    run_json(capsys, a, "sync")
    code, out, err = run(capsys, a, "sync")
    assert code == 0, out + err
    assert "Already in sync" in out and f"IGNORED .baton/ledger/{copy.name}" in out


def test_a_teammate_never_receives_the_copy_as_a_feed(capsys, team, copied):
    _remote, a, copy = copied
    b = team[2]
    run_json(capsys, a, "sync")
    result = run_json(capsys, b, "sync")
    assert set(result["imported"]) == {writer_of(a)}
    assert not (_ledger(b) / copy.name).exists()


def test_a_teammates_feed_saved_under_the_wrong_name_is_named_with_the_rename_that_fixes_it(capsys, team):
    _remote, a, b = team
    checkpoint(capsys, b, "from b")
    wrong = _ledger(a) / f"{BOB}.jsonl"
    shutil.copyfile(_ledger(b) / f"{writer_of(b)}.jsonl", wrong)  # b never synced: the remote lacks b's feed
    result = run_json(capsys, a, "sync")
    fix = f"`mv .baton/ledger/{BOB}.jsonl .baton/ledger/{writer_of(b)}.jsonl`"
    assert fix in result["stray_notes"][wrong.name] and result["refused"] == []


def test_the_real_feed_whose_events_a_copy_holds_is_imported_beside_it_its_ids_not_taken_for_repeats(
        capsys, team):
    _remote, a, b = team
    checkpoint(capsys, a, "from a")
    run_json(capsys, a, "sync")
    wrong = _ledger(b) / f"{BOB}.jsonl"
    shutil.copyfile(_ledger(a) / f"{writer_of(a)}.jsonl", wrong)  # a's events, saved under BOB's name
    result = run_json(capsys, b, "sync")
    assert result["refused"] == [] and set(result["imported"]) == {writer_of(a)}
    assert result["stray_copies"] == {wrong.name: writer_of(a)}
    assert f"{writer_of(a)}.jsonl is there, so move this copy out" in result["stray_notes"][wrong.name]


def test_a_file_named_no_writer_id_does_not_stop_a_sync_and_is_named(capsys, copied):
    remote, a, _copy = copied
    conflicted = _ledger(a) / f"{writer_of(a)} (conflicted copy 2026-12-06).jsonl"
    shutil.copyfile(_ledger(a) / f"{writer_of(a)}.jsonl", conflicted)
    code, out, err = run(capsys, a, "sync", "--json")
    result = json.loads(out)
    assert code == 0 and result["refused"] == [], out + err
    assert conflicted.name in result["stray_files"] and conflicted.name not in result["stray_copies"]
    assert set(remote_feeds(remote)) == {writer_of(a)} and conflicted.exists()


# -- the remote holds the real feed of the copy's name --------------------------------------------


@pytest.fixture
def clash(capsys, team) -> tuple[Path, Path, Path, bytes]:
    """(a, b, the copy, its bytes): b published its feed; clone a, before importing it, holds a copy of
    its own feed saved under b's writer id."""
    _remote, a, b = team
    checkpoint(capsys, b, "from b")
    run_json(capsys, b, "sync")
    checkpoint(capsys, a, "from a")
    copy = _ledger(a) / f"{writer_of(b)}.jsonl"
    shutil.copyfile(_ledger(a) / f"{writer_of(a)}.jsonl", copy)
    return a, b, copy, copy.read_bytes()


def test_the_remotes_real_feed_is_imported_in_place_of_a_copy_under_its_name(capsys, clash):
    a, b, copy, _before = clash
    result = run_json(capsys, a, "sync")
    assert result["refused"] == [] and result["imported"] == {writer_of(b): 2}
    assert copy.read_bytes() == (_ledger(b) / f"{writer_of(b)}.jsonl").read_bytes()
    assert "from b" in [h["title"] for h in run_json(capsys, a, "status")["latestHandoffs"]]


def test_a_copy_in_the_way_of_the_remotes_feed_is_moved_into_quarantine_whole(capsys, clash):
    a, b, copy, before = clash
    result = run_json(capsys, a, "sync")
    [moved] = result["moved_aside"]
    assert moved["file"] == copy.name and moved["writer"] == writer_of(a)
    assert moved["to"].startswith(f".baton/quarantine/{writer_of(b)}.") and moved["to"].endswith(".stray")
    assert (a / moved["to"]).read_bytes() == before
    assert result["stray_files"] == []


def test_a_copy_moved_into_quarantine_has_a_note_saying_what_it_is(capsys, clash):
    a, b, copy, before = clash
    [moved] = run_json(capsys, a, "sync")["moved_aside"]
    note = json.loads((a / f"{moved['to']}.json").read_text())
    assert note["file"] == copy.name and note["writer"] == writer_of(a) and note["bytes"] == len(before)
    assert f"holding writer {writer_of(a)}'s events" in note["why"]


def test_sync_says_in_one_line_where_the_copy_went(capsys, clash):
    a, b, copy, _before = clash
    code, out, err = run(capsys, a, "sync")
    assert code == 0, out + err
    [line] = [line for line in out.splitlines() if line.startswith("MOVED ")]
    assert f".baton/ledger/{copy.name} to .baton/quarantine/{writer_of(b)}." in line
    assert f"the remote's feed {writer_of(b)} was imported in its place" in line


def test_after_the_copy_is_moved_aside_verify_passes_and_names_no_stray_file(capsys, clash):
    a, _b, _copy, _before = clash
    run_json(capsys, a, "sync")
    result = run_json(capsys, a, "verify")
    assert result["ok"] is True and result["stray_files"] == []


# -- real damage is still refused -----------------------------------------------------------------


def test_this_clones_own_feed_holding_another_writers_events_is_still_refused_as_wrong_writer(capsys, team):
    remote, a, b = team
    checkpoint(capsys, b, "from b")
    own = _ledger(a) / f"{writer_of(a)}.jsonl"
    shutil.copyfile(_ledger(b) / f"{writer_of(b)}.jsonl", own)  # the file this clone appends to
    code, out, err = run(capsys, a, "sync", "--json")
    result = json.loads(out)
    assert code == 3, out + err
    assert [(r["feed"], r["side"], r["kind"]) for r in result["refused"]] == [(writer_of(a), "local", "wrong_writer")]
    assert result["stray_files"] == [] and writer_of(a) not in remote_feeds(remote)
