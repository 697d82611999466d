"""Fork, merge, conflict candidates and the lineage views, through the application (spec §14, §22.7)."""

from __future__ import annotations

import json
import re

import pytest

from baton.cli_input import ContentOptions
from baton.commands.context import Project
from baton.errors import MergeUnresolved
from tests.app_support import (
    amend_handoff,
    capture_checkpoint,
    fork_handoff,
    lineage_view,
    list_handoffs,
    merge_handoffs,
    promote_handoff,
    resume_handoff,
    show_handoff,
    validate_handoff_command,
)
from tests.conftest import run_baton
from tests.handoff_support import baton, baton_json, ledger_lines, materialized, payload


def _ready(project, **overrides) -> str:
    from tests.app_support import _call

    handoff_id = _call(project, "capture", payload(**overrides)).handoff_id
    validate_handoff_command(project, handoff_id)
    promote_handoff(project, handoff_id, accept_warnings="synthetic test record")
    return handoff_id


def _child(project, parent, decision) -> str:
    from tests.app_support import _call

    return _call(project, "capture", payload(decisions=[{"id": "D-001", "decision": decision}]),
                 parent=parent).handoff_id


def _branches(project):
    parent = _ready(project)
    a = _child(project, parent, "Token store: Redis")
    b = _child(project, parent, "Token store: Postgres")
    return parent, a, b


def test_fork_creates_a_linked_draft_child_and_leaves_the_parent_untouched(project):
    parent = _ready(project)
    before = materialized(project)
    child = fork_handoff(project, parent, label="try-postgres")
    assert child.record["status"] == "draft"
    lineage = child.record["lineage"]
    assert (lineage["parents"], lineage["relation"], lineage["branch_label"]) == ([parent], "fork", "try-postgres")
    assert child.record["work"]["title"] == payload()["work"]["title"]
    after = materialized(project)
    assert {k: v for k, v in after.items() if k in before} == before
    assert len(after) == len(before) + 1


def test_two_continuations_with_contradicting_decisions_are_flagged_on_both(project):
    parent, a, b = _branches(project)
    listed = {row["id"]: row["conflicts"] for row in list_handoffs(project).to_json()["handoffs"]}
    assert len(listed[a]) == 1 and len(listed[b]) == 1 and listed[parent] == []
    assert listed[a][0]["basis"] == "id" and listed[a][0]["key"] == "D-001"
    report = validate_handoff_command(project, a)
    assert len(report.conflicts) == 1 and "CONFLICT CANDIDATES" in report.render()


def test_resume_shows_the_conflict_banner_before_the_next_actions(project):
    parent, a, b = _branches(project)
    validate_handoff_command(project, a)
    promote_handoff(project, a, accept_warnings="synthetic test record")
    brief = resume_handoff(project, a)
    text = brief.render()
    assert text.startswith("CONFLICT CANDIDATES")
    assert brief.to_json()["conflicts"][0]["key"] == "D-001"


def test_a_merge_is_refused_until_a_resolution_decision_is_supplied(project):
    parent, a, b = _branches(project)
    lines = ledger_lines(project)
    with pytest.raises(MergeUnresolved) as caught:
        merge_handoffs(project, [a, b])
    assert caught.value.exit_code == 3
    assert caught.value.details["conflicts"][0]["key"] == "D-001"
    assert ledger_lines(project) == lines


def test_a_merge_records_what_it_resolves_and_clears_the_candidates(project):
    parent, a, b = _branches(project)
    merged = merge_handoffs(project, [a, b], title="Tokens in Postgres",
                            resolution={"decision": "Keep tokens in Postgres", "rationale": "one store"})
    record = merged.capture.record
    assert record["lineage"]["relation"] == "merge" and record["lineage"]["parents"] == [a, b]
    assert record["lineage"]["merge_basis"] == [parent]
    assert [c["key"] for c in record["lineage"]["conflicts"]] == ["D-001"]
    [decision] = record["decisions"]
    assert decision["kind"] == "merge_resolution" and decision["resolves"] == ["D-001"]
    assert all(row["conflicts"] == [] for row in list_handoffs(project).to_json()["handoffs"])
    assert validate_handoff_command(project, merged.handoff_id).report["status"] in ("pass", "warn")


def test_merging_one_handoff_is_an_input_error(project):
    parent = _ready(project)
    result = baton(project, "merge", parent, parent, "--resolution-file", "-", input="anything")
    assert result.returncode == 2


def test_merging_a_handoff_with_its_own_ancestor_is_an_input_error(project):
    from baton.errors import InputError

    parent, a, b = _branches(project)
    with pytest.raises(InputError, match="ancestor") as caught:
        merge_handoffs(project, [parent, a], resolution={"decision": "Redis"})
    assert caught.value.exit_code == 2


