"""A merge's redactions name where the caller gave the secret, as a capture's do (docs/cli.md,
``baton merge``): the command line's flag (``--title``, ``--resolution-file``) beside the record
path, the MCP ``handoff_merge`` tool's argument path (``title``, ``resolution.rationale``) —
never the record path alone (``baton.domain.lineage.merge_given_as``)."""

from __future__ import annotations

import json

import pytest

from baton.domain.lineage import merge_given_as
from tests.cli_support import run, run_json

TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"  # synthetic: the shape of a GitHub token
PASSWORD = "password=Xy7kQ9pLm2vRt8Zw"  # the docs' own example of a redacted assignment


def _parents(capsys, project) -> tuple[str, str]:
    root = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", "root", "--objective", "o")["id"]
    return tuple(run_json(capsys, project, "fork", root)["id"] for _ in range(2))  # type: ignore[return-value]


def _resolution(project, **members) -> str:
    path = project / "resolution.json"
    path.write_text(json.dumps({"decision": "take the first", **members}))
    return str(path)


def test_a_merge_names_the_flag_each_redacted_secret_came_in(capsys, project):
    a, b = _parents(capsys, project)
    code, out, _ = run(capsys, project, "merge", a, b, "--title", f"token {TOKEN}",
                       "--resolution-file", _resolution(project, rationale=PASSWORD))
    assert code == 0
    assert "--title (work.title, github-token)" in out
    assert "--resolution-file (decisions[0].rationale, " in out
    assert TOKEN not in out and PASSWORD not in out


def test_a_merges_json_redactions_carry_the_flag_beside_the_record_path(capsys, project):
    a, b = _parents(capsys, project)
    out = run_json(capsys, project, "merge", a, b, "--resolution-file", _resolution(project, rationale=PASSWORD))
    assert [(r["field"], r["flag"]) for r in out["redactions"]] == [("decisions[0].rationale", "--resolution-file")]


@pytest.mark.anyio
async def test_the_mcp_merge_tool_names_the_argument_each_redacted_secret_came_in(capsys, project):
    from mcp import Client

    from baton.mcp_server import build_server

    a, b = _parents(capsys, project)
    async with Client(build_server(project)) as client:
        merged = await client.call_tool("handoff_merge", {"ids": [a, b], "title": f"token {TOKEN}",
                                                          "resolution": {"decision": "take the first",
                                                                         "rationale": PASSWORD}})
    assert not merged.is_error, merged.content
    named = {r["field"]: r.get("argument") for r in merged.structured_content["redactions"]}
    assert named == {"work.title": "title", "decisions[0].rationale": "resolution.rationale"}


@pytest.fixture
def anyio_backend():
    return "asyncio"


# -- where a merge child's field was given ----------------------------------------------------

RESOLUTION = {"decision": "d", "rationale": "r", "evidence": [{"claim": "c"}, "not a mapping", {"claim": "c2"}],
              "decisions": [{"decision": "x"}]}


@pytest.mark.parametrize("field, given", [
    ("work.title", "title"),
    ("decisions[0].decision", "resolution.decision"),
    ("decisions[0].rationale", "resolution.rationale"),
    ("decisions[1].decision", "resolution.decisions[0]"),
    ("summary.current_state", "resolution.decision"),
    ("evidence[1].claim", None),  # the parents' evidence comes first
    ("evidence[2].claim", "resolution.evidence[0]"),
    ("evidence[3].claim", "resolution.evidence[2]"),
    ("open_items[0].description", None),
    ("summary.completed[0]", None),
])
def test_a_merge_childs_field_is_named_by_where_the_caller_gave_it(field, given):
    assert merge_given_as(field, resolution=RESOLUTION, title="t", parent_evidence=2) == given


def test_a_current_state_given_is_named_as_itself():
    assert merge_given_as("summary.current_state", resolution={"decision": "d", "current_state": "s"}, title=None,
                          parent_evidence=0) == "resolution.current_state"
