"""``baton lineage`` on a continuation chain deeper than Python's recursion limit,
through the real command line (issue 27 item 2; the domain's own 100,000-deep
chain is in tests/test_lineage_scale.py).

The chain is made cheaply but for real: one handoff captured through the
application, then its ``handoff.captured`` event cloned into a chain of
continuations (new ids, each naming the one before as its parent) appended to
the ledger by a second writer in a few batches, as another machine's sync
would bring them. The next command folds them like any other events.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

from baton.ledger import EventDraft, Ledger
from baton.ledger.ids import uuid7
from tests.app_support import _call
from tests.cli_support import run, run_json
from tests.handoff_support import payload

DEPTH = 2 * sys.getrecursionlimit() + 500


def chain(project: Path, depth: int) -> list[str]:
    """A captured root and ``depth - 1`` continuations, oldest first."""
    root_id = _call(project, "capture", payload()).handoff_id
    [captured] = [line for path in (project / ".baton" / "ledger").glob("*.jsonl")
                  for line in map(json.loads, path.read_bytes().splitlines())
                  if line["type"] == "handoff.captured" and line["data"]["handoff"]["id"] == root_id]
    template = captured["data"]
    ids, drafts = [root_id], []
    for n in range(1, depth):
        ident = uuid7()
        data = copy.deepcopy(template)
        record = data["handoff"]
        record["id"] = ident
        record["lineage"] = {"parents": [ids[-1]], "relation": "continue", "merge_basis": []}
        record["work"]["title"] = f"step {n}"
        ids.append(ident)
        drafts.append(EventDraft("handoff.captured", f"handoff/{ident}", data))
    other = Ledger(project / ".baton", "other-machine", fsync="never")
    for start in range(0, len(drafts), 500):
        with other.locked() as txn:
            txn.append(drafts[start:start + 500])
    other.close()
    return ids


@pytest.fixture(scope="module")
def deep(tmp_path_factory) -> tuple[Path, list[str]]:
    from tests.app_support import init_project

    project = tmp_path_factory.mktemp("deep") / "project"
    project.mkdir()
    init_project(project)
    return project, chain(project, DEPTH)


def test_lineage_text_of_a_chain_deeper_than_the_recursion_limit_lists_every_handoff_in_one_column(deep, capsys):
    project, ids = deep
    code, out, err = run(capsys, project, "lineage", "--limit", "0")
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == DEPTH
    assert all(not line.startswith(" ") for line in lines)  # a continuation chain keeps its column
    assert lines[1].endswith("step 1") and lines[-1].endswith(f"step {DEPTH - 1}")


def test_lineage_json_of_the_deep_chain_has_every_node_and_edge_and_no_conflict(deep, capsys):
    project, ids = deep
    view = run_json(capsys, project, "lineage", "--limit", "0", "--format", "json")
    assert [n["id"] for n in view["nodes"]] == ids
    assert len(view["edges"]) == DEPTH - 1 and view["conflicts"] == []


@pytest.mark.parametrize("fmt,arrow", [("mermaid", "-->"), ("dot", "->")])
def test_lineage_diagrams_of_the_deep_chain_draw_every_edge(deep, capsys, fmt, arrow):
    project, _ids = deep
    code, out, err = run(capsys, project, "lineage", "--limit", "0", "--format", fmt)
    assert code == 0, err
    assert out.count(arrow) >= DEPTH - 1


def test_lineage_of_the_deepest_handoff_walks_its_whole_line(deep, capsys):
    project, ids = deep
    view = run_json(capsys, project, "lineage", ids[-1], "--limit", "0", "--format", "json")
    assert len(view["nodes"]) == DEPTH and view["root"] == ids[-1]