def test_merging_the_same_handoffs_twice_is_refused_while_the_first_merge_stands(project):
    from baton.errors import InputError

    parent, a, b = _branches(project)
    first = merge_handoffs(project, [a, b], resolution={"decision": "Postgres"})
    lines = ledger_lines(project)
    with pytest.raises(InputError, match="already merges") as caught:
        merge_handoffs(project, [b, a], resolution={"decision": "Postgres again"})
    from baton.domain.handoff import short_id

    assert short_id(first.handoff_id) in str(caught.value)
    assert ledger_lines(project) == lines


def test_fork_with_an_empty_label_is_an_input_error(project):
    parent = _ready(project)
    result = baton(project, "fork", parent, "--label", "  ")
    assert result.returncode == 2 and "label" in result.stderr


def test_fork_with_a_label_over_the_limit_is_an_input_error(project):
    from baton.domain.limits import BRANCH_LABEL_MAX

    parent = _ready(project)
    lines = ledger_lines(project)
    result = baton(project, "fork", parent, "--label", "x" * (BRANCH_LABEL_MAX + 1))
    assert result.returncode == 2 and f"limit is {BRANCH_LABEL_MAX}" in result.stderr
    assert ledger_lines(project) == lines


def test_the_merge_command_exits_3_without_a_resolution_and_0_with_one(project, tmp_path):
    parent, a, b = _branches(project)
    refused = baton(project, "merge", a, b)
    assert refused.returncode == 3 and "resolution" in refused.stderr
    resolution = tmp_path / "resolution.json"
    resolution.write_text(json.dumps({"decision": "Postgres it is"}))
    out = baton_json(project, "merge", a, b, "--resolution-file", str(resolution))
    assert out["lineage"]["relation"] == "merge" and len(out["resolved_conflicts"]) == 1


def test_lineage_as_mermaid_names_every_edge(project):
    parent, a, b = _branches(project)
    result = baton(project, "lineage", "--format", "mermaid")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "graph TD"
    assert sum("-->|fork|" in line for line in lines) == 2


def test_lineage_text_is_a_tree_with_status_and_conflict_marks(project):
    parent, a, b = _branches(project)
    text = lineage_view(project, parent).render()
    first, second, third = text.splitlines()[:3]
    assert "ready" in first and second.startswith("  ") and "conflict candidate" in second


def test_lineage_of_one_handoff_shows_only_its_component(project):
    parent, a, b = _branches(project)
    other = _ready(project)
    view = lineage_view(project, a, format="json").to_json()
    assert {n["id"] for n in view["nodes"]} == {parent, a, b}
    assert other not in {n["id"] for n in view["nodes"]}


def test_lineage_as_of_an_event_answers_from_the_past_and_leaves_the_index_alone(project):
    parent = _ready(project)
    opened = Project.open(project)
    try:
        cut = opened.reading().get("streams", f"handoff/{parent}")["last_event"]
        snapshot = opened.reading().snapshot()
    finally:
        opened.close()
    a = fork_handoff(project, parent, label="a").handoff_id
    past = lineage_view(project, None, format="json", as_of=cut).to_json()
    assert [n["id"] for n in past["nodes"]] == [parent]
    assert past["as_of"] == cut
    now = lineage_view(project, None, format="json").to_json()
    assert {n["id"] for n in now["nodes"]} == {parent, a}
    opened = Project.open(project)
    try:
        assert opened.reading().pinned_until is None
        assert set(opened.reading().snapshot()["handoffs"]) == set(snapshot["handoffs"]) | {a}
    finally:
        opened.close()


def test_lineage_as_of_says_it_shows_no_freshness_rather_than_dropping_it_silently(project):
    _ready(project)
    text = lineage_view(project, None, as_of="2030-01-01T00:00:00Z").text()
    assert text.splitlines()[0].endswith("no fresh or stale: freshness is judged against the worktree now)")
    assert "fresh" not in text.splitlines()[1] and "stale" not in text.splitlines()[1]


def test_handoff_show_as_of_shows_the_record_as_it_was(project):
    handoff_id = capture_checkpoint(project, content=ContentOptions(
        title="Resumable OAuth", objective="Reject bad state", open_items=["Add the fixture"])).handoff_id
    opened = Project.open(project)
    try:
        cut = opened.reading().get("streams", f"handoff/{handoff_id}")["last_event"]
    finally:
        opened.close()
    amend_handoff(project, handoff_id, content=ContentOptions(title="Renamed"))
    assert show_handoff(project, handoff_id, as_of=cut).record["work"]["title"] == "Resumable OAuth"
    assert show_handoff(project, handoff_id).record["work"]["title"] == "Renamed"


