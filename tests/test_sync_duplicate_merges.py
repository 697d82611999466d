"""Two identical merges made on two clones apart (tester-team23 T6; docs/lineage.md "Merging
the same handoffs on two clones"): both stand after ``baton sync``, and every clone marks each
as a duplicate of the other, in ``baton lineage`` (text and JSON) and in the refusal of a third
merge of the same parents, which names both.
"""

from __future__ import annotations

import json
from pathlib import Path

from baton.domain.handoff import short_id
from tests.cli_support import run, run_json
from tests.sync_support import make_team


def merged_apart(capsys, tmp_path: Path) -> tuple[Path, Path, str, str, str, str, Path]:
    """Alice forks one handoff twice and syncs; each clone merges the two forks apart; all sync.
    (a, b, fork 1, fork 2, a's merge, b's merge, the resolution file)."""
    _remote, a, b = make_team(tmp_path)
    parent = run_json(capsys, a, "checkpoint", "create", "--title", "plan", "--objective", "o", "--no-input")["id"]
    one = run_json(capsys, a, "fork", parent, "--label", "redis")["handoff"]["id"]
    two = run_json(capsys, a, "fork", parent, "--label", "postgres")["handoff"]["id"]
    run_json(capsys, a, "sync")
    run_json(capsys, b, "sync")
    resolution = tmp_path / "res.json"
    resolution.write_text(json.dumps({"decision": "take both", "rationale": "they agree"}))
    mine = run_json(capsys, a, "merge", one, two, "--resolution-file", str(resolution))["handoff"]["id"]
    theirs = run_json(capsys, b, "merge", one, two, "--resolution-file", str(resolution))["handoff"]["id"]
    for clone in (a, b, a):
        run_json(capsys, clone, "sync")
    return a, b, one, two, mine, theirs, resolution


def test_identical_merges_made_on_two_clones_are_each_marked_a_duplicate_of_the_other_in_lineage(capsys, tmp_path):
    a, b, _one, _two, mine, theirs, _res = merged_apart(capsys, tmp_path)
    for clone in (a, b):
        code, out, err = run(capsys, clone, "lineage")
        assert code == 0, err
        assert f"{short_id(mine)} merge" in out and f"!! duplicate merge of {short_id(theirs)}" in out
        assert f"{short_id(theirs)} merge" in out and f"!! duplicate merge of {short_id(mine)}" in out
        nodes = {n["id"]: n for n in run_json(capsys, clone, "lineage")["nodes"]}
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
