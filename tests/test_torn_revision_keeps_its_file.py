"""A revision cut off the feed inside its ``data``, whose capture is whole: its file is kept.

gaps28 left it: the handoff file a revision (``handoff amend``) wrote is the only whole copy of the
handoff's last state once that revision's line is torn. A rebuild over the loss folded the capture
that is left and rewrote the file with it, so the revised text survived only as the torn fragment
(docs/ledger.md, "Files the lost events showed": the files the lost events showed are kept). Now
a rebuild over lost events keeps such a file as it was, beside the one it rewrites
(``<name>.before-loss.json``), names it as it names every kept file, and ``baton repair --yes``
moves it into quarantine; a rebuild that lost nothing (a restored feed, a forget) keeps none.
Real processes; the feed torn as a disk or an editor tears it.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_baton
from tests.ledger_support import own_feed
from tests.test_repair_garbage_and_cut_tail import capture

REVISED = "Reject replayed callbacks within five minutes"


def _baton(project, *args: str) -> "object":
    return run_baton(*args, "--project", str(project))


@pytest.fixture
def torn_revision(project):
    """A capture, then its revision (``handoff amend --objective``), whose line is then cut 600 bytes
    in (inside its ``data``). Returns the project, the capture's ``--json``, the revised file's
    bytes and the feed's bytes before the cut."""
    first = capture(project, "first")
    r = _baton(project, "handoff", "amend", first["id"], "--objective", REVISED, "--json")
    assert r.returncode == 0, r.stderr
    revised = (project / first["file"]).read_bytes()
    assert REVISED.encode() in revised
    feed = own_feed(project)
    whole = feed.read_bytes()
    body = whole.rstrip(b"\n")
    last = body.rfind(b"\n") + 1
    assert body.index(b'"data"', last) < last + 600 < body.index(b'"hash"', last)  # cut inside ``data``
    feed.write_bytes(body[:last + 600])
    return project, first, revised, whole


def _before_loss(project, first) -> "object":
    return project / (first["file"].removesuffix(".json") + ".before-loss.json")


def test_a_read_over_the_torn_revision_keeps_the_revised_file_beside_the_rewritten_one(torn_revision):
    project, first, revised, _ = torn_revision

    r = _baton(project, "handoff", "list")

    assert r.returncode == 0, r.stderr
    assert _before_loss(project, first).read_bytes() == revised
    assert REVISED.encode() not in (project / first["file"]).read_bytes()  # the capture's state, as the ledger holds it
    assert f"baton: kept {_before_loss(project, first).relative_to(project)}" in r.stderr


def test_repair_moves_the_revised_file_into_quarantine(torn_revision):
    project, first, revised, _ = torn_revision

    r = _baton(project, "repair", "--yes", "--json")

    assert r.returncode == 0, r.stderr
    [kept] = json.loads(r.stdout)["kept_files"]
    assert kept["path"] == str(_before_loss(project, first).relative_to(project / ".baton"))
    assert (project / ".baton" / "quarantine" / kept["quarantine"]).read_bytes() == revised
    assert not _before_loss(project, first).exists()
    assert _baton(project, "verify").returncode == 0


def test_with_garbage_mid_feed_too_the_repair_keeps_the_revised_file(torn_revision):
    project, first, revised, _ = torn_revision
    feed = own_feed(project)
    lines = feed.read_bytes().split(b"\n")
    at = next(i for i, line in enumerate(lines) if first["id"].encode() in line)
    lines.insert(at, b'{"garbage": tru')  # before the capture
    feed.write_bytes(b"\n".join(lines))

    r = _baton(project, "repair", "--yes", "--json")

    assert r.returncode == 0, r.stderr
    kept = json.loads(r.stdout)["kept_files"]
    assert [(project / ".baton" / "quarantine" / k["quarantine"]).read_bytes() for k in kept] == [revised]


def test_restoring_the_feed_shows_the_revision_again_and_a_rebuild_drops_the_kept_copy(torn_revision):
    project, first, revised, whole = torn_revision
    assert _baton(project, "handoff", "list").returncode == 0
    own_feed(project).write_bytes(whole)

    assert _baton(project, "rebuild").returncode == 0

    assert (project / first["file"]).read_bytes() == revised
    assert not _before_loss(project, first).exists()


def test_a_rebuild_that_lost_nothing_keeps_no_copy(project):
    first = capture(project, "first")
    assert _baton(project, "handoff", "amend", first["id"], "--objective", REVISED).returncode == 0
    (project / first["file"]).write_text("{}")  # a file that drifted from the ledger: rewritten, not kept

    assert _baton(project, "rebuild").returncode == 0

    assert REVISED in (project / first["file"]).read_text()
    assert not list((project / ".baton" / "handoffs").glob("*.before-loss*"))


def test_forget_reaches_the_kept_revised_file(torn_revision):
    project, first, _, _ = torn_revision
    assert _baton(project, "repair", "--yes").returncode == 0

    r = _baton(project, "forget", first["id"], "--yes")

    assert r.returncode == 0, r.stderr
    baton_dir = project / ".baton"
    assert not [p for p in baton_dir.rglob("*") if p.is_file() and REVISED.encode() in p.read_bytes()]
