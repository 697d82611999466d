"""Two identical merges made on two clones apart (tester-team23 T6; docs/lineage.md "Merging
the same handoffs on two clones"): both stand after ``baton sync``, and every clone marks each
as a duplicate of the other, in ``baton lineage`` (text and JSON) and in the refusal of a third
merge of the same parents, which names both; the sync that brings a duplicate in, or the last of
them each archived apart (none kept), says so (text and ``duplicate_merges``), once.
"""

from __future__ import annotations

import json
from pathlib import Path

from baton.domain.handoff import short_id
from tests.cli_support import run, run_json
from tests.sync_support import make_team
from tests.test_sync_baton_owners import as_user


def merged_apart(capsys, tmp_path: Path) -> tuple[Path, Path, str, str, str, str, Path]:
    """Alice forks one handoff twice and syncs; each clone merges the two forks apart; all sync.
    (a, b, fork 1, fork 2, a's merge, b's merge, the resolution file)."""
    merged = merged_unsynced(capsys, tmp_path)
    for clone in (merged[0], merged[1], merged[0]):
        run_json(capsys, clone, "sync")
    return merged


def merged_unsynced(capsys, tmp_path: Path, users: tuple[str, str] | None = None
                    ) -> tuple[Path, Path, str, str, str, str, Path]:
    """As ``merged_apart``, before the clones sync their merges (``users``: a's and b's git emails)."""
    _remote, a, b = make_team(tmp_path)
    for clone, email in zip((a, b), users or ()):
        as_user(clone, email)
    parent = run_json(capsys, a, "checkpoint", "create", "--title", "plan", "--objective", "o", "--no-input")["id"]
    one = run_json(capsys, a, "fork", parent, "--label", "redis")["handoff"]["id"]
    two = run_json(capsys, a, "fork", parent, "--label", "postgres")["handoff"]["id"]
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    resolution = tmp_path / "res.json"
    resolution.write_text(json.dumps({"decision": "take both", "rationale": "they agree"}))
    mine = run_json(capsys, a, "merge", one, two, "--resolution-file", str(resolution))["handoff"]["id"]
    theirs = run_json(capsys, b, "merge", one, two, "--resolution-file", str(resolution))["handoff"]["id"]
    return a, b, one, two, mine, theirs, resolution


def lineage_of(capsys, clone: Path) -> tuple[str, dict[str, dict]]:
    """``baton lineage`` on ``clone``: its text, and its nodes by id (``--json``)."""
    code, out, err = run(capsys, clone, "lineage")
    assert code == 0, err
    return out, {n["id"]: n for n in run_json(capsys, clone, "lineage")["nodes"]}


def test_identical_merges_made_on_two_clones_are_each_marked_a_duplicate_of_the_other_in_lineage(capsys, tmp_path):
    a, b, _one, _two, mine, theirs, _res = merged_apart(capsys, tmp_path)
    for clone in (a, b):
        out, nodes = lineage_of(capsys, clone)
        assert f"{short_id(mine)} merge" in out and f"!! duplicate merge of {short_id(theirs)}" in out
        assert f"{short_id(theirs)} merge" in out and f"!! duplicate merge of {short_id(mine)}" in out
        assert nodes[mine]["duplicate_of"] == [theirs] and nodes[theirs]["duplicate_of"] == [mine]


def test_merging_the_same_handoffs_again_after_two_clones_merged_them_names_both_merges(capsys, tmp_path):
    a, _b, one, two, mine, theirs, resolution = merged_apart(capsys, tmp_path)
    code, out, err = run(capsys, a, "merge", one, two, "--resolution-file", str(resolution))
    assert code == 2
    assert short_id(mine) in err and short_id(theirs) in err and "already merge these handoffs" in err


def test_archiving_one_of_two_duplicate_merges_lifts_the_mark_from_the_other(capsys, tmp_path):
    a, _b, _one, _two, mine, theirs, _res = merged_apart(capsys, tmp_path)
    run_json(capsys, a, "handoff", "archive", theirs, "--reason", "duplicate of the other merge")
    nodes = {n["id"]: n for n in run_json(capsys, a, "lineage")["nodes"]}
    assert nodes[mine]["duplicate_of"] == []


def archived_apart(capsys, tmp_path: Path) -> tuple[Path, Path, str, str, str, str, Path]:
    """As ``merged_apart``, then each clone archives the other's merge, keeping its own, apart; all sync."""
    archived = archived_before_b_syncs(capsys, tmp_path)
    for clone in (archived[1], archived[0]):
        run_json(capsys, clone, "sync")
    return archived


def archived_before_b_syncs(capsys, tmp_path: Path) -> tuple[Path, Path, str, str, str, str, Path]:
    """As ``merged_apart``, then each clone archives the other's merge apart, and A syncs its archive."""
    a, b, one, two, mine, theirs, resolution = merged_apart(capsys, tmp_path)
    run_json(capsys, a, "handoff", "archive", theirs, "--reason", "duplicate: keep mine")
    run_json(capsys, b, "handoff", "archive", mine, "--reason", "duplicate: keep theirs")
    run_json(capsys, a, "sync")
    return a, b, one, two, mine, theirs, resolution


def test_duplicate_merges_each_archived_apart_are_marked_in_lineage_as_all_archived_none_kept(capsys, tmp_path):
    a, b, _one, _two, mine, theirs, _res = archived_apart(capsys, tmp_path)
    for clone in (a, b):
        out, nodes = lineage_of(capsys, clone)
        assert (f"{short_id(mine)} merge (archived) plan  !! duplicate merge of {short_id(theirs)}, all archived: "
                "none kept (merge the parents again to keep one)") in out
        assert nodes[mine]["duplicate_of"] == [theirs] and nodes[theirs]["duplicate_of"] == [mine]


