"""``baton repair`` after a ``repair --despite-synced`` cut and the plain ``repair``
that restores the feed from the ledger ref (docs/ledger.md, "A repair killed
mid-way"): the cut's repair was recorded, and the restore set that record aside
into quarantine/, so no later repair takes the cut for a killed one and records
it again; ``--dry-run`` shows the plan ``--yes`` then carries out. The remote is
a real bare git repository, reached by path."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from baton.ledger.integrity import REPAIRED_TYPE
from tests.cli_support import run, run_json
from tests.sync_support import checkpoint, make_team, writer_of


@pytest.fixture
def team(tmp_path):
    return make_team(tmp_path)


def _feed(project: Path, writer: str | None = None) -> Path:
    return project / ".baton" / "ledger" / f"{writer or writer_of(project)}.jsonl"


def _recorded(project: Path) -> list[str]:
    """The quarantine file each ``ledger.repaired`` in the project's own feed names."""
    return [event["data"]["quarantine"] for line in _feed(project).read_bytes().splitlines()
            if (event := orjson.loads(line))["type"] == REPAIRED_TYPE]


def _garble(feed: Path, index: int) -> None:
    lines = feed.read_bytes().splitlines(keepends=True)
    lines[index] = b"garbage where an event was\n"
    feed.write_bytes(b"".join(lines))


def _cut_despite_synced_then_restored(capsys, a: Path) -> None:
    """Synced, damaged, cut with ``--despite-synced`` (the feed forks), restored by a plain repair."""
    for i in range(3):
        checkpoint(capsys, a, f"a{i}")
    run_json(capsys, a, "sync")
    _garble(_feed(a), 2)
    run_json(capsys, a, "repair", "--yes", "--despite-synced")
    [restore] = run_json(capsys, a, "repair", "--yes")["feeds"]
    assert restore["restored_from_ref"] is not None


def test_a_repair_after_a_despite_synced_cut_and_its_restore_finds_nothing_to_repair(capsys, team):
    _remote, a, _b = team
    _cut_despite_synced_then_restored(capsys, a)
    code, out, err = run(capsys, a, "repair", "--dry-run")
    assert (code, out.strip()) == (0, "The ledger verifies: nothing to repair."), out + err
    assert "killed" not in out + err


def test_repair_yes_after_a_restore_records_no_second_ledger_repaired(capsys, team):
    _remote, a, _b = team
    _cut_despite_synced_then_restored(capsys, a)
    feed = _feed(a).read_bytes()
    result = run_json(capsys, a, "repair", "--yes")
    assert (result["repaired"], result["finished"], result["feeds"]) == (False, [], [])
    assert _feed(a).read_bytes() == feed


def _repaired_a_copy_then_cut_own_feed(capsys, team) -> tuple[Path, str]:
    """b repairs its damaged copy of a's feed (recorded in b's feed) and syncs; then b's own
    feed is damaged before that record and cut with ``--despite-synced``, which sets the record
    aside. Returns b and the quarantine file of the first repair."""
    _remote, a, b = team
    for i in range(3):
        checkpoint(capsys, a, f"Alice objective number {i}")
    run_json(capsys, a, "sync")
    for i in range(2):
        checkpoint(capsys, b, f"b{i}")
    run_json(capsys, b, "sync")
    copy = _feed(b, writer_of(a))
    copy.write_bytes(copy.read_bytes().replace(b"Alice objective number 1", b"Alice objective number X"))
    [first] = run_json(capsys, b, "repair", "--yes", "--feed", writer_of(a))["feeds"]
    run_json(capsys, b, "sync")
    _garble(_feed(b), 1)
    run_json(capsys, b, "repair", "--yes", "--despite-synced")
    assert first["quarantine"] not in _recorded(b)  # the cut set the record aside
    return b, first["quarantine"]


def test_a_repair_whose_record_a_later_cut_set_aside_is_not_taken_for_a_killed_one(capsys, team):
    b, _first = _repaired_a_copy_then_cut_own_feed(capsys, team)
    result = run_json(capsys, b, "repair", "--dry-run")
    assert result["finished"] == []
    assert [plan["feed"] for plan in result["feeds"]] == [writer_of(b)]  # the restore alone


def test_the_dry_run_and_yes_set_aside_the_same_lines_after_a_despite_synced_cut(capsys, team):
    b, first = _repaired_a_copy_then_cut_own_feed(capsys, team)
    planned = run_json(capsys, b, "repair", "--dry-run")
    done = run_json(capsys, b, "repair", "--yes")
    assert done["finished"] == [] and done["verified"] is True
    assert [plan["set_aside"] for plan in done["feeds"]] == [plan["set_aside"] for plan in planned["feeds"]]
    assert _recorded(b).count(first) == 1  # the record the ledger ref held, restored; none added


def test_after_the_restore_sync_shares_no_false_ledger_repaired(capsys, team):
    _remote, a, b = team
    for i in range(3):
        checkpoint(capsys, a, f"a{i}")
    run_json(capsys, a, "sync")
    _garble(_feed(a), 2)
    [cut] = run_json(capsys, a, "repair", "--yes", "--despite-synced")["feeds"]
    run_json(capsys, a, "repair", "--yes")  # the restore sets the cut's record aside
    run_json(capsys, a, "repair", "--yes")  # a later repair: nothing to finish
    assert cut["quarantine"] not in _recorded(a)
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    on_b = [event["data"].get("quarantine") for line in _feed(b, writer_of(a)).read_bytes().splitlines()
            if (event := orjson.loads(line))["type"] == REPAIRED_TYPE]
    assert cut["quarantine"] not in on_b and len(on_b) == 1  # the restore's record alone
