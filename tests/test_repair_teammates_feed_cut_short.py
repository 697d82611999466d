"""A teammate's feed cut short in a synced clone (tester25 T5; docs/ledger.md, "`baton repair`"):
this clone's ledger ref still holds the remote's copy, so `baton verify`'s plan, `repair --dry-run`
and `repair --yes` all restore the copy from the ref — nothing acknowledged as lost — and the
feed of the teammate whose events build on the missing ones is not marked FAIL, nor left with a
stream_gap after the repair. Three clones of one real bare remote: Alice captures, Bob validates
her handoff (the next version of its stream, in his feed), Carol's copy of Alice's feed loses its
tail."""

from __future__ import annotations

import json
from pathlib import Path

from dulwich import porcelain

from tests.app_support import init_project
from tests.cli_support import run, run_json
from tests.sync_support import _quiet, make_team, writer_of
from tests.test_sync_archive_apart import capture


def cut_short(capsys, tmp_path: Path) -> tuple[Path, str, str]:
    """(carol, alice's writer, bob's writer): everyone synced, then Carol's copy of Alice's feed
    lost its last 100 bytes (``truncate -s -100``)."""
    remote, alice, bob = make_team(tmp_path)
    carol = tmp_path / "carol"
    porcelain.clone(str(remote), str(carol), **_quiet()).close()
    init_project(carol)
    ident = capture(capsys, alice, "alice state")
    run_json(capsys, alice, "sync")
    run_json(capsys, bob, "sync")
    run(capsys, bob, "handoff", "validate", ident)  # bob's event: version 2 of the handoff's stream
    run_json(capsys, bob, "sync")
    run_json(capsys, carol, "sync")
    run_json(capsys, carol, "verify")
    copy = carol / ".baton" / "ledger" / f"{writer_of(alice)}.jsonl"
    copy.write_bytes(copy.read_bytes()[:-100])
    return carol, writer_of(alice), writer_of(bob)


def _plans(feeds: list[dict]) -> list[dict]:
    return [{k: v for k, v in plan.items() if k != "quarantine"} for plan in feeds]


def test_verify_plans_to_restore_a_teammates_feed_cut_short_from_the_ledger_ref(capsys, tmp_path):
    carol, alices, _bobs = cut_short(capsys, tmp_path)
    code, out, _ = run(capsys, carol, "verify")
    assert code == 3
    assert (f"`baton repair --yes` would restore this clone's copy of feed {alices} (a teammate's) as its ledger "
            "ref holds it") in out
    assert "acknowledge as lost" not in out


def test_verify_does_not_fail_the_sound_feed_that_builds_on_the_lost_events(capsys, tmp_path):
    carol, alices, bobs = cut_short(capsys, tmp_path)
    out = run(capsys, carol, "verify")[1]
    assert f"ok   {bobs}:" in out and f"FAIL {alices}:" in out
    assert f"the missing version is in feed {alices}, which the repair restores from the ledger ref" in out


def test_verify_dry_run_and_yes_carry_out_one_plan(capsys, tmp_path):
    carol, alices, _bobs = cut_short(capsys, tmp_path)
    said = json.loads(run(capsys, carol, "verify", "--json")[1])["repair"]
    assert [(p["feed"], p["lost"], p["restored_from_ref"]["seq"]) for p in said] == [(alices, [], 2)]
    assert _plans(run_json(capsys, carol, "repair", "--dry-run")["feeds"]) == said
    assert _plans(run_json(capsys, carol, "repair", "--yes")["feeds"]) == said


def test_repair_yes_restores_the_copy_and_leaves_no_problem(capsys, tmp_path):
    carol, alices, _bobs = cut_short(capsys, tmp_path)
    code, out, err = run(capsys, carol, "repair", "--yes")
    assert code == 0, out + err
    assert "The ledger verifies." in out and "Problems remain" not in out
    code, out, _ = run(capsys, carol, "verify")
    assert code == 0, out
    assert "stream_gap" not in out


def test_the_next_sync_after_the_restore_is_clean(capsys, tmp_path):
    carol, _alices, _bobs = cut_short(capsys, tmp_path)
    run_json(capsys, carol, "repair", "--yes")
    code, out, err = run(capsys, carol, "sync")
    assert code == 0, out + err
    assert run(capsys, carol, "verify")[0] == 0


def cut_short_past_the_ref(capsys, tmp_path: Path) -> tuple[Path, str, str]:
    """``cut_short``, and Carol's ledger ref gone (a clone whose ref cannot restore the copy: the
    repair cuts it, acknowledging its tail as lost here)."""
    from dulwich.repo import Repo

    carol, alices, bobs = cut_short(capsys, tmp_path)
    with Repo(str(carol)) as repo:
        del repo.refs[b"refs/baton/ledger"]
    return carol, alices, bobs


CATCH_UP = "is a teammate's (this clone holds a copy `baton sync` fetched): {when}, the next `baton sync` fetches it again"


def test_verify_says_the_next_sync_brings_back_a_teammates_feed_no_restore_can(capsys, tmp_path):
    carol, alices, _bobs = cut_short_past_the_ref(capsys, tmp_path)
    code, out, _ = run(capsys, carol, "verify")
    assert code == 3
    assert f"`baton repair --yes` would acknowledge as lost: {alices} seq 2" in out
    assert f"feed {alices} " + CATCH_UP.format(when="once the repair is recorded") in out


def test_repair_dry_run_says_the_next_sync_brings_back_what_it_would_cut(capsys, tmp_path):
    carol, alices, _bobs = cut_short_past_the_ref(capsys, tmp_path)
    code, out, _ = run(capsys, carol, "repair", "--dry-run")
    assert code == 0 and "Nothing was changed (--dry-run)." in out
    assert f"feed {alices} " + CATCH_UP.format(when="once the repair is recorded") in out


def test_after_the_repair_the_next_sync_brings_back_the_teammates_events_and_the_ledger_verifies(capsys, tmp_path):
    carol, alices, _bobs = cut_short_past_the_ref(capsys, tmp_path)
    code, out, _ = run(capsys, carol, "repair", "--yes")
    assert f"Acknowledged as lost: {alices} seq 2" in out
    assert f"feed {alices} " + CATCH_UP.format(when="now") in out

    assert run(capsys, carol, "sync")[0] == 0
    code, out, _ = run(capsys, carol, "verify")
    assert code == 0, out
    assert f"ok   {alices}: 2 events, last seq 2" in out


def test_a_cut_of_this_clones_own_feed_promises_no_sync(capsys, tmp_path):
    """Its own events may be nowhere else: the plan says nothing of a sync bringing them back."""
    from tests.test_sync_archive_apart import capture as capture_here

    _remote, alice, _bob = make_team(tmp_path)
    capture_here(capsys, alice, "alice state")
    feed = alice / ".baton" / "ledger" / f"{writer_of(alice)}.jsonl"
    feed.write_bytes(feed.read_bytes()[:-100])
    out = run(capsys, alice, "repair", "--dry-run")[1]
    assert "Would set aside" in out and "the next `baton sync` fetches it again" not in out
