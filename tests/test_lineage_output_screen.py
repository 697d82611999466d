"""``baton lineage`` never prints a secret, even one that reached the ledger
without passing capture's redaction (planted in a feed by hand, as a damaged
or hostile sync could bring it): every format goes through the output screen.

``--format json`` is screened as a document, string by string, exactly as
``--json`` (issue 27: screening its ~4 MB text as one string cost more than
building the view), so the two print the same document.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from baton.ledger import EventDraft, Ledger
from baton.ledger.ids import uuid7
from tests.app_support import _call
from tests.cli_support import run
from tests.handoff_support import payload
from tests.secret_corpus import secrets

PLANTED = [next(s for s in secrets() if s.rule == rule)
           for rule in ("github-token", "anthropic-api-key", "slack-token", "jwt")]


def _captured(project: Path, handoff_id: str) -> dict:
    [event] = [line for path in (project / ".baton" / "ledger").glob("*.jsonl")
               for line in map(json.loads, path.read_bytes().splitlines())
               if line["type"] == "handoff.captured" and line["data"]["handoff"]["id"] == handoff_id]
    return event["data"]


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> tuple[Path, list[str]]:
    """A captured root and two forks of it appended by hand by another writer,
    their titles, branch labels and contradicting decisions holding secrets."""
    from tests.app_support import init_project

    project = tmp_path_factory.mktemp("planted") / "project"
    project.mkdir()
    init_project(project)
    root_id = _call(project, "capture", payload()).handoff_id
    template = _captured(project, root_id)
    values = [s.value for s in PLANTED]
    drafts = []
    for n, value in enumerate(values[:2]):
        ident = uuid7()
        data = copy.deepcopy(template)
        record = data["handoff"]
        record["id"] = ident
        record["lineage"] = {"parents": [root_id], "relation": "fork", "merge_basis": [],
                             "branch_label": f"try {values[2 + n]}"}
        record["work"]["title"] = f"branch with {value} inside"
        record["decisions"] = [{"id": "D-001", "decision": f"Token store: use {value}",
                                "rationale": "planted"}]
        drafts.append(EventDraft("handoff.captured", f"handoff/{ident}", data))
    other = Ledger(project / ".baton", "other-machine", fsync="never")
    with other.locked() as txn:
        txn.append(drafts)
    other.close()
    stored = b"".join(p.read_bytes() for p in (project / ".baton" / "ledger").glob("*.jsonl"))
    assert all(v.encode() in stored for v in values), "the secrets must be in the feed for the test to mean anything"
    return project, values


@pytest.mark.parametrize("argv", [("lineage", "--format", "json"), ("lineage", "--format", "json", "--json"),
                                  ("lineage",), ("lineage", "--format", "mermaid"), ("lineage", "--format", "dot"),
                                  ("lineage", "--format", "mermaid", "--json")],
                         ids=["format-json", "format-json-json", "text", "mermaid", "dot", "mermaid-json"])
def test_a_secret_planted_in_a_feed_by_hand_is_never_printed_by_lineage(planted, capsys, argv):
    project, values = planted
    code, out, err = run(capsys, project, *argv)
    assert code == 0, (out, err)
    for value in values:
        assert value not in out and value not in err
    assert "[REDACTED:" in out


def test_lineage_format_json_prints_the_screened_document_of_lineage_json(planted, capsys):
    project, _values = planted
    _code, as_format, _err = run(capsys, project, "lineage", "--format", "json")
    _code, as_json, _err = run(capsys, project, "lineage", "--json")
    document = json.loads(as_format)
    assert document == json.loads(as_json)
    titles = sorted(n["title"] for n in document["nodes"])
    assert titles == ["Resumable OAuth callback validation", "branch with [REDACTED:anthropic-api-key] inside",
                      "branch with [REDACTED:github-token] inside"], titles
    labels = sorted(n["branch_label"] for n in document["nodes"] if n["branch_label"])
    assert labels == ["try [REDACTED:jwt]", "try [REDACTED:slack-token]"], labels
    [conflict] = document["conflicts"]
    assert {d["decision"] for d in conflict["decisions"]} == {
        "Token store: use [REDACTED:anthropic-api-key]", "Token store: use [REDACTED:github-token]"}
