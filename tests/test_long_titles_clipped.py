"""A title has no length limit; the text views clip it so one pasted document
is not the whole `handoff list` or `lineage` output. `--json` keeps it whole."""

from __future__ import annotations

from tests.cli_support import run, run_json

LONG = "Reject replayed callbacks " + "x" * 5000


def test_handoff_list_and_lineage_text_clip_a_long_title_json_keeps_it(project, capsys):
    made = run_json(capsys, project, "checkpoint", "create", "--no-input", "--title", LONG, "--objective", "o")
    code, listed, _ = run(capsys, project, "handoff", "list")
    assert code == 0
    assert "Reject replayed callbacks" in listed and "…" in listed and len(listed) < 300
    assert run_json(capsys, project, "handoff", "list")["handoffs"][0]["title"] == LONG
    code, tree, _ = run(capsys, project, "lineage")
    assert code == 0 and made["short_id"] in tree and len(tree) < 300
