"""The ``lineage`` projection: folded from capture and revise events, equal after
incremental catch-up and after a full replay, whatever the history."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baton.cli_input import ContentOptions
from baton.commands.context import Project
from baton.errors import BatonError
from baton.projections.folds.lineage import Lineage
from baton.projections.lineage import EDGES_TABLE, FORKS_TABLE, NODES_TABLE
from baton.projections.runner import snapshot_equal
from tests.app_support import (
    _call,
    amend_handoff,
    fork_handoff,
    init_project,
    merge_handoffs,
    promote_handoff,
    validate_handoff_command,
)
from tests.handoff_support import payload

ops = st.lists(
    st.one_of(
        st.tuples(st.just("capture"), st.integers(0, 9), st.sampled_from(["Store: Redis", "Store: Postgres"])),
        st.tuples(st.just("fork"), st.integers(0, 9)),
        st.tuples(st.just("merge"), st.integers(0, 9), st.integers(0, 9)),
        st.tuples(st.just("amend"), st.integers(0, 9)),
        st.tuples(st.just("ready"), st.integers(0, 9)),
    ),
    min_size=1, max_size=6,
)


def _tables(runner):
    nodes = sorted(runner.db.execute(f"SELECT id, relation, branch_label, created_at FROM {NODES_TABLE}"))
    edges = sorted(runner.db.execute(f"SELECT parent, child, relation FROM {EDGES_TABLE}"))
    forks = sorted(runner.db.execute(f"SELECT parent FROM {FORKS_TABLE}"))
    assert forks == sorted(runner.db.execute(f"SELECT parent FROM {EDGES_TABLE} GROUP BY parent HAVING COUNT(*) > 1"))
    return nodes, edges, forks


def _apply(project, ids: list[str], op) -> None:
    kind = op[0]
    pick = (lambda n: ids[n % len(ids)]) if ids else None
    try:
        if kind == "capture":
            parent = pick(op[1]) if ids and op[1] % 2 else None
            body = payload(decisions=[{"id": "D-001", "decision": op[2]}])
            ids.append(_call(project, "capture", body, parent=parent).handoff_id)
        elif ids and kind == "fork":
            ids.append(fork_handoff(project, pick(op[1]), label=f"b{len(ids)}").handoff_id)
        elif ids and kind == "merge":
            ids.append(merge_handoffs(project, [pick(op[1]), pick(op[2])],
                                      resolution={"decision": "Store: Postgres"}).handoff_id)
        elif ids and kind == "amend":
            amended = amend_handoff(project, pick(op[1]), content=ContentOptions(decisions=["Store: SQLite"]))
            if amended.handoff_id not in ids:  # a ready record's amendment is a new child
                ids.append(amended.handoff_id)
        elif ids and kind == "ready":
            validate_handoff_command(project, pick(op[1]))
            promote_handoff(project, pick(op[1]), accept_warnings="synthetic test record")
    except BatonError:
        pass  # a refused command (merging one handoff, promoting a draft twice...) writes nothing


@settings(max_examples=6, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(ops=ops)
def test_catch_up_and_full_replay_build_the_same_graph(tmp_path_factory, ops):
    project = tmp_path_factory.mktemp("lineage")
    init_project(project)
    ids: list[str] = []
    for op in ops:
        _apply(project, ids, op)
    opened = Project.open(project)
    try:
        runner = opened.reading()
        before, tables = runner.snapshot()["lineage"], _tables(runner)
        assert set(before) == set(ids)
        with opened.ledger.locked():
            runner.rebuild()
        assert snapshot_equal({"l": runner.snapshot()["lineage"]}, {"l": before})
        assert _tables(runner) == tables
    finally:
        opened.close()


def test_a_node_keeps_relation_parents_label_and_decisions(project):
    parent = _call(project, "capture", payload()).handoff_id
    child = fork_handoff(project, parent, label="spike").handoff_id
    amend_handoff(project, child, content=ContentOptions(decisions=["Queue: SQS"]))
    opened = Project.open(project)
    try:
        runner = opened.reading()
        node = runner.get("lineage", child)
        assert (node["relation"], node["parents"], node["branch_label"]) == ("fork", [parent], "spike")
        assert [(d["id"], d["subject"], d["choice"]) for d in node["decisions"]] == [("D-001", "queue", "sqs")]
        assert _tables(runner)[1] == [(parent, child, "fork")]
    finally:
        opened.close()


def test_an_erased_capture_removes_the_node():
    from baton.ledger.envelope import EventDraft, seal

    projection = Lineage()
    draft = EventDraft("handoff.captured", "handoff/x", {"handoff": {"id": "x", "lineage": {"relation": "root"}}})
    event = seal(draft, event_id="0" * 36, writer="w", seq=1, at="2026-01-01T00:00:00.000000Z", hlc=1,
                 stream_version=1, prev=None)
    doc = projection.apply("x", None, event)
    assert doc["relation"] == "root"
    from baton.values import replace

    assert projection.apply("x", doc, replace(event, data=None)) is None
