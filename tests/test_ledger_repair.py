"""``baton repair``: an operator gets past a damaged feed with one documented
command — what is set aside is shown first, moved byte for byte into
quarantine with a manifest, recorded as an event, and the ledger verifies."""

from __future__ import annotations

import json

import orjson
import pytest

from baton.commands.context import Project
from baton.ledger import EventDraft, Ledger
from baton.ledger.integrity import REPAIRED_TYPE
from tests.conftest import run_baton
from tests.ledger_support import write


def damage_line(project, index: int) -> tuple:
    [feed] = (project / ".baton" / "ledger").glob("*.jsonl")
    lines = feed.read_bytes().splitlines(keepends=True)
    damaged = lines[index].replace(b'"n":', b'"n":1', 1)
    assert damaged != lines[index]
    lines[index] = damaged
    feed.write_bytes(b"".join(lines))
    return feed, lines


def repair(project, *args):
    r = run_baton("repair", "--json", "--project", str(project), *args)
    return r.returncode, (json.loads(r.stdout) if r.stdout.strip() else None), r.stderr


@pytest.fixture
def damaged(project):
    write(project, 4)
    feed, lines = damage_line(project, 2)  # line 3 of 5 (project.initialized first)
    return project, feed, lines


def test_a_dry_run_shows_every_line_that_would_be_set_aside_and_changes_nothing(damaged):
    project, feed, lines = damaged
    before = feed.read_bytes()
    code, out, _ = repair(project, "--dry-run")
    assert code == 0 and out["dry_run"] is True and out["repaired"] is False
    [plan] = out["feeds"]
    assert plan["feed"] == feed.stem and plan["cut_at"] == len(lines[0]) + len(lines[1])
    assert [item["seq"] for item in plan["set_aside"]] == [3, 4, 5]
    assert plan["kept"]["seq"] == 2 and plan["bytes"] == sum(len(line) for line in lines[2:])
    assert "bad_digest" in plan["reasons"][0]
    assert feed.read_bytes() == before and not (project / ".baton" / "quarantine").exists()
    text = run_baton("repair", "--dry-run", "--project", str(project)).stdout
    assert "Would set aside 3 lines" in text and "Nothing was changed" in text


def test_repair_without_yes_refuses_with_exit_2_and_changes_nothing(damaged):
    project, feed, _ = damaged
    before = feed.read_bytes()
    code, out, err = repair(project)
    assert code == 2 and out["error"]["code"] == "input_error"
    assert "--yes does it, --dry-run shows them first" in out["error"]["message"]
    assert feed.read_bytes() == before


def test_repair_moves_the_lines_byte_for_byte_records_it_and_the_ledger_verifies(damaged):
    project, feed, lines = damaged
    code, out, _ = repair(project, "--yes")
    assert code == 0 and out["repaired"] is True and out["verified"] is True

    [plan] = out["feeds"]
    quarantine = project / ".baton" / "quarantine"
    kept_aside = quarantine / plan["quarantine"]
    assert kept_aside.read_bytes() == b"".join(lines[2:])
    manifest = orjson.loads(kept_aside.with_name(kept_aside.name.replace(".repair", ".manifest.json")).read_bytes())
    assert manifest["feed"] == feed.stem and manifest["cut_at"] == len(lines[0]) + len(lines[1])
    assert [i["seq"] for i in manifest["set_aside"]] == [3, 4, 5]
    import hashlib

    assert manifest["sha256"] == hashlib.sha256(b"".join(lines[2:])).hexdigest()

    now = feed.read_bytes().splitlines(keepends=True)
    assert now[:2] == lines[:2]
    recorded = orjson.loads(now[-1])
    assert recorded["type"] == REPAIRED_TYPE and recorded["seq"] == 3
    assert recorded["data"]["feed"] == feed.stem and recorded["data"]["kept"]["seq"] == 2
    assert [e["seq"] for e in recorded["data"]["set_aside"]] == [3, 4, 5]
    assert run_baton("verify", "--project", str(project)).returncode == 0
    assert run_baton("rebuild", "--project", str(project)).returncode == 0
    assert run_baton("verify", "--project", str(project)).returncode == 0


def test_a_repaired_feed_takes_new_events_and_still_verifies(damaged):
    project, _, _ = damaged
    assert repair(project, "--yes")[0] == 0
    write(project, 2)
    assert run_baton("verify", "--project", str(project)).returncode == 0


def test_repair_on_a_sound_ledger_does_nothing(project):
    write(project, 2)
    code, out, _ = repair(project, "--yes")
    assert code == 0 and out["feeds"] == [] and out["repaired"] is False
    assert "nothing to repair" in run_baton("repair", "--project", str(project)).stdout


def test_repair_of_an_unknown_feed_exits_4(damaged):
    project, _, _ = damaged
    code, out, _ = repair(project, "--feed", "nobody", "--yes")
    assert code == 4 and out["error"]["code"] == "not_found"


def test_repair_acknowledges_a_truncated_feed_on_record(project):
    write(project, 3)
    [feed] = (project / ".baton" / "ledger").glob("*.jsonl")
    lines = feed.read_bytes().splitlines(keepends=True)
    feed.write_bytes(b"".join(lines[:-1]))
    assert run_baton("verify", "--project", str(project)).returncode == 3

    code, out, _ = repair(project, "--yes")
    assert code == 0 and out["verified"] is True
    [plan] = out["feeds"]
    assert plan["cut_at"] is None and [h["seq"] for h in plan["lost"]] == [len(lines)]
    assert run_baton("verify", "--project", str(project)).returncode == 0


