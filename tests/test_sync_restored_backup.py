"""A backup of ``.baton/`` restored (docs/sync.md, "A clone restored from a backup"): what ``status``
and ``doctor`` say the next sync does is what it does, a repair names the clone's own feed as its
own, the own feed's remote position is kept per writer, and a backup taken before a ``baton forget``
syncs and takes the erasure instead of being refused for good (tester29 T3, T4)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from baton.sync.state import STATE_FILE
from tests.cli_support import run, run_json
from tests.sync_support import backed_up_then_more, checkpoint, make_team, planned, restore_in_place, writer_of

SECRET = "zzPLANTED-restored-backup-4d2a"


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _restore_as_new_folder(project: Path, backup: Path, aside: Path) -> None:
    """``mv .baton ASIDE; cp -a BACKUP .baton``: a new folder (another inode), the original kept."""
    shutil.move(str(project / ".baton"), str(aside))
    shutil.copytree(backup, project / ".baton", symlinks=True)


def _forgotten_after_backup(capsys, project: Path, tmp_path: Path) -> tuple[Path, str]:
    """A handoff holding ``SECRET`` synced, ``.baton/`` backed up, the handoff forgotten and the
    forget synced: the backup and the handoff's id."""
    handoff = planned(capsys, project, f"the {SECRET} plan")
    run_json(capsys, project, "sync")
    backup = tmp_path / "backup"
    shutil.copytree(project / ".baton", backup, symlinks=True)
    run_json(capsys, project, "forget", handoff, "--yes")
    run_json(capsys, project, "sync")
    return backup, handoff


def _status(capsys, project: Path) -> tuple[dict, str]:
    """``baton status``'s ``sync`` member (``--json``) and its text."""
    return run_json(capsys, project, "status")["sync"], run(capsys, project, "status")[1]


def _holding(root: Path, text: str = SECRET) -> list[str]:
    needle = text.encode()
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes())


# -- T3: a backup restored as a new folder (the usual `mv`/`cp -a`): the next sync takes a new id


def test_status_of_a_restored_backup_folder_says_the_next_sync_takes_a_new_writer_id(capsys, team, tmp_path):
    _remote, a, _b = team
    backup = backed_up_then_more(capsys, a, tmp_path)
    _restore_as_new_folder(a, backup, tmp_path / "now")
    sync, text = _status(capsys, a)
    assert sync["diverged"] is True and sync["wayBack"] == "new_writer"
    assert "the next `baton sync` gives it a writer id of its own" in text
    assert "until `baton repair`" not in text and "every `baton sync` is refused" not in text


def test_doctor_of_a_restored_backup_folder_says_the_next_sync_takes_a_new_writer_id(capsys, team, tmp_path):
    _remote, a, _b = team
    backup = backed_up_then_more(capsys, a, tmp_path)
    _restore_as_new_folder(a, backup, tmp_path / "now")
    checks = {c["name"]: c for c in json.loads(run(capsys, a, "doctor", "--json")[1])["checks"]}
    assert checks["sync"]["status"] == "warn"
    assert "the next `baton sync` gives it a writer id of its own" in checks["sync"]["detail"]
    assert "until `baton repair`" not in checks["sync"]["detail"]


def test_a_plain_sync_of_a_restored_backup_folder_does_what_status_said(capsys, team, tmp_path):
    _remote, a, _b = team
    old = writer_of(a)
    backup = backed_up_then_more(capsys, a, tmp_path)
    _restore_as_new_folder(a, backup, tmp_path / "now")
    out = run_json(capsys, a, "sync")
    assert out["refused"] == [] and out["imported"] == {old: 2}
    assert writer_of(a) != old
    sync = run_json(capsys, a, "status")["sync"]
    assert not sync.get("diverged") and sync["writer"] == writer_of(a)


def test_a_repair_of_a_restored_backup_folder_names_the_feed_as_the_clones_own(capsys, team, tmp_path):
    _remote, a, _b = team
    old = writer_of(a)
    backup = backed_up_then_more(capsys, a, tmp_path)
    _restore_as_new_folder(a, backup, tmp_path / "now")
    code, out, _err = run(capsys, a, "repair", "--yes")
    assert code == 0 and f"Restored this clone's own feed {old} as its ledger ref holds it" in out
    assert "a teammate's" not in out


def test_after_a_repair_the_new_writers_feed_is_not_measured_against_the_old_writers_remote_copy(
        capsys, team, tmp_path):
    _remote, a, _b = team
    backup = backed_up_then_more(capsys, a, tmp_path)
    _restore_as_new_folder(a, backup, tmp_path / "now")
    run_json(capsys, a, "repair", "--yes")  # its ledger.repaired is the new writer's first event
    sync = run_json(capsys, a, "status")["sync"]
    assert not sync.get("diverged") and sync["writer"] == writer_of(a) and sync["unshared"] == 1
    assert "Not yet shared: 1 event" in run(capsys, a, "status")[1]
    run_json(capsys, a, "sync")
    assert run_json(capsys, a, "status")["sync"]["unshared"] == 0


def test_the_own_feeds_remote_position_is_kept_per_writer(capsys, team):
    _remote, a, _b = team
    checkpoint(capsys, a, "one")
    run_json(capsys, a, "sync")
    own = json.loads((a / ".baton" / STATE_FILE).read_text())["own"]
    assert list(own) == [writer_of(a)]
    [entry] = own[writer_of(a)].values()
    assert entry["remote"] == "origin" and entry["seq"] == 2


