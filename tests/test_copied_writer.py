"""A project folder copied with its ``.baton/`` takes a writer id of its own
at its first write (docs/sync.md, "Two machines under one writer id").

Real processes (``python -m baton``), ``cp -a`` and ``mv`` as a person runs
them, and a real bare git remote where sync is involved.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from baton.app import Baton
from tests.conftest import run_baton
from tests.handoff_support import payload
from tests.sync_support import make_team


def baton(project: Path, *args: str, expect: int = 0) -> subprocess.CompletedProcess:
    done = run_baton(*args, "--project", str(project))
    assert done.returncode == expect, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    return done


def checkpoint(project: Path, title: str) -> subprocess.CompletedProcess:
    return baton(project, "checkpoint", "create", "--title", title, "--objective", f"{title} objective",
                 "--no-input", "--json")


def local(project: Path) -> dict:
    return json.loads((project / ".baton" / "local.json").read_text())


def feeds(project: Path) -> dict[str, bytes]:
    return {p.stem: p.read_bytes() for p in sorted((project / ".baton" / "ledger").glob("*.jsonl"))}


def copy(source: Path, target: Path) -> Path:
    subprocess.run(["cp", "-a", str(source), str(target)], check=True)
    return target


@pytest.fixture
def carol(project):
    checkpoint(project, "before the copy")
    return project


def test_a_copied_project_takes_a_writer_id_of_its_own_at_its_first_write(carol):
    old = local(carol)["writer"]
    copied = copy(carol, carol.parent / "carolcopy")
    checkpoint(copied, "in the copy")
    new = local(copied)["writer"]
    assert new != old
    assert feeds(copied)[old] == feeds(carol)[old]  # the original's feed, untouched in the copy
    assert b"in the copy" in feeds(copied)[new]
    assert local(copied)["copied_from"] == {"writer": old, "root": str(carol), "host": local(carol)["minted_in"]["host"]}


def test_the_original_keeps_its_writer_id_after_it_was_copied(carol):
    old = local(carol)["writer"]
    copy(carol, carol.parent / "carolcopy")
    checkpoint(carol, "in the original")
    assert local(carol)["writer"] == old
    assert list(feeds(carol)) == [old]


def test_a_copy_keeps_the_overrides_of_its_local_json(carol):
    path = carol / ".baton" / "local.json"
    path.write_text(json.dumps({**local(carol), "detector": {"threshold": 0.9}}))
    copied = copy(carol, carol.parent / "carolcopy")
    checkpoint(copied, "in the copy")
    assert local(copied)["detector"] == {"threshold": 0.9}


def test_a_copy_says_once_on_stderr_and_in_its_json_which_writer_id_it_took(carol):
    old = local(carol)["writer"]
    copied = copy(carol, carol.parent / "carolcopy")
    first = checkpoint(copied, "first in the copy")
    new = local(copied)["writer"]
    said = json.loads(first.stdout)["writer_changed"]
    assert (said["old"], said["new"]) == (old, new)
    assert f"now writes as writer {new}, not {old}" in first.stderr
    second = checkpoint(copied, "second in the copy")
    assert "writer_changed" not in json.loads(second.stdout)
    assert "writer" not in second.stderr


def test_reading_commands_in_a_copy_never_write_its_local_json(carol):
    copied = copy(carol, carol.parent / "carolcopy")
    path = copied / ".baton" / "local.json"
    before = (path.read_bytes(), path.stat().st_ino, path.stat().st_mtime_ns)
    for command in (("status",), ("handoff", "list"), ("verify",), ("doctor",), ("bootstrap", "--peek"), ("log",)):
        baton(copied, *command)
    assert (path.read_bytes(), path.stat().st_ino, path.stat().st_mtime_ns) == before
    assert list(feeds(copied)) == [local(carol)["writer"]]


def test_doctor_warns_in_a_copy_and_names_the_id_it_took_after_its_first_write(carol):
    old = local(carol)["writer"]
    copied = copy(carol, carol.parent / "carolcopy")
    check = {c["name"]: c for c in json.loads(baton(copied, "doctor", "--json").stdout)["checks"]}["writer"]
    assert check["status"] == "warn" and "copy" in check["detail"] and str(carol) in check["detail"]
    checkpoint(copied, "in the copy")
    check = {c["name"]: c for c in json.loads(baton(copied, "doctor", "--json").stdout)["checks"]}["writer"]
    assert check["status"] == "ok"
    assert check["detail"].startswith(local(copied)["writer"]) and f"in place of {old}" in check["detail"]


def test_a_moved_project_keeps_its_writer_id(carol):
    old = local(carol)["writer"]
    moved = carol.parent / "moved"
    subprocess.run(["mv", str(carol), str(moved)], check=True)
    done = checkpoint(moved, "after the move")
    assert local(moved)["writer"] == old
    assert list(feeds(moved)) == [old]
    assert "writer" not in done.stderr


def test_a_local_json_from_before_the_check_keeps_its_id_and_records_its_place_at_the_next_write(carol):
    path = carol / ".baton" / "local.json"
    old = local(carol)["writer"]
    path.write_text(json.dumps({"writer": old}))
    baton(carol, "status")
    assert local(carol) == {"writer": old}  # a reading command records nothing
    checkpoint(carol, "after the upgrade")
    assert local(carol)["writer"] == old
    assert local(carol)["minted_in"]["root"] == str(carol)
    assert list(feeds(carol)) == [old]


def test_two_processes_of_one_copy_take_one_writer_id(carol):
    """Both opened the copy before either wrote: the second reads, under the
    lock, the id the first took, and appends under it too."""
    old = local(carol)["writer"]
    copied = copy(carol, carol.parent / "carolcopy")
    first, second = Baton.open(copied), Baton.open(copied)
    try:
        first.capture(payload())
        second.list_handoffs()  # the second has read the first's new feed, as another writer's, before it writes
        second.capture(payload())
        assert first.project.writer == second.project.writer == local(copied)["writer"] != old
        assert second.project.writer_change is None  # the first process took it and said so
    finally:
        first.close()
        second.close()
    assert sorted(feeds(copied)) == sorted([old, local(copied)["writer"]])
    assert baton(copied, "verify").returncode == 0


def test_concurrent_first_writes_in_a_copy_leave_one_new_feed(carol):
    old = local(carol)["writer"]
    copied = copy(carol, carol.parent / "carolcopy")
    env = dict(os.environ)
    children = [subprocess.Popen([os.sys.executable, "-m", "baton", "checkpoint", "create", "--title", f"t{i}",
                                  "--objective", "o", "--no-input", "--project", str(copied)],
                                 env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for i in range(3)]
    assert [child.wait(timeout=120) for child in children] == [0, 0, 0]
    new = local(copied)["writer"]
    assert sorted(feeds(copied)) == sorted([old, new])
    assert all(f"t{i}".encode() in feeds(copied)[new] for i in range(3))


def test_a_long_lived_process_in_a_copy_that_read_first_writes_under_the_new_id(carol):
    old = local(carol)["writer"]
    copied = copy(carol, carol.parent / "carolcopy")
    with Baton.open(copied) as app:
        assert app.list_handoffs().to_json()  # the ledger and index are open under the old id
        app.capture(payload())
        app.capture(payload())
        new = app.project.writer
    assert new == local(copied)["writer"] != old
    assert feeds(copied)[old] == feeds(carol)[old]
    assert feeds(copied)[new].count(b'"type":"handoff.captured"') == 2


def test_a_steady_clone_stats_its_baton_folder_once_and_never_writes_local_json(carol, monkeypatch):
    from baton.commands.context import Project

    path = carol / ".baton" / "local.json"
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    seen: list[str] = []
    real_stat = os.stat

    def counting(target, *args, **kwargs):
        if os.fspath(target) == str(carol / ".baton"):
            seen.append("stat")
        return real_stat(target, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counting)
    opened = Project.open(carol)
    try:
        assert seen == ["stat"]
        opened.claim_writer()
        assert seen == ["stat"]
    finally:
        opened.close()
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


# -- through a bare remote ----------------------------------------------------------------


@pytest.fixture
def team(tmp_path):
    remote, a, b = make_team(tmp_path)
    checkpoint(b, "carol before the copy")
    baton(b, "sync")
    return remote, a, b


def test_a_copy_and_its_original_sync_through_a_bare_remote_without_replacing_each_others_feed(team):
    _remote, a, carol = team
    old = local(carol)["writer"]
    copied = copy(carol, carol.parent / "carolcopy")
    checkpoint(carol, "in the original")
    checkpoint(copied, "in the copy")
    for clone in (carol, copied, carol, a, copied):
        baton(clone, "sync")
    new = local(copied)["writer"]
    for clone in (a, carol, copied):
        held = feeds(clone)
        assert {old, new} <= set(held)
        assert held[old] == feeds(carol)[old] and held[new] == feeds(copied)[new]
        baton(clone, "verify")
    assert b"in the original" in feeds(a)[old] and b"in the copy" in feeds(a)[new]


def test_a_backup_restored_in_place_of_the_original_takes_a_new_id_and_catches_up_the_old_feed(team):
    """The backup's copy of its old feed is behind the remote: as another
    writer's feed it is fast-forwarded, never published over the remote's."""
    _remote, _a, carol = team
    old = local(carol)["writer"]
    backup = copy(carol, carol.parent / "backup")
    checkpoint(carol, "after the backup")
    baton(carol, "sync")
    latest = feeds(carol)[old]
    shutil.rmtree(carol)
    subprocess.run(["mv", str(backup), str(carol)], check=True)
    checkpoint(carol, "after the restore")
    baton(carol, "sync")
    assert local(carol)["writer"] != old
    assert feeds(carol)[old] == latest


def test_a_sync_that_is_a_copys_first_write_takes_a_new_id_and_fast_forwards_the_originals_feed(team):
    """Without a new id the copy would publish its shorter copy of the
    original's feed as its own, over the one the original published since."""
    _remote, _a, carol = team
    old = local(carol)["writer"]
    copied = copy(carol, carol.parent / "carolcopy")
    checkpoint(carol, "in the original after the copy")
    baton(carol, "sync")
    done = baton(copied, "sync", "--json")
    assert json.loads(done.stdout)["writer_changed"]["old"] == old
    assert local(copied)["writer"] != old
    assert feeds(copied)[old] == feeds(carol)[old]
    baton(carol, "sync")