def test_merging_again_after_duplicate_merges_were_each_archived_apart_names_them_as_none_kept(capsys, tmp_path):
    a, _b, one, two, mine, theirs, resolution = archived_apart(capsys, tmp_path)
    code, out, err = run(capsys, a, "merge", one, two, "--resolution-file", str(resolution))
    assert code == 0, err
    earlier = " and ".join(short_id(i) for i in sorted([mine, theirs]))
    assert f"merges these handoffs again: the earlier merges of them, {earlier}, are all archived (none kept)" in out


def test_a_merge_made_again_over_archived_duplicates_lists_them_in_json_and_lifts_their_mark(capsys, tmp_path):
    a, _b, one, two, mine, theirs, resolution = archived_apart(capsys, tmp_path)
    merged = run_json(capsys, a, "merge", one, two, "--resolution-file", str(resolution))
    assert merged["archived_duplicates"] == sorted([mine, theirs])
    nodes = {n["id"]: n for n in run_json(capsys, a, "lineage")["nodes"]}
    assert nodes[mine]["duplicate_of"] == [] and nodes[merged["id"]]["duplicate_of"] == []


def test_merging_again_after_archiving_the_one_merge_of_those_parents_names_no_archived_duplicates(capsys, tmp_path):
    _remote, a, _b = make_team(tmp_path)
    parent = run_json(capsys, a, "checkpoint", "create", "--title", "plan", "--objective", "o", "--no-input")["id"]
    one = run_json(capsys, a, "fork", parent, "--label", "redis")["handoff"]["id"]
    two = run_json(capsys, a, "fork", parent, "--label", "postgres")["handoff"]["id"]
    resolution = tmp_path / "res.json"
    resolution.write_text(json.dumps({"decision": "take both", "rationale": "they agree"}))
    first = run_json(capsys, a, "merge", one, two, "--resolution-file", str(resolution))["handoff"]["id"]
    run_json(capsys, a, "handoff", "archive", first, "--reason", "start over")
    again = run_json(capsys, a, "merge", one, two, "--resolution-file", str(resolution))
    assert again["archived_duplicates"] == []
    assert {n["id"]: n for n in run_json(capsys, a, "lineage")["nodes"]}[first]["duplicate_of"] == []


def test_a_sync_that_brings_in_a_merge_duplicating_one_here_says_so(capsys, tmp_path):
    a, b, one, two, mine, theirs, _res = merged_unsynced(capsys, tmp_path)
    run_json(capsys, a, "sync")
    code, out, err = run(capsys, b, "sync")
    assert code == 0, err
    both = " and ".join(short_id(i) for i in sorted([mine, theirs]))
    assert (f"DUPLICATE MERGES of {' and '.join(short_id(p) for p in sorted([one, two]))}: {both} each merge them, "
            "made apart on clones that had not synced") in out


def test_a_sync_that_leaves_duplicate_merges_each_archived_apart_says_none_is_kept(capsys, tmp_path):
    _a, b, _one, _two, mine, theirs, _res = archived_before_b_syncs(capsys, tmp_path)
    code, out, err = run(capsys, b, "sync")
    assert code == 0, err
    both = " and ".join(short_id(i) for i in sorted([mine, theirs]))
    assert (f"{both}, made apart on clones that had not synced, were each archived apart: all archived: none kept "
            "(merge the parents again to keep one).") in out


def test_sync_json_lists_the_duplicate_merges_it_brought_to_light(capsys, tmp_path):
    _a, b, one, two, mine, theirs, _res = archived_before_b_syncs(capsys, tmp_path)
    assert run_json(capsys, b, "sync")["duplicate_merges"] == [
        {"merges": sorted([mine, theirs]), "parents": sorted([one, two]), "none_kept": True}]


def test_a_sync_that_brings_no_new_duplicate_says_nothing_of_those_already_told(capsys, tmp_path):
    a, b, _one, _two, _mine, _theirs, _res = merged_apart(capsys, tmp_path)
    run_json(capsys, b, "checkpoint", "create", "--title", "later", "--objective", "o", "--no-input")
    run_json(capsys, b, "sync")
    synced = run_json(capsys, a, "sync")
    assert synced["imported"] and synced["duplicate_merges"] == []


def test_the_sync_that_names_duplicate_merges_names_the_archive_that_works_on_a_teammates(capsys, tmp_path):
    a, b, _one, _two, mine, _theirs, _res = merged_unsynced(capsys, tmp_path, ("alice@example.com", "bob@example.com"))
    run_json(capsys, a, "sync")
    code, out, err = run(capsys, b, "sync")
    assert code == 0, err
    assert ("keep one and archive the others (`baton handoff archive ID`, with --not-mine for a merge another "
            "writer made: archiving it is refused as not yours without it") in out
    refused = run_json(capsys, b, "handoff", "archive", mine, "--reason", "dup", expect=4)
    assert refused["error"]["code"] == "handoff_not_yours"
    assert run_json(capsys, b, "handoff", "archive", mine, "--not-mine", "--reason", "dup")


def test_merging_again_names_the_archive_that_works_on_a_teammates_duplicate(capsys, tmp_path):
    a, _b, one, two, _mine, _theirs, resolution = merged_apart(capsys, tmp_path)
    code, _out, err = run(capsys, a, "merge", one, two, "--resolution-file", str(resolution))
    assert code == 2 and "with --not-mine for a merge another writer made" in err