def test_a_handoff_captured_after_the_as_of_point_is_said_not_to_exist_yet_not_to_match_nothing(project):
    parent = _ready(project)
    opened = Project.open(project)
    try:
        cut = opened.reading().get("streams", f"handoff/{parent}")["last_event"]
    finally:
        opened.close()
    later = fork_handoff(project, parent, label="later").handoff_id
    for command in (["handoff", "show"], ["lineage"]):
        error = baton_json(project, *command, later[-8:], "--as-of", cut, expect=4)["error"]
        assert error["code"] == "not_found"
        assert error["message"] == (f"handoff {later[-8:]} did not exist yet at {cut} "
                                    "(it was captured later; a later point shows it)")
        assert error["details"]["id"] == later
        # a token that names no handoff at all is still "no handoff matches"
        error = baton_json(project, *command, "zzzzzzzz", "--as-of", cut, expect=4)["error"]
        assert error["message"] == "no handoff matches 'zzzzzzzz'"


def test_as_of_a_malformed_point_is_an_input_error(project):
    _ready(project)
    result = baton(project, "lineage", "--as-of", "yesterday")
    assert result.returncode == 2


def _has_branches(project) -> bool:
    from baton.app import Baton
    from baton.projections.lineage import EDGES_TABLE, has_branches

    with Baton.open(project) as app:
        db = app.project.reading().db
        scanned = db.execute(f"SELECT 1 FROM {EDGES_TABLE} GROUP BY parent HAVING COUNT(*) > 1 LIMIT 1").fetchone()
        assert has_branches(db) == (scanned is not None)  # the kept fork rows agree with the edges
        return has_branches(db)


def test_a_branch_is_known_from_the_second_child_of_a_parent_and_gone_when_that_child_is_forgotten(project):
    from baton.app import Baton

    parent = _ready(project)
    _child(project, parent, "Token store: Redis")
    assert not _has_branches(project)
    second = _child(project, parent, "Token store: Postgres")
    assert _has_branches(project)
    with Baton.open(project) as app:
        app.forget(second, reason="test", yes=True)
    assert not _has_branches(project)


def test_the_fork_rows_of_an_index_from_before_them_are_filled_from_its_edges(project):
    from baton.app import Baton
    from baton.projections.lineage import FORKS_TABLE

    _branches(project)
    with Baton.open(project) as app:
        db = app.project.reading().db
        db.execute(f"DROP TABLE {FORKS_TABLE}")
        db.conn.commit()
    with Baton.open(project) as app:
        app.project.runner.close()
    assert _has_branches(project)


def test_an_empty_resolution_file_is_refused_as_an_empty_decision_not_as_a_missing_one(project, capsys):
    # `--resolution-file` was given: saying "give --resolution-file" would send
    # the user looking for the wrong mistake.
    from tests.cli_support import run, run_json

    a = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "A", "--objective", "o")["id"]
    b = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "B", "--objective", "o")["id"]
    for body in ("", "   \n", '{"decision": " "}'):
        empty = project / "empty.txt"
        empty.write_text(body)
        code, _out, err = run(capsys, project, "merge", a, b, "--resolution-file", str(empty))
        assert code == 3 and "has an empty decision" in err, (body, err)
    code, _out, err = run(capsys, project, "merge", a, b)
    assert code == 3 and "needs an explicit resolution decision: give --resolution-file" in err


MERMAID_CODES = {"quot": '"', "92": "\\", "35": "#", "lt": "<", "gt": ">", "amp": "&"}


def test_a_mermaid_label_keeps_quotes_and_backslashes_as_written_and_adds_no_edge(project):
    title = 'q"] --> X[" \\" \\\\'
    r = run_baton("checkpoint", "create", "--no-input", "--title", title, "--objective", "o",
                  "--project", str(project))
    assert r.returncode == 0, r.stderr
    result = baton(project, "lineage", "--format", "mermaid")
    assert result.returncode == 0, result.stderr
    [line] = [x for x in result.stdout.splitlines() if '["' in x]  # the one node's line
    node, label = line.split('["', 1)
    assert node.strip().startswith("n") and label.endswith('"]') and '"' not in label[:-2]  # one quoted label
    shown = re.sub(r"#(\w+);", lambda m: MERMAID_CODES[m.group(1)], label[:-2])
    assert shown.endswith(f": {title}")  # what mermaid shows: the title as written
    assert "-->" not in label and "/" not in label