def test_a_copy_in_a_project_that_signs_feeds_says_which_allowed_signers_pattern_covers_its_new_id(carol):
    (carol / ".baton" / "allowed_signers").write_text("")
    copied = copy(carol, carol.parent / "carolcopy")
    done = checkpoint(copied, "in the copy")
    new = local(copied)["writer"]
    assert "allowed-signers" in done.stderr and new.rsplit("-", 1)[0] + "-*" in done.stderr


def test_a_session_start_hook_that_takes_a_new_id_in_a_copy_says_so_in_its_context_once(carol):
    from tests.harness_support import fixture

    copied = copy(carol, carol.parent / "carolcopy")

    def start(session: str) -> subprocess.CompletedProcess:
        stdin = json.dumps(fixture("claude-code", "SessionStart.startup", copied, session_id=session))
        done = subprocess.run([os.sys.executable, "-m", "baton", "hook", "claude-code", "SessionStart"], input=stdin,
                              capture_output=True, text=True, cwd=copied, timeout=120,
                              env={**os.environ, "BATON_HOOK_SERVER": "0"})
        assert done.returncode == 0, done.stderr[-2000:]
        return done

    first = start("first-in-the-copy")
    new = local(copied)["writer"]
    assert new != local(carol)["writer"]
    assert f"now writes as writer {new}" in json.loads(first.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "now writes as writer" not in start("second-in-the-copy").stdout


def test_a_ledger_that_becomes_another_writer_appends_to_that_feed_and_only_outside_a_lock_hold(tmp_path):
    from baton.ledger import EventDraft, Ledger

    ledger = Ledger(tmp_path / ".baton", "host-user-aaaaaa")
    with ledger.locked() as txn:
        txn.append([EventDraft("test.noted", "project", {"n": 1})])
        with pytest.raises(RuntimeError):
            ledger.become("host-user-bbbbbb")
    old = (tmp_path / ".baton" / "ledger" / "host-user-aaaaaa.jsonl").read_bytes()
    ledger.become("host-user-bbbbbb")
    with ledger.locked() as txn:
        txn.append([EventDraft("test.noted", "project", {"n": 2})])
    ledger.close()
    assert (tmp_path / ".baton" / "ledger" / "host-user-aaaaaa.jsonl").read_bytes() == old
    assert b'"n":2' in (tmp_path / ".baton" / "ledger" / "host-user-bbbbbb.jsonl").read_bytes()


# -- a move across file systems (``mv`` copies, then deletes the original) ---------------------


def across(project: Path, elsewhere: Path) -> Path:
    moved = elsewhere / project.name
    subprocess.run(["mv", str(project), str(moved)], check=True)
    assert moved.stat().st_dev != project.parent.stat().st_dev
    return moved


def test_a_project_moved_to_another_file_system_keeps_its_writer_id(carol, other_file_system):
    old = local(carol)["writer"]
    moved = across(carol, other_file_system)
    done = checkpoint(moved, "after the move")
    assert local(moved)["writer"] == old
    assert list(feeds(moved)) == [old]
    assert "writer" not in done.stderr and "writer_changed" not in json.loads(done.stdout)
    assert local(moved)["minted_in"]["root"] == str(moved)
    assert "copied_from" not in local(moved)


def test_a_baton_left_before_a_move_across_file_systems_is_delivered_as_the_persons_own(carol, other_file_system):
    baton(carol, "session", "end", "s-before", "--handoff-steps", "the step after the move")
    moved = across(carol, other_file_system)
    brief = baton(moved, "session", "begin").stdout
    assert "the step after the move" in brief
    assert "not verified" not in brief and "copy" not in brief


def test_a_session_begun_before_a_move_across_file_systems_hands_on_its_ready_handoff_at_its_end(
        carol, other_file_system):
    baton(carol, "session", "begin", "s-moving")
    made = baton(carol, "checkpoint", "create", "--no-input", "--json", "--session", "s-moving", "--title",
                 "work before the move", "--objective", "o", "--current-state", "s", "--completed", "c",
                 "--open-item", json.dumps({"description": "next", "suggested_action": "a", "acceptance_check": "b"}))
    handoff = json.loads(made.stdout)["id"]
    baton(carol, "handoff", "validate", handoff)
    baton(carol, "handoff", "ready", handoff)
    moved = across(carol, other_file_system)
    baton(moved, "session", "end", "s-moving")
    pending = baton(moved, "session", "handoff", "--all").stdout
    assert "No pending session handoffs" not in pending
    brief = baton(moved, "session", "begin").stdout
    assert "Active Session Handoff" in brief and "1. next — a" in brief and "not verified" not in brief


def test_a_copy_on_another_file_system_with_its_original_still_there_takes_a_new_id(carol, other_file_system):
    old = local(carol)["writer"]
    copied = copy(carol, other_file_system / "carolcopy")
    done = checkpoint(copied, "in the copy")
    assert local(copied)["writer"] != old
    assert f"not {old}" in done.stderr


def test_doctor_calls_a_project_moved_to_another_file_system_the_same_writer(carol, other_file_system):
    old = local(carol)["writer"]
    moved = across(carol, other_file_system)
    check = {c["name"]: c for c in json.loads(baton(moved, "doctor", "--json").stdout)["checks"]}["writer"]
    assert check["status"] == "ok" and check["detail"].startswith(old) and "keeps its writer id" in check["detail"]
