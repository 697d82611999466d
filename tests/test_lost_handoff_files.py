"""A read never deletes the only whole copy of what the ledger lost (tester27 T2).

When a feed loses events the index acknowledged (its last line cut short, its
last lines deleted), the next read rebuilds the index from what is left. Before,
that rebuild removed every materialized file no document showed any more — so
the ``.baton/handoffs/`` file of a capture whose event was cut off, the only
whole copy of it, was deleted by ``baton status``. Now a rebuild over a lost
head keeps such files, the read names them, restoring the feed shows them again,
and ``baton repair`` lists them (dry run) or moves them into ``.baton/quarantine/``
with a list beside them (``--yes``) before it records the loss. Real processes,
a real feed cut as a user's disk or editor would cut it."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_baton
from tests.ledger_support import own_feed


def capture(project, title: str) -> dict:
    r = run_baton("checkpoint", "create", "--no-input", "--title", title, "--objective", "o", "--json",
                  "--project", str(project))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture
def cut_capture(project):
    """Two captures, then the feed's last 40 bytes cut off (``head -c -40``): the second
    capture's event is torn, its handoff file whole. Returns the project, that file, its
    bytes and the feed's bytes before the cut."""
    capture(project, "kept in the ledger")
    last = capture(project, "cut off the feed")
    path = project / last["file"]
    feed = own_feed(project)
    whole = feed.read_bytes()
    feed.write_bytes(whole[:-40])
    return project, path, path.read_bytes(), whole


@pytest.mark.parametrize("read", [["status"], ["handoff", "list"], ["handoff", "list", "--json"], ["lineage"]])
def test_a_read_after_the_last_capture_was_cut_off_keeps_its_handoff_file(cut_capture, read):
    project, path, data, _ = cut_capture

    r = run_baton(*read, "--project", str(project))

    assert r.returncode == 0, r.stderr
    assert path.read_bytes() == data
    assert "events this project acknowledged are gone" in r.stderr


def test_a_rebuild_after_the_last_capture_was_cut_off_keeps_its_handoff_file(cut_capture):
    project, path, data, _ = cut_capture

    assert run_baton("rebuild", "--project", str(project)).returncode == 0

    assert path.read_bytes() == data


def test_the_read_names_the_handoff_file_it_kept_and_how_to_recover(cut_capture):
    project, path, _, _ = cut_capture

    r = run_baton("status", "--project", str(project))

    assert f".baton/handoffs/{path.name}" in r.stderr
    assert "baton repair --yes" in r.stderr and "quarantine" in r.stderr


def test_the_kept_handoff_file_survives_every_later_read(cut_capture):
    project, path, data, _ = cut_capture
    for _ in range(3):
        assert run_baton("handoff", "list", "--project", str(project)).returncode == 0
    assert run_baton("rebuild", "--project", str(project)).returncode == 0
    assert path.read_bytes() == data


def test_restoring_the_feed_shows_the_kept_handoff_again(cut_capture):
    project, path, data, whole = cut_capture
    assert run_baton("status", "--project", str(project)).returncode == 0

    own_feed(project).write_bytes(whole)
    r = run_baton("handoff", "list", "--json", "--project", str(project))

    assert r.returncode == 0 and r.stderr == ""
    titles = [h["title"] for h in json.loads(r.stdout)["handoffs"]]
    assert "cut off the feed" in titles
    assert path.read_bytes() == data


def repair_after_a_read(project, confirm: str) -> dict:
    """``baton repair`` (``--dry-run`` or ``--yes``) after a read found the loss: its ``--json``."""
    assert run_baton("status", "--project", str(project)).returncode == 0
    r = run_baton("repair", confirm, "--json", "--project", str(project))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_repair_dry_run_names_the_kept_handoff_file_and_moves_nothing(cut_capture):
    project, path, data, _ = cut_capture

    planned = repair_after_a_read(project, "--dry-run")

    assert planned["kept_files"] == [{"path": f"handoffs/{path.name}", "quarantine": None}]
    text = run_baton("repair", "--dry-run", "--project", str(project)).stdout
    assert f"Would move .baton/handoffs/{path.name} into .baton/quarantine/" in text
    assert path.read_bytes() == data


def test_repair_moves_the_kept_handoff_file_into_quarantine_with_a_list_beside_it(cut_capture):
    project, path, data, _ = cut_capture

    [kept] = repair_after_a_read(project, "--yes")["kept_files"]
    quarantine = project / ".baton" / "quarantine"
    assert kept["path"] == f"handoffs/{path.name}" and (quarantine / kept["quarantine"]).read_bytes() == data
    assert not path.exists()
    [listing] = quarantine.glob("kept.*.files.json")
    [item] = json.loads(listing.read_bytes())["kept"]
    assert item["path"] == f"handoffs/{path.name}" and item["file"] == kept["quarantine"]
    assert item["bytes"] == len(data)


def test_repair_right_after_the_cut_still_keeps_the_handoff_file_in_quarantine(cut_capture):
    """No read came between the cut and the repair: the repair's own catch-up finds the loss."""
    project, path, data, _ = cut_capture

    r = run_baton("repair", "--yes", "--project", str(project))

    assert r.returncode == 0, r.stderr
    assert f"Moved .baton/handoffs/{path.name} to .baton/quarantine/kept." in r.stdout
    [moved] = (project / ".baton" / "quarantine").glob(f"kept.*.{path.name}")
    assert moved.read_bytes() == data


def test_after_the_repair_the_quarantined_handoff_can_be_captured_again(cut_capture):
    """What docs/ledger.md says to do with it: the fields Baton sets dropped, the rest captured anew."""
    project, path, _, _ = cut_capture
    assert run_baton("repair", "--yes", "--project", str(project)).returncode == 0
    [moved] = (project / ".baton" / "quarantine").glob(f"kept.*.{path.name}")
    payload = json.loads(moved.read_bytes())
    for field in ("id", "status", "created_at", "updated_at", "validation", "project"):
        payload.pop(field)

    r = run_baton("checkpoint", "create", "--input", "-", "--json", "--project", str(project),
                  input=json.dumps(payload))

    assert r.returncode == 0, r.stderr
    listed = json.loads(run_baton("handoff", "list", "--json", "--project", str(project)).stdout)["handoffs"]
    assert "cut off the feed" in [h["title"] for h in listed]


def first_capture_event(project) -> str:
    r = run_baton("log", "--type", "handoff.captured", "--json", "--project", str(project))
    return json.loads(r.stdout.splitlines()[0])["id"]


def test_a_rebuild_pinned_before_a_sound_capture_still_removes_its_file(project):
    capture(project, "first")
    later = project / capture(project, "later")["file"]

    r = run_baton("rebuild", "--until", first_capture_event(project), "--project", str(project))

    assert r.returncode == 0, r.stderr
    assert not later.exists()  # the project as it was then: no file kept when nothing was lost


def test_a_rebuild_pinned_in_the_past_keeps_the_file_a_loss_kept(cut_capture):
    project, path, data, _ = cut_capture
    assert run_baton("status", "--project", str(project)).returncode == 0

    r = run_baton("rebuild", "--until", first_capture_event(project), "--project", str(project))

    assert r.returncode == 0, r.stderr
    assert path.read_bytes() == data