def _older_state(project: Path) -> None:
    """``sync-state.json``'s ``own`` section as a Baton before 2026-12-08 wrote it: keyed by remote."""
    path = project / ".baton" / STATE_FILE
    raw = json.loads(path.read_text())
    raw["own"] = {key: entry for section in raw["own"].values() for key, entry in section.items()}
    path.write_text(json.dumps(raw))


def test_an_own_section_written_before_it_was_keyed_by_writer_is_read_as_this_writers(capsys, team, tmp_path):
    _remote, a, _b = team
    backup = backed_up_then_more(capsys, a, tmp_path)
    restore_in_place(a, backup)
    _older_state(a)
    sync = run_json(capsys, a, "status")["sync"]
    assert sync["diverged"] is True and sync["remoteSeq"] == 4


def test_an_older_own_section_is_the_former_writers_once_the_folder_took_a_new_id(capsys, team, tmp_path):
    _remote, a, _b = team
    backup = backed_up_then_more(capsys, a, tmp_path)
    _restore_as_new_folder(a, backup, tmp_path / "now")
    _older_state(a)
    run_json(capsys, a, "repair", "--yes")  # takes a new id; the older section was written for the former
    sync = run_json(capsys, a, "status")["sync"]
    assert not sync.get("diverged") and sync["unshared"] == 1


def test_a_backup_restored_in_place_with_nothing_written_says_restore_own_feed(capsys, team, tmp_path):
    _remote, a, _b = team
    backup = backed_up_then_more(capsys, a, tmp_path)
    restore_in_place(a, backup)
    sync, text = _status(capsys, a)
    assert sync["wayBack"] == "restore_own_feed"
    assert "until `baton sync` given --restore-own-feed takes the published events back" in text
    assert "`restore_own_feed`" not in text and "baton repair" not in text


def test_a_backup_restored_in_place_and_written_to_still_says_repair(capsys, team, tmp_path):
    _remote, a, _b = team
    backup = backed_up_then_more(capsys, a, tmp_path)
    restore_in_place(a, backup)
    checkpoint(capsys, a, "after the restore")
    assert run_json(capsys, a, "status")["sync"]["wayBack"] == "repair"
    assert "until `baton repair` puts the feed back" in run(capsys, a, "status")[1]


# -- T4: a backup taken before a forget, restored


def test_a_backup_from_before_a_forget_restored_as_a_new_folder_syncs_and_takes_the_erasure(capsys, team, tmp_path):
    _remote, a, _b = team
    old = writer_of(a)
    backup, _handoff = _forgotten_after_backup(capsys, a, tmp_path)
    _restore_as_new_folder(a, backup, tmp_path / "now")
    assert _holding(a / ".baton")  # the backup holds the forgotten text
    out = run_json(capsys, a, "sync")
    assert out["refused"] == [] and out["erased"] == {old: 1} and out["imported"] == {old: 1}
    assert _holding(a / ".baton") == []
    assert run_json(capsys, a, "verify")["ok"] is True
    assert run_json(capsys, a, "sync")["refused"] == []


def test_a_backup_from_before_a_forget_restored_in_place_is_told_to_restore_its_own_feed(capsys, team, tmp_path):
    _remote, a, _b = team
    backup, _handoff = _forgotten_after_backup(capsys, a, tmp_path)
    restore_in_place(a, backup)
    assert run_json(capsys, a, "status")["sync"]["wayBack"] == "restore_own_feed"
    code, out, _err = run(capsys, a, "sync")
    assert code == 4 and "nothing written since: `baton sync` given --restore-own-feed takes its published" in out
    assert "written to since" not in out and "baton repair" not in out


def test_restore_own_feed_takes_the_erasure_of_a_backup_from_before_a_forget(capsys, team, tmp_path):
    _remote, a, _b = team
    backup, _handoff = _forgotten_after_backup(capsys, a, tmp_path)
    restore_in_place(a, backup)
    out = run_json(capsys, a, "sync", "--restore-own-feed")
    assert out["refused"] == [] and out["erased"] == {writer_of(a): 1} and out["imported"] == {writer_of(a): 1}
    assert _holding(a / ".baton") == []
    report = run_json(capsys, a, "verify")
    assert report["ok"] is True and report["erased_by_forget"] == 1
    assert run_json(capsys, a, "sync")["refused"] == []


def test_a_repair_of_a_backup_from_before_a_forget_keeps_the_erasure(capsys, team, tmp_path):
    _remote, a, _b = team
    backup, handoff = _forgotten_after_backup(capsys, a, tmp_path)
    restore_in_place(a, backup)
    out = run_json(capsys, a, "repair", "--yes")
    assert [len(f["erased_by_forget"]) for f in out["feeds"]] == [1]
    assert _holding(a / ".baton") == []
    code, text = run(capsys, a, "verify")[:2]
    assert code == 0 and "unfinished forget" not in text and handoff not in text


def test_a_repair_of_a_backup_from_before_a_forget_written_to_since_leaves_the_text_nowhere(capsys, team, tmp_path):
    _remote, a, _b = team
    backup, _handoff = _forgotten_after_backup(capsys, a, tmp_path)
    restore_in_place(a, backup)
    checkpoint(capsys, a, "after the restore")
    code, text, _err = run(capsys, a, "repair", "--yes")
    assert code == 0 and "erased 1 payload the local file still held" in text
    assert "the only whole copy" not in text
    assert _holding(a / ".baton") == []
    assert run_json(capsys, a, "sync")["refused"] == []
