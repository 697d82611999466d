"""`baton verify` describes the repair `baton repair` then carries out (docs/ledger.md, "`baton
repair`"; tester-team24 T1): for every kind of damage a repair mends, verify's `repair` plan
equals `repair --dry-run`'s, which equals what `repair --yes` did — the feed kept to the same
head, the same bytes set aside. Over real feeds, two clones and a real bare remote: a synced
own feed is restored from its ledger ref, not cut, and verify says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import pytest

from baton.ledger.feed import FeedHead, scan_bytes
from tests.cli_support import run, run_json
from tests.sync_support import checkpoint, make_team, writer_of


def _feed(project: Path, writer: str | None = None) -> Path:
    return project / ".baton" / "ledger" / f"{writer or writer_of(project)}.jsonl"


def _written(capsys, a: Path, *, synced: bool) -> Path:
    for i in range(4):
        checkpoint(capsys, a, f"t{i}")
    if synced:
        assert run(capsys, a, "sync")[0] == 0
    return _feed(a)


def _lines(feed: Path) -> list[bytes]:
    return feed.read_bytes().splitlines(keepends=True)


def _quote_changed(feed: Path) -> None:
    """`sed -i "2s/\"/'/"`: the second line's first double quote made a single one."""
    lines = _lines(feed)
    lines[1] = lines[1].replace(b'"', b"'", 1)
    feed.write_bytes(b"".join(lines))


def torn_tail(capsys, a, b):
    feed = _written(capsys, a, synced=False)
    feed.write_bytes(feed.read_bytes()[:-30])


def changed_byte(capsys, a, b):
    _quote_changed(_written(capsys, a, synced=False))


def garbage_line_inserted(capsys, a, b):
    feed = _written(capsys, a, synced=False)
    lines = _lines(feed)
    feed.write_bytes(b"".join(lines[:2]) + b"garbage\n" + b"".join(lines[2:]))


def lines_swapped(capsys, a, b):
    feed = _written(capsys, a, synced=False)
    lines = _lines(feed)
    feed.write_bytes(b"".join([lines[0], lines[2], lines[1], *lines[3:]]))


def synced_then_changed_byte(capsys, a, b):
    _quote_changed(_written(capsys, a, synced=True))


def synced_then_torn_tail(capsys, a, b):
    feed = _written(capsys, a, synced=True)
    feed.write_bytes(feed.read_bytes()[:-30])


def teammates_copy_damaged(capsys, a, b):
    _written(capsys, a, synced=True)
    assert run(capsys, b, "sync")[0] == 0
    run_json(capsys, b, "verify")  # b's index has folded a's feed to its head
    copy = _feed(b, writer_of(a))
    lines = _lines(copy)
    copy.write_bytes(lines[0] + b"garbage\n" + b"".join(lines[2:]))


DAMAGE: dict[str, tuple[Callable, str]] = {
    "torn tail": (torn_tail, "a"),
    "a changed byte": (changed_byte, "a"),
    "a garbage line inserted": (garbage_line_inserted, "a"),
    "two lines swapped": (lines_swapped, "a"),
    "a synced feed, a changed byte (restored from the ledger ref)": (synced_then_changed_byte, "a"),
    "a synced feed, torn tail (restored from the ledger ref)": (synced_then_torn_tail, "a"),
    "another writer's copy": (teammates_copy_damaged, "b"),
}


def _plans(feeds: list[dict]) -> list[dict]:
    return [{k: v for k, v in plan.items() if k != "quarantine"} for plan in feeds]


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_verify_shows_the_plan_repair_dry_run_shows_and_repair_yes_carries_out(capsys, tmp_path, damage):
    harm, where = DAMAGE[damage]
    _remote, a, b = make_team(tmp_path)
    harm(capsys, a, b)
    clone = a if where == "a" else b
    code, out, err = run(capsys, clone, "verify", "--json")
    assert code == 3, out + err
    said = json.loads(out)["repair"]
    assert said, "verify names the repair of a damaged feed"
    dry = run_json(capsys, clone, "repair", "--dry-run")
    assert _plans(dry["feeds"]) == said
    before = {plan["feed"]: _feed(clone, plan["feed"]).read_bytes() for plan in said}
    done = run_json(capsys, clone, "repair", "--yes")
    assert _plans(done["feeds"]) == said
    for plan, quarantined in zip(said, [f["quarantine"] for f in done["feeds"]]):
        events = scan_bytes(plan["feed"], _feed(clone, plan["feed"]).read_bytes(), FeedHead(), collect=True).events
        kept = next(e for e in events if e.seq == plan["kept"]["seq"])
        assert kept.hash == plan["kept"]["hash"]  # the feed kept to the head verify named
        if not plan["set_aside"]:  # events only put back in chain order: nothing moved to quarantine
            assert quarantined is None and plan["bytes"] == 0
            continue
        shift = plan["restored_from_ref"]["bytes"] if plan["restored_from_ref"] else 0  # a restore's offsets
        local = before[plan["feed"]]                                                    # count in ref + file
        said_aside = b"".join(local[i["offset"] - shift:i["offset"] - shift + i["bytes"]] for i in plan["set_aside"])
        assert (clone / ".baton" / "quarantine" / quarantined).read_bytes() == said_aside  # the very bytes said
    assert run(capsys, clone, "verify")[0] == 0


def test_verify_says_a_synced_feed_is_restored_from_its_ledger_ref_as_repair_does(capsys, tmp_path):
    """The tester's repro: verify said a repair would set aside 4 lines keeping seq 1."""
    _remote, a, _b = make_team(tmp_path)
    synced_then_changed_byte(capsys, a, None)
    code, out, _err = run(capsys, a, "verify")
    assert code == 3
    assert "`baton repair --yes` would restore this clone's own feed" in out
    assert "keeping seq 1-5; setting aside 1 line" in out
    assert "would set aside 4 lines" not in out
