"""Two clones syncing through a real remote each see the other's handoffs,
named with the right writer: the owner each capture was made under and the
writer id of the feed that carried it, the reader's own marked ``mine``."""

from __future__ import annotations

import json

from tests.cli_support import run_here
from tests.team_support import baton, baton_json, git, team


def _writer(clone) -> str:
    return json.loads((clone / ".baton" / "local.json").read_text())["writer"]


def _read(clone, *args: str) -> dict:
    """A reading command, run in this process: what it prints is the point, not its process."""
    code, out, err = run_here(*args, "--json", cwd=clone)
    assert code == 0, (clone.name, args, out, err)
    return json.loads(out)


def _capture(clone, title: str) -> str:
    made = baton_json(clone, "checkpoint", "create", "--title", title, "--objective", f"Finish {title}", "--no-input")
    return made["id"]


def test_two_clones_syncing_through_a_remote_each_see_the_others_handoffs_with_the_right_writer(tmp_path):
    with team(tmp_path, 2, "path") as (_remote, (ann, bob)):
        git(ann, "config", "user.email", "ann@example.com")
        git(bob, "config", "user.email", "bob@example.com")
        ann_id = _capture(ann, "Ann's work")
        bob_id = _capture(bob, "Bob's work")
        for clone in (ann, bob, ann):
            synced = baton(clone, "sync", "--json")
            assert synced.returncode == 0, (clone.name, synced.stdout, synced.stderr)
        writers = {ann_id: _writer(ann), bob_id: _writer(bob)}
        owners = {ann_id: "ann@example.com", bob_id: "bob@example.com"}
        assert writers[ann_id] != writers[bob_id]
        for clone, own in ((ann, ann_id), (bob, bob_id)):
            rows = {r["id"]: r for r in _read(clone, "handoff", "list")["handoffs"]}
            assert set(rows) == {ann_id, bob_id}, clone.name
            for ident, row in rows.items():
                assert (row["owner"], row["writer"], row["mine"]) == (owners[ident], writers[ident], ident == own)
            assert [r["id"] for r in _read(clone, "handoff", "list", "--mine")["handoffs"]] == [own]
            other = bob_id if own == ann_id else ann_id
            by = _read(clone, "handoff", "list", "--by", owners[other])["handoffs"]
            assert [r["id"] for r in by] == [other]
            status = {h["id"]: h for h in _read(clone, "status")["latestHandoffs"]}
            assert {i: (h["owner"], h["mine"]) for i, h in status.items()} == {
                i: (owners[i], i == own) for i in owners}
            before = _read(clone, "handoff", "list")
            _read(clone, "rebuild")
            assert _read(clone, "handoff", "list") == before, f"{clone.name}: a rebuild names other writers"