def test_repair_sets_an_incomplete_batch_aside_whole(project):
    write(project, 1)
    opened = Project.open(project)
    with opened.writing() as scope:
        scope.append([EventDraft("test.noted", "test/2", {"n": i}) for i in range(3)])
    opened.close()
    write(project, 1)
    [feed] = (project / ".baton" / "ledger").glob("*.jsonl")
    lines = feed.read_bytes().splitlines(keepends=True)
    damaged = lines[3].replace(b'"n":', b'"n":1', 1)  # the batch's second event
    feed.write_bytes(b"".join(lines[:3] + [damaged] + lines[4:]))

    code, out, _ = repair(project, "--yes")
    assert code == 0, out
    [plan] = out["feeds"]
    assert plan["cut_at"] == sum(len(line) for line in lines[:2])  # from the batch's first event
    assert plan["kept"]["seq"] == 2


def test_doctor_points_at_repair(damaged):
    project, _, _ = damaged
    r = run_baton("doctor", "--project", str(project))
    assert "dry run of `baton repair`" in r.stdout


def test_other_writers_can_append_after_a_repair_of_their_feed(tmp_path, project):
    write(project, 1)
    other = Ledger(project / ".baton", "other", fsync="never")
    with other.locked() as txn:
        txn.append([EventDraft("test.noted", "test/9", {"n": 1})])
        txn.append([EventDraft("test.noted", "test/9", {"n": 2})])
    feed = other.feed_path("other")
    lines = feed.read_bytes().splitlines(keepends=True)
    feed.write_bytes(lines[0] + lines[1].replace(b'"n":2', b'"n":3'))

    code, out, _ = repair(project, "--feed", "other", "--yes")
    assert code == 0 and [p["feed"] for p in out["feeds"]] == ["other"]
    with Ledger(project / ".baton", "other", fsync="never").locked() as txn:
        [again] = txn.append([EventDraft("test.noted", "test/9", {"n": 4})])
    assert again.seq == 2
    assert run_baton("verify", "--project", str(project)).returncode == 0


class _Crash(Exception):
    pass


def test_a_crash_between_the_cut_and_its_record_is_completed_by_a_second_repair(damaged, monkeypatch):
    from baton.commands.repair import repair_project
    from baton.ledger.repair import FeedRepair

    project, feed, lines = damaged

    def crash(self, writer, quarantined):
        raise _Crash("the process died after the cut, before ledger.repaired was written")

    monkeypatch.setattr(FeedRepair, "draft", crash)
    opened = Project.open(project)
    with pytest.raises(_Crash):
        repair_project(opened, yes=True)
    opened.close()
    monkeypatch.undo()
    assert feed.read_bytes() == b"".join(lines[:2])  # cut, and the bytes are in quarantine
    [aside] = (project / ".baton" / "quarantine").glob("*.repair")
    assert aside.read_bytes() == b"".join(lines[2:])
    assert run_baton("verify", "--project", str(project)).returncode == 3  # the index still holds seq 5

    code, out, _ = repair(project, "--yes")
    assert code == 0 and out["repaired"] is True and out["verified"] is True
    assert out["feeds"] == []  # nothing left to plan: the first repair is recorded, as it was planned
    [plan] = out["finished"]
    assert plan["cut_at"] == len(lines[0]) + len(lines[1]) and plan["quarantine"] == aside.name
    assert [i["seq"] for i in plan["set_aside"]] == [3, 4, 5] and plan["lost"] == []
    recorded = orjson.loads(feed.read_bytes().splitlines()[-1])
    assert recorded["type"] == REPAIRED_TYPE and recorded["data"]["quarantine"] == aside.name
    assert [e["seq"] for e in recorded["data"]["set_aside"]] == [3, 4, 5]
    assert run_baton("verify", "--project", str(project)).returncode == 0
    assert len(list((project / ".baton" / "quarantine").glob("*.repair"))) == 1


def test_repair_of_an_unknown_feed_is_refused_before_the_ledger_is_checked(damaged, capsys, monkeypatch):
    """At 100,000 events the check took 6 s before `--feed nosuch` was said to name no feed."""
    from baton.commands import repair as repair_command
    from tests.cli_support import run

    project, _, _ = damaged

    def unchecked(*args, **kwargs):
        raise AssertionError("the ledger was checked")

    monkeypatch.setattr(repair_command, "verify_project", unchecked)
    code, out, err = run(capsys, project, "repair", "--feed", "nobody", "--yes")
    assert code == 4 and "no feed 'nobody' in this ledger" in err


def test_a_repair_that_cannot_write_its_copy_leaves_no_empty_quarantine_file(damaged, monkeypatch):
    import errno

    import baton.ledger.files as files
    from baton.commands.repair import repair_project
    from baton.errors import StorageError

    project, feed, lines = damaged

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files, "write_all", full)
    opened = Project.open(project)
    try:
        with pytest.raises(StorageError, match="No space left"):
            repair_project(opened, yes=True)
    finally:
        opened.close()
    assert list((project / ".baton" / "quarantine").iterdir()) == []
    assert feed.read_bytes() == b"".join(lines)  # not cut
