"""A feed with garbage mid-feed and its last line cut short; ``rebuild`` names the files it kept.

fix27b left two gaps. A feed holding a garbage line mid-feed *and* a last line cut short (a torn
capture the index acknowledged): the repair's catch-up refuses the feed before the cut, so the
torn capture's handoff file was kept by the repair's own rebuild and then removed once the loss
was recorded — its only whole copy, while the ``.repair`` copy holds just a fragment of its line.
Now a file whose handoff the copy does not hold whole is moved into quarantine as a kept file:
no acknowledged capture is lost. And ``baton rebuild`` over a lost head now says what a reading
command says: the loss, and the files it kept (stderr; ``lost`` and ``kept_files`` in ``--json``).
Real processes, the feed damaged as an editor or a disk would damage it."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_baton
from tests.ledger_support import own_feed


def capture(project, title: str) -> dict:
    r = run_baton("checkpoint", "create", "--no-input", "--title", title, "--objective", f"objective of {title}",
                  "--json", "--project", str(project))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture
def garbage_and_cut(project):
    """Three captures; a garbage line after the first; the feed's last 40 bytes cut off (the third
    capture torn). Returns the project, the three captures' ``--json`` and the third's file bytes."""
    first, second, third = (capture(project, t) for t in ("first", "second", "third"))
    data = (project / third["file"]).read_bytes()
    feed = own_feed(project)
    lines = feed.read_bytes().split(b"\n")
    at = next(i for i, line in enumerate(lines) if first["id"].encode() in line)
    lines.insert(at + 1, b'{"garbage": tru')
    feed.write_bytes(b"\n".join(lines).rstrip(b"\n")[:-40])
    return project, (first, second, third), data


def test_verify_names_the_garbage_line_and_the_cut_capture(garbage_and_cut):
    project, _, _ = garbage_and_cut

    r = run_baton("verify", "--json", "--project", str(project))

    assert r.returncode == 3
    kinds = {p["kind"] for p in json.loads(r.stdout)["problems"]}
    assert {"bad_json", "truncated"} <= kinds


def test_repair_dry_run_sets_aside_the_garbage_and_the_torn_line_and_keeps_the_capture_between(garbage_and_cut):
    project, _, _ = garbage_and_cut

    r = run_baton("repair", "--dry-run", "--project", str(project))

    assert r.returncode == 0, r.stderr
    assert "Would set aside 2 lines" in r.stdout and "1 line of them after the cut" in r.stdout
    assert "an unreadable line — bad_json" in r.stdout and "an unreadable line — torn" in r.stdout
    assert "Would acknowledge as lost" in r.stdout


def test_repair_moves_the_torn_captures_handoff_file_into_quarantine(garbage_and_cut):
    project, (_, _, third), data = garbage_and_cut

    r = run_baton("repair", "--yes", "--json", "--project", str(project))

    assert r.returncode == 0, r.stderr
    [kept] = json.loads(r.stdout)["kept_files"]
    assert kept["path"] == third["file"].removeprefix(".baton/")
    assert (project / ".baton" / "quarantine" / kept["quarantine"]).read_bytes() == data
    assert not (project / third["file"]).exists()


def test_after_the_repair_no_acknowledged_capture_is_lost_and_the_ledger_verifies(garbage_and_cut):
    project, (first, second, third), _ = garbage_and_cut
    assert run_baton("repair", "--yes", "--project", str(project)).returncode == 0

    listed = json.loads(run_baton("handoff", "list", "--json", "--project", str(project)).stdout)["handoffs"]
    assert {h["id"] for h in listed} == {first["id"], second["id"]}
    assert list((project / ".baton" / "quarantine").glob(f"kept.*--{third['id'][-8:]}.json"))
    assert run_baton("verify", "--project", str(project)).returncode == 0


def test_the_repair_says_it_moved_the_torn_captures_file(garbage_and_cut):
    project, (_, _, third), _ = garbage_and_cut

    r = run_baton("repair", "--yes", "--project", str(project))

    assert f"Moved {third['file']} to .baton/quarantine/kept." in r.stdout


@pytest.fixture
def cut_capture(project):
    """Two captures, the feed's last 40 bytes cut off: the second capture's file is kept."""
    capture(project, "kept in the ledger")
    last = capture(project, "cut off the feed")
    feed = own_feed(project)
    feed.write_bytes(feed.read_bytes()[:-40])
    return project, last


def test_rebuild_names_the_file_it_kept_as_a_reading_command_does(cut_capture):
    project, last = cut_capture

    r = run_baton("rebuild", "--project", str(project))

    assert r.returncode == 0, r.stderr
    assert "events this project acknowledged are gone" in r.stderr
    assert f"baton: kept {last['file']}: written from the lost events" in r.stderr


def test_rebuild_json_lists_the_loss_and_the_kept_files(cut_capture):
    project, last = cut_capture

    r = run_baton("rebuild", "--json", "--project", str(project))

    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["kept_files"] == [last["file"].removeprefix(".baton/")]
    assert "but the index recorded seq" in out["lost"]


def test_rebuild_of_a_sound_ledger_names_no_loss(project):
    capture(project, "sound")

    r = run_baton("rebuild", "--json", "--project", str(project))

    out = json.loads(r.stdout)
    assert out["lost"] is None and out["kept_files"] == [] and r.stderr == ""
